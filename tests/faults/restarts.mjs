// Part 1: restarts. One state directory; the runtime is started, driven with traffic for a random
// 1 to 6 seconds (workflow runs, interaction runs, answers, run events, playbook events, and
// triggers falling due), then killed with SIGKILL while requests are still in flight — twenty
// times. It is started once more, and restarts_verify.mjs checks that what was acknowledged (a 2xx
// answer) is all there. Last, every run start a kill cut off is retried under its run id, as a
// client that never got its answer would: each must answer 2xx.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ANSWER, createPlaybook } from './playbook.mjs';
import { settle, verify } from './restarts_verify.mjs';
import { killHard, panics, start } from './runtime.mjs';
import { api, must, ok, pool, random, sleep } from './wire.mjs';

const WORKERS = 3; // requests in flight at once while a runtime serves
const MAX_ACTIONS = 150; // per cycle, so the state to check stays bounded whatever the machine's speed

/** What the harness was told was done: only 2xx answers count. */
function newRecord() {
  return {
    runs: new Map(), // run_id → the function or workflow it runs
    awaiting: [], // await-go runs, to send `go` to
    goSent: new Set(),
    events: new Set(), // event ids of publish_event
    answered: new Set(), // run ids of interactions answered
    cutOffStarts: [], // run_definition calls a kill cut off: [run_id, type, name]
    sent: 0,
    acknowledged: 0,
    cutOff: 0, // no answer: the runtime was killed with the request in flight
    killing: false, // the kill of this cycle's runtime has begun
    proxy5xx: 0, // 5xx answers that came as the kill landed: wrangler's proxy, not the Worker
    refused: new Map(), // status → count, for answers other than 2xx
    serverErrors: [], // 5xx answers while serving: a failure, not a restart's doing
  };
}

/** One request of the traffic: sends it and files the answer. Answers {json} when acknowledged, {cutOff} when none came. */
async function attempt(record, request) {
  record.sent += 1;
  let answer;
  try {
    answer = await request();
  } catch {
    record.cutOff += 1;
    return { cutOff: true };
  }
  if (ok(answer)) {
    record.acknowledged += 1;
    return { json: answer.json };
  }
  if (answer.status >= 500 && record.killing) {
    // wrangler's proxy outlives workerd by a moment and says "Your worker restarted mid-request".
    record.cutOff += 1;
    record.proxy5xx += 1;
    return { cutOff: true };
  }
  record.refused.set(answer.status, (record.refused.get(answer.status) ?? 0) + 1);
  if (answer.status >= 500) record.serverErrors.push(`${answer.status} ${answer.text.slice(0, 300)}`);
  return {};
}

/** The kinds of traffic, with their weights. Each acknowledged call is written into the record. */
function actions(client, record, rng, cycle) {
  let n = 0;
  const runOf = (type, name, letter) => async () => {
    const runId = `c${cycle}-${letter}${(n += 1)}`;
    const { json, cutOff } = await attempt(record, () => client.post(`/definitions/${type}/${name}/run`, { input: {}, run_id: runId }));
    if (cutOff) record.cutOffStarts.push([runId, type, name]);
    if (!json) return;
    record.runs.set(runId, name);
    if (name === 'await-go') record.awaiting.push(runId);
  };
  const publish = async () => {
    const { json } = await attempt(record, () => client.post('/events', { kind: 'fault_tick', data: { cycle } }));
    if (json) record.events.add(json.event_id);
  };
  const sendGo = async () => {
    const runId = record.awaiting.find((r) => !record.goSent.has(r) && rng.next() < 0.5);
    if (!runId) return;
    const { json } = await attempt(record, () => client.post(`/runs/${runId}/events`, { name: 'go', data: { cycle } }));
    if (json) record.goSent.add(runId);
  };
  const answer = async () => {
    const { json: open } = await attempt(record, () => client.get('/interactions', { limit: 20 }));
    const request = open?.requests?.length ? rng.pick(open.requests) : null;
    if (!request) return;
    const { json } = await attempt(record, () => client.post(`/runs/${request.run_id}/answer`, { answer: ANSWER }));
    if (json) record.answered.add(request.run_id);
  };
  return [
    [3, runOf('workflow', 'settle', 's')],
    [2, runOf('workflow', 'await-go', 'g')],
    [2, runOf('interaction', 'confirm', 'i')],
    [2, publish],
    [2, sendGo],
    [2, answer],
  ];
}

/** Sends traffic from WORKERS loops until `stopped()` or MAX_ACTIONS, whichever comes first. */
async function drive(client, record, rng, cycle, stopped) {
  const kinds = actions(client, record, rng, cycle);
  const total = kinds.reduce((t, [w]) => t + w, 0);
  const choose = () => {
    let r = rng.next() * total;
    for (const [weight, act] of kinds) {
      if ((r -= weight) < 0) return act;
    }
    return kinds[0][1];
  };
  let done = 0;
  const loop = async () => {
    while (!stopped() && done < MAX_ACTIONS) {
      done += 1;
      await choose()();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, loop));
}

/** Whole-second instants from `from`, every `stepMs`, up to `until`, dealt round-robin into `groups` lists of at most 50. */
function atGroups(from, until, stepMs, groups) {
  const out = Array.from({ length: groups }, () => []);
  let i = 0;
  for (let t = Math.ceil(from / 1000) * 1000; t <= until && i < groups * 50; t += stepMs, i += 1) out[i % groups].push(t);
  return out;
}

