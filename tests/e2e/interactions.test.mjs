// An interaction function asks a person through the agent, end to end through the official MCP
// client: the run starts and waits, list_interactions shows the question and its answer_schema,
// a wrong answer is refused at its field, the right one finishes the run, and a cancelled run's
// request leaves the list.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {
  ACCEPT_BOTH, assertToolFailure, assertToolSuccess, parseSse, pointers, postMcp, runtimeUrl, uniqueName,
} from './helpers.mjs';

/** A POST to /mcp whose event stream the test reads piece by piece, while the Worker holds it. */
async function openStream(body) {
  const res = await fetch(`${runtimeUrl()}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
    body: JSON.stringify(body),
  });
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    text: () => text,
    // Everything read so far once `mark` is in it; the stream's end fails the test.
    async readUntil(mark) {
      while (!text.includes(mark)) {
        const { value, done } = await reader.read();
        assert.ok(!done, `the stream ended before ${mark}: ${text}`);
        text += value;
      }
      return text;
    },
    async readToEnd() {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return text;
        text += value;
      }
    },
  };
}

const APPROVE = `---
description: Asks the campaign owner to approve a reviewed brief
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
ask:
  deliver: agent
  answer:
    schema:
      type: object
      properties:
        verdict: { type: string, enum: [approve, revise] }
        note: { type: string }
      required: [verdict]
---
Approve the brief {{ input.title }}?
`;

describe('interactions through @modelcontextprotocol/sdk (v1)', () => {
  let client;
  let playbook;
  const call = (name, args) => client.callTool({ name, arguments: { playbook, ...args } });
  const ask = (title) => call('run_definition', { type: 'interaction', name: 'approve-brief', input: { title } });

  before(async () => {
    client = new Client({ name: 'interactions-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    const made = await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('asks') } });
    playbook = made.structuredContent.id;
    assertToolSuccess(await call('create_definition', {
      type: 'interaction', name: 'approve-brief', source: APPROVE,
      overview: 'Asks the owner of a campaign brief to approve it or ask for a revision, with a note.',
      diagram: 'flowchart LR\n  A[brief] --> B[ask the owner] --> C[verdict]',
    }));
  });
  after(() => client?.close());

  test('a request waits, is listed, refuses a wrong answer and takes the right one', async () => {
    const empty = assertToolSuccess(await call('list_interactions', {}));
    assert.deepEqual(empty.requests, []);
    const started = await ask('Autumn launch');
    const run = assertToolSuccess(started);
    assert.equal(run.status, 'started');
    assert.ok(run.check_back_in_seconds > 0);
    assert.match(started.content[0].text, /waits for a person's answer/);

    const listed = await call('list_interactions', {});
    assert.equal(listed.content[0].text, 'Found 1 request waiting on this page.');
    const [request] = assertToolSuccess(listed).requests;
    assert.equal(request.run_id, run.run_id);
    assert.equal(request.question, 'Approve the brief Autumn launch?');
    assert.deepEqual(request.answer_schema.required, ['verdict']);

    const wrong = assertToolFailure(await call('answer_interaction', { run_id: run.run_id, answer: { verdict: 'maybe' } }), 'invalid_input');
    assert.equal(wrong.kind, 'answer_schema');
    assert.deepEqual(pointers(wrong), ['/answer/verdict']);

    const answer = { verdict: 'approve', note: 'Approved for the autumn launch.' };
    assertToolSuccess(await call('answer_interaction', { run_id: run.run_id, answer }));
    assertToolSuccess(await call('answer_interaction', { run_id: run.run_id, answer }));
    const done = await call('get_run', { run_id: run.run_id });
    assert.equal(assertToolSuccess(done).status, 'succeeded');
    assert.deepEqual(done.structuredContent.output, answer);
    assert.match(done.content[0].text, /Its answer: verdict: “approve” and note: “Approved for the autumn launch\.”/);
    assert.equal((await call('list_interactions', {})).content[0].text, 'No request is waiting.');

    const history = assertToolSuccess(await call('list_playbook_events', { run_id: run.run_id }));
    assert.deepEqual(history.events.map((e) => e.kind),
      ['run_started', 'interaction_requested', 'interaction_answered', 'run_succeeded']);
  });

  test('a cancelled run leaves the list, and cancelling again changes nothing', async () => {
    const run = assertToolSuccess(await ask('Winter sale'));
    const cancelled = assertToolSuccess(await call('cancel_run', { run_id: run.run_id }));
    assert.equal(cancelled.status, 'cancelled');
    const again = await call('cancel_run', { run_id: run.run_id });
    assert.equal(assertToolSuccess(again).status, 'cancelled');
    const open = assertToolSuccess(await call('list_interactions', {}));
    assert.ok(!open.requests.some((r) => r.run_id === run.run_id));
    assertToolFailure(await call('answer_interaction', { run_id: run.run_id, answer: { verdict: 'approve' } }), 'conflict');
    const retry = assertToolFailure(await call('run_definition', {
      type: 'interaction', name: 'approve-brief', input: { title: 'Winter sale' }, run_id: run.run_id,
    }), 'conflict');
    assert.match(retry.detail, /never run again under its id/);
  });

  test('a bounded wait streams heartbeats while the run waits, and answers as soon as it ends', async () => {
    const run = assertToolSuccess(await ask('Spring fair'));
    const waiting = await postMcp({
      jsonrpc: '2.0', id: 7, method: 'tools/call',
      params: { name: 'get_run', arguments: { playbook, run_id: run.run_id, wait_seconds: 6 } },
    });
    assert.equal(waiting.status, 200);
    assert.match(waiting.headers.get('content-type'), /^text\/event-stream/);
    const beat = waiting.text.indexOf(': heartbeat');
    assert.ok(beat >= 0 && beat < waiting.text.indexOf('event: message'), `a heartbeat comes before the answer: ${waiting.text.slice(0, 120)}`);
    assert.equal(waiting.json.result.structuredContent.status, 'started');

    // Read as it streams: a heartbeat with no answer yet shows the call is held while the run
    // waits, which a sleep before answering could not tell from a call that arrived late.
    const pending = await openStream({
      jsonrpc: '2.0', id: 8, method: 'tools/call',
      params: { name: 'get_run', arguments: { playbook, run_id: run.run_id, wait_seconds: 10 } },
    });
    const held = await pending.readUntil(': heartbeat');
    assert.ok(!held.includes('event: message'), `no answer while the run waits: ${held}`);
    assertToolSuccess(await call('answer_interaction', { run_id: run.run_id, answer: { verdict: 'revise' } }));
    const messages = parseSse(await pending.readToEnd()).filter((e) => e.event === 'message');
    assert.equal(messages.length, 1, pending.text());
    const ended = JSON.parse(messages[0].data).result.structuredContent;
    assert.equal(ended.status, 'succeeded');
    assert.deepEqual(ended.output, { verdict: 'revise' });
  });
});
