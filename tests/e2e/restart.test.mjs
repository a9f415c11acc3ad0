// Runtimes of their own, each test on a fresh state directory: an empty org answers list_playbooks with the welcome
// (MCP and HTTP), and a playbook created before a restart is there after it, read back from the same
// state directory by get_playbook and over HTTP; an interaction that waits for a person before the
// restart is still listed after it, and its answer finishes the run. No run's log may show a panic.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { panicLines, startRuntime } from './harness.mjs';
import { assertToolSuccess, WELCOME_START, withClient, withoutStudio } from './helpers.mjs';

/**
 * Starts runtimes for test `t` alone, on a fresh state directory they share, each stopped and the
 * directory removed when the test ends, so that each test stands without the others.
 */
function runtimesOf(t) {
  const stateDir = mkdtempSync(join(tmpdir(), 'runtime-restart-'));
  const started = [];
  t.after(async () => {
    for (const runtime of started) await runtime.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });
  return async () => {
    const runtime = await startRuntime({ stateDir });
    started.push(runtime);
    return runtime;
  };
}

describe('a runtime of its own', { timeout: 300_000 }, () => {
  test('an empty org answers list_playbooks with the welcome', async (t) => {
    const runtime = await runtimesOf(t)();
    await withClient(runtime.url, async (call) => {
      const result = await call('list_playbooks');
      const out = assertToolSuccess(result, { summaryLimit: 1000 });
      assert.ok(result.content[0].text.startsWith(WELCOME_START), `welcome: ${result.content[0].text}`);
      assert.deepEqual(out.playbooks, []);
      assert.equal(out.next_cursor, null);
      assert.equal(typeof out.welcome, 'string');
      assert.equal(result.content[0].text, out.welcome, 'the welcome is relayed whole, in place of the summary');
      assert.ok(out.welcome.length <= 1000);
      assert.match(out.welcome, /read the guide start with get_guide/);
      assert.ok(out.welcome.endsWith(` ${runtime.url}/studio/local`), `the welcome ends with Studio's home: ${out.welcome}`);
    });
    const http = await fetch(`${runtime.url}/v1/orgs/local/playbooks`);
    assert.equal(http.status, 200);
    const body = await http.json();
    assert.deepEqual(body.playbooks, []);
    assert.ok(body.welcome?.startsWith(WELCOME_START), `HTTP welcome: ${JSON.stringify(body)}`);
    assert.deepEqual(panicLines(runtime.logs()), [], 'no panic');
  });

  test('a playbook, and an interaction that waits, survive a restart on the same state directory', async (t) => {
    const start = runtimesOf(t);
    const first = await start();
    const created = await withClient(first.url, async (call) => withoutStudio(assertToolSuccess(await call('create_playbook',
      { name: 'Survives restarts', description: 'Kept in the Durable Object.', page: '# Kept' })), '/playbooks/'));
    const waiting = await withClient(first.url, async (call) => {
      assertToolSuccess(await call('create_definition', {
        playbook: created.id, type: 'interaction', name: 'confirm',
        source: '---\ndescription: Asks for a yes or no\ninput: { schema: { type: object } }\nask:\n  deliver: agent\n  answer: { schema: { type: object, properties: { ok: { type: boolean } }, required: [ok] } }\n---\nShall we go on?\n',
        overview: 'Asks the person whether to go on, and answers yes or no as ok.',
        diagram: 'flowchart LR\n  A[ask] --> B[ok]',
      }));
      return assertToolSuccess(await call('run_definition', { playbook: created.id, type: 'interaction', name: 'confirm' }));
    });
    assert.equal(waiting.status, 'started');
    await first.stop();
    assert.deepEqual(panicLines(first.logs()), [], 'first run: no panic');

    const second = await start();
    await withClient(second.url, async (call) => {
      const got = assertToolSuccess(await call('get_playbook', { playbook: created.id }));
      assert.deepEqual(got, created);
      const open = assertToolSuccess(await call('list_interactions', { playbook: created.id }));
      assert.deepEqual(open.requests.map((r) => r.run_id), [waiting.run_id], 'the waiting request survived');
      assertToolSuccess(await call('answer_interaction', { playbook: created.id, run_id: waiting.run_id, answer: { ok: true } }));
      const done = assertToolSuccess(await call('get_run', { playbook: created.id, run_id: waiting.run_id }));
      assert.equal(done.status, 'succeeded');
      const result = await call('list_playbooks');
      const listed = assertToolSuccess(result);
      assert.deepEqual(listed.playbooks.map((p) => p.id), [created.id]);
      assert.equal(listed.welcome, undefined, 'an org with a playbook answers no welcome');
      assert.ok(!result.content[0].text.startsWith(WELCOME_START), 'a summary, not the welcome');
    });
    const http = await fetch(`${second.url}/v1/orgs/local/playbooks/${created.id}`);
    assert.equal(http.status, 200);
    assert.deepEqual(await http.json(), created);
    assert.deepEqual(panicLines(second.logs()), [], 'second run: no panic');
  });
});

