// Rehearsals as an agent uses them, through the official TypeScript SDKs of both eras: a workflow with a
// lookup through the fixture's echo tool, a reasoning step whose model asks for that tool, a wait of an
// hour and an approval asked twice runs on stand-ins alone. The fixture tool server and the model
// stand-in count what they receive, and receive nothing; the approvals are answered yes, then no; the
// rehearsal is listed apart and said so everywhere; a missing stand-in fails in words that say what to
// add; and Studio shows the rehearsal with its banner and its picture on a ground of its own.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { APPROVE_CAMPAIGN_BRIEF } from './fixtures.mjs';
import { assertToolFailure, assertToolSuccess, MODERN_VERSION, pointers, runtimeUrl, uniqueName } from './helpers.mjs';
import { fixtureSide } from './tool_servers.mjs';

const MODEL = 'gpt-4.1-mini';
const DIAGRAM = 'flowchart LR\n  A[in] --> B[out]';

const FIND = `---
description: Reads the note kept on a brief
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
tool: {name: fixture/echo, arguments: {text: "{{ input.title }}"}}
---
`;

const TRIAGE = `---
description: Reviews a brief with the note kept on it
model: openai/${MODEL}
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
output:
  schema: { type: object, properties: { review: { type: string } }, required: [review] }
tools: [fixture/echo]
---
Review the brief {{ input.title }}, reading its note with the echo tool first.
`;

const FLOW = `---
description: Reviews a brief, waits an hour, and has it approved twice
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
steps:
  - id: find
    function: lookup/find-note
    input:
      title: input.title
  - id: triage
    function: reasoning/triage
    input:
      title: input.title
  - id: pause
    wait:
      seconds: 3600
  - id: first
    function: interaction/approve
    input:
      title: input.title
      review: steps.triage.output.review
  - id: second
    function: interaction/approve
    input:
      title: input.title
      review: steps.triage.output.review
output:
  first: steps.first.output.verdict
  second: steps.second.output.verdict
---
`;

const STAND_INS = {
  tools: { 'fixture/echo': { text: 'Note: the budget was approved in June.' } },
  models: {
    triage: [
      { tool_calls: [{ tool: 'fixture/echo', arguments: { text: 'Autumn trial' } }] },
      { output: { review: 'Ready: all four criteria are met.' } },
    ],
  },
  people: { approve: [{ verdict: 'approve' }, { verdict: 'revise', note: 'Cut the budget.' }] },
};

const modelRequests = async () => (await fetch(`${process.env.STANDIN_OPENAI_URL}/__requests?model=${MODEL}`)).json();

