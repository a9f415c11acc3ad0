// The official Python MCP SDK (`mcp`, installed into /work/main/.venv by scripts/setup) connects over
// streamable HTTP both through the legacy initialize handshake and through 'auto' (server/discover, so
// 2026-07-28), lists every tool with their annotations, creates a playbook, rehearses an approval on a
// stand-in's answer and sees a failure's shape.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './harness.mjs';
import {
  assertInstructions, assertPlaybook, assertToolFailure, assertToolList, assertToolSuccess, MODERN_VERSION,
  runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';

const PYTHON = join(ROOT, '.venv', 'bin', 'python');

function runPython(args) {
  return new Promise((resolveRun) => {
    const child = spawn(PYTHON, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

test('the Python MCP SDK connects, lists the tools and creates a playbook', { timeout: 120_000 }, async () => {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run scripts/setup (it installs the Python MCP SDK into .venv)`);
  const name = uniqueName('python');
  const { code, stdout, stderr } = await runPython([join(ROOT, 'tests', 'e2e', 'python_client.py'), runtimeUrl(), name]);
  assert.equal(code, 0, `python_client.py failed:\n${stderr}`);
  const out = JSON.parse(stdout);

  assert.equal(out.legacy.protocol_version, '2025-11-25');
  assert.equal(out.auto.protocol_version, MODERN_VERSION, "'auto' reaches 2026-07-28 through server/discover");

  for (const mode of ['legacy', 'auto']) {
    const run = out[mode];
    assert.equal(run.server_name, 'auto-runtime', mode);
    assertInstructions(run.instructions, mode);
    assertToolList(run.tools);
    const created = assertToolSuccess({
      isError: run.created.is_error, content: run.created.content, structuredContent: run.created.structured_content,
    });
    assertPlaybook(created, { withPage: true });
    assert.equal(created.name, `${name} ${mode}`);
    assert.equal(created.description, 'Made by the Python SDK.');
    const http = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${created.id}`);
    assert.deepEqual(await http.json(), withoutStudio(created, '/playbooks/'), `${mode}: the playbook is there over HTTP`);
    assert.equal(run.rehearsed.is_error, false, JSON.stringify(run.rehearsed));
    const rehearsed = run.rehearsed.structured_content;
    assert.deepEqual([rehearsed.rehearsal, rehearsed.status, rehearsed.output], [true, 'succeeded', { verdict: 'revise' }]);
    assert.equal(rehearsed.answered_by.kind, 'stand_in', `${mode}: the stand-in answered in the person's place`);
    assertToolFailure({
      isError: run.failed.is_error,
      content: run.failed.content,
      structuredContent: run.failed.structured_content ?? undefined,
    }, 'not_found');
  }
});
