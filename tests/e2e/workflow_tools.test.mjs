// A workflow offered as a tool of its own, used as a team's agent would: through the v1 SDK on a
// playbook's run-mode endpoint and the v2 SDK (2026-07-28) on the org's, the tool is listed with the
// workflow's input schema, a call answers the run's output, an undeclared argument is refused before
// anything runs, a tool that does not wait answers a handle get_run follows, and a key that may only
// read is offered no tool that starts a run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { ADD_VAT } from './fixtures.mjs';
import {
  ALL_SCOPES, assertToolFailure, assertToolSuccess, keyName, keyTransport, makeKey, MODERN_VERSION, publicRequest,
  publicUrl, READ_SCOPES, runtimeUrl, uniqueName,
} from './helpers.mjs';

const flow = (tool) => `---
description: Adds VAT to an invoice's net amount
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
tool: ${tool}
steps:
  - id: vat
    function: computation/add-vat
    input:
      net: input.net
output:
  gross: steps.vat.output.gross
---
`;

const OVERVIEW = 'Adds VAT to a net amount, and answers the VAT and the gross amount to the caller.';
const DIAGRAM = 'flowchart LR\n  A[Net] --> B[VAT] --> C[Gross]';

async function v1(url, options) {
  const c = new Client({ name: 'e2e-workflow-tools-v1', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), options));
  return c;
}

async function v2(url, options) {
  const c = new ModernClient({ name: 'e2e-workflow-tools-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
  await c.connect(new ModernTransport(new URL(url), options));
  return c;
}

/** Saves add-vat and two workflows offering it: one that waits for its run, one that does not. */
async function build(call, playbook) {
  const save = async (type, name, source) => assertToolSuccess(await call('create_definition', {
    playbook, type, name, source, overview: OVERVIEW, ...(type === 'workflow' ? {} : { diagram: DIAGRAM }),
  }));
  await save('computation', 'add-vat', ADD_VAT);
  await save('workflow', 'invoice', flow('{ name: add_vat, description: Answers the gross amount of an invoice }'));
  await save('workflow', 'invoice-later', flow('{ name: add_vat_later, wait_seconds: 0 }'));
}

describe('a workflow offered as a tool, in local mode', () => {
  let builder;
  let playbook;
  let playbookName;
  const build_call = (name, args) => builder.callTool({ name, arguments: args });
  before(async () => {
    builder = await v1(`${runtimeUrl()}/mcp`);
    playbookName = uniqueName('invoices');
    playbook = assertToolSuccess(await build_call('create_playbook', { name: playbookName })).id;
    await build(build_call, playbook);
  });
  after(async () => { await builder?.close(); });

  test('v1 SDK on the playbook run-mode endpoint: listed with its schema, called for its output', async () => {
    const client = await v1(`${runtimeUrl()}/orgs/local/playbooks/${playbook}/tools/mcp`);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['add_vat', 'add_vat_later', 'answer_interaction', 'cancel_run', 'get_guide', 'get_run', 'list_interactions', 'list_runs']);
      const tool = tools.find((t) => t.name === 'add_vat');
      assert.deepEqual(tool.inputSchema.properties, { net: { type: 'number' } });
      assert.deepEqual(tool.inputSchema.required, ['net']);
      assert.match(tool.description, /^Answers the gross amount of an invoice\. It answers the run's output when the run ends within 10 seconds/);
      assert.equal(tool.annotations.readOnlyHint, true, 'its only step is a computation');
      assert.equal(tool.annotations.openWorldHint, false);

      const answered = await client.callTool({ name: 'add_vat', arguments: { net: 100 } });
      const run = assertToolSuccess(answered);
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.deepEqual(run.output, { gross: 120 });
      assert.equal(run.definition.name, 'invoice');

      const refused = assertToolFailure(await client.callTool({ name: 'add_vat', arguments: { net: 100, nett: 5 } }), 'invalid_input');
      assert.deepEqual(refused.errors.map((e) => e.pointer), ['/nett']);
      assertToolFailure(await client.callTool({ name: 'add_vat', arguments: { net: 'a hundred' } }), 'invalid_input');
      const runs = assertToolSuccess(await client.callTool({ name: 'list_runs', arguments: { steps: false } }));
      assert.equal(runs.runs.length, 1, `refused calls start nothing: ${JSON.stringify(runs.runs.map((r) => r.run_id))}`);

      const handle = assertToolSuccess(await client.callTool({ name: 'add_vat_later', arguments: { net: 10 } }));
      assert.equal(handle.status, 'started');
      assert.equal(typeof handle.check_back_in_seconds, 'number');
      const followed = assertToolSuccess(await client.callTool({ name: 'get_run', arguments: { run_id: handle.run_id, wait_seconds: 10 } }));
      assert.equal(followed.status, 'succeeded', JSON.stringify(followed));
      assert.deepEqual(followed.output, { gross: 12 });
    } finally {
      await client.close();
    }
  });

  test('v2 SDK on the org run-mode endpoint: each tool named by its playbook', async () => {
    const client = await v2(`${runtimeUrl()}/orgs/local/tools/mcp`);
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === `${playbook}_add_vat`);
      assert.ok(tool, `listed: ${tools.map((t) => t.name).join(', ')}`);
      assert.ok(tool.title.includes(playbookName), tool.title);
      assert.ok(!tools.some((t) => t.name === 'create_definition' || t.name === 'run_definition'), 'nothing that builds');
      assert.ok(tools.find((t) => t.name === 'get_run').inputSchema.properties.playbook, 'the run-following tools take playbook');
      const run = assertToolSuccess(await client.callTool({ name: `${playbook}_add_vat`, arguments: { net: 50 } }));
      assert.deepEqual([run.status, run.output], ['succeeded', { gross: 60 }]);
    } finally {
      await client.close();
    }
  });

  test('the build endpoint does not list the workflow as a tool', async () => {
    const client = await v1(`${runtimeUrl()}/orgs/local/playbooks/${playbook}/mcp`);
    try {
      const { tools } = await client.listTools();
      assert.ok(!tools.some((t) => t.name === 'add_vat'));
      const def = assertToolSuccess(await client.callTool({ name: 'get_definition', arguments: { type: 'workflow', name: 'invoice' } }));
      assert.deepEqual(def.tool, { name: 'add_vat', description: 'Answers the gross amount of an invoice', wait_seconds: 10 });
    } finally {
      await client.close();
    }
  });
});

