// How the runs went, through the official MCP client: a playbook whose computations ran a few times,
// one run failing, answers get_stats with the counts an agent reads, on /mcp and on the playbook's own
// endpoint, for the playbook and for one function; and list_runs narrows by start time, a span in the
// future holding none and a time that is no time refused at its field.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, pointers, runtimeUrl, uniqueName } from './helpers.mjs';
import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from './fixtures.mjs';

// A computation whose input may leave out the net it needs, so that a run without it fails.
const HALF = `---
description: Halves a net amount
input:
  schema: { type: object, properties: { net: { type: number } } }
output:
  schema: { type: object, properties: { half: { type: number } }, required: [half] }
compute:
  half: input.net / 2
---
`;

const connect = async (path) => {
  const client = new Client({ name: 'stats-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`)));
  return client;
};

describe('get_stats and list_runs by start time through @modelcontextprotocol/sdk', () => {
  let client;
  let playbook;
  let own;
  const call = (name, args) => client.callTool({ name, arguments: { playbook, ...args } });
  const run = (name, input) => call('run_definition', { type: 'computation', name, input });

  before(async () => {
    client = await connect('/mcp');
    const made = await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('stats') } });
    playbook = assertToolSuccess(made).id;
    assertToolSuccess(await call('create_definition', {
      type: 'computation', name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM,
    }));
    assertToolSuccess(await call('create_definition', {
      type: 'computation', name: 'half', source: HALF,
      overview: 'Halves a net amount, and fails where the input gives none.', diagram: 'flowchart LR\n  A[net] --> B[half]',
    }));
    for (const net of [1, 2, 3]) assert.equal(assertToolSuccess(await run('add-vat', { net })).status, 'succeeded');
    assert.equal(assertToolSuccess(await run('half', { net: 4 })).status, 'succeeded');
    const failed = assertToolSuccess(await run('half', {}));
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    own = await connect(`/orgs/local/playbooks/${playbook}/mcp`);
  });
  after(async () => {
    await client?.close();
    await own?.close();
  });

  test('get_stats counts the window\'s runs by status and names the most failing function', async () => {
    const result = await call('get_stats', { window: '24h' });
    const stats = assertToolSuccess(result);
    const { runs, succeeded, failed, cancelled, running, success_rate: rate } = stats.current;
    assert.deepEqual({ runs, succeeded, failed, cancelled, running, rate }, { runs: 5, succeeded: 4, failed: 1, cancelled: 0, running: 0, rate: 0.8 });
    assert.equal(stats.previous.runs, 0);
    assert.equal(stats.window, '24h');
    assert.equal(typeof stats.current.duration_ms.p50, 'number');
    assert.ok(stats.current.duration_ms.p95 >= stats.current.duration_ms.p50);
    assert.deepEqual(stats.most_failing, [{ definition: { type: 'computation', name: 'half' }, failed: 1, ended: 2 }]);
    // Computations record no tokens and the catalogue no prices: absent, never a made-up zero.
    assert.equal(stats.current.tokens, null);
    assert.equal(stats.cost, null);
    assert.deepEqual(stats.read.reached, []);
    const said = result.content[0].text;
    assert.match(said, /^In the last 24 hours, 5 runs \(was 0\): 4 succeeded \(80%\), 1 failed; p50 [\d.]+ m?s, p95 [\d.]+ m?s\./);
    assert.match(said, /Most failing: computation\/half \(1 of 2 failed\)\./);
  });

  test('on the playbook\'s own endpoint get_stats takes no playbook, and counts one function with type and name', async () => {
    const listed = await own.listTools();
    assert.ok(listed.tools.some((t) => t.name === 'get_stats'), 'the playbook endpoint lists get_stats');
    const one = assertToolSuccess(await own.callTool({ name: 'get_stats', arguments: { type: 'computation', name: 'add-vat' } }));
    assert.deepEqual(one.definition, { type: 'computation', name: 'add-vat' });
    assert.equal(one.window, '7d', 'a week when left out');
    assert.deepEqual([one.current.runs, one.current.succeeded, one.current.success_rate], [3, 3, 1]);
    const bad = assertToolFailure(await call('get_stats', { window: 'forever' }), 'invalid_input');
    assert.ok(pointers(bad).includes('/window'), JSON.stringify(bad));
  });

  test('list_runs narrows by start time: a span in the future holds none, and no time is refused at its field', async () => {
    const all = assertToolSuccess(await call('list_runs', {}));
    assert.equal(all.runs.length, 5);
    const oldest = all.runs[all.runs.length - 1].started_at;
    const since = assertToolSuccess(await call('list_runs', { started_after: oldest }));
    assert.equal(since.runs.length, 5, 'started_after is from that time on');
    assert.deepEqual(assertToolSuccess(await call('list_runs', { started_before: oldest })).runs, []);
    const future = assertToolSuccess(await call('list_runs', { started_after: '2999-01-01T00:00:00Z' }));
    assert.deepEqual(future.runs, []);
    assert.equal(future.next_cursor, null);
    const bad = assertToolFailure(await call('list_runs', { started_after: 'last tuesday' }), 'invalid_input');
    assert.deepEqual(pointers(bad), ['/started_after']);
  });
});
