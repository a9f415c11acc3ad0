// Running a function through the official MCP client: a computation function runs and answers its
// output, a retry under a run id answers the same run (and another input is refused), concurrent
// duplicates start one run, bad input is refused at its field, and list_runs pages newest first.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, pointers, runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';
import { ADD_VAT, ADD_VAT_DIAGRAM as DIAGRAM, ADD_VAT_OVERVIEW as OVERVIEW } from './fixtures.mjs';


describe('runs through @modelcontextprotocol/sdk (v1)', () => {
  let client;
  let playbook;
  const call = (name, args) => client.callTool({ name, arguments: { playbook, ...args } });
  const run = (args) => call('run_definition', { type: 'computation', name: 'add-vat', ...args });

  before(async () => {
    client = new Client({ name: 'runs-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    const made = await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('runs') } });
    playbook = made.structuredContent.id;
    assertToolSuccess(await call('create_definition', {
      type: 'computation', name: 'add-vat', source: ADD_VAT, overview: OVERVIEW, diagram: DIAGRAM,
    }));
  });
  after(() => client?.close());

  test('a computation function runs and answers its output in words and as structured content', async () => {
    const result = await run({ input: { net: 100 } });
    const out = assertToolSuccess(result);
    assert.equal(out.status, 'succeeded');
    assert.deepEqual(out.output, { vat: 20, gross: 120 });
    assert.equal(out.version, 1);
    assert.match(result.content[0].text, /^The run of the computation function “add-vat” finished\. Its result: vat: 20 and gross: 120$/);
    const { record, ...read } = assertToolSuccess(await call('get_run', { run_id: out.run_id }));
    assert.deepEqual(read, withoutStudio(out, '/playbooks/'), 'get_run answers the run as run_definition did, and its record');
    assert.deepEqual(record, { type: 'computation', values: [{ field: 'vat', value: 20 }, { field: 'gross', value: 120 }] });
  });

  test('a retry under a run id answers the same run; another input is refused', async () => {
    const first = assertToolSuccess(await run({ input: { net: 10 }, run_id: 'order-10' }));
    const again = assertToolSuccess(await run({ input: { net: 10 }, run_id: 'order-10' }));
    assert.deepEqual(again, first);
    const other = assertToolFailure(await run({ input: { net: 11 }, run_id: 'order-10' }), 'conflict');
    assert.ok(pointers(other).includes('/run_id'), JSON.stringify(other));
    assert.match(other.detail, /new run id/);
  });

  test('concurrent duplicates under one run id start exactly one run', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, () => run({ input: { net: 7 }, run_id: 'dup-7' })));
    for (const r of results) assert.equal(assertToolSuccess(r).run_id, 'dup-7');
    const listed = assertToolSuccess(await call('list_runs', { type: 'computation', name: 'add-vat', limit: 100 }));
    assert.equal(listed.runs.filter((r) => r.run_id === 'dup-7').length, 1);
  });

  test('an input the schema refuses is invalid_input of kind input_schema, at its field', async () => {
    const problem = assertToolFailure(await run({ input: { net: 'a lot' } }), 'invalid_input');
    assert.equal(problem.kind, 'input_schema');
    assert.deepEqual(pointers(problem), ['/input/net']);
    const missing = assertToolFailure(await run({}), 'invalid_input');
    assert.equal(missing.kind, 'input_schema');
  });

  test('a paused function does not run, and a type not run yet says so', async () => {
    assertToolSuccess(await call('pause_definition', { type: 'computation', name: 'add-vat' }));
    assertToolFailure(await run({ input: { net: 1 } }), 'conflict');
    assertToolSuccess(await call('resume_definition', { type: 'computation', name: 'add-vat' }));
    assertToolSuccess(await run({ input: { net: 1 } }));
    const unknown = assertToolFailure(await call('run_definition', { type: 'reasoning', name: 'nope' }), 'not_found');
    assert.ok(unknown.detail.includes('nope'));
    const gone = assertToolFailure(await call('get_run', { run_id: 'never-ran' }), 'not_found');
    assert.ok(pointers(gone).includes('/run_id'));
  });

  test('list_runs pages newest first with next_cursor, and filters by status', async () => {
    for (let i = 0; i < 5; i += 1) assertToolSuccess(await run({ input: { net: i }, run_id: `page-${i}` }));
    const seen = [];
    let cursor;
    do {
      const page = assertToolSuccess(await call('list_runs', { limit: 2, ...(cursor ? { cursor } : {}) }));
      assert.ok(page.runs.length <= 2);
      seen.push(...page.runs.map((r) => r.run_id));
      cursor = page.next_cursor;
    } while (cursor);
    assert.equal(new Set(seen).size, seen.length, 'no run is listed twice');
    const order = seen.filter((id) => id.startsWith('page-'));
    assert.deepEqual(order, ['page-4', 'page-3', 'page-2', 'page-1', 'page-0']);
    const failed = assertToolSuccess(await call('list_runs', { status: 'failed' }));
    assert.deepEqual(failed.runs, []);
    const bad = assertToolFailure(await call('list_runs', { cursor: 'nonsense' }), 'invalid_input');
    assert.deepEqual(pointers(bad), ['/cursor']);
  });

  test("a run's history reads oldest first; the playbook's newest first; get_event reads one whole", async () => {
    const ran = assertToolSuccess(await run({ input: { net: 50 }, run_id: 'history-50' }));
    const history = assertToolSuccess(await call('list_playbook_events', { run_id: ran.run_id }));
    assert.deepEqual(history.events.map((e) => e.kind), ['run_started', 'run_succeeded']);
    assert.deepEqual(history.events[0].data, { input: { net: 50 } });
    assert.match(history.events[0].summary, /A run of the computation function “add-vat” started\./);

    const published = assertToolSuccess(await call('publish_event', {
      kind: 'month_closed', data: { month: '2026-11', totals: { revenue: 41200 } },
    }));
    assert.match(published.event_id, /^ev_\d+$/);
    const newest = assertToolSuccess(await call('list_playbook_events', { limit: 1 }));
    assert.equal(newest.events[0].event_id, published.event_id);
    assert.ok(newest.next_cursor, 'more events follow');
    const older = assertToolSuccess(await call('list_playbook_events', { limit: 1, cursor: newest.next_cursor }));
    assert.notEqual(older.events[0].event_id, published.event_id);
    const one = assertToolSuccess(await call('get_event', { event_id: published.event_id }));
    assert.deepEqual(one.data, { month: '2026-11', totals: { revenue: 41200 } });

    const big = 'x'.repeat(5000);
    const large = assertToolSuccess(await call('publish_event', { kind: 'note_kept', data: { text: big } }));
    const listed = assertToolSuccess(await call('list_playbook_events', { kind: 'note_kept' }));
    assert.equal(listed.events[0].data, undefined, 'a large data is left out of a list');
    assert.ok(listed.events[0].data_size > 5000);
    assert.equal(assertToolSuccess(await call('get_event', { event_id: large.event_id })).data.text, big);

    // A run's input beyond 64 KiB: get_event over MCP shows that field by its size, HTTP answers it whole.
    const note = 'n'.repeat(100_000);
    const huge = assertToolSuccess(await run({ input: { net: 10, note } }));
    const hugeHistory = assertToolSuccess(await call('list_playbook_events', { run_id: huge.run_id }));
    const started = hugeHistory.events.find((e) => e.kind === 'run_started');
    const overMcp = assertToolSuccess(await call('get_event', { event_id: started.event_id }));
    assert.equal(overMcp.data.input.net, 10, 'a small field is shown whole');
    assert.equal(overMcp.data.input.note.omitted_bytes, 100_002);
    const overHttp = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${playbook}/events/${started.event_id}`).then((r) => r.json());
    assert.equal(overHttp.data.input.note, note);

    assert.deepEqual(pointers(assertToolFailure(await call('publish_event', { kind: 'Month Closed' }), 'invalid_input')), ['/kind']);
    assert.deepEqual(pointers(assertToolFailure(await call('publish_event', { kind: 'run_started' }), 'invalid_input')), ['/kind']);
    assertToolFailure(await call('get_event', { event_id: 'ev_999999' }), 'not_found');
  });

  test('a lookup reads the newest runs of another function, filtered and limited', async () => {
    for (const net of [1000, 20, 3000]) assertToolSuccess(await run({ input: { net }, run_id: `lookup-${net}` }));
    assertToolSuccess(await call('create_definition', {
      type: 'lookup', name: 'large-vat',
      source: '---\ndescription: The latest large VAT sums\ninput: { schema: { type: object, properties: { over: { type: number } } } }\nruns: { of: computation/add-vat, where: run.output.gross > input.over, limit: 2 }\n---\n',
      overview: 'Reads the latest runs of add-vat whose gross is over a given amount, two at most.',
      diagram: 'flowchart LR\n  A[runs of add-vat] --> B[gross over the amount] --> C[two newest]',
    }));
    const found = assertToolSuccess(await call('run_definition', { type: 'lookup', name: 'large-vat', input: { over: 1000 } }));
    assert.equal(found.status, 'succeeded');
    assert.deepEqual(found.output.runs.map((r) => r.run_id), ['lookup-3000', 'lookup-1000']);
    assert.deepEqual(found.output.runs[0].output, { vat: 600, gross: 3600 });
  });

  test('a prediction forecasts the periods ahead from published events, with bounds', async () => {
    const months = [['2026-05-31', 100], ['2026-06-30', 110], ['2026-07-31', 125], ['2026-08-31', 130], ['2026-09-30', 145]];
    for (const [day, revenue] of months) {
      assertToolSuccess(await call('publish_event', { kind: 'revenue_booked', at: `${day}T17:00:00Z`, data: { totals: { revenue } } }));
    }
    assertToolSuccess(await call('create_definition', {
      type: 'prediction', name: 'revenue-ahead',
      source: '---\ndescription: Forecasts monthly revenue\nevents: { kind: revenue_booked, field: totals.revenue }\nevery: month\nmethod: linear_trend\nhorizon: 2\nconfidence: 0.9\n---\n',
      overview: 'Forecasts the revenue of the next two months from the months closed, with 90% bounds.',
      diagram: 'flowchart LR\n  A[months closed] --> B[trend] --> C[next two months]',
    }));
    const out = assertToolSuccess(await call('run_definition', { type: 'prediction', name: 'revenue-ahead' }));
    assert.equal(out.status, 'succeeded', JSON.stringify(out));
    assert.deepEqual(out.output.forecast.map((p) => p.period), ['2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z']);
    const [next] = out.output.forecast;
    assert.ok(next.value > 145 && next.value < 170, JSON.stringify(next));
    assert.ok(next.lower < next.value && next.value < next.upper);
    assert.deepEqual(pointers(assertToolFailure(await call('publish_event', { kind: 'month_closed', at: 'yesterday' }), 'invalid_input')), ['/at']);
  });
});
