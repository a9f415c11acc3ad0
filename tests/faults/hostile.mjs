// Part 2: hostile requests. A fresh runtime takes at least 10,000 malformed or hostile requests
// (hostile_cases.mjs makes them), 16 at a time, in batches of 500. Each answer is sorted: a 4xx
// with a problem document, a refusal in MCP's shape (a JSON-RPC error, or a tool result with
// isError), another 4xx, a 2xx, no answer, or a 5xx — which fails the part. After each batch a
// normal request must still succeed, and at the end the Worker's log must hold no panic.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { callMethod, readAnswer } from '../bench/mcp.mjs';
import { cases, routesFromSource } from './hostile_cases.mjs';
import { ADD_VAT, ANSWER, createPlaybook, VAT_INPUT, VAT_OUTPUT } from './playbook.mjs';
import { panics, start } from './runtime.mjs';
import { api, isProblem, must, pool, random, send } from './wire.mjs';

const WIDTH = 16;
const BATCH = 500;
const CLASSES = ['problem', 'mcp', 'other4xx', 'ok', 'noAnswer', 'server'];

/** The JSON-RPC message(s) of an MCP answer, from an event stream or a JSON body; none from anything else. */
function messageOf(answer) {
  try {
    return readAnswer(answer.text);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error, a tool failure, or a batch of nothing but those. */
function refusedInMcpShape(message) {
  if (Array.isArray(message)) return message.length > 0 && message.every(refusedInMcpShape);
  return Boolean(message && message.jsonrpc === '2.0' && (message.error || message.result?.isError === true));
}

/** Sorts one answer into its class. An answer to HEAD has no body: its content type must say problem. */
function classify(answer, method) {
  if (answer.status >= 500) return 'server';
  if (answer.status >= 400 && isProblem(answer)) return 'problem';
  if (method === 'HEAD' && answer.status >= 400 && answer.contentType.startsWith('application/problem+json')) return 'problem';
  if (refusedInMcpShape(messageOf(answer))) return 'mcp';
  if (answer.status >= 200 && answer.status < 300) return 'ok';
  return 'other4xx';
}

/** One line that names a case, short enough for a report. */
function describe(c) {
  const body = typeof c.body === 'function' ? '<streamed body>' : c.body === undefined ? '' : String(c.body);
  const headers = Object.entries(c.headers ?? {}).map(([k, v]) => `${k}: ${String(v).slice(0, 40)}`).join('; ');
  return `${c.method} ${c.path.slice(0, 120)} [${headers.slice(0, 160)}] ${body.slice(0, 160)}${body.length > 160 ? `… (${body.length} chars)` : ''}`;
}

/** Sends one case; answers its class and the answer (or the error that stood for one). */
async function attempt(base, c) {
  try {
    const answer = await send(`${base}${c.path}`, {
      method: c.method, headers: c.headers, body: typeof c.body === 'function' ? c.body() : c.body,
    });
    return { cls: classify(answer, c.method), answer };
  } catch (error) {
    return { cls: 'noAnswer', answer: { status: 0, contentType: '', text: String(error.cause?.code ?? error.cause?.message ?? error.message) } };
  }
}

/** The normal requests that must succeed between batches: a read, the tool list, a run. */
async function normalRequestsSucceed(base, probe) {
  try {
    const pb = must(await api(base, probe).get(''), 'get_playbook');
    const tools = await callMethod(base, 'tools/list');
    const run = must(await api(base, probe).post('/definitions/computation/add-vat/run', { input: VAT_INPUT }), 'run_definition');
    const good = pb.id === probe && tools.tools.length > 0 && run.status === 'succeeded'
      && JSON.stringify(run.output) === JSON.stringify(VAT_OUTPUT);
    return good ? null : `unexpected answers: ${JSON.stringify({ pb: pb.id, tools: tools.tools.length, run: run.status })}`;
  } catch (error) {
    return String(error.message ?? error).slice(0, 400);
  }
}

/** The target playbook's known things, which the cases name: a run, a waiting run, an asking run, an event. */
async function knownThings(base, seed) {
  const playbook = await createPlaybook(base, `faults hostile ${seed}`, { workflows: true });
  const client = api(base, playbook);
  must(await client.post('/definitions/computation/add-vat/run', { input: VAT_INPUT, run_id: 'known-run' }), 'known run');
  must(await client.post('/definitions/workflow/await-go/run', { input: {}, run_id: 'known-wait' }), 'known waiting run');
  must(await client.post('/definitions/interaction/confirm/run', { input: {}, run_id: 'known-ask' }), 'known asking run');
  const event = must(await client.post('/events', { kind: 'fault_probe', data: { answer: ANSWER } }), 'known event');
  return { playbook, run: 'known-run', waitingRun: 'known-wait', askingRun: 'known-ask', event: event.event_id, source: ADD_VAT, tag: seed };
}

export async function hostile({ say, seed, least = 10_000 }) {
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-hostile-'));
  const logs = [];
  let rt = null;
  try {
    rt = await start(stateDir, logs);
    const base = rt.url;
    const tools = (await callMethod(base, 'tools/list')).tools;
    const routes = routesFromSource();
    const known = await knownThings(base, seed);
    // The probe playbook is named by no case, so what the cases did to the target cannot fail its reads.
    const probe = await createPlaybook(base, `faults probe ${seed}`);
    const ctx = { tools, routes, known, rng: random(seed ^ 0x5eed) };

    const families = new Map();
    const tally = (family, cls) => {
      if (!families.has(family)) families.set(family, Object.fromEntries([['family', family], ['sent', 0], ...CLASSES.map((k) => [k, 0])]));
      const row = families.get(family);
      row.sent += 1;
      row[cls] += 1;
    };
    const failures = { server: [], noAnswer: [], normal: [] };
    const notes = new Map();
    let normalChecks = 0;
    let sent = 0;
    const all = cases(ctx, least);
    const takeBatch = () => {
      const batch = [];
      for (let next = all.next(); !next.done; next = all.next()) {
        batch.push(next.value);
        if (batch.length === BATCH) break;
      }
      return batch;
    };
    const t0 = Date.now();
    for (let batch = takeBatch(); batch.length > 0; batch = takeBatch()) {
      await pool(batch, WIDTH, async (c) => {
        const { cls, answer } = await attempt(base, c);
        tally(c.family, cls);
        const seen = `${answer.status} ${answer.text.slice(0, 200)}`;
        if (cls === 'server') failures.server.push(`${describe(c)} → ${seen}`);
        if (cls === 'noAnswer') failures.noAnswer.push(`${describe(c)} → ${seen}`);
        // The first answer of each family in no refusal shape, and its first success, for a reader to judge.
        const key = cls === 'other4xx' ? `${c.family} ${answer.status}` : `${c.family} 2xx`;
        if ((cls === 'other4xx' || cls === 'ok') && !notes.has(key)) {
          notes.set(key, `${cls === 'ok' ? '2xx' : 'other 4xx'} in ${c.family}: ${describe(c).slice(0, 200)} → ${seen.slice(0, 160)}`);
        }
      });
      sent += batch.length;
      normalChecks += 1;
      const broken = await normalRequestsSucceed(base, probe);
      if (broken) failures.normal.push(`after case ${sent}: ${broken}`);
      say(`hostile: ${sent} sent (${(sent / ((Date.now() - t0) / 1000)).toFixed(0)}/s), ${failures.server.length} 5xx, ` +
        `${failures.noAnswer.length} without answer, ${failures.normal.length} normal requests failed`);
    }
    await rt.stop();
    rt = null;
    const panicked = panics(logs);

    const rows = [...families.values()];
    const total = Object.fromEntries([['sent', sent], ...CLASSES.map((k) => [k, rows.reduce((t, r) => t + r[k], 0)])]);
    const parsedTools = new Set(routes.map((r) => r.tool));
    const unrouted = tools.map((t) => t.name).filter((name) => !parsedTools.has(name));
    const some = (list) => list.slice(0, 5).join(' ;; ');
    const check = (name, pass, detail = '') => ({ part: 'hostile', name, ok: Boolean(pass), detail });
    const checks = [
      check(`at least ${least.toLocaleString('en-US')} hostile requests were sent`, sent >= least, `${sent}`),
      check('every tool of tools/list has an HTTP route the harness read from src/tools', unrouted.length === 0, unrouted.join(', ')),
      check('no 5xx', failures.server.length === 0, `${failures.server.length}: ${some(failures.server)}`),
      check('every request got an answer', failures.noAnswer.length === 0, `${failures.noAnswer.length}: ${some(failures.noAnswer)}`),
      check(`a normal request succeeded after every ${BATCH} cases and at the end`, failures.normal.length === 0, some(failures.normal)),
      check('no panic in the Worker\'s log', panicked.length === 0, some(panicked)),
    ];
    return {
      stats: {
        families: rows, total, routes: routes.length, tools: tools.length, width: WIDTH, every: BATCH,
        normalChecks, normalPassed: normalChecks - failures.normal.length, panics: panicked.length, notes: [...notes.values()],
      },
      checks,
    };
  } finally {
    await rt?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
