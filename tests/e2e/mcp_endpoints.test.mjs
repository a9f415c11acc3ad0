// The scoped MCP endpoints, through the official client: /orgs/{org}/mcp lists playbook management
// and the connection tools and no definition tool; /orgs/{org}/playbooks/{playbook}/mcp lists the
// definition tools without a playbook argument, and no connection tool, and acts on that playbook;
// another org's endpoint is refused with 403.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { runtimeUrl, uniqueName } from './helpers.mjs';

// The connection tools, which the spec lists on /mcp and the org endpoint, and on no playbook endpoint.
const CONNECTION_TOOLS = ['add_connection', 'list_connections', 'list_connection_tools', 'reconnect_connection', 'remove_connection'];

async function connect(path) {
  const client = new Client({ name: 'endpoint-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`)));
  return client;
}

const COMPUTATION = `---
description: Doubles a number
input:
  schema: { type: object, properties: { n: { type: number } }, required: [n] }
output:
  schema: { type: object, properties: { twice: { type: number } }, required: [twice] }
compute:
  twice: input.n * 2
---
`;

describe('scoped MCP endpoints', () => {
  test('the org endpoint lists playbook management and the connection tools, and no definition tool', async () => {
    const client = await connect('/orgs/local/mcp');
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('create_playbook') && names.includes('get_guide'), names.join());
    for (const tool of CONNECTION_TOOLS) assert.ok(names.includes(tool), `${tool} among ${names.join()}`);
    assert.ok(!names.includes('create_definition') && !names.includes('get_asset'), names.join());
    assert.match(client.getInstructions(), /acts on the playbooks of the org local/);
    await client.close();
  });

  test('a playbook endpoint acts on its playbook, with no playbook argument', async () => {
    const made = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: uniqueName('scoped') }),
    }).then((r) => r.json());
    const client = await connect(`/orgs/local/playbooks/${made.id}/mcp`);
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('create_definition') && names.includes('get_asset') && !names.includes('create_playbook'), names.join());
    for (const tool of CONNECTION_TOOLS) assert.ok(!names.includes(tool), `${tool} on a playbook endpoint: ${names.join()}`);
    for (const t of tools) assert.equal(t.inputSchema.properties?.playbook, undefined, `${t.name} takes playbook`);
    assert.match(client.getInstructions(), new RegExp(`acts on one playbook, ${made.id}`));

    const saved = await client.callTool({
      name: 'create_definition',
      arguments: {
        type: 'computation', name: 'double', source: COMPUTATION,
        overview: 'Doubles the number it is given and answers it as twice.',
        diagram: 'flowchart LR\n  A[n] --> B[n times 2]',
      },
    });
    assert.equal(saved.isError, false, saved.content[0].text);
    const read = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${made.id}/definitions/computation/double`);
    assert.equal(read.status, 200);

    const extra = await client.callTool({ name: 'get_definition', arguments: { playbook: made.id, type: 'computation', name: 'double' } });
    assert.equal(extra.isError, true);
    assert.equal(JSON.parse(extra.content[1].text).errors[0].pointer, '/playbook');
    await client.close();
  });

  test("another org's endpoint is refused before handling", async () => {
    const res = await fetch(`${runtimeUrl()}/orgs/acme/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).reason, 'forbidden');
  });
});