describe('rehearsals through the official TypeScript SDKs', () => {
  let client;
  let playbook;
  const call = (name, args = {}) => client.callTool({ name, arguments: { playbook, ...args } });
  const save = async (type, name, source) => assertToolSuccess(await call('create_definition', {
    type, name, source, overview: `The ${name} ${type} of the rehearsal test does what its description says.`,
    ...(type === 'workflow' ? {} : { diagram: DIAGRAM }),
  }));
  /** Reads a run until it has ended. */
  async function ended(run_id) {
    for (let i = 0; i < 30; i++) {
      const run = assertToolSuccess(await call('get_run', { run_id, wait_seconds: 2 }));
      if (run.status !== 'started') return run;
    }
    return assert.fail(`${run_id} did not end`);
  }

  before(async () => {
    client = new Client({ name: 'e2e-rehearsal-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('rehearsals') } })).id;
    await save('lookup', 'find-note', FIND);
    await save('reasoning', 'triage', TRIAGE);
    await save('interaction', 'approve', APPROVE_CAMPAIGN_BRIEF);
    await save('workflow', 'review', FLOW);
  });
  after(() => client?.close());

  test('v1 SDK: a workflow rehearses on its stand-ins, and no tool server or model hears of it', async () => {
    const side = fixtureSide();
    const [toolBefore, modelBefore] = [(await side.requests()).length, (await modelRequests()).length];

    const started = assertToolSuccess(await call('run_definition', {
      type: 'workflow', name: 'review', input: { title: 'Autumn trial' }, rehearse: true, stand_ins: STAND_INS,
    }));
    assert.equal(started.rehearsal, true);
    const run = await ended(started.run_id);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.output, { first: 'approve', second: 'revise' }, 'the approval is answered yes, then no');
    assert.equal(run.steps.length, 5);
    assert.ok(run.steps.every((s) => s.status === 'succeeded'), JSON.stringify(run.steps));

    assert.equal((await side.requests()).length, toolBefore, 'the tool server received no request at all');
    assert.equal((await modelRequests()).length, modelBefore, 'the model provider received no request at all');

    const triage = assertToolSuccess(await call('get_run', { run_id: `${run.run_id}-triage-1` }));
    assert.equal(triage.rehearsal, true);
    assert.deepEqual(triage.output, { review: 'Ready: all four criteria are met.' });
    assert.equal(triage.record.tool_calls[0].tool, 'fixture/echo');
    const approval = assertToolSuccess(await call('get_run', { run_id: `${run.run_id}-second-1` }));
    assert.equal(approval.answered_by.kind, 'stand_in');
    assert.deepEqual(assertToolSuccess(await call('list_interactions')).requests, [], 'a rehearsal asks no one');

    const listed = assertToolSuccess(await call('list_runs')).runs.map((r) => r.run_id);
    assert.ok(!listed.includes(run.run_id), 'list_runs leaves rehearsals out');
    const apart = assertToolSuccess(await call('list_runs', { rehearsal: true, steps: false })).runs;
    assert.deepEqual(apart.map((r) => [r.run_id, r.rehearsal]), [[run.run_id, true]]);
    const events = assertToolSuccess(await call('list_playbook_events', { run_id: run.run_id, limit: 100 })).events;
    assert.ok(events.length > 5 && events.every((e) => e.data.rehearsal === true), 'every event says rehearsal');

    // Studio: the banner on the run's page, and the picture on its own ground.
    const page = await fetch(`${runtimeUrl()}/studio/local/playbooks/${playbook}/runs/${run.run_id}`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<strong>A rehearsal\.<\/strong> Nothing it did reached outside the runtime/);
    const picture = await fetch(`${runtimeUrl()}/studio/local/playbooks/${playbook}/runs/${run.run_id}/picture.svg`);
    assert.equal(picture.status, 200);
    assert.match(await picture.text(), /class="pb-rehearsal"/);
    const ledger = async (query) => (await fetch(`${runtimeUrl()}/studio/local/playbooks/${playbook}/ledger${query}`)).text();
    assert.ok(!(await ledger('')).includes(`>${run.run_id}<`), 'the Ledger lists runs, not rehearsals');
    const rehearsals = await ledger('?rehearsal=1');
    assert.ok(rehearsals.includes(`>${run.run_id}<`), 'the Ledger lists the rehearsals apart');
    assert.match(rehearsals, /The playbook's rehearsals, newest first/);
  });

  test('v2 SDK (2026-07-28): a missing stand-in fails in words that say what to add', async () => {
    const modern = new ModernClient({ name: 'e2e-rehearsal-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
    await modern.connect(new ModernTransport(new URL(`${runtimeUrl()}/mcp`)));
    try {
      const rehearse = (name, input, stand_ins) => modern.callTool({
        name: 'run_definition', arguments: { playbook, type: 'interaction', name, input, rehearse: true, stand_ins },
      });
      const input = { title: 'Spring webinar', review: 'Ready.' };
      const missing = assertToolSuccess(await rehearse('approve', input, {}));
      assert.equal(missing.status, 'failed');
      assert.equal(missing.error.reason, 'no_stand_in');
      assert.match(missing.error.detail, /add one under stand_ins\.people\["approve"\]/);
      const answered = assertToolSuccess(await rehearse('approve', input, { people: { approve: { verdict: 'approve' } } }));
      assert.deepEqual([answered.status, answered.output], ['succeeded', { verdict: 'approve' }]);
      const misfit = assertToolSuccess(await rehearse('approve', input, { people: { approve: { verdict: 'maybe' } } }));
      assert.equal(misfit.error.reason, 'answer_schema', 'a stand-in answer is checked as a person\'s is');
      const bad = await modern.callTool({
        name: 'run_definition',
        arguments: { playbook, type: 'interaction', name: 'approve', input, rehearse: true, stand_ins: { tools: { echo: {} } } },
      });
      assert.deepEqual(pointers(assertToolFailure(bad, 'invalid_input')), ['/stand_ins/tools/echo']);
    } finally {
      await modern.close();
    }
  });
});
