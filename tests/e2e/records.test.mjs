// Who did what, and a run's detailed record, as an agent reads them: every playbook, definition,
// pause and retire names the caller that made it; a run names who started it; get_run answers the
// record of a computation, a lookup and a prediction (reasoning and workflow records are checked
// in their own files), which run_definition leaves out; and over MCP a field larger than 64 KiB is
// shown by its size while the HTTP route answers it whole.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolSuccess, LOCAL_USER, runtimeUrl, uniqueName } from './helpers.mjs';
import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from './fixtures.mjs';

const ME = { kind: 'local_developer', id: 'local', name: LOCAL_USER };

const REVENUE = `---
description: Forecasts next month's revenue from the months closed
events: { kind: month_closed, field: revenue }
every: month
method: linear_trend
horizon: 1
---
`;

const LARGE = `---
description: Answers the length of a note
input:
  schema: { type: object, properties: { note: { type: string } }, required: [note] }
output:
  schema: { type: object, properties: { length: { type: integer } }, required: [length] }
compute:
  length: input.note | length
---
`;

describe('who did what, and the record of a run', () => {
  let client;
  let playbook;
  const call = async (name, args) => assertToolSuccess(await client.callTool({ name, arguments: { playbook, ...args } }));
  const define = (type, name, source, overview = ADD_VAT_OVERVIEW) =>
    call('create_definition', { type, name, source, overview, diagram: ADD_VAT_DIAGRAM });

  before(async () => {
    client = new Client({ name: 'records-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    const made = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('records') } }));
    assert.deepEqual([made.created_by, made.updated_by], [ME, ME]);
    playbook = made.id;
  });
  after(() => client?.close());

  test('a playbook and a definition name who made, changed, paused and retired them', async () => {
    const updated = await call('update_playbook', { description: 'Keeps the books' });
    assert.deepEqual(updated.updated_by, ME);
    const listed = assertToolSuccess(await client.callTool({ name: 'list_playbooks', arguments: {} }));
    assert.deepEqual(listed.playbooks.find((p) => p.id === playbook).created_by, ME, 'the list names the maker too');

    const saved = await define('computation', 'add-vat', ADD_VAT);
    assert.deepEqual([saved.created_by, saved.updated_by], [ME, ME]);
    const paused = await call('pause_definition', { type: 'computation', name: 'add-vat', reason: 'month end' });
    assert.equal(paused.status, 'paused');
    assert.deepEqual(paused.by, ME);
    await call('resume_definition', { type: 'computation', name: 'add-vat' });

    const other = uniqueName('records-retired');
    const second = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: other } }));
    const retired = assertToolSuccess(await client.callTool({ name: 'retire_playbook', arguments: { playbook: second.id } }));
    assert.deepEqual(retired.retired_by, ME);
    const restored = assertToolSuccess(await client.callTool({ name: 'restore_playbook', arguments: { playbook: second.id } }));
    assert.equal(restored.retired_by, undefined, 'an active playbook names no retirer');
    assert.deepEqual(restored.created_by, ME, 'a change keeps who made it');
  });

  test('get_run answers the record of a computation, a lookup and a prediction; run_definition does not', async () => {
    const started = await call('run_definition', { type: 'computation', name: 'add-vat', input: { net: 100 } });
    assert.deepEqual(started.started_by, ME);
    assert.equal(started.record, undefined);
    const computed = await call('get_run', { run_id: started.run_id });
    assert.deepEqual(computed.record, {
      type: 'computation',
      values: [{ field: 'vat', value: 20 }, { field: 'gross', value: 120 }],
    });

    await define('lookup', 'big-sales', '---\ndescription: Reads the sales over a gross\ninput:\n  schema: { type: object, properties: { over: { type: number } }, required: [over] }\nruns: { of: computation/add-vat, where: run.output.gross > input.over }\n---\n');
    await call('run_definition', { type: 'computation', name: 'add-vat', input: { net: 10 } });
    const looked = await call('run_definition', { type: 'lookup', name: 'big-sales', input: { over: 50 } });
    const lookup = (await call('get_run', { run_id: looked.run_id })).record;
    assert.deepEqual(lookup, {
      type: 'lookup',
      query: { of: 'computation/add-vat', where: 'run.output.gross > input.over', status: 'succeeded', limit: 20 },
      read: 2,
      kept: 1,
    });

    for (const [at, revenue] of [['2026-01-31T10:00:00Z', 100], ['2026-02-28T10:00:00Z', 110], ['2026-03-31T10:00:00Z', 120]]) {
      await call('publish_event', { kind: 'month_closed', data: { revenue }, at });
    }
    await define('prediction', 'revenue', REVENUE);
    const forecast = await call('run_definition', { type: 'prediction', name: 'revenue', input: {} });
    assert.equal(forecast.status, 'succeeded');
    const predicted = (await call('get_run', { run_id: forecast.run_id })).record;
    assert.equal(predicted.type, 'prediction');
    assert.equal(predicted.method, 'linear_trend');
    assert.deepEqual(predicted.series.map((p) => p.value), [100, 110, 120]);
    assert.equal(predicted.events_read, 3);
    assert.deepEqual([predicted.params.every, predicted.params.horizon, predicted.params.aggregate], ['month', 1, 'sum']);
  });

  test('over MCP a field over 64 KiB is shown by its size; over HTTP whole', async () => {
    await define('computation', 'note-length', LARGE, 'Answers how many characters a note holds, to test large inputs.');
    const note = 'x'.repeat(70_000);
    const run = await call('run_definition', { type: 'computation', name: 'note-length', input: { note } });
    assert.equal(run.status, 'succeeded');
    const shown = await call('get_run', { run_id: run.run_id });
    assert.equal(shown.input.note.omitted_bytes, 70_002);
    assert.match(shown.input.note.note, /GET the run over HTTP/);
    assert.deepEqual(shown.output, { length: 70_000 });
    const whole = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${playbook}/runs/${run.run_id}`).then((r) => r.json());
    assert.equal(whole.input.note, note);
  });
});
