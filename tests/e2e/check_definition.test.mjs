// check_definition as agents use it before a save, through both official TypeScript SDKs and the HTTP
// API: a broken document is answered with every problem at its pointer, a good one with what the save
// would do, and nothing is kept either way (list_definitions and get_definition see nothing new).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { ADD_VAT } from './fixtures.mjs';
import { assertToolFailure, assertToolSuccess, MODERN_VERSION, runtimeUrl, uniqueName } from './helpers.mjs';

const OVERVIEW = 'Adds VAT to a net amount, and answers the VAT and the gross amount to the caller.';
const DIAGRAM = 'flowchart LR\n  A[Net] --> B[VAT] --> C[Gross]';
const GOOD = ADD_VAT;
// Three problems at once: an unknown key, an expression that does not parse, and a bad name.
const BROKEN = GOOD.replace('compute:', 'colour: blue\ncompute:').replace('input.net * 0.2', 'input.net *');

const clients = {
  'v1 SDK': async () => {
    const c = new Client({ name: 'e2e-check-v1', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    return c;
  },
  'v2 SDK (2026-07-28)': async () => {
    const c = new ModernClient({ name: 'e2e-check-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
    await c.connect(new ModernTransport(new URL(`${runtimeUrl()}/mcp`)));
    return c;
  },
};

for (const [label, connect] of Object.entries(clients)) {
  describe(`check_definition through the ${label}`, () => {
    let client;
    const call = (name, args = {}) => client.callTool({ name, arguments: args });
    before(async () => { client = await connect(); });
    after(async () => { await client?.close(); });

    test('a broken document, then a good one: each answered, nothing kept', async () => {
      const playbook = assertToolSuccess(await call('create_playbook', { name: uniqueName('check') })).id;
      const args = { playbook, type: 'computation', overview: OVERVIEW, diagram: DIAGRAM };

      const broken = await call('check_definition', { ...args, name: 'Add VAT', source: BROKEN });
      const answer = assertToolSuccess(broken);
      assert.equal(answer.valid, false, JSON.stringify(answer));
      assert.equal(answer.kept, false);
      const where = answer.problem.errors.map((e) => e.pointer);
      assert.ok(where.includes('/name') && where.length >= 3, `every problem at once: ${where}`);
      assert.match(broken.content[0].text, /^A save would refuse this, with \d+ problems, each at its pointer/);
      // The save refuses the same arguments at the same pointers.
      const refused = assertToolFailure(await call('create_definition', { ...args, name: 'Add VAT', source: BROKEN }), 'invalid_input');
      assert.deepEqual(refused.errors.map((e) => e.pointer), where);

      const good = await call('check_definition', { ...args, name: 'add-vat', source: GOOD });
      const fine = assertToolSuccess(good);
      assert.deepEqual([fine.valid, fine.would, fine.version, fine.needs, fine.kept], [true, 'create', 1, [], false]);
      assert.match(good.content[0].text, /create_definition would save the computation function “add-vat” as version 1\. Nothing was kept\./);

      const listed = assertToolSuccess(await call('list_definitions', { playbook, type: 'computation' }));
      assert.deepEqual(listed.definitions, [], 'a check keeps nothing');
      assertToolFailure(await call('get_definition', { playbook, type: 'computation', name: 'add-vat' }), 'not_found');

      assertToolSuccess(await call('create_definition', { ...args, name: 'add-vat', source: GOOD }));
      const update = assertToolSuccess(await call('check_definition', { ...args, name: 'add-vat', source: GOOD.replace('0.2', '0.25') }));
      assert.deepEqual([update.would, update.version], ['update', 2]);
      const read = assertToolSuccess(await call('get_definition', { playbook, type: 'computation', name: 'add-vat' }));
      assert.equal(read.version, 1, 'the check of an update keeps no version');
    });
  });
}

describe('check_definition over the HTTP API', () => {
  const base = () => `${runtimeUrl()}/v1/orgs/local/playbooks`;
  async function post(path, body) {
    const res = await fetch(`${base()}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
  }

  test('POST …/definitions/check answers 200 with the check, and is not a save of the type "check"', async () => {
    const pb = await post('', { name: uniqueName('http-check') });
    assert.equal(pb.status, 201, pb.text);
    const checked = await post(`/${pb.json.id}/definitions/check`,
      { type: 'computation', name: 'add-vat', source: GOOD, overview: OVERVIEW, diagram: DIAGRAM });
    assert.equal(checked.status, 200, checked.text);
    assert.deepEqual([checked.json.valid, checked.json.would, checked.json.kept], [true, 'create', false]);
    const broken = await post(`/${pb.json.id}/definitions/check`,
      { type: 'computation', name: 'add-vat', source: BROKEN, overview: OVERVIEW, diagram: DIAGRAM });
    assert.equal(broken.status, 200, broken.text);
    assert.equal(broken.json.valid, false);
    assert.equal(broken.json.problem.reason, 'invalid_input');
    const list = await fetch(`${base()}/${pb.json.id}/definitions/computation`);
    assert.deepEqual((await list.json()).definitions, []);
  });
});
