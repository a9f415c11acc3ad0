// Part 3: concurrency. On a runtime of its own: 100 run_definition calls under one run id, all at
// once, must start exactly one run and all answer it; then 1,000 runs on one playbook, 50 at a
// time, must all be listed by list_runs and each read back as succeeded — none lost.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { toolBody } from '../bench/mcp.mjs';
import { createPlaybook, VAT_INPUT, VAT_OUTPUT } from './playbook.mjs';
import { panics, start } from './runtime.mjs';
import { allPages, api, mcp, ok, pool } from './wire.mjs';

const SAME_ID_CALLS = 100;
const MANY_RUNS = 1_000;
const MANY_WIDTH = 50;

const sameOutput = (output) => JSON.stringify(output) === JSON.stringify(VAT_OUTPUT);

/** 100 concurrent calls, over MCP, under one run id and with one input. */
async function sameRunId(base, playbook) {
  const runId = 'same-run-id';
  const args = { playbook, type: 'computation', name: 'add-vat', input: VAT_INPUT, run_id: runId };
  const answers = await Promise.all(Array.from({ length: SAME_ID_CALLS }, async () => {
    try {
      return await mcp(base, toolBody('run_definition', args));
    } catch (error) {
      return { status: 0, text: String(error.cause?.code ?? error.message) };
    }
  }));
  const bad = [];
  let sameRun = 0;
  for (const a of answers) {
    const run = a.message?.result?.isError ? null : a.message?.result?.structuredContent;
    if (a.status === 200 && run?.run_id === runId && run.status === 'succeeded' && sameOutput(run.output)) sameRun += 1;
    else bad.push(`${a.status} ${a.text.slice(0, 300)}`);
  }
  const client = api(base, playbook);
  const listed = (await allPages(client, '/runs', 'runs', { limit: 100 })).filter((r) => r.run_id === runId).length;
  const events = await allPages(client, '/events', 'events', { run_id: runId, limit: 200 });
  const started = events.filter((e) => e.kind === 'run_started').length;
  return { calls: SAME_ID_CALLS, sameRun, listed, started, bad };
}

/** 1,000 runs with their own run ids, MANY_WIDTH at a time, over HTTP; then each looked for. */
async function manyRuns(base, playbook) {
  const client = api(base, playbook);
  const ids = Array.from({ length: MANY_RUNS }, (_, i) => `many-${i}`);
  const refused = [];
  const t0 = Date.now();
  const acked = (await pool(ids, MANY_WIDTH, async (runId) => {
    try {
      const answer = await client.post('/definitions/computation/add-vat/run', { input: VAT_INPUT, run_id: runId });
      if (ok(answer)) return runId;
      refused.push(`${runId}: ${answer.status} ${answer.text.slice(0, 200)}`);
    } catch (error) {
      refused.push(`${runId}: no answer (${error.cause?.code ?? error.message})`);
    }
    return null;
  })).filter(Boolean);
  const runSeconds = (Date.now() - t0) / 1000;
  const listedIds = new Set((await allPages(client, '/runs', 'runs', { type: 'computation', name: 'add-vat', limit: 100 }))
    .map((r) => r.run_id));
  const notListed = acked.filter((id) => !listedIds.has(id));
  const notSucceeded = (await pool(acked, 16, async (runId) => {
    const got = await client.get(`/runs/${runId}`);
    return got.json?.status === 'succeeded' && sameOutput(got.json.output) ? null : `${runId}: ${got.status} ${got.text.slice(0, 200)}`;
  })).filter(Boolean);
  return {
    calls: MANY_RUNS,
    width: MANY_WIDTH,
    acknowledged: acked.length,
    listed: acked.length - notListed.length,
    succeeded: acked.length - notSucceeded.length,
    lost: notListed.length,
    runSeconds,
    refused,
    notListed,
    notSucceeded,
  };
}

export async function concurrency({ say }) {
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-concurrency-'));
  const logs = [];
  let rt = null;
  try {
    rt = await start(stateDir, logs);
    const playbook = await createPlaybook(rt.url, 'faults concurrency');
    const sameId = await sameRunId(rt.url, playbook);
    say(`concurrency: ${sameId.sameRun} of ${sameId.calls} answered the one run; listed ${sameId.listed}, started ${sameId.started}`);
    const many = await manyRuns(rt.url, playbook);
    say(`concurrency: ${many.acknowledged} of ${many.calls} acknowledged, ${many.listed} listed, ${many.succeeded} succeeded`);
    await rt.stop();
    rt = null;
    const panicked = panics(logs);
    const some = (list) => list.slice(0, 5).join('; ');
    const check = (name, pass, detail = '') => ({ part: 'concurrency', name, ok: Boolean(pass), detail });
    const checks = [
      check(`${SAME_ID_CALLS} concurrent calls under one run id all answer that run, succeeded`, sameId.sameRun === SAME_ID_CALLS, some(sameId.bad)),
      check('list_runs lists the run once', sameId.listed === 1, `listed ${sameId.listed} times`),
      check('the run started once (one run_started event)', sameId.started === 1, `${sameId.started} run_started events`),
      check(`${MANY_RUNS} concurrent runs are all acknowledged`, many.acknowledged === MANY_RUNS, some(many.refused)),
      check('every acknowledged run is listed by list_runs (none lost)', many.lost === 0, some(many.notListed)),
      check('every acknowledged run reads back succeeded', many.succeeded === many.acknowledged, some(many.notSucceeded)),
      check('no panic in the runtime log', panicked.length === 0, some(panicked)),
    ];
    return { stats: { sameId, many, panics: panicked.length }, checks };
  } finally {
    await rt?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
