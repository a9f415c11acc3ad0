// Triggers start workflow runs on their own in the local runtime: a one-minute cron and a
// one-minute interval start runs within two seconds of each due time, pausing the workflow stops
// them, and resuming picks up at the next due time with no backlog; set times start a run at each;
// a playbook event that matches a filter starts a run with the event's data, one that does not
// starts none, and an input the workflow's schema refuses is recorded instead of run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolSuccess, runtimeUrl, uniqueName } from './helpers.mjs';
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

const TICKING = workflow(`  - cron: "* * * * *"
    time_zone: Europe/Paris
    input:
      due: time
      by: "'cron'"
  - every: 1m
    input:
      due: time
      by: "'every'"`);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const untilMinute = async (offsetMs) => {
  const now = Date.now();
  await sleep(60_000 - (now % 60_000) + offsetMs);
};

describe('triggers', { timeout: 300_000 }, () => {
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

  before(async () => {
    client = new Client({ name: 'triggers-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('triggers') } })).id;
    await define('computation', 'add-vat', ADD_VAT);
  });
  after(() => client?.close());

  test('set times start a run at each, and events that match a filter start runs with their data', async () => {
    const soon = new Date(Date.now() + 4_000);
    soon.setMilliseconds(0);
    await define('workflow', 'at-times', workflow(`  - at: ["${soon.toISOString()}"]`));
    await define('workflow', 'on-order', workflow(`  - event: order_placed
    where: { channel: web }`, '{ type: object, properties: { order: { type: string } }, required: [order] }'));

    assertToolSuccess(await call('publish_event', { kind: 'order_placed', data: { channel: 'shop', order: 'A-1' } }));
    assertToolSuccess(await call('publish_event', { kind: 'order_placed', data: { channel: 'web', order: 'A-2' } }));
    assertToolSuccess(await call('publish_event', { kind: 'order_placed', data: { channel: 'web' } }));

    await sleep(soon.getTime() - Date.now() + 2_500);
    const [timed] = await runsOf('at-times');
    assert.ok(timed, 'the set time started a run');
    assert.ok(Math.abs(Date.parse(timed.started_at) - soon.getTime()) < 2_000, `${timed.started_at} vs ${soon.toISOString()}`);
    assert.equal((await runsOf('at-times')).length, 1);

    const ordered = await runsOf('on-order');
    assert.equal(ordered.length, 1, JSON.stringify(ordered));
    const run = await read(ordered[0].run_id);
    assert.deepEqual(run.input, { channel: 'web', order: 'A-2' });
    assert.deepEqual(run.started_by, {
      kind: 'trigger', id: 'workflow/on-order/triggers/0', name: 'the trigger 0 of the workflow “on-order”',
    }, 'a run a trigger started names the trigger');

    const history = assertToolSuccess(await call('list_playbook_events', { kind: 'trigger_refused' }));
    assert.equal(history.events.length, 1);
    assert.match(history.events[0].summary, /^A trigger of the workflow “on-order” did not start a run: /);
  });

  test('a one-minute cron and interval start runs on time; pause stops them and resume picks up at the next time', async () => {
    // Saved just after a minute starts, so the interval falls due about a second after the cron.
    await untilMinute(200);
    await define('workflow', 'ticking', TICKING);
    const saved = Date.now();
    await untilMinute(2_500);
    const first = await runsOf('ticking');
    const by = async (runs) => Promise.all(runs.map(async (r) => (await read(r.run_id)).input));
    const inputs = await by(first);
    assert.deepEqual(inputs.map((i) => i.by).sort(), ['cron', 'every'], JSON.stringify(inputs));
    for (const [i, r] of first.entries()) {
      const due = Date.parse(inputs[i].due);
      assert.ok(Date.parse(r.started_at) - due < 2_000, `${r.started_at} started late for ${inputs[i].due}`);
      assert.ok(Date.parse(r.started_at) >= due, `${r.started_at} started before ${inputs[i].due}`);
    }
    const cron = inputs.find((i) => i.by === 'cron');
    assert.equal(Date.parse(cron.due) % 60_000, 0, 'the cron is due on the minute');
    const every = inputs.find((i) => i.by === 'every');
    assert.ok(Math.abs(Date.parse(every.due) - (saved + 60_000)) < 2_000, 'the interval is due a minute after the save');
    for (const r of first) assert.equal((await read(r.run_id)).status, 'succeeded');

    assertToolSuccess(await call('pause_definition', { type: 'workflow', name: 'ticking' }));
    await untilMinute(2_500);
    assert.equal((await runsOf('ticking')).length, 2, 'a paused workflow starts nothing');

    assertToolSuccess(await call('resume_definition', { type: 'workflow', name: 'ticking' }));
    const resumed = Date.now();
    // By a minute after the resume: the cron's next minute, and the interval counted from the resume.
    await sleep(resumed + 62_500 - Date.now());
    const after = await runsOf('ticking');
    const fresh = after.filter((r) => !first.some((f) => f.run_id === r.run_id));
    const freshInputs = await by(fresh);
    const said = `no backlog, and the interval counts from the resume: ${JSON.stringify(freshInputs)} (resumed ${new Date(resumed).toISOString()})`;
    assert.deepEqual(freshInputs.map((i) => i.by).sort(), ['cron', 'every'], said);
    // Due times are written to the second; the minute that passed while paused is 2.5 s before the resume.
    for (const i of freshInputs) assert.ok(Date.parse(i.due) > resumed - 1_000, said);
    const resumedEvery = freshInputs.find((i) => i.by === 'every');
    assert.ok(Math.abs(Date.parse(resumedEvery.due) - (resumed + 60_000)) < 2_000, said);
    assertToolSuccess(await call('retire_definition', { type: 'workflow', name: 'ticking' }));
  });
});
