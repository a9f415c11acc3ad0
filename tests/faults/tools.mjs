// Part 4: tools. On a runtime of its own, with the Anthropic model stand-in
// (tests/e2e/standin_models.mjs) and the misbehaving MCP tool server of tools_server.mjs, every
// fault of that server's catalogue is met three ways: by reasoning runs whose scripted model calls
// the bad tool, by lookups that read through it, and by calls by hand (query_connection over HTTP,
// execute_connection over MCP), on the fault's own server (2026-07-28) and on the legacy one
// (2025-11-25, in a session). A fault that never answers in time is met by calls by hand with
// timeout_seconds 2, and by four runs in all, which wait out the 60-second call deadline together
// while everything else goes on.
//
// Then everything is read back. No run may be left started; each ended as its fault says (failed
// tool_failed, its history a tool_call_failed with the right because; a lookup whose tool answered
// its own error, tool_error); each call by hand answered `unavailable` naming the right because,
// and is in the playbook's history; every call reached its server once, and no model was asked
// again after its call got no answer. No 5xx but the 503s of `unavailable`, no panic in the log,
// and a normal run, lookup and call by hand still work before and after the faults.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { toolBody } from '../bench/mcp.mjs';
import { ANTHROPIC_KEY, startStandin } from '../e2e/standin_models.mjs';
import { panics, start } from './runtime.mjs';
import { ANSWER_MAX_BYTES, FAULTS, FLOOD_BYTES, startFaultyServer } from './tools_server.mjs';
import { allPages, api, isProblem, mcp, must, pool, send, sleep } from './wire.mjs';

const RUNS = 2; // reasoning runs and lookups of each fault that answers at once
const BY_HAND_TIMEOUT = 2; // timeout_seconds of a call by hand of a fault that never answers in time
const CALL_SECONDS = 60; // a function's call deadline (CALL_SECONDS, src/core/definition/reasoning/dialogue.rs)
const WIDTH = 8;
const RUN_TIMEOUT_MS = 150_000; // a run's start answers once its call ended: the 60 s deadline, and room
const SETTLE_MS = 120_000;
const NOTE = { note: 'fault' };
// The most a flood may send before the runtime hangs up: its bound, and what the sockets between hold.
const FLOOD_READ_MAX = 8 * ANSWER_MAX_BYTES;
const MiB = 1024 * 1024;
const ANSWERED = 'The tool answered, and this is what it said.';
const JSON_TYPE = { 'content-type': 'application/json' };
const KINDS = ['reasoning', 'lookup'];

const slug = (tool) => tool.replace(/_/g, '-');
const modelOf = (tool) => `fault-${slug(tool)}`;
const definitionOf = (kind, tool) => `${kind === 'reasoning' ? 'call' : 'read'}-${slug(tool)}`;
const runsOf = (fault, kind) => fault.runs?.[kind] ?? (fault.waits ? 0 : RUNS);

function reasoningSource(server, tool) {
  return `---
description: Calls the tool ${server}/${tool} once and says what it answered
model: anthropic/${modelOf(tool)}
input: { schema: { type: object } }
tools: [${server}/${tool}]
---
Call the tool ${tool} once, then say what it answered.
`;
}

function lookupSource(server, tool) {
  return `---
description: Reads through the tool ${server}/${tool}
input: { schema: { type: object } }
tool:
  name: ${server}/${tool}
  arguments: { note: fault }
---
`;
}

/**
 * Every request of the part goes through here, so that each answer's status is seen: a 5xx other
 * than a 503 problem document of reason `unavailable` is kept as a failure.
 */
function wire(base, playbook) {
  const serverErrors = [];
  let answers = 0;
  const note = (what, answer) => {
    answers += 1;
    const spec503 = answer.status === 503 && isProblem(answer) && answer.json.reason === 'unavailable';
    if (answer.status >= 500 && !spec503) serverErrors.push(`${what}: ${answer.status} ${answer.text.slice(0, 300)}`);
    return answer;
  };
  const root = `${base}/v1/orgs/local/playbooks/${playbook}`;
  return {
    serverErrors,
    answers: () => answers,
    post: async (path, body, timeoutMs) => note(`POST ${path}`,
      await send(`${root}${path}`, { method: 'POST', headers: JSON_TYPE, body: JSON.stringify(body), timeoutMs })),
    get: async (path, query = {}) => {
      const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null)).toString();
      return note(`GET ${path}`, await send(`${root}${path}${q ? `?${q}` : ''}`));
    },
    mcp: async (name, args) => {
      const answer = await mcp(base, toolBody(name, { playbook, ...args }));
      return { ...note(`MCP ${name}`, answer), message: answer.message };
    },
  };
}

