// Triggers start workflow runs on their own in the local runtime: a set time a few seconds ahead
// starts a run at that time; a playbook event that matches a filter starts a run with the event's
// data, one that does not starts none, and an input the workflow's schema refuses is recorded
// instead of run; pausing a workflow stops its trigger and resuming starts it again, with no backlog;
// a cron schedule in a zone with summer time is due at its wall time there, by the zone data the
// Worker reads through Intl, a name is read in any case, and a zone Intl does not know is refused.
// Each test waits for what the runtime records, never for the clock: when cron and interval
// times fall due, clock changes, and what a pause or an outage owes, the host tests prove with a
// clock in hand (src/ops/triggers/tests.rs, src/core/zone/tests.rs).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, pointers, runtimeUrl, uniqueName } from './helpers.mjs';
import { ADD_VAT } from './fixtures.mjs';


const workflow = (triggers, schema = '{ type: object }') => `---
description: Prices an order when it is due
input:
  schema: ${schema}
triggers:
${triggers}
steps:
  - id: price
    function: computation/add-vat
    input:
      net: "100"
---
`;

/** Reads until `read` answers something, or fails once `timeoutMs` has passed. */
const until = async (what, read, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

describe('triggers', { timeout: 180_000 }, () => {
  let client;
  let playbook;
  const call = (name, args) => client.callTool({ name, arguments: { playbook, ...args } });
  const define = async (type, name, source) => assertToolSuccess(await call('create_definition', {
    type, name, source, overview: `The ${name} ${type} of the trigger tests does what its description says.`,
    ...(type === 'workflow' ? {} : { diagram: 'flowchart LR\n  A[net] --> B[vat] --> C[gross]' }),
  }));
  const runsOf = async (name) => {
    const page = assertToolSuccess(await call('list_runs', { type: 'workflow', name, limit: 100 }));
    return page.runs;
  };
  const read = async (runId) => assertToolSuccess(await call('get_run', { run_id: runId }));
  const publish = async (kind, data) => assertToolSuccess(await call('publish_event', { kind, data }));
  /** The refusals recorded for a workflow's triggers. */
  const refusalsOf = async (name) => {
    const page = assertToolSuccess(await call('list_playbook_events', { kind: 'trigger_refused', limit: 100 }));
    return page.events.filter((e) => e.summary.includes(`workflow “${name}”`));
  };
  /** The inputs of a workflow's runs, oldest first. */
  const inputsOf = async (name) => Promise.all((await runsOf(name)).reverse().map(async (r) => (await read(r.run_id)).input));

  before(async () => {
    client = new Client({ name: 'triggers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('triggers') } })).id;
    await define('computation', 'add-vat', ADD_VAT);
  });
  after(() => client?.close());

  test('a set time starts a run at that time', async () => {
    const soon = new Date(Date.now() + 4_000);
    soon.setMilliseconds(0);
    await define('workflow', 'at-times', workflow(`  - at: ["${soon.toISOString()}"]`));

    const timed = await until('the set time to start a run', async () => (await runsOf('at-times'))[0]);
    const late = Date.parse(timed.started_at) - soon.getTime();
    assert.ok(late > -1_000 && late < 5_000, `${timed.started_at} for ${soon.toISOString()}`);
    const run = await until('the timed run to end', async () => {
      const r = assertToolSuccess(await call('get_run', { run_id: timed.run_id, wait_seconds: 5 }));
      return r.status !== 'started' && r;
    });
    assert.equal(run.status, 'succeeded');
    assert.deepEqual(run.input, {});
    assert.deepEqual(run.started_by, {
      kind: 'trigger', id: 'workflow/at-times/triggers/0', name: 'the trigger 0 of the workflow “at-times”',
    });
    assert.equal((await runsOf('at-times')).length, 1);
  });

  test('a cron schedule is due at its wall time in its zone', async () => {
    // Adelaide is half an hour off the hour, and an hour more in its summer (October to April):
    // a wrong offset puts the next time hours away, not within this test's wait.
    const zone = 'Australia/Adelaide';
    const due = Math.ceil((Date.now() + 8_000) / 60_000) * 60_000;
    const wall = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: 'numeric', minute: 'numeric', hourCycle: 'h23' })
      .formatToParts(due).map((p) => [p.type, Number(p.value)]));
    await define('workflow', 'on-the-minute', workflow(`  - cron: "${wall.minute} ${wall.hour} * * *"
    time_zone: ${zone}`));

    const timed = await until('the schedule to start a run', async () => (await runsOf('on-the-minute'))[0], 90_000);
    // A run's id names the time its trigger was due, in seconds.
    assert.ok(timed.run_id.endsWith(`-0-${due / 1_000}`), `${timed.run_id} for ${new Date(due).toISOString()}`);
    const late = Date.parse(timed.started_at) - due;
    assert.ok(late > -1_000 && late < 5_000, `${timed.started_at} for ${new Date(due).toISOString()}`);

    const refused = assertToolFailure(await call('create_definition', {
      type: 'workflow', name: 'on-mars', source: workflow('  - cron: "0 9 * * *"\n    time_zone: Mars/Olympus'),
      overview: 'The on-mars workflow of the trigger tests does what its description says.',
    }), 'invalid_input');
    assert.ok(pointers(refused).includes('/triggers/0/time_zone'), JSON.stringify(refused.errors));
    assert.match(JSON.stringify(refused.errors), /must name an IANA time zone, as Europe\/Paris or UTC/);
    // Intl reads a name in any case, and the guide promises it.
    await define('workflow', 'in-lowercase', workflow('  - cron: "0 9 * * *"\n    time_zone: europe/paris'));
    for (const name of ['on-the-minute', 'in-lowercase']) {
      assertToolSuccess(await call('retire_definition', { type: 'workflow', name }));
    }
  });

  test('events that match a filter start runs with their data; a refused input is recorded instead', async () => {
    await define('workflow', 'on-order', workflow(`  - event: order_placed
    where: { channel: web }`, '{ type: object, properties: { order: { type: string } }, required: [order] }'));

    await publish('order_placed', { channel: 'shop', order: 'A-1' });
    await publish('order_placed', { channel: 'web', order: 'A-2' });
    await publish('order_placed', { channel: 'web' });

    // The alarm starts what the events owe in the order they were kept: once the last is
    // recorded as refused, the one before it has started, and nothing else will.
    const [refused] = await until('the refusal to be recorded', async () => {
      const found = await refusalsOf('on-order');
      return found.length > 0 && found;
    });
    assert.match(refused.summary, /^A trigger of the workflow “on-order” did not start a run: /);
    assert.equal((await refusalsOf('on-order')).length, 1);
    const ordered = await runsOf('on-order');
    assert.equal(ordered.length, 1, JSON.stringify(ordered));
    const run = await read(ordered[0].run_id);
    assert.deepEqual(run.input, { channel: 'web', order: 'A-2' });
    assert.deepEqual(run.started_by, {
      kind: 'trigger', id: 'workflow/on-order/triggers/0', name: 'the trigger 0 of the workflow “on-order”',
    }, 'a run a trigger started names the trigger');
  });

  test('pausing a workflow stops its trigger, and resuming starts it again with no backlog', async () => {
    await define('workflow', 'on-tick', workflow('  - event: tick'));
    // Another workflow's trigger shows when the alarm has passed an event: it pays in order.
    await define('workflow', 'witness', workflow('  - event: tock'));

    await publish('tick', { n: 1 });
    await until('the first tick to start a run', async () => (await runsOf('on-tick')).length === 1);

    assertToolSuccess(await call('pause_definition', { type: 'workflow', name: 'on-tick' }));
    await publish('tick', { n: 2 });
    await publish('tock', { n: 2 });
    await until('the tock to start the witness', async () => (await runsOf('witness')).length === 1);
    assert.deepEqual(await inputsOf('on-tick'), [{ n: 1 }], 'a paused workflow starts nothing');
    assert.deepEqual(await refusalsOf('on-tick'), [], 'nor is a start of it refused: its trigger is off');

    assertToolSuccess(await call('resume_definition', { type: 'workflow', name: 'on-tick' }));
    await publish('tick', { n: 3 });
    await until('the tick after the resume to start a run', async () => (await runsOf('on-tick')).length === 2);
    assert.deepEqual(await inputsOf('on-tick'), [{ n: 1 }, { n: 3 }], 'the tick while paused is owed nothing');
    assertToolSuccess(await call('retire_definition', { type: 'workflow', name: 'on-tick' }));
  });
});
