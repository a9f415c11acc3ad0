// What an agent sees through the official v1 TypeScript client (@modelcontextprotocol/sdk, initialize
// handshake over streamable HTTP): the negotiated revision (its default 2025-11-25, and older ones the
// client asks for), serverInfo and instructions, every tool with their annotations, the get-started
// prompt, the guides as resources and through get_guide, the whole life of a playbook, and the failures.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  TOOL_HINTS,
  assertInstructions, assertPlaybook, assertToolFailure, assertToolList, assertToolSuccess,
  GET_STARTED_TEXT, GUIDES, pointers, runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';

/** The v1 client always offers its latest revision; this transport rewrites the offer to `version`. */
class TransportAsking extends StreamableHTTPClientTransport {
  constructor(url, version) {
    super(url);
    this.askedVersion = version;
  }

  async send(message, options) {
    if (message.method === 'initialize') {
      message = { ...message, params: { ...message.params, protocolVersion: this.askedVersion } };
    }
    return super.send(message, options);
  }
}

async function connect(version) {
  const url = new URL(`${runtimeUrl()}/mcp`);
  const transport = version ? new TransportAsking(url, version) : new StreamableHTTPClientTransport(url);
  const client = new Client({ name: 'e2e-sdk-v1', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

describe('MCP through @modelcontextprotocol/sdk (v1)', () => {
  let client;
  let transport;
  const call = (name, args = {}) => client.callTool({ name, arguments: args });

  before(async () => {
    ({ client, transport } = await connect());
  });
  after(async () => {
    await client?.close();
  });

  test('negotiates 2025-11-25 by default, with no session', () => {
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.equal(transport.sessionId, undefined, 'a stateless server issues no Mcp-Session-Id');
  });

  for (const version of ['2025-06-18', '2025-03-26']) {
    test(`a client asking for ${version} gets ${version} and can work with it`, async () => {
      const older = await connect(version);
      try {
        assert.equal(older.transport.protocolVersion, version);
        const { tools } = await older.client.listTools();
        assert.equal(tools.length, Object.keys(TOOL_HINTS).length);
        const listed = assertToolSuccess(await older.client.callTool({ name: 'list_playbooks', arguments: {} }),
          { summaryLimit: 1000 });
        assert.ok(Array.isArray(listed.playbooks));
      } finally {
        await older.client.close();
      }
    });
  }

  test('serverInfo, capabilities and instructions', () => {
    const info = client.getServerVersion();
    assert.equal(info.name, 'auto-runtime');
    assert.equal(typeof info.version, 'string');
    assert.ok(info.version.length > 0);
    const caps = client.getServerCapabilities();
    for (const cap of ['tools', 'prompts', 'resources']) assert.ok(caps[cap], `capability ${cap}`);
    assertInstructions(client.getInstructions());
  });

  test('lists every tool with titles, descriptions, schemas and the contract annotations', async () => {
    const { tools, nextCursor } = await client.listTools();
    assert.equal(nextCursor, undefined);
    assertToolList(tools);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.ok(byName.get_playbook.inputSchema.required?.includes('playbook'), 'get_playbook requires playbook');
    assert.ok(byName.create_playbook.inputSchema.required?.includes('name'), 'create_playbook requires name');
    assert.ok(byName.get_guide.inputSchema.required?.includes('guide'), 'get_guide requires guide');
  });

  test('offers the get-started prompt with its exact message', async () => {
    const { prompts } = await client.listPrompts();
    const prompt = prompts.find((p) => p.name === 'get-started');
    assert.ok(prompt, `get-started among ${prompts.map((p) => p.name)}`);
    assert.equal(prompts[0].name, 'get-started', 'get-started is listed first');
    assert.equal(prompt.title, 'Get started with Auto');
    assert.ok(!prompt.arguments || prompt.arguments.length === 0, 'get-started takes no argument');
    const got = await client.getPrompt({ name: 'get-started' });
    assert.equal(got.messages.length, 1);
    assert.equal(got.messages[0].role, 'user');
    assert.deepEqual(got.messages[0].content, { type: 'text', text: GET_STARTED_TEXT });
  });

  test('lists the guides as Markdown resources and reads guide://start', async () => {
    const { resources } = await client.listResources();
    for (const name of GUIDES) {
      const r = resources.find((x) => x.uri === `guide://${name}`);
      assert.ok(r, `guide://${name} listed among ${resources.map((x) => x.uri)}`);
      assert.equal(r.name, name);
      assert.equal(r.mimeType, 'text/markdown');
    }
    for (const r of resources) assert.match(r.uri, /^guide:\/\/[a-z-]+$/);
    const { contents } = await client.readResource({ uri: 'guide://start' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, 'guide://start');
    assert.equal(contents[0].mimeType, 'text/markdown');
    assert.ok(contents[0].text.length > 200, 'the start guide has some substance');
    const http = await fetch(`${runtimeUrl()}/v1/guides/start`);
    assert.equal(contents[0].text, await http.text(), 'MCP and HTTP serve the same guide text');
  });

  test('get_guide returns the guide whole and names it in the summary', async () => {
    const out = assertToolSuccess(await call('get_guide', { guide: 'start' }));
    assert.equal(out.name, 'start');
    assert.equal(typeof out.title, 'string');
    const { contents } = await client.readResource({ uri: 'guide://start' });
    assert.equal(out.text, contents[0].text);
    const result = await call('get_guide', { guide: 'playbooks' });
    const summary = result.content[0].text;
    const playbooksGuide = assertToolSuccess(result);
    assert.ok(summary.includes('playbooks') || summary.includes(playbooksGuide.title), `summary names it: ${summary}`);
    assert.match(playbooksGuide.text, /conflict/, 'the playbooks guide gives the problem reasons');
  });

  test('a playbook through its whole life: create, list, get, update, retire, restore', async () => {
    const name = uniqueName('walk');
    const created = withoutStudio(assertToolSuccess(await call('create_playbook',
      { name, description: 'Follows one playbook through its life.', page: '# Walk\n\nA page.' })), '/playbooks/');
    assertPlaybook(created, { withPage: true });
    assert.equal(created.name, name);
    assert.equal(created.description, 'Follows one playbook through its life.');
    assert.equal(created.page, '# Walk\n\nA page.');
    assert.equal(created.status, 'active');

    const listed = assertToolSuccess(await call('list_playbooks'));
    assert.ok('next_cursor' in listed, 'list answers next_cursor');
    assert.equal(listed.welcome, undefined, 'an org with playbooks has no welcome');
    assert.equal(listed.playbooks[0].id, created.id, 'newest first');
    const { page: _page, ...withoutPage } = created;
    assert.deepEqual(listed.playbooks[0], withoutPage, 'a listed playbook is the playbook without its page');
    for (const pb of listed.playbooks) assertPlaybook(pb, { withPage: false });

    assert.deepEqual(assertToolSuccess(await call('get_playbook', { playbook: created.id })), created);

    const update = { playbook: created.id, description: 'Changed.', page: '# Walk\n\nAnother page.' };
    const updated = assertToolSuccess(await call('update_playbook', update));
    assertPlaybook(updated, { withPage: true });
    assert.equal(updated.id, created.id);
    assert.equal(updated.name, name);
    assert.equal(updated.description, 'Changed.');
    assert.equal(updated.page, '# Walk\n\nAnother page.');
    assert.ok(updated.updated_at >= created.updated_at);
    const again = assertToolSuccess(await call('update_playbook', update));
    assert.deepEqual({ ...again, updated_at: '' }, { ...updated, updated_at: '' }, 'the same update again');
    assert.deepEqual(assertToolSuccess(await call('get_playbook', { playbook: created.id })), again);

    const retired = assertToolSuccess(await call('retire_playbook', { playbook: created.id }));
    assert.equal(retired.status, 'retired');
    assertPlaybook(retired, { withPage: retired.page !== undefined });
    const retiredAgain = assertToolSuccess(await call('retire_playbook', { playbook: created.id }));
    assert.equal(retiredAgain.status, 'retired');
    assert.equal(retiredAgain.retired_at, retired.retired_at, 'retiring again changes nothing');
    const readRetired = assertToolSuccess(await call('get_playbook', { playbook: created.id }));
    assert.equal(readRetired.status, 'retired', 'a retired playbook stays readable');

    const activeOnly = assertToolSuccess(await call('list_playbooks', { limit: 100 }));
    assert.ok(!activeOnly.playbooks.some((p) => p.id === created.id), 'retired playbooks are not listed by default');
    const withRetired = assertToolSuccess(await call('list_playbooks', { include_retired: true, limit: 100 }));
    const found = withRetired.playbooks.find((p) => p.id === created.id);
    assert.equal(found?.status, 'retired', 'include_retired lists it');

    const restored = assertToolSuccess(await call('restore_playbook', { playbook: created.id }));
    assert.equal(restored.status, 'active');
    assert.equal(restored.retired_at, undefined);
    assert.equal(restored.name, name);
    const relisted = assertToolSuccess(await call('list_playbooks', { limit: 100 }));
    assert.ok(relisted.playbooks.some((p) => p.id === created.id), 'a restored playbook is listed again');
  });

  test('update_playbook is idempotent: the same update twice changes nothing, updated_at included', async () => {
    const created = assertToolSuccess(await call('create_playbook', { name: uniqueName('idem') }));
    const update = { playbook: created.id, name: uniqueName('idem2'), description: 'Once.', page: '# Once' };
    const first = assertToolSuccess(await call('update_playbook', update));
    const second = assertToolSuccess(await call('update_playbook', update));
    assert.deepEqual(second, first);
  });

  test('an invalid name fails with a pointer at /name', async () => {
    for (const name of ['', ' leading space', 'x'.repeat(81), 'bell\u0007']) {
      const problem = assertToolFailure(await call('create_playbook', { name }), 'invalid_input');
      assert.ok(pointers(problem).includes('/name'), `pointer /name for ${JSON.stringify(name)}: ${JSON.stringify(problem)}`);
    }
  });

  test('invalid arguments are invalid_input results with a pointer at each field', async () => {
    const cases = [
      ['get_playbook', {}, '/playbook'],
      ['create_playbook', { name: uniqueName('args'), colour: 'red' }, '/colour'],
      ['list_playbooks', { limit: 0 }, '/limit'],
      ['list_playbooks', { limit: 101 }, '/limit'],
      ['update_playbook', { playbook: 'pb_aaaaaaaaaaaaaaaa', description: 'd'.repeat(1001) }, '/description'],
    ];
    for (const [tool, args, pointer] of cases) {
      const problem = assertToolFailure(await call(tool, args), 'invalid_input');
      assert.ok(pointers(problem).includes(pointer), `${tool} ${pointer}: ${JSON.stringify(problem)}`);
    }
    const guide = await call('get_guide', { guide: 'no-such-guide' });
    const problem = assertToolFailure(guide, 'not_found');
    for (const name of GUIDES) assert.ok(guide.content[0].text.includes(name), `the words name the guide ${name}`);
    assert.ok(pointers(problem).includes('/guide'));
  });

  test('a name taken by an active playbook (any case) is a conflict', async () => {
    const name = uniqueName('dup');
    assertToolSuccess(await call('create_playbook', { name }));
    assertToolFailure(await call('create_playbook', { name }), 'conflict');
    assertToolFailure(await call('create_playbook', { name: name.toUpperCase() }), 'conflict');
  });

  // The org's object takes changes of different playbooks and names at once, and a name one change
  // claims is not taken by another meanwhile: these calls all reach it together.
  const takenName = (problem) => {
    assert.ok(pointers(problem).includes('/name'), `a pointer at /name: ${JSON.stringify(problem)}`);
    assert.match(problem.detail, /already called/);
  };
  const activeNamed = async (name) => {
    const listed = assertToolSuccess(await call('list_playbooks', { limit: 100 }));
    return listed.playbooks.filter((p) => p.name.toLowerCase() === name.toLowerCase());
  };

  test('eight creates of one name at once: one is made, seven are refused as the name taken', async () => {
    // A few rounds, since whether the eight overlap in the org's object depends on the machine.
    for (let round = 0; round < 4; round += 1) {
      const name = uniqueName('same');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        call('create_playbook', { name: i % 2 ? name : name.toUpperCase() })));
      const made = results.filter((r) => !r.isError).map((r) => assertToolSuccess(r));
      assert.equal(made.length, 1, `one create wins: ${JSON.stringify(results.map((r) => r.content[0].text))}`);
      for (const refused of results.filter((r) => r.isError)) takenName(assertToolFailure(refused, 'conflict'));
      assert.deepEqual((await activeNamed(name)).map((p) => p.id), [made[0].id], 'the org lists the one made');
    }
  });

  test('eight creates of different names at once are all made and each listed once', async () => {
    const prefix = uniqueName('apart');
    const names = Array.from({ length: 8 }, (_, i) => `${prefix} ${i}`);
    const made = (await Promise.all(names.map((name) => call('create_playbook', { name }))))
      .map((r) => assertToolSuccess(r));
    assert.deepEqual(made.map((p) => p.name), names);
    const listed = assertToolSuccess(await call('list_playbooks', { limit: 100 })).playbooks
      .filter((p) => p.name.startsWith(prefix));
    assert.deepEqual(listed.map((p) => p.id).sort(), made.map((p) => p.id).sort(), 'each listed once');
  });

  test('a rename to a name being created at the same time leaves the name with one holder', async () => {
    for (let round = 0; round < 4; round += 1) {
      const other = assertToolSuccess(await call('create_playbook', { name: uniqueName('before') }));
      const name = uniqueName('contested');
      const [created, renamed] = await Promise.all([
        call('create_playbook', { name }),
        call('update_playbook', { playbook: other.id, name }),
      ]);
      const won = [created, renamed].filter((r) => !r.isError);
      assert.equal(won.length, 1, `one of the two wins: ${created.content[0].text} / ${renamed.content[0].text}`);
      takenName(assertToolFailure([created, renamed].find((r) => r.isError), 'conflict'));
      const holder = assertToolSuccess(won[0]).id;
      assert.deepEqual((await activeNamed(name)).map((p) => p.id), [holder], 'the org lists the winner alone');
      const read = assertToolSuccess(await call('get_playbook', { playbook: other.id }));
      assert.equal(read.name === name, holder === other.id, 'the renamed playbook holds the name only if it won');
    }
  });

  test('an unknown playbook is not_found', async () => {
    for (const tool of ['get_playbook', 'retire_playbook', 'restore_playbook']) {
      assertToolFailure(await call(tool, { playbook: 'pb_aaaaaaaaaaaaaaaa' }), 'not_found');
    }
    assertToolFailure(await call('update_playbook', { playbook: 'pb_aaaaaaaaaaaaaaaa', description: 'x' }), 'not_found');
  });

  test('an unknown tool is the JSON-RPC error -32602 naming it', async () => {
    await assert.rejects(call('no_such_tool', {}), (error) => {
      assert.equal(error.code, -32602);
      assert.match(error.message, /no_such_tool/);
      return true;
    });
  });
});