/** The times the `ticking` workflow's triggers fall due up to `until`: each set time, then every minute from `from`. */
function dueTimes(groups, from, until) {
  const due = groups.flatMap((times, idx) => times.map((t) => ({ idx, t })));
  for (let t = Math.ceil(from / 60_000) * 60_000; t <= until; t += 60_000) due.push({ idx: groups.length, t });
  return due;
}

/** Retries each run start a kill cut off, with its run id: it answers the run if it was started, or starts it. */
async function retryCutOff(client, record) {
  const refused = [];
  await pool(record.cutOffStarts, 8, async ([runId, type, name]) => {
    const answer = await client.post(`/definitions/${type}/${name}/run`, { input: {}, run_id: runId });
    if (!ok(answer)) refused.push(`${runId}: ${answer.status} ${answer.text.slice(0, 200)}`);
  });
  return refused;
}

/** `keep`: leave the state directory in place (FAULTS_KEEP=1), to start a runtime on it and look. */
export async function restarts({ say, seed, cycles = 20, keep = false }) {
  const rng = random(seed);
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-restarts-'));
  const logs = [];
  const record = newRecord();
  const windows = []; // when a runtime was spawned and when it served: {spawned, from, to}, in ms
  let rt = null;
  try {
    const t0 = Date.now();
    let spawned = t0;
    rt = await start(stateDir, logs);
    const startupMs = Date.now() - t0;
    // Set times every 2 s over the cycles to come, so that some fall due mid-traffic and some while the runtime is down.
    const span = cycles * (startupMs + 4_500);
    const groups = atGroups(Date.now() + 8_000, Date.now() + span, 2_000, 3);
    const playbook = await createPlaybook(rt.url, `faults restarts ${seed}`, { workflows: true, atGroups: groups });
    say(`restarts: playbook ${playbook}, ${groups.flat().length} set times over ${(span / 1000).toFixed(0)} s, start-up ${startupMs} ms`);
    const firstFrom = Date.now();
    let killedHard = 0;

    for (let cycle = 1; cycle <= cycles; cycle += 1) {
      if (!rt) {
        spawned = Date.now();
        rt = await start(stateDir, logs);
      }
      const from = Date.now();
      const lasting = rng.between(1_000, 6_000);
      let stopped = false;
      record.killing = false;
      const traffic = drive(api(rt.url, playbook), record, rng, cycle, () => stopped);
      await sleep(lasting);
      const to = Date.now();
      record.killing = true;
      if (await killHard(rt)) killedHard += 1;
      stopped = true;
      await traffic;
      windows.push({ spawned, from, to });
      rt = null;
      say(`restart ${cycle}/${cycles} after ${(lasting / 1000).toFixed(1)} s: ${record.acknowledged} acknowledged, ${record.cutOff} cut off so far`);
    }

    spawned = Date.now();
    rt = await start(stateDir, logs);
    const client = api(rt.url, playbook);
    // The last stop is made up as the runtime comes back; then the triggers are paused, so that no
    // run they start while everything is read back makes list_runs and get_run seem to disagree.
    const from = Date.now();
    await sleep(3_000);
    must(await client.post('/definitions/workflow/ticking/pause', { reason: 'the fault harness reads back' }), 'pause ticking');
    windows.push({ spawned, from, to: Date.now() });
    const stillStarted = await settle(client, record, say);
    const { stats, checks } = await verify(client, record, { windows, due: dueTimes(groups, firstFrom, windows.at(-1).to) });
    const retryRefused = await retryCutOff(client, record);
    await rt.stop();
    rt = null;

    const panicked = panics(logs);
    const some = (list) => `${list.length}: ${list.slice(0, 5).join('; ')}`;
    checks.unshift({ part: 'restarts', name: 'every restart was a hard kill (SIGKILL to wrangler and workerd)', ok: killedHard === cycles, detail: `${killedHard} of ${cycles}` });
    checks.push(
      { part: 'restarts', name: 'every run start a kill cut off, retried under its run id, answers 2xx', ok: retryRefused.length === 0, detail: some(retryRefused) },
      { part: 'restarts', name: 'no 5xx while the runtime served', ok: record.serverErrors.length === 0, detail: some(record.serverErrors) },
      { part: 'restarts', name: 'no panic in any runtime log', ok: panicked.length === 0, detail: some(panicked) },
    );
    return {
      stats: {
        ...stats,
        restarts: cycles,
        killedHard,
        sent: record.sent,
        acknowledged: record.acknowledged,
        cutOff: record.cutOff,
        proxy5xx: record.proxy5xx,
        refused: [...record.refused].map(([s, n]) => `${n} × ${s}`).join(', ') || 'none',
        stillStarted: stillStarted.length,
        cutOffStarts: record.cutOffStarts.length,
        retriesAnswered: record.cutOffStarts.length - retryRefused.length,
        panics: panicked.length,
      },
      checks,
    };
  } finally {
    await rt?.stop();
    if (keep) say(`restarts: state kept in ${stateDir}`);
    else rmSync(stateDir, { recursive: true, force: true });
  }
}