describe('a workflow offered as a tool, with keys', () => {
  const ORG = 'initech';
  let full;
  let reader;
  let playbook;
  before(async () => {
    full = await makeKey(ORG, { name: keyName('tools-full'), scopes: ALL_SCOPES });
    reader = await makeKey(ORG, { name: keyName('tools-reader'), scopes: READ_SCOPES });
    const made = await publicRequest('POST', `/v1/orgs/${ORG}/playbooks`, { key: full.key, body: { name: uniqueName('tools') } });
    assert.equal(made.status, 201, made.text);
    playbook = made.json.id;
    const builder = await v1(`${publicUrl()}/mcp`, keyTransport(full.key));
    try {
      await build((name, args) => builder.callTool({ name, arguments: args }), playbook);
    } finally {
      await builder.close();
    }
  });

  test('a read-only key is offered no tool that starts a run, and cannot call one', async () => {
    const url = `${publicUrl()}/orgs/${ORG}/playbooks/${playbook}/tools/mcp`;
    const asFull = await v1(url, keyTransport(full.key));
    const asReader = await v1(url, keyTransport(reader.key));
    try {
      const fullNames = (await asFull.listTools()).tools.map((t) => t.name);
      assert.ok(fullNames.includes('add_vat'), fullNames.join(', '));
      const readerNames = (await asReader.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(readerNames, ['get_guide', 'get_run', 'list_interactions', 'list_runs']);
      await assert.rejects(asReader.callTool({ name: 'add_vat', arguments: { net: 1 } }), /Unknown tool: add_vat/);
    } finally {
      await asFull.close();
      await asReader.close();
    }
  });

  test('another org\'s run-mode endpoint is refused', async () => {
    const res = await publicRequest('POST', '/orgs/globex/tools/mcp', {
      key: full.key,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
    });
    assert.equal(res.status, 403, res.text);
    assert.match(res.json.detail, /cannot connect to the org globex/);
  });
});