/** Scripts the stand-in model of `tool`: it calls the tool, then answers. */
async function script(standin, tool) {
  const res = await fetch(`${standin.url}/__script`, {
    method: 'POST',
    body: JSON.stringify({ model: modelOf(tool), turns: [{ tool_calls: [{ name: tool, input: NOTE }] }, { text: ANSWERED }] }),
  });
  if (res.status !== 200) throw new Error(`scripting ${modelOf(tool)}: ${res.status} ${await res.text()}`);
}

/** How many requests the stand-in had for the model of `tool`. */
const asked = (standin, tool) => fetch(`${standin.url}/__requests?model=${modelOf(tool)}`).then((r) => r.json()).then((l) => l.length);

/** Saves the reasoning function and the lookup of a tool of `server`. */
async function defineBoth(w, server, tool) {
  for (const [kind, source] of [['reasoning', reasoningSource(server, tool)], ['lookup', lookupSource(server, tool)]]) {
    must(await w.post(`/definitions/${kind}`, {
      name: definitionOf(kind, tool), source, diagram: 'flowchart LR\n  A[input] --> B[tool] --> C[output]',
      overview: `The ${kind} ${definitionOf(kind, tool)} of the fault harness meets the tool ${server}/${tool} once.`,
    }), `create ${kind}/${definitionOf(kind, tool)}`);
  }
}

/** Starts one run of `kind` that calls `tool` and waits for its answer. */
async function startRun(w, kind, tool, runId) {
  const t0 = Date.now();
  try {
    const answer = await w.post(`/definitions/${kind}/${definitionOf(kind, tool)}/run`, { input: {}, run_id: runId }, RUN_TIMEOUT_MS);
    return { kind, runId, status: answer.status, text: answer.text, json: answer.json, ms: Date.now() - t0 };
  } catch (error) {
    return { kind, runId, status: 0, text: `no answer: ${error.cause?.code ?? error.message}`, json: null, ms: Date.now() - t0 };
  }
}

/**
 * One call by hand of `tool` on `door`: query_connection over HTTP, or execute_connection over MCP.
 * Answers how it was answered: the problem it was refused with, or the tool's answer.
 */
async function callByHand(w, door, tool, over, timeout) {
  const args = { arguments: NOTE, ...(timeout ? { timeout_seconds: timeout } : {}) };
  const t0 = Date.now();
  const call = { door, tool, over, timeout };
  try {
    if (over === 'http') {
      const answer = await w.post(`/tool-servers/${door}/tools/${tool}/query`, args);
      const problem = isProblem(answer) ? answer.json : null;
      return { ...call, status: answer.status, problem, value: problem ? null : answer.json ?? null, text: answer.text, ms: Date.now() - t0 };
    }
    const answer = await w.mcp('execute_connection', { server: door, tool, ...args });
    const result = answer.message?.result;
    let problem = null;
    if (result?.isError) {
      try { problem = JSON.parse(result.content?.[1]?.text ?? ''); } catch { problem = { unreadable: result.content }; }
    }
    return { ...call, status: answer.status, problem, value: result && !result.isError ? result.structuredContent : null, text: answer.text, ms: Date.now() - t0 };
  } catch (error) {
    return { ...call, status: 0, problem: null, value: null, text: `no answer: ${error.cause?.code ?? error.message}`, ms: Date.now() - t0 };
  }
}

/** What a call by hand came to, in a few words for the table, and whether it is what its fault says. */
function judgeByHand(fault, c) {
  const within = c.timeout ? new RegExp(`within ${c.timeout} second`) : null;
  if (fault.because === null) {
    const good = c.status === 200 && c.value?.is_error === true && c.value?.outcome === 'error' && fault.says.test(c.value?.text ?? '');
    return { said: c.value ? `${c.status} answered, is_error ${c.value.is_error}` : `${c.status} ${c.problem?.reason ?? 'no answer'}`, good };
  }
  const p = c.problem;
  const status = c.over === 'http' ? 503 : 200;
  const good = c.status === status && p?.reason === 'unavailable' && p?.kind === 'tool_unavailable'
    && p.detail.includes(`(${fault.because})`) && fault.says.test(p.detail) && (!within || within.test(p.detail));
  const because = p?.detail?.match(/\((\w+)\)/)?.[1] ?? '?';
  return { said: p ? `${p.reason} (${because})` : `${c.status} ${c.text.slice(0, 60)}`, good };
}

