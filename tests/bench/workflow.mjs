// The 20-step workflow row: workflow runs started through the HTTP route, each followed to its end
// with get_run, by `connections` loops at once for a bounded time. A run's latency is the time its
// own record gives from its start to its end (to the millisecond, whatever the polling); the
// throughput counts the runs that ended in the time.
import { percentile } from './load.mjs';

export const STEPS = 20;
const FOLLOW_MS = 180_000;

/** A workflow of `count` steps, each running the computation `add-vat` on the one before's output. */
export function workflowSource(count = STEPS) {
  const steps = Array.from({ length: count }, (_, i) => `  - id: s${i + 1}
    function: computation/add-vat
    input:
      net: ${i === 0 ? 'input.net' : `steps.s${i}.output.gross`}`);
  return `---
description: Adds VAT ${count} times over, one step after another
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
steps:
${steps.join('\n')}
output:
  gross: steps.s${count}.output.gross
---
`;
}

async function json(res) {
  const text = await res.text();
  try { return JSON.parse(text); } catch { return { unreadable: text.slice(0, 200) }; }
}

/**
 * Reads `run` again until it is no longer started or `ms` have passed; answers it as last read.
 * `route` is the playbook's HTTP route.
 */
export async function followRun(route, run, ms) {
  const deadline = Date.now() + ms;
  while (run.status === 'started' && Date.now() < deadline) {
    // A read waits its turn with everything else the runs ask of the playbook: it may take long.
    const res = await fetch(`${route}/runs/${run.run_id}?wait_seconds=10`, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
    run = await json(res);
  }
  return run;
}

/** Starts one run and follows it to its end; answers its latency in ms, or throws. */
async function oneRun(base, org, playbook) {
  const route = `${base}/v1/orgs/${org}/playbooks/${playbook}`;
  const started = await fetch(`${route}/definitions/workflow/twenty/run`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"input":{"net":100}}',
    signal: AbortSignal.timeout(60_000),
  });
  let run = await json(started);
  if (started.status >= 300) throw new Error(`run_definition: HTTP ${started.status}`);
  // Many runs at once share the machine's cores: 64 runs of 20 steps start 1,280 objects, which
  // takes a while here, so a run is followed for up to three minutes before it counts as failed.
  run = await followRun(route, run, FOLLOW_MS);
  if (run.status !== 'succeeded') {
    const why = run.status === 'started' ? 'still started when it was given up' : JSON.stringify(run.error ?? run).slice(0, 300);
    throw new Error(`the run ${run.run_id} ended ${run.status ?? 'unread'}: ${why}`);
  }
  return Date.parse(run.finished_at) - Date.parse(run.started_at);
}

/** Runs `connections` loops for `seconds`; answers what measureAll answers for one concurrency. */
export async function workflowLoad(base, org, playbook, connections, seconds) {
  const latencies = [];
  let failed = 0;
  let firstError = null;
  const t0 = Date.now();
  const until = t0 + seconds * 1000;
  const loop = async () => {
    while (Date.now() < until) {
      try {
        latencies.push(await oneRun(base, org, playbook));
      } catch (error) {
        failed += 1;
        firstError ??= error.message;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const spent = (Date.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    connections, ok: latencies.length, failed, firstError, errors: 0, seconds: spent,
    rps: latencies.length / spent, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99),
  };
}
