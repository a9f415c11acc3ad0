// The runtime stops while it handles a request: the client gets the spec's stopped answer. Local
// workerd runs a Worker and its Durable Objects in one process, so stopping it ends the Worker too, and
// nothing is left to answer; here the objects run in a runtime of their own ("objects", the repository's
// configuration) and the Worker that serves the client in another ("front"), which reaches them
// through wrangler's dev registry, as a Worker on Cloudflare reaches objects on other machines. The
// objects' runtime is stopped while a reasoning run waits for a slow stand-in model:
// - over MCP the open event stream ends with the JSON-RPC error -32603 and the spec's words;
// - over HTTP the answer is 503 `unavailable` of the kind `stopped`, with the same words;
// - a request that comes while the objects are stopped is 503 `unavailable`, and not `stopped` once
//   the dev registry knows they are gone;
// - once they are back, the run the cut-off call started is there: it did take effect.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { panicLines, ROOT, startRuntime } from './harness.mjs';
import { ACCEPT_BOTH, assertToolSuccess, parseSse, withClient } from './helpers.mjs';
import { startModelStandins } from './standin_models.mjs';

const STOPPED = 'Auto Runtime stopped while it handled this request, so it may or may not have taken effect';
const MODEL = 'claude-cut-off';
const REVIEW = `---
description: Reviews a campaign brief and says whether it is ready
model: anthropic/${MODEL}
input:
  schema: { type: object, properties: { brief: { type: string } }, required: [brief] }
max_tokens: 100
---
Is this brief ready? {{ input.brief }}
`;

/** The repository's configuration as a Worker whose Durable Objects live in the runtime named `objects`. */
function frontConfig(objects) {
  const repo = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8');
  return repo
    .replace(/^name = ".*"$/m, 'name = "playbook-runtime-front"')
    .replace(/^main = ".*"$/m, `main = ${JSON.stringify(join(ROOT, 'build', 'worker', 'shim.mjs'))}`)
    .replace(/^(class_name = ".*")$/gm, `$1\nscript_name = ${JSON.stringify(objects)}`)
    .replace(/\[\[migrations\]\][\s\S]*$/, ''); // the objects' runtime declares the classes
}

/** Resolves once the stand-in has received `count` requests for the model. */
async function modelAsked(standin, count) {
  for (let i = 0; i < 200; i += 1) {
    const received = await fetch(`${standin}/__requests?model=${MODEL}`).then((r) => r.json());
    if (received.length >= count) return;
    await sleep(100);
  }
  assert.fail(`the model was not asked ${count} time(s)`);
}

describe('the runtime stops while it handles a request', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'runtime-stopped-'));
  const registryDir = join(dir, 'registry');
  const objectsState = join(dir, 'objects');
  const frontState = join(dir, 'front');
  const runtimes = [];
  let standins;
  let front;
  let objects;
  let playbook;
  const runIds = [];

  const startObjects = async () => {
    objects = await startRuntime({ stateDir: objectsState, registryDir, vars: standins.vars });
    runtimes.push(objects);
  };

  before(async () => {
    standins = await startModelStandins();
    const script = await fetch(`${standins.anthropic.url}/__script`, {
      method: 'POST', body: JSON.stringify({ model: MODEL, text: 'Ready.', delay_ms: 120_000 }),
    });
    assert.equal(script.status, 200);
    await startObjects();
    const config = join(dir, 'front.toml');
    writeFileSync(config, frontConfig('playbook-runtime'));
    front = await startRuntime({ stateDir: frontState, registryDir, config, vars: standins.vars });
    runtimes.push(front);
    await withClient(front.url, async (call) => {
      playbook = assertToolSuccess(await call('create_playbook', { name: 'Stops mid-call' })).id;
      assertToolSuccess(await call('create_definition', {
        playbook, type: 'reasoning', name: 'review', source: REVIEW,
        overview: 'Asks the model whether a campaign brief is ready and answers its words.',
        diagram: 'flowchart LR\n  A[brief] --> B[model] --> C[answer]',
      }));
    });
  });

  after(async () => {
    for (const runtime of runtimes) await runtime.stop();
    await standins?.close();
    for (const runtime of runtimes) assert.deepEqual(panicLines(runtime.logs()), [], 'no panic');
    rmSync(dir, { recursive: true, force: true });
  });

  test('over MCP, the event stream ends with the JSON-RPC error in the spec words', async () => {
    runIds.push(`cut-mcp-${Date.now()}`);
    const answer = fetch(`${front.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 7, method: 'tools/call',
        params: { name: 'run_definition', arguments: { playbook, type: 'reasoning', name: 'review', input: { brief: 'b' }, run_id: runIds[0] } },
      }),
    });
    await modelAsked(standins.anthropic.url, 1);
    await objects.stop();
    const res = await answer;
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const messages = parseSse(await res.text()).filter((e) => e.event === 'message');
    assert.equal(messages.length, 1, 'one answer ends the stream');
    assert.deepEqual(JSON.parse(messages[0].data), { jsonrpc: '2.0', id: 7, error: { code: -32603, message: STOPPED } });
  });

  test('a request that comes while the objects are stopped is 503, and once that is known, not the stopped answer', async () => {
    // The first call may go out on the connection the stopped objects left: workerd reports that as
    // lost too, as it does a call cut off, so it may be answered as stopped. Then the dev registry
    // knows they are gone and refuses calls before they go out.
    const kinds = [];
    for (let i = 0; i < 10 && kinds.at(-1) !== null; i += 1) {
      const res = await fetch(`${front.url}/v1/orgs/local/playbooks/${playbook}`);
      assert.equal(res.status, 503);
      const problem = await res.json();
      assert.equal(problem.reason, 'unavailable');
      kinds.push(problem.kind ?? null);
      await sleep(300);
    }
    assert.equal(kinds.at(-1), null, `refused before anything was under way: ${kinds.join(', ')}`);
    assert.ok(kinds.slice(0, -1).every((k) => k === 'stopped'), `stopped only while the old connection lasted: ${kinds.join(', ')}`);
  });

  test('over HTTP, the answer is 503 unavailable of the kind stopped, in the spec words', async () => {
    await startObjects();
    runIds.push(`cut-http-${Date.now()}`);
    const answer = fetch(`${front.url}/v1/orgs/local/playbooks/${playbook}/definitions/reasoning/review/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: { brief: 'b' }, run_id: runIds[1] }),
    });
    await modelAsked(standins.anthropic.url, 2);
    await objects.stop();
    const res = await answer;
    assert.equal(res.status, 503);
    assert.match(res.headers.get('content-type'), /^application\/problem\+json/);
    const problem = await res.json();
    assert.deepEqual([problem.reason, problem.kind, problem.detail], ['unavailable', 'stopped', STOPPED]);
  });

  test('back again, the runs the cut-off calls started are there: they took effect', async () => {
    await startObjects();
    await withClient(front.url, async (call) => {
      for (const runId of runIds) {
        const run = assertToolSuccess(await call('get_run', { playbook, run_id: runId }));
        assert.equal(run.run_id, runId);
      }
    });
  });
});
