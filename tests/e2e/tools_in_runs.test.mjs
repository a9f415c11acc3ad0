// Functions that call tools, end to end: the runtime's real model and tool-server code against the model
// stand-ins and the real tool servers run.mjs started (tool_servers.mjs). Seed 004's brief review runs as
// its guide writes it, through the official TypeScript SDK client, against the real filesystem server,
// with both model APIs: the model asks for read_text_file, the runtime calls it, the model reads the
// brief, and the history shows the call; a file that does not exist answers ENOENT, which the model
// reads. Then a lookup reads through a tool, a notification and a request go through the fixture's
// chat tools (the request answered by a reply a person posts in the chat), and an HTTP API described
// by its OpenAPI document is searched, called by hand and read through.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, postModern, runtimeUrl, uniqueName } from './helpers.mjs';
import { BRIEF_REVIEW } from './fixtures.mjs';
import { BRIEFS, crmSide, fixtureSide } from './tool_servers.mjs';

const ANTHROPIC = process.env.STANDIN_ANTHROPIC_URL;
const OPENAI = process.env.STANDIN_OPENAI_URL;

async function script(standin, model, body) {
  const res = await fetch(`${standin}/__script`, { method: 'POST', body: JSON.stringify({ model, ...body }) });
  assert.equal(res.status, 200, await res.text());
}
const received = (standin, model) => fetch(`${standin}/__requests?model=${encodeURIComponent(model)}`).then((r) => r.json());

/** Seed 004's function, as its guide writes it, with the model `model`. */
const briefReview = (model) => BRIEF_REVIEW.replace('anthropic/claude-sonnet-4-5', model);
const OVERVIEW = 'Reads one campaign brief from the briefs folder and reviews it against the four criteria of the team.';
const DIAGRAM = 'flowchart LR\n  A[file name] --> B[read_text_file] --> C[review against four criteria]';
const TRIAL = 'autumn-reporting-trial.txt';
const REVIEW_TEXT = 'Revise. 1 met: finance managers at firms of 50 to 250 staff. 2 met. 3 not met: USD 18,000 exceeds USD 10,000. 4 met: 240 sign-ups.';
const CANNOT_READ = 'I could not read the file autumn-missing.txt, so I review nothing.';

/** The tool results the model was sent, from the second request of a run, as {content, is_error}. */
function toolResults(request, api) {
  const messages = request.body.messages;
  if (api === 'anthropic') {
    return messages.at(-1).content.filter((b) => b.type === 'tool_result').map((b) => ({ content: b.content, is_error: b.is_error }));
  }
  return messages.filter((m) => m.role === 'tool').map((m) => ({ content: m.content, is_error: m.content.startsWith('Error:') }));
}