/** A run read back, with its history: how it ended and what its call's event says. */
async function readRun(w, r) {
  const got = await w.get(`/runs/${r.runId}`);
  const run = got.json ?? {};
  const events = got.status === 200 ? await allPages(w, '/events', 'events', { run_id: r.runId, limit: 100 }) : [];
  return { ...r, run, ended: run.status, reason: run.error?.reason ?? null, events };
}

/** Whether a run ended as its fault says, and why not. */
function judgeRun(fault, r) {
  const call = r.events.find((e) => e.kind === 'tool_call_failed' || e.kind === 'tool_call_answered');
  if (fault.because === null) {
    // The tool's own error is an answer: the model reads it; a lookup fails with it.
    const answeredError = call?.kind === 'tool_call_answered' && call.data.is_error === true;
    const good = r.kind === 'reasoning'
      ? r.ended === 'succeeded' && r.run.output === ANSWERED && answeredError
      : r.ended === 'failed' && r.reason === 'tool_error' && fault.says.test(r.run.error?.detail ?? '') && answeredError;
    return good ? null : `${r.runId}: ${r.ended} ${r.reason ?? ''}, call event ${call?.kind ?? 'none'} ${JSON.stringify(call?.data ?? {}).slice(0, 200)}`;
  }
  const detail = call?.data?.detail ?? '';
  const deadline = fault.waits ? new RegExp(`within ${CALL_SECONDS} seconds`).test(detail) : true;
  const good = r.ended === 'failed' && r.reason === 'tool_failed' && call?.kind === 'tool_call_failed'
    && call.data.because === fault.because && fault.says.test(detail) && deadline
    && (r.run.error?.detail ?? '').includes(fault.because);
  return good ? null : `${r.runId}: ${r.ended} ${r.reason ?? ''}, call event ${call?.kind ?? 'none'} ${JSON.stringify(call?.data ?? {}).slice(0, 300)}`;
}

/** A normal reasoning run, lookup and call by hand, through the good server: the failures they show. */
async function normalWorks(w, label) {
  const failed = [];
  const reasoning = await startRun(w, 'reasoning', 'echo', `normal-reasoning-${label}`);
  if (reasoning.json?.status !== 'succeeded' || reasoning.json.output !== ANSWERED) failed.push(`reasoning run: ${reasoning.status} ${reasoning.text.slice(0, 300)}`);
  const lookup = await startRun(w, 'lookup', 'echo', `normal-lookup-${label}`);
  if (lookup.json?.status !== 'succeeded' || lookup.json.output?.text !== NOTE.note) failed.push(`lookup: ${lookup.status} ${lookup.text.slice(0, 300)}`);
  const call = await callByHand(w, 'good', 'echo', 'http');
  if (call.status !== 200 || call.value?.text !== NOTE.note || call.value?.is_error !== false) failed.push(`call by hand: ${call.status} ${call.text.slice(0, 300)}`);
  return failed;
}

/** Waits until no run of the playbook is started, or SETTLE_MS passed; answers those still started. */
async function settle(w) {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const listed = await allPages(w, '/runs', 'runs', { status: 'started', limit: 100 });
    const started = (await pool(listed, 8, async (r) => (await w.get(`/runs/${r.run_id}`)).json))
      .filter((run) => run?.status === 'started').map((run) => run.run_id);
    if (started.length === 0 || Date.now() > deadline) return started;
    await sleep(1_000);
  }
}

/** Counts of `labels`, as "2 × a, 1 × b". */
function tally(labels) {
  const counts = new Map();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts].map(([l, n]) => `${n} × ${l}`).join(', ') || '—';
}

