// Workflows run end to end through the official MCP client: the spec's review-and-approve workflow
// (a reasoning review against the stand-in model, then an interaction that waits for a person)
// starts, waits, takes the answer and finishes, and its history reads as the spec's recorded run;
// a wait for an event takes send_run_event and refuses an event nothing waits for; a wait for a
// time ends by the alarm; a failed step is tried again; cancelling a workflow run cancels its steps.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, runtimeUrl, uniqueName } from './helpers.mjs';
import { ADD_VAT, APPROVE_CAMPAIGN_BRIEF as APPROVE, REVIEW_AND_APPROVE } from './fixtures.mjs';

const ANTHROPIC = process.env.STANDIN_ANTHROPIC_URL;
const q = (s) => `“${s}”`;

async function script(model, reply) {
  const res = await fetch(`${ANTHROPIC}/__script`, { method: 'POST', body: JSON.stringify({ model, ...reply }) });
  assert.equal(res.status, 200);
}
const received = (model) => fetch(`${ANTHROPIC}/__requests?model=${encodeURIComponent(model)}`).then((r) => r.json());

export const REVIEW = (model) => `---
description: Reviews a campaign brief and recommends Ready or Revise
model: anthropic/${model}
input:
  schema: { type: object, properties: { file: { type: string } }, required: [file] }
max_tokens: 300
---
Review the campaign brief in {{ input.file }} and answer Ready or Revise, with the reason.
`;

const WAIT_THEN_PRICE = `---
description: Waits for the approval of an order, then prices it
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
steps:
  - id: wait_for_approval
    wait:
      event: order_approved
      where: { approved: true }
  - id: pause_a_moment
    wait: { seconds: 2 }
  - id: price
    function: computation/add-vat
    input:
      net: input.net
output:
  approval: steps.wait_for_approval.output
  price: steps.price.output
---
`;

const REVIEW_WITH_RETRY = `---
description: Reviews a brief, trying the model again once when it fails
input:
  schema: { type: object, properties: { file: { type: string } }, required: [file] }
steps:
  - id: review
    function: reasoning/review-flaky
    input:
      file: input.file
    retry: { attempts: 2, delay_seconds: 2, backoff: 1 }
---
`;

const DIAGRAMS = {
  reasoning: 'flowchart LR\n  A[brief] --> B[model reviews] --> C[recommendation]',
  interaction: 'flowchart LR\n  A[reviewed brief] --> B[ask the owner] --> C[verdict]',
  computation: 'flowchart LR\n  A[net] --> B[vat] --> C[gross]',
};

