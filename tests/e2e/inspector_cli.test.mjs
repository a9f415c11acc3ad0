// The MCP Inspector's command-line client, as a developer would run it against the local runtime:
// it lists the tools and creates a playbook, which then reads back over HTTP.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';

import { runtimeUrl, uniqueName } from './helpers.mjs';

const run = promisify(execFile);
const inspector = new URL('../../node_modules/.bin/mcp-inspector', import.meta.url).pathname;

async function cli(...args) {
  const { stdout } = await run(inspector, ['--cli', `${runtimeUrl()}/mcp`, ...args], { timeout: 60_000 });
  return JSON.parse(stdout);
}

test('the Inspector CLI lists the tools and creates a playbook', async () => {
  const listed = await cli('--method', 'tools/list');
  assert.ok(listed.tools.some((t) => t.name === 'create_playbook'), JSON.stringify(listed).slice(0, 300));

  const name = uniqueName('inspector');
  const made = await cli('--method', 'tools/call', '--tool-name', 'create_playbook', '--tool-arg', `name=${name}`);
  assert.equal(made.isError, false, JSON.stringify(made));
  assert.equal(made.structuredContent.name, name);

  const read = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${made.structuredContent.id}`);
  assert.equal(read.status, 200);
  assert.equal((await read.json()).name, name);
});
