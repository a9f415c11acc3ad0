// A restart in the middle of a tool loop, on a runtime of its own: a reasoning run's model asks for the
// fixture's slow tool, and the runtime is stopped while the tool runs. Started again on the same state,
// the run is read as failed, interrupted, with words that name the call; the tool was called once and
// is never called again, the model is not asked again, and the run id is never run again.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, test } from 'node:test';

import { panicLines, startRuntime } from './harness.mjs';
import { assertToolFailure, assertToolSuccess, withClient } from './helpers.mjs';
import { ANTHROPIC_KEY } from './standin_models.mjs';
import { FIXTURE_TOKEN, fixtureSide, toolServers } from './tool_servers.mjs';

const ANTHROPIC = process.env.STANDIN_ANTHROPIC_URL;
const MODEL = 'claude-slow-tools';
const SOURCE = `---
description: Waits on the slow tool of the fixture, then says it is done
model: anthropic/${MODEL}
input:
  schema: { type: object }
tools: [fixture/slow]
---
Wait with the slow tool, then say done.
`;

describe('a restart while a tool runs', { timeout: 240_000 }, () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'runtime-tools-restart-'));
  const runtimes = [];
  const logs = [];
  after(async () => {
    for (const runtime of runtimes) {
      logs.push(runtime.logs());
      await runtime.stop();
    }
    rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(logs.flatMap(panicLines), [], 'no panic in any runtime');
  });

  const start = async () => {
    const { settings } = toolServers();
    const runtime = await startRuntime({
      stateDir,
      vars: {
        ANTHROPIC_API_KEY: ANTHROPIC_KEY,
        ANTHROPIC_BASE_URL: ANTHROPIC,
        TOOL_SERVERS: JSON.stringify({ fixture: settings.fixture }),
        FIXTURE_TOKEN,
      },
    });
    runtimes.push(runtime);
    return runtime;
  };

  test('the run ends interrupted, and nothing is called or asked twice', async () => {
    assert.ok(ANTHROPIC, 'run through tests/e2e/run.mjs');
    await fetch(`${ANTHROPIC}/__script`, {
      method: 'POST',
      body: JSON.stringify({ model: MODEL, turns: [{ tool_calls: [{ name: 'slow', input: { ms: 120000 } }] }, { text: 'done' }] }),
    });
    const first = await start();
    const playbook = await withClient(first.url, async (call) => {
      const pb = assertToolSuccess(await call('create_playbook', { name: 'Slow tools' })).id;
      assertToolSuccess(await call('create_definition', {
        playbook: pb, type: 'reasoning', name: 'wait', source: SOURCE,
        overview: 'Waits on the slow tool of the fixture and then says it is done.',
        diagram: 'flowchart LR\n  A[start] --> B[slow tool] --> C[done]',
      }));
      return pb;
    });
    const calledBefore = (await fixtureSide().calls()).slow ?? 0;
    // The run is started over HTTP and left waiting: its answer would come after the slow tool.
    const pending = fetch(`${first.url}/v1/orgs/local/playbooks/${playbook}/definitions/reasoning/wait/run`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: {}, run_id: 'run_slow_1' }),
    }).catch(() => null);
    let started = false;
    for (let i = 0; i < 120 && !started; i += 1) {
      await sleep(250);
      const res = await fetch(`${first.url}/v1/orgs/local/playbooks/${playbook}/events?run_id=run_slow_1`);
      const body = res.status === 200 ? await res.json() : { events: [] };
      started = body.events.some((e) => e.kind === 'tool_call_started');
    }
    assert.ok(started, 'the call was kept as started');
    for (let i = 0; i < 40 && ((await fixtureSide().calls()).slow ?? 0) === calledBefore; i += 1) await sleep(250);
    assert.equal((await fixtureSide().calls()).slow, calledBefore + 1, 'the slow tool was called once');

    await first.stop();
    await pending;
    const second = await start();
    await withClient(second.url, async (call) => {
      const run = assertToolSuccess(await call('get_run', { playbook, run_id: 'run_slow_1' }));
      assert.equal(run.status, 'failed', JSON.stringify(run));
      assert.equal(run.error.reason, 'interrupted');
      assert.match(run.error.detail, /fixture\/slow/);
      assert.match(run.error.detail, /never run again/);
      const again = await call('run_definition', { playbook, type: 'reasoning', name: 'wait', input: {}, run_id: 'run_slow_1' });
      assertToolFailure(again, 'conflict');
    });
    // The run has ended, read so above: a run that has ended calls no tool and asks no model, not
    // even at its alarm, and a run keeps each call as started before it makes it. So the history
    // and the stand-ins hold, now, every call and question there will ever be.
    const history = await fetch(`${second.url}/v1/orgs/local/playbooks/${playbook}/events?run_id=run_slow_1`).then((r) => r.json());
    const calls = history.events.filter((e) => e.kind.startsWith('tool_call_')).map((e) => e.kind);
    assert.deepEqual(calls, ['tool_call_started'], 'one call was started, and none again');
    assert.equal((await fixtureSide().calls()).slow, calledBefore + 1, 'no call is made twice');
    const asked = await fetch(`${ANTHROPIC}/__requests?model=${MODEL}`).then((r) => r.json());
    assert.equal(asked.length, 1, 'the model was asked once');
  });
});