export async function tools({ say }) {
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-tools-'));
  const logs = [];
  let rt = null;
  const bad = await startFaultyServer();
  const standin = await startStandin('anthropic', ANTHROPIC_KEY);
  try {
    const settings = Object.fromEntries(bad.doors.map((door) => [door, { type: 'mcp', url: bad.url(door), allowed: '*' }]));
    rt = await start(stateDir, logs, {
      ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: standin.url, TOOL_SERVERS: JSON.stringify(settings),
    });
    const t0 = Date.now();
    const playbook = must(await api(rt.url).post('', { name: 'faults tools' }), 'create_playbook').id;
    const w = wire(rt.url, playbook);
    await defineBoth(w, 'good', 'echo');
    await script(standin, 'echo');
    for (const fault of FAULTS) {
      if (runsOf(fault, 'reasoning') + runsOf(fault, 'lookup') === 0) continue;
      await defineBoth(w, fault.family, fault.tool);
      await script(standin, fault.tool);
    }
    const before = await normalWorks(w, 'before');
    say(`tools: ${FAULTS.length} faults on ${bad.doors.length} servers, a normal run and call ${before.length ? 'FAILED' : 'worked'} before them`);

    // The runs that wait out the call deadline start first, and the rest goes on meanwhile.
    const runPlan = FAULTS.flatMap((fault) => KINDS.flatMap((kind) =>
      Array.from({ length: runsOf(fault, kind) }, (_, i) => ({ fault, kind, runId: `${kind[0]}-${slug(fault.tool)}-${i + 1}` }))));
    const waiting = runPlan.filter((p) => p.fault.waits);
    const waited = Promise.all(waiting.map(async (p) => ({ ...p, ...(await startRun(w, p.kind, p.fault.tool, p.runId)) })));
    say(`tools: ${waiting.length} runs wait out the ${CALL_SECONDS}-second call deadline meanwhile`);
    const quick = await pool(runPlan.filter((p) => !p.fault.waits), WIDTH,
      async (p) => ({ ...p, ...(await startRun(w, p.kind, p.fault.tool, p.runId)) }));
    const handPlan = FAULTS.flatMap((fault) => [fault.family, 'legacy'].flatMap((door) =>
      ['http', 'mcp'].map((over) => ({ fault, door, over }))));
    const hands = await pool(handPlan, WIDTH, async (p) => ({ fault: p.fault, ...(await callByHand(w, p.door, p.fault.tool, p.over, p.fault.waits ? BY_HAND_TIMEOUT : undefined)) }));
    say(`tools: ${quick.length} runs and ${hands.length} calls by hand answered; waiting for the ${waiting.length} runs at the deadline`);
    const starts = [...quick, ...(await waited)];
    const stillStarted = await settle(w);

    // Read back: each run and its history, the calls by hand in the playbook's history.
    const runs = await pool(starts, 8, async (s) => ({ ...(await readRun(w, s)), fault: s.fault }));
    const history = await allPages(w, '/events', 'events', { kind: 'tool_called', limit: 100 });
    const after = await normalWorks(w, 'after');
    const search = await w.get('/tool-servers/search', { limit: 100 });
    const unavailable = (search.json?.servers ?? []).filter((s) => s.available !== true).map((s) => `${s.name}: ${s.because}`);
    const reached = bad.calls();
    const floods = bad.floods();
    const askedOf = Object.fromEntries(await Promise.all(FAULTS.map(async (f) => [f.tool, await asked(standin, f.tool)])));
    const seconds = (Date.now() - t0) / 1000;
    await rt.stop();
    rt = null;
    const panicked = panics(logs);

    // ---- what each fault came to ----
    const wrongRuns = [];
    const wrongHands = [];
    const notRecorded = [];
    const reachedOtherwise = [];
    const askedOtherwise = [];
    const rows = FAULTS.map((fault) => {
      const own = runs.filter((r) => r.fault === fault);
      const byHand = hands.filter((c) => c.fault === fault);
      for (const r of own) {
        const why = judgeRun(fault, r);
        if (why) wrongRuns.push({ fault, why });
      }
      const handSaid = byHand.map((c) => {
        const j = judgeByHand(fault, c);
        if (!j.good) wrongHands.push(`${c.over} ${c.door}/${c.tool}: ${c.status} ${c.text.slice(0, 300)}`);
        return j.said;
      });
      for (const door of [fault.family, 'legacy']) {
        const made = byHand.filter((c) => c.door === door).length;
        const kept = history.filter((e) => e.data.server === door && e.data.tool === fault.tool);
        const right = kept.filter((e) => (fault.because === null ? e.data.is_error === true : e.data.because === fault.because));
        if (kept.length !== made || right.length !== made) {
          notRecorded.push(`${door}/${fault.tool}: ${made} calls by hand, ${kept.length} tool_called events, ${right.length} with because ${fault.because ?? 'none (is_error)'}`);
        }
        const expected = made + (door === fault.family ? own.length : 0);
        if ((reached[`${door}/${fault.tool}`] ?? 0) !== expected) {
          reachedOtherwise.push(`${door}/${fault.tool}: made ${expected}, the server received ${reached[`${door}/${fault.tool}`] ?? 0}`);
        }
      }
      const reasoning = own.filter((r) => r.kind === 'reasoning').length;
      const turns = reasoning * (fault.because === null ? 2 : 1);
      if (askedOf[fault.tool] !== turns) askedOtherwise.push(`${modelOf(fault.tool)}: asked ${askedOf[fault.tool]} times for ${reasoning} runs`);
      return {
        family: fault.family,
        tool: fault.tool,
        does: fault.does,
        because: fault.because ?? '— (its own error)',
        runs: `${reasoning} + ${own.length - reasoning}`,
        ended: tally(own.map((r) => `${r.ended ?? 'unread'}${r.reason ? ` ${r.reason}` : ''}`)),
        byHand: byHand.length,
        answered: tally(handSaid),
        longestSeconds: Math.max(0, ...own.map((r) => r.ms), ...byHand.map((c) => c.ms)) / 1000,
      };
    });

    const some = (list) => `${list.length}: ${list.slice(0, 5).join(' ;; ')}`;
    const check = (name, pass, detail = '') => ({ part: 'tools', name, ok: Boolean(pass), detail });
    const wrong = (which) => wrongRuns.filter((r) => which(r.fault)).map((r) => r.why);
    const checks = [
      check('a normal run, lookup and call by hand worked before the faults', before.length === 0, before.join('; ')),
      check('every run\'s start was answered', starts.every((s) => s.status === 200), some(starts.filter((s) => s.status !== 200).map((s) => `${s.runId}: ${s.status} ${s.text.slice(0, 200)}`))),
      check('no run is left started once the part settles', stillStarted.length === 0 && runs.every((r) => r.ended !== 'started'), some(stillStarted)),
      check('each run whose call got no answer failed tool_failed, its history a tool_call_failed with the fault\'s because and words',
        wrong((f) => f.because !== null && !f.waits).length === 0, some(wrong((f) => f.because !== null && !f.waits))),
      check(`each run that waited out the call deadline failed so, its words that it gave no answer within ${CALL_SECONDS} seconds`,
        waiting.length > 0 && wrong((f) => f.waits).length === 0, some(wrong((f) => f.waits))),
      check('a tool\'s own error is read by the model (the run succeeds) and fails a lookup with tool_error',
        wrong((f) => f.because === null).length === 0, some(wrong((f) => f.because === null))),
      check('each call by hand answered unavailable (503 over HTTP, a tool error over MCP) naming the fault\'s because, or the tool\'s own error as an answer',
        wrongHands.length === 0, some(wrongHands)),
      check('each call by hand is in the playbook\'s history (tool_called) with its because', notRecorded.length === 0, some(notRecorded)),
      check(`a flood of ${FLOOD_BYTES / MiB} MiB without a Content-Length is given up near the ${ANSWER_MAX_BYTES / MiB} MiB bound: ` +
        `each sent at most ${FLOOD_READ_MAX / MiB} MiB before the runtime hung up`,
      floods.length > 0 && floods.every((b) => b <= FLOOD_READ_MAX), `${floods.length} floods sent ${floods.map((b) => (b / MiB).toFixed(1)).join(', ')} MiB`),
      check('every call reached its server exactly once: none was made again', reachedOtherwise.length === 0, some(reachedOtherwise)),
      check('no model was asked again after its call got no answer', askedOtherwise.length === 0, some(askedOtherwise)),
      check('no 5xx but the 503s of unavailable', w.serverErrors.length === 0, some(w.serverErrors)),
      check('no panic in the Worker\'s log', panicked.length === 0, some(panicked)),
      check('a normal run, lookup and call by hand work after the faults', after.length === 0, after.join('; ')),
      check('search lists every server available after the faults', search.status === 200 && unavailable.length === 0 && (search.json?.servers ?? []).length === bad.doors.length,
        `${search.status}: ${unavailable.join('; ')}`),
    ];
    say(`tools: ${runs.length} runs, ${hands.length} calls by hand in ${seconds.toFixed(0)} s; ${checks.filter((c) => !c.ok).length} checks failed`);
    return {
      stats: {
        rows,
        servers: bad.doors.length,
        runs: runs.length,
        waited: waiting.length,
        byHand: hands.length,
        answers: w.answers(),
        seconds,
        byHandTimeout: BY_HAND_TIMEOUT,
        floods: floods.length,
        floodedMost: Math.max(0, ...floods),
        floodBytes: FLOOD_BYTES,
        callSeconds: CALL_SECONDS,
        panics: panicked.length,
      },
      checks,
    };
  } finally {
    await rt?.stop();
    await bad.close();
    await standin.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