describe('workflows', { timeout: 120_000 }, () => {
  let client;
  let playbook;
  const call = (name, args) => client.callTool({ name, arguments: { playbook, ...args } });
  const define = async (type, name, source) => assertToolSuccess(await call('create_definition', {
    type, name, source, overview: `The ${name} ${type} of the workflow tests does what its description says, in order.`,
    ...(type === 'workflow' ? {} : { diagram: DIAGRAMS[type] }),
  }));
  const runWorkflow = (name, input, extra = {}) => call('run_definition', { type: 'workflow', name, input, ...extra });
  const until = async (what, read, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (value) return value;
      assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const ended = (runId) => until(`the run ${runId} to end`, async () => {
    const run = assertToolSuccess(await call('get_run', { run_id: runId, wait_seconds: 5 }));
    return run.status !== 'started' && run;
  });

  before(async () => {
    assert.ok(ANTHROPIC, 'run through tests/e2e/run.mjs, which starts the stand-ins');
    client = new Client({ name: 'workflows-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('workflows') } })).id;
    await define('reasoning', 'review-campaign-brief', REVIEW('claude-wf-review'));
    await define('interaction', 'approve-campaign-brief', APPROVE);
    await define('computation', 'add-vat', ADD_VAT);
    await define('workflow', 'review-and-approve', REVIEW_AND_APPROVE);
    await define('workflow', 'wait-then-price', WAIT_THEN_PRICE);
    await define('reasoning', 'review-flaky', REVIEW('claude-wf-flaky'));
    await define('workflow', 'review-with-retry', REVIEW_WITH_RETRY);
  });
  after(() => client?.close());

  test('the review-and-approve workflow runs, waits for a person, finishes and reads as the spec records it', async () => {
    await script('claude-wf-review', { text: 'Revise: the audience lacks a job role.' });
    const started = await runWorkflow('review-and-approve', { file: 'briefs/autumn.md', title: 'Autumn launch' });
    const run = assertToolSuccess(started);
    assert.equal(run.status, 'started');
    assert.equal(started.content[0].text,
      `The workflow ${q('review-and-approve')} has started and is still running. It carries on by itself, and how it ends can be looked up later.`);

    const request = await until('the approval request', async () => {
      const listed = assertToolSuccess(await call('list_interactions', {}));
      return listed.requests.find((r) => r.run_id === `${run.run_id}-ask_for_approval-1`);
    });
    assert.equal(request.question, 'Approve the brief Autumn launch? The review says: Revise: the audience lacks a job role.');

    const waiting = await call('get_run', { run_id: run.run_id });
    assert.equal(waiting.content[0].text,
      `The workflow ${q('review-and-approve')} is still running; how it ends can be looked up again later.`);
    const steps = assertToolSuccess(waiting).steps;
    assert.deepEqual(steps.map((s) => [s.step, s.status, s.attempt]), [['review_brief', 'succeeded', 1], ['ask_for_approval', 'running', 1]]);
    assert.equal(steps[1].run_id, request.run_id);

    const child = assertToolSuccess(await call('get_run', { run_id: request.run_id }));
    assert.deepEqual(child.within, { run_id: run.run_id, step: 'ask_for_approval' });
    assert.deepEqual(child.started_by, { kind: 'workflow', id: run.run_id, name: 'ask_for_approval' });
    assert.deepEqual(assertToolSuccess(waiting).record, { type: 'workflow', steps }, "a workflow's record is its step view");
    assert.deepEqual(run.started_by, { kind: 'local_developer', id: 'local', name: 'tester' });

    const answer = { verdict: 'approve', note: 'Approved for the autumn launch.' };
    const answered = await call('answer_interaction', { run_id: request.run_id, answer });
    assert.equal(answered.content[0].text,
      "The request is answered: the run that asked it takes the answer within the host's sweep, a second by default, and get_run shows how it ended.");
    assert.deepEqual(assertToolSuccess(answered).answered_by, { kind: 'local_developer', id: 'local', name: 'tester' });
    const done = await ended(run.run_id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(done.output, { review: 'Revise: the audience lacks a job role.', approval: answer });
    const read = await call('get_run', { run_id: run.run_id });
    assert.equal(read.content[0].text,
      `The run of the workflow ${q('review-and-approve')} finished. Its result: review: ${q('Revise: the audience lacks a job role.')} and approval: (verdict: ${q('approve')} and note: ${q('Approved for the autumn launch.')})`);

    const history = await call('list_playbook_events', { run_id: run.run_id, limit: 100 });
    const events = assertToolSuccess(history).events;
    const own = events.filter((e) => e.run_id === run.run_id).map((e) => `${e.kind}: ${e.summary}`);
    assert.deepEqual(own, [
      `run_started: A run of the workflow ${q('review-and-approve')} started.`,
      'workflow_input_applied: The workflow started, and 1 step moved.',
      `step_waiting: The step ${q('review brief')} waits for a function it called.`,
      'workflow_input_applied: A function the workflow called answered, and 2 steps moved.',
      `step_finished: The step ${q('review brief')} finished.`,
      `step_waiting: The step ${q('ask for approval')} waits for a function it called.`,
      'workflow_input_applied: A function the workflow called answered, and 1 step moved; the workflow ended.',
      `step_finished: The step ${q('ask for approval')} finished.`,
      'run_succeeded: A run finished.',
    ]);
    const children = new Set(events.filter((e) => e.run_id !== run.run_id).map((e) => e.run_id));
    assert.deepEqual([...children].sort(), [`${run.run_id}-ask_for_approval-1`, `${run.run_id}-review_brief-1`]);
    assert.ok(events.some((e) => e.kind === 'model_answered'), 'the review step\'s model call is in the history');
    assert.ok(events.some((e) => e.kind === 'interaction_answered'), 'the answer is in the history');

    assert.equal((await received('claude-wf-review')).length, 1, 'the model was asked once');
    assertToolSuccess(await runWorkflow('review-and-approve', { file: 'briefs/autumn.md', title: 'Autumn launch' }, { run_id: run.run_id }));
    assert.equal((await received('claude-wf-review')).length, 1, 'a retry under the run id runs nothing again');
  });

  test('a wait for an event takes send_run_event, refuses an event nothing waits for, then waits for a time', async () => {
    const run = assertToolSuccess(await runWorkflow('wait-then-price', { net: 100 }));
    const refused = assertToolFailure(await call('send_run_event', { run_id: run.run_id, name: 'order_shipped', data: {} }), 'conflict');
    assert.match(refused.detail, /No step of the run .* waits for the event “order_shipped”\. It waits for the event “order_approved” \(the step “wait for approval”\)\./);
    assert.equal(refused.errors[0].pointer, '/name');

    const sent = await call('send_run_event', { run_id: run.run_id, name: 'order_approved', data: { approved: true, by: 'Dana' } });
    assert.equal(assertToolSuccess(sent).status, 'started');
    const done = await ended(run.run_id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(done.output, { approval: { approved: true, by: 'Dana' }, price: { vat: 20, gross: 120 } });
    const listed = assertToolSuccess(await call('list_runs', { type: 'workflow', name: 'wait-then-price' })).runs;
    assert.equal(listed.find((r) => r.run_id === run.run_id)?.status, 'succeeded', 'the index holds how the run ended');
    const waited = done.steps.find((s) => s.step === 'pause_a_moment');
    assert.ok(Date.parse(waited.finished_at) - Date.parse(waited.started_at) >= 2000, JSON.stringify(waited));

    const late = assertToolFailure(await call('send_run_event', { run_id: run.run_id, name: 'order_approved', data: {} }), 'conflict');
    assert.match(late.detail, /has ended succeeded/);
  });

  test('a playbook event of the kind a step waits for reaches it, once its data fits the filter', async () => {
    const run = assertToolSuccess(await runWorkflow('wait-then-price', { net: 50 }));
    assertToolSuccess(await call('publish_event', { kind: 'order_approved', data: { approved: false, by: 'Sam' } }));
    assertToolSuccess(await call('publish_event', { kind: 'order_approved', data: { approved: true, by: 'Lee' } }));
    const done = await ended(run.run_id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(done.output, { approval: { approved: true, by: 'Lee' }, price: { vat: 10, gross: 60 } });
    // The history, not a sleep, shows Sam's event reached the waiting step first and moved nothing.
    const events = assertToolSuccess(await call('list_playbook_events', { run_id: run.run_id, limit: 100 })).events;
    const reached = events.filter((e) => e.run_id === run.run_id && e.summary.startsWith(`The event ${q('order_approved')}`));
    assert.deepEqual(reached.map((e) => e.summary), [
      `The event ${q('order_approved')} reached the workflow, and no step moved.`,
      `The event ${q('order_approved')} reached the workflow, and 2 steps moved.`,
    ]);
  });

  test('a step whose model fails is tried again after its delay, and the run goes on', async () => {
    await script('claude-wf-flaky', { status: 529, error: 'overloaded_error', message: 'Overloaded' });
    const run = assertToolSuccess(await runWorkflow('review-with-retry', { file: 'briefs/spring.md' }));
    const retrying = await until('the step to wait for its retry', async () => {
      const read = assertToolSuccess(await call('get_run', { run_id: run.run_id }));
      return read.steps[0].status === 'retrying' && read.steps[0];
    });
    assert.equal(retrying.attempt, 1);
    assert.equal(retrying.error.reason, 'provider_error');
    await script('claude-wf-flaky', { text: 'Ready: the brief is complete.' });
    const done = await ended(run.run_id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(done.output, { review: 'Ready: the brief is complete.' });
    assert.equal(done.steps[0].attempt, 2);
    assert.equal(done.steps[0].run_id, `${run.run_id}-review-2`);
    assert.equal((await received('claude-wf-flaky')).length, 2, 'the model was asked once per attempt');
    const events = assertToolSuccess(await call('list_playbook_events', { run_id: run.run_id, kind: 'step_retrying' })).events;
    assert.equal(events.length, 1);
    assert.match(events[0].summary, /^The step “review” failed; attempt 2 of 2 starts at /);
  });

  test('cancelling a workflow run cancels the step that waits for a person', async () => {
    await script('claude-wf-review', { text: 'Ready: every criterion holds.' });
    const run = assertToolSuccess(await runWorkflow('review-and-approve', { file: 'briefs/winter.md', title: 'Winter sale' }));
    const childId = `${run.run_id}-ask_for_approval-1`;
    await until('the approval request', async () => {
      const listed = assertToolSuccess(await call('list_interactions', {}));
      return listed.requests.some((r) => r.run_id === childId);
    });
    const cancelled = assertToolSuccess(await call('cancel_run', { run_id: run.run_id }));
    assert.equal(cancelled.status, 'cancelled');
    assert.equal(cancelled.steps.find((s) => s.step === 'ask_for_approval').status, 'cancelled');
    const child = await ended(childId);
    assert.equal(child.status, 'cancelled');
    const listed = assertToolSuccess(await call('list_interactions', {}));
    assert.ok(!listed.requests.some((r) => r.run_id === childId), 'the request left the list');
  });
});
