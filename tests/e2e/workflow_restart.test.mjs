// A workflow run survives restarts of the local runtime mid-step: stopped while a step waits for a
// time, the runtime comes back and the alarm ends the wait; stopped again just after a person
// answered the next step, it comes back and the run finishes. Every step ran once, and no log
// shows a panic.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { panicLines, startRuntime } from './harness.mjs';
import { assertToolSuccess, withClient } from './helpers.mjs';
import { ADD_VAT } from './fixtures.mjs';

const CONFIRM = `---
description: Asks for a yes or no
input: { schema: { type: object } }
ask:
  deliver: agent
  answer: { schema: { type: object, properties: { ok: { type: boolean } }, required: [ok] } }
---
Shall we price the order?
`;
const RESTARTABLE = `---
description: Waits a moment, asks, then prices an order
input: { schema: { type: object } }
steps:
  - id: settle
    wait: { seconds: 8 }
  - id: confirm
    function: interaction/confirm
  - id: price
    function: computation/add-vat
    input:
      net: "100"
output:
  confirmed: steps.confirm.output
  price: steps.price.output
---
`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('a workflow run across restarts', { timeout: 300_000 }, () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'runtime-wf-restart-'));
  const runtimes = [];
  after(async () => {
    for (const runtime of runtimes) await runtime.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('stopped while a step waits for a time and again after an answer, the run finishes with every step run once', async () => {
    const first = await startRuntime({ stateDir });
    runtimes.push(first);
    const { playbook, run } = await withClient(first.url, async (call) => {
      const made = assertToolSuccess(await call('create_playbook', { name: 'Restarts mid-step' }));
      const define = async (type, name, source) => assertToolSuccess(await call('create_definition', {
        playbook: made.id, type, name, source, overview: `The ${name} ${type} of the restart test does what its description says.`,
        ...(type === 'workflow' ? {} : { diagram: 'flowchart LR\n  A[in] --> B[out]' }),
      }));
      await define('interaction', 'confirm', CONFIRM);
      await define('computation', 'add-vat', ADD_VAT);
      await define('workflow', 'restartable', RESTARTABLE);
      const started = assertToolSuccess(await call('run_definition', { playbook: made.id, type: 'workflow', name: 'restartable' }));
      return { playbook: made.id, run: started };
    });
    assert.equal(run.status, 'started');
    await first.stop();
    assert.deepEqual(panicLines(first.logs()), [], 'first runtime: no panic');

    const second = await startRuntime({ stateDir });
    runtimes.push(second);
    const confirmId = `${run.run_id}-confirm-1`;
    await withClient(second.url, async (call) => {
      const deadline = Date.now() + 40_000;
      for (;;) {
        const open = assertToolSuccess(await call('list_interactions', { playbook }));
        if (open.requests.some((r) => r.run_id === confirmId)) break;
        assert.ok(Date.now() < deadline, 'the wait ended after the restart and the next step asked');
        await sleep(250);
      }
      const waiting = assertToolSuccess(await call('get_run', { playbook, run_id: run.run_id }));
      const settle = waiting.steps.find((s) => s.step === 'settle');
      assert.equal(settle.status, 'succeeded');
      assert.ok(Date.parse(settle.finished_at) - Date.parse(settle.started_at) >= 8_000, JSON.stringify(settle));
      assertToolSuccess(await call('answer_interaction', { playbook, run_id: confirmId, answer: { ok: true } }));
    });
    await second.stop();
    assert.deepEqual(panicLines(second.logs()), [], 'second runtime: no panic');

    const third = await startRuntime({ stateDir });
    runtimes.push(third);
    await withClient(third.url, async (call) => {
      let done;
      const deadline = Date.now() + 40_000;
      for (;;) {
        done = assertToolSuccess(await call('get_run', { playbook, run_id: run.run_id, wait_seconds: 5 }));
        if (done.status !== 'started') break;
        assert.ok(Date.now() < deadline, 'the run finished after the second restart');
      }
      assert.equal(done.status, 'succeeded');
      assert.deepEqual(done.output, { confirmed: { ok: true }, price: { vat: 20, gross: 120 } });
      assert.deepEqual(done.steps.map((s) => [s.step, s.status, s.attempt ?? null]),
        [['settle', 'succeeded', 1], ['confirm', 'succeeded', 1], ['price', 'succeeded', 1]]);

      const runs = assertToolSuccess(await call('list_runs', { playbook, limit: 100 })).runs;
      assert.deepEqual(runs.map((r) => r.run_id).sort(), [run.run_id, confirmId, `${run.run_id}-price-1`].sort(), 'one run per step, none twice');
      const top = assertToolSuccess(await call('list_runs', { playbook, steps: false })).runs;
      assert.deepEqual(top.map((r) => r.run_id), [run.run_id], 'steps: false leaves out the runs steps started');
      const events = assertToolSuccess(await call('list_playbook_events', { playbook, run_id: run.run_id, limit: 200 })).events;
      const finished = events.filter((e) => e.kind === 'step_finished').map((e) => e.data.step);
      assert.deepEqual(finished, ['settle', 'confirm', 'price'], 'each step finished once');
      assert.equal(events.filter((e) => e.kind === 'run_started').length, 3, 'three runs started, each once');
    });
    await third.stop();
    assert.deepEqual(panicLines(third.logs()), [], 'third runtime: no panic');
  });
});