describe('functions that call tools, against real tool servers', { timeout: 240_000 }, () => {
  let client;
  let playbook;
  const call = (name, args = {}) => client.callTool({ name, arguments: { playbook, ...args } });
  const define = async (type, name, source) => assertToolSuccess(await call('create_definition', {
    type, name, source, overview: OVERVIEW, ...(type === 'workflow' ? {} : { diagram: DIAGRAM }),
  }));
  const history = async (runId) => assertToolSuccess(await call('list_playbook_events', { run_id: runId })).events;

  before(async () => {
    assert.ok(ANTHROPIC && OPENAI, 'run through tests/e2e/run.mjs, which starts the stand-ins and the tool servers');
    client = new Client({ name: 'tools-in-runs', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('tools') } })).id;
  });
  after(() => client?.close());

  test('run_definition is offered as possibly destructive while a tool server serves the playbook', async () => {
    const { tools } = await client.listTools();
    const run = tools.find((t) => t.name === 'run_definition');
    assert.equal(run.annotations.destructiveHint, true);
    assert.equal(run.annotations.openWorldHint, true);
  });

  for (const [api, model, standin] of [
    ['anthropic', 'claude-sonnet-4-5', () => ANTHROPIC],
    ['openai', 'gpt-4.1', () => OPENAI],
  ]) {
    test(`seed 004's brief review reads the brief through the filesystem server (${api})`, async () => {
      const name = `review-brief-${api}`;
      await define('reasoning', name, briefReview(`${api}/${model}`));
      await script(standin(), model, {
        turns: [{ tool_calls: [{ name: 'read_text_file', input: { path: TRIAL } }] }, { text: REVIEW_TEXT }],
      });
      const before = (await received(standin(), model)).length;
      const run = assertToolSuccess(await call('run_definition', { type: 'reasoning', name, input: { file: TRIAL } }));
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.equal(run.output, REVIEW_TEXT);

      const sent = (await received(standin(), model)).slice(before);
      assert.equal(sent.length, 2, 'the model was asked, then asked again with the answer');
      const offered = api === 'anthropic' ? sent[0].body.tools.map((t) => t.name) : sent[0].body.tools.map((t) => t.function.name);
      assert.deepEqual(offered, ['files__read_text_file'], 'the function names one tool, so it cannot list the folder');
      assert.deepEqual(toolResults(sent[1], api), [{ content: BRIEFS[TRIAL], is_error: false }]);

      const events = await history(run.run_id);
      assert.deepEqual(events.map((e) => e.kind),
        ['run_started', 'model_answered', 'tool_call_started', 'tool_call_answered', 'model_answered', 'run_succeeded']);
      const started = events[2];
      assert.deepEqual(started.data.arguments, { path: TRIAL });
      assert.equal(started.data.read_only, true, 'the filesystem server marks read_text_file read-only');
      assert.equal(started.data.server, 'files');
      assert.equal(started.data.tool, 'read_text_file');
      const answered = events[3];
      assert.equal(answered.data.is_error, false);
      assert.equal(answered.data.size, Buffer.byteLength(BRIEFS[TRIAL]));
      const whole = assertToolSuccess(await call('get_event', { event_id: answered.event_id }));
      assert.equal(whole.data.answer.text, BRIEFS[TRIAL], 'get_event reads the answer whole');

      const read = assertToolSuccess(await call('get_run', { run_id: run.run_id }));
      assert.equal(read.record.turns, 2);
      assert.deepEqual(read.record.tool_calls.map((c) => [c.tool, c.outcome, c.read_only]), [['files/read_text_file', 'answered', true]]);
    });

    test(`a file that does not exist answers ENOENT, which the model reads, and the run succeeds (${api})`, async () => {
      const name = `review-missing-${api}`;
      const missingModel = `${model}-missing`;
      await define('reasoning', name, briefReview(`${api}/${missingModel}`));
      await script(standin(), missingModel, {
        turns: [{ tool_calls: [{ name: 'read_text_file', input: { path: 'autumn-missing.txt' } }] }, { text: CANNOT_READ }],
      });
      const run = assertToolSuccess(await call('run_definition', { type: 'reasoning', name, input: { file: 'autumn-missing.txt' } }));
      assert.equal(run.status, 'succeeded', JSON.stringify(run));
      assert.equal(run.output, CANNOT_READ);
      const [, second] = await received(standin(), missingModel);
      const [result] = toolResults(second, api);
      assert.equal(result.is_error, true);
      assert.match(result.content, /ENOENT/);
      const answered = (await history(run.run_id)).find((e) => e.kind === 'tool_call_answered');
      assert.equal(answered.data.is_error, true);
    });
  }

  test('a save names tools the servers offer now, and refuses one they do not at its pointer', async () => {
    const result = await call('create_definition', {
      type: 'reasoning', name: 'writes-files', source: briefReview('anthropic/claude-x').replace('files/read_text_file', 'files/write_file'),
      overview: OVERVIEW, diagram: DIAGRAM,
    });
    const problem = assertToolFailure(result, 'invalid_input');
    assert.deepEqual(problem.errors.map((e) => [e.pointer, e.in]), [['/tools/0', 'source']]);
    assert.match(problem.errors[0].detail, /search with server files lists the 2 tools it offers/);
  });

  test('a lookup reads a brief through the filesystem server', async () => {
    await define('lookup', 'read-brief', `---
description: Reads one campaign brief by its file name
input:
  schema: { type: object, properties: { file: { type: string } }, required: [file] }
tool:
  name: files/read_text_file
  arguments: { path: "{{ input.file }}" }
---
`);
    const run = assertToolSuccess(await call('run_definition', { type: 'lookup', name: 'read-brief', input: { file: 'spring-webinar.txt' } }));
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.output.text, BRIEFS['spring-webinar.txt']);
    assert.deepEqual((await history(run.run_id)).map((e) => e.kind),
      ['run_started', 'tool_call_started', 'tool_call_answered', 'run_succeeded']);
    const missing = assertToolSuccess(await call('run_definition', { type: 'lookup', name: 'read-brief', input: { file: 'nope.txt' } }));
    assert.equal(missing.status, 'failed');
    assert.equal(missing.error.reason, 'tool_error');
    assert.match(missing.error.detail, /ENOENT/);
  });

  test('a notification is sent through the chat tool, its body the message', async () => {
    await define('interaction', 'announce', `---
description: Tells the marketing channel that a brief is approved
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
notify:
  tool: fixture/post_message
  arguments: { channel: "#marketing", text: "{{ message }}" }
---
The brief {{ input.title }} is approved for the autumn launch.
`);
    const run = assertToolSuccess(await call('run_definition', { type: 'interaction', name: 'announce', input: { title: 'Autumn trial' } }));
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.output.sent, true);
    const id = run.output.structured.message_id;
    const messages = await fixtureSide().messages();
    assert.equal(messages[id].text, 'The brief Autumn trial is approved for the autumn launch.');
    assert.equal(messages[id].channel, '#marketing');
  });

  test('a request sent through the chat is answered by the reply a person posts there', async () => {
    const saved = await define('interaction', 'approve-in-chat', `---
description: Asks the campaign owner in the chat to approve a brief
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
ask:
  deliver:
    send: { tool: fixture/post_message, arguments: { channel: "#marketing", text: "{{ question }}" } }
    replies: { tool: fixture/read_replies, arguments: { message_id: "{{ sent.structured.message_id }}" }, every_seconds: 5 }
  answer:
    schema: { type: object, properties: { verdict: { enum: [approve, reject] } }, required: [verdict] }
---
Approve the brief {{ input.title }}? Reply {"verdict": "approve"} or {"verdict": "reject"}.
`);
    assert.equal(saved.version, 1);
    const run = assertToolSuccess(await call('run_definition', { type: 'interaction', name: 'approve-in-chat', input: { title: 'Autumn trial' } }));
    assert.equal(run.status, 'started', JSON.stringify(run));
    const messageId = run.waiting.through.sent.structured.message_id;
    const open = assertToolSuccess(await call('list_interactions'));
    assert.ok(open.requests.some((r) => r.run_id === run.run_id && r.expires_at), 'the request is listed, with when it expires');
    await fixtureSide().reply(messageId, 'Looks good to me');
    await fixtureSide().reply(messageId, '{"verdict": "approve"}');
    let done;
    for (let i = 0; i < 60; i += 1) {
      done = assertToolSuccess(await call('get_run', { run_id: run.run_id }));
      if (done.status !== 'started') break;
      await sleep(500);
    }
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.deepEqual(done.output, { verdict: 'approve' });
    assert.deepEqual([done.answered_by.kind, done.answered_by.id], ['tool', 'fixture/read_replies']);
    const kinds = (await history(run.run_id)).map((e) => e.kind);
    assert.deepEqual(kinds, ['run_started', 'interaction_requested', 'tool_call_started', 'tool_call_answered', 'interaction_answered', 'run_succeeded']);
  });

  test('a 2026-07-28 client that answers forms is asked where the owner should be asked, then told what to write', async () => {
    const source = `---
description: Asks the campaign owner to approve a brief
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
ask:
  answer:
    schema: { type: object, properties: { verdict: { enum: [approve, reject] } }, required: [verdict] }
---
Approve the brief {{ input.title }}?
`;
    const args = { playbook, type: 'interaction', name: 'ask-owner', source, overview: OVERVIEW, diagram: DIAGRAM };
    const forms = { capabilities: { elicitation: { form: {} } } };
    const first = (await postModern('tools/call', { name: 'create_definition', arguments: args }, forms)).json;
    assert.equal(first.result.resultType, 'input_required', JSON.stringify(first));
    const form = first.result.inputRequests.deliver.params;
    assert.equal(form.message, 'Where should the owner be asked?');
    assert.deepEqual(form.requestedSchema.properties.deliver.oneOf.map((c) => c.const), ['fixture', 'agent']);
    const retried = (await postModern('tools/call', {
      name: 'create_definition', arguments: args,
      inputResponses: { deliver: { action: 'accept', content: { deliver: 'fixture' } } }, requestState: first.result.requestState,
    }, { ...forms, id: 2 })).json;
    assert.equal(retried.result.isError, true);
    assert.match(retried.result.content[0].text, /the person chose “fixture”.*fixture\/post_message.*fixture\/read_replies/s);
    const plain = (await postModern('tools/call', { name: 'create_definition', arguments: args }, { id: 3 })).json;
    assert.equal(plain.result.isError, true, 'a client that answers no forms gets the refusal that names every choice');
  });

  test('an HTTP API is searched, called by hand and read through, from its OpenAPI document', async () => {
    const found = assertToolSuccess(await call('search', { server: 'crm' }));
    const crm = found.servers.find((s) => s.name === 'crm');
    assert.equal(crm.available, true, JSON.stringify(crm));
    assert.equal(crm.type, 'openapi');
    const marks = Object.fromEntries(found.tools.map((t) => [t.tool, [t.mark, t.marked_by]]));
    assert.deepEqual(marks.getContact, ['reads', 'method']);
    assert.deepEqual(marks.createNote, ['acts', 'method']);

    const tool = assertToolSuccess(await call('introspect', { server: 'crm', tool: 'createNote' }));
    assert.equal(tool.input_schema.properties.body.type, 'object', 'the JSON body is the argument body');
    const noteBefore = (await crmSide().notes()).length;
    const executed = assertToolSuccess(await call('execute_connection', {
      server: 'crm', tool: 'createNote', arguments: { body: { contact_id: 'c_1001', text: 'Met at the autumn fair.' } },
    }));
    assert.equal(executed.is_error, false, JSON.stringify(executed));
    const notes = await crmSide().notes();
    assert.equal(notes.length, noteBefore + 1, 'the note reached the API');
    assert.equal(notes.at(-1).text, 'Met at the autumn fair.');
    const missing = assertToolSuccess(await call('execute_connection', {
      server: 'crm', tool: 'createNote', arguments: { body: { contact_id: 'c_9', text: 'Nobody.' } },
    }));
    assert.equal(missing.is_error, true, 'an API error is the tool\'s error, which a model reads');
    assert.match(missing.text, /^HTTP 404: .*No contact c_9/);

    await define('lookup', 'read-contact', `---
description: Reads one contact of the CRM by its id
input:
  schema: { type: object, properties: { id: { type: string } }, required: [id] }
tool:
  name: crm_text/getContact
  arguments: { id: "{{ input.id }}" }
---
`);
    const run = assertToolSuccess(await call('run_definition', { type: 'lookup', name: 'read-contact', input: { id: 'c_1002' } }));
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.output.structured.name, 'Tomás Ferreira');
    const requests = await crmSide().requests();
    assert.ok(requests.length >= 3 && requests.every((r) => r.key_ok), 'every call carried the key where the document says');
    assert.ok(requests.some((r) => r.path === '/contacts/c_1002' && r.method === 'GET'));
  });
});
