// What an agent sees through the official v2 TypeScript client (@modelcontextprotocol/client 2.x), which
// speaks the stateless 2026-07-28 revision: server/discover instead of initialize, `_meta` on every request.
// Connecting pinned to 2026-07-28 and in 'auto' mode, discovery, the lists, and a playbook created and read
// back agree with what the contract (and the v1 client) see.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  assertInstructions, assertPlaybook, assertToolFailure, assertToolList, assertToolSuccess,
  GET_STARTED_TEXT, GUIDES, MODERN_VERSION, runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';

async function connect(mode) {
  const client = new Client({ name: 'e2e-sdk-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
  return client;
}

describe('MCP through @modelcontextprotocol/client (v2, 2026-07-28)', () => {
  let client;
  const call = (name, args = {}) => client.callTool({ name, arguments: args });

  before(async () => {
    client = await connect({ pin: MODERN_VERSION });
  });
  after(async () => {
    await client?.close();
  });

  test('connects pinned to 2026-07-28 through server/discover', () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN_VERSION);
    const discover = client.getDiscoverResult();
    assert.ok(discover, 'a discover result was recorded');
    assert.ok(discover.supportedVersions.includes(MODERN_VERSION), `supportedVersions ${discover.supportedVersions}`);
    for (const cap of ['tools', 'prompts', 'resources']) assert.ok(discover.capabilities[cap], `capability ${cap}`);
    assertInstructions(client.getInstructions(), '2026-07-28');
    assert.equal(client.getServerVersion()?.name, 'auto-runtime', 'serverInfo in the discover result _meta');
  });

  test("'auto' negotiation also chooses the modern revision", async () => {
    const auto = await connect('auto');
    try {
      assert.equal(auto.getProtocolEra(), 'modern');
      assert.equal(auto.getNegotiatedProtocolVersion(), MODERN_VERSION);
    } finally {
      await auto.close();
    }
  });

  test('an explicit discover answers the same as the connect-time one', async () => {
    const again = await client.discover();
    assert.ok(again.supportedVersions.includes(MODERN_VERSION));
    assert.equal(again.instructions, client.getInstructions());
  });

  test('lists every tool with the contract annotations', async () => {
    const { tools } = await client.listTools();
    assertToolList(tools);
  });

  test('lists and gets the get-started prompt', async () => {
    const { prompts } = await client.listPrompts();
    assert.equal(prompts[0]?.name, 'get-started');
    assert.equal(prompts[0].title, 'Get started with Auto');
    const got = await client.getPrompt({ name: 'get-started' });
    assert.equal(got.messages.length, 1);
    assert.equal(got.messages[0].role, 'user');
    assert.deepEqual(got.messages[0].content, { type: 'text', text: GET_STARTED_TEXT });
  });

  test('lists the guides as resources and reads one', async () => {
    const { resources } = await client.listResources();
    for (const name of GUIDES) {
      assert.ok(resources.some((r) => r.uri === `guide://${name}` && r.mimeType === 'text/markdown'), `guide://${name}`);
    }
    const { contents } = await client.readResource({ uri: 'guide://terminology' });
    assert.equal(contents[0].uri, 'guide://terminology');
    assert.equal(contents[0].mimeType, 'text/markdown');
    const http = await fetch(`${runtimeUrl()}/v1/guides/terminology`);
    assert.equal(contents[0].text, await http.text());
  });

  test('creates a playbook and reads it back; every view agrees', async () => {
    const name = uniqueName('v2');
    const created = withoutStudio(assertToolSuccess(await call('create_playbook', { name, description: 'Made by the v2 client.' })), '/playbooks/');
    assertPlaybook(created, { withPage: true });
    assert.equal(created.name, name);
    assert.equal(created.status, 'active');
    const got = assertToolSuccess(await call('get_playbook', { playbook: created.id }));
    assert.deepEqual(got, created);
    const listed = assertToolSuccess(await call('list_playbooks', { limit: 5 }));
    const { page: _page, ...withoutPage } = created;
    assert.deepEqual(listed.playbooks[0], withoutPage);
    const http = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${created.id}`);
    assert.deepEqual(await http.json(), created, 'HTTP and MCP answer the same playbook');
  });

  test('failures keep their shape on 2026-07-28', async () => {
    assertToolFailure(await call('get_playbook', { playbook: 'pb_aaaaaaaaaaaaaaaa' }), 'not_found');
    await assert.rejects(call('no_such_tool'), (error) => {
      assert.equal(error.code, -32602);
      assert.match(error.message, /no_such_tool/);
      return true;
    });
  });
});
