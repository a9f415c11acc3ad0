// The recipes as a person's client meets them: each endpoint offers the prompts whose tools it
// lists, a prompt fills in the person's words and embeds the format guide it names, a missing
// argument is -32602 naming it, get_guide's description names the recipes, and the keep recipe's
// keeper and lookup run as the recipe writes them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { runtimeUrl, uniqueName } from './helpers.mjs';

async function connect(path) {
  const client = new Client({ name: 'recipes-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`)));
  return client;
}

async function newPlaybook() {
  const made = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: uniqueName('recipes') }),
  });
  assert.equal(made.status, 201);
  return (await made.json()).id;
}

const names = async (client) => (await client.listPrompts()).prompts.map((p) => p.name);

describe('recipes and their prompts', () => {
  test('each endpoint offers the recipes whose tools it lists, and get_guide names them', async () => {
    const root = await connect('/mcp');
    assert.deepEqual(await names(root), ['get-started', 'first-playbook', 'connect-a-service', 'give-tools', 'schedule', 'keep', 'try-before-you-save']);
    const guide = (await root.listTools()).tools.find((t) => t.name === 'get_guide');
    assert.match(guide.description, /The recipes this connection can follow, step by step, are first-playbook, connect-a-service, give-tools, schedule, keep and try-before-you-save\./);
    await root.close();

    const org = await connect('/orgs/local/mcp');
    assert.deepEqual(await names(org), []);
    const orgGuide = (await org.listTools()).tools.find((t) => t.name === 'get_guide');
    assert.match(orgGuide.description, /can follow no recipe/);
    await org.close();

    const pb = await connect(`/orgs/local/playbooks/${await newPlaybook()}/mcp`);
    const listed = (await pb.listPrompts()).prompts;
    assert.deepEqual(listed.map((p) => p.name), ['give-tools', 'schedule', 'keep', 'try-before-you-save']);
    const tryFirst = listed.find((p) => p.name === 'try-before-you-save');
    assert.deepEqual(tryFirst.arguments.map((a) => [a.name, a.required]), [['definition', false]]);
    const giveTools = listed.find((p) => p.name === 'give-tools');
    assert.deepEqual(giveTools.arguments.map((a) => [a.name, a.required]), [['server', false]]);
    const schedule = listed.find((p) => p.name === 'schedule');
    assert.equal(schedule.title, 'Run a workflow on a schedule');
    assert.deepEqual(schedule.arguments.map((a) => [a.name, a.required]), [['workflow', true], ['when', true]]);
    await pb.close();
  });

  test('a prompt fills in the words and embeds its format guide; a missing argument is -32602', async () => {
    const client = await connect('/mcp');
    const got = await client.getPrompt({ name: 'schedule', arguments: { workflow: 'weekly-review', when: 'every Monday at 9 in Paris' } });
    const [recipe, format] = got.messages;
    assert.equal(recipe.role, 'user');
    assert.match(recipe.content.text, /The person wants the workflow “weekly-review” to run “every Monday at 9 in Paris”\./);
    assert.doesNotMatch(recipe.content.text, /`<when>`/);
    assert.equal(format.content.type, 'resource');
    assert.equal(format.content.resource.uri, 'guide://triggers');
    assert.match(format.content.resource.text, /^# Triggers/m);

    const first = await client.getPrompt({ name: 'first-playbook' });
    assert.equal(first.messages.length, 1, 'first-playbook names no format guide');
    assert.match(first.messages[0].content.text, /^# Create your first playbook/m);

    await assert.rejects(client.getPrompt({ name: 'keep' }), (e) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /needs the argument what/);
      return true;
    });
    await assert.rejects(client.getPrompt({ name: 'connect-a-service' }), (e) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /needs the argument service/);
      return true;
    });
    const connecting = await client.getPrompt({ name: 'connect-a-service', arguments: { service: 'Slack' } });
    assert.equal(connecting.messages.length, 1, 'connect-a-service names no format guide');
    assert.match(connecting.messages[0].content.text, /The person wants to connect “Slack”\./);
    await client.close();
  });

  test('the keep recipe keeps a note and reads it back as it is written', async () => {
    const client = await connect('/mcp');
    const playbook = await newPlaybook();
    const got = await client.getPrompt({ name: 'keep', arguments: { what: 'a note about the supplier Acme' } });
    const text = got.messages[0].content.text;
    assert.match(text, /The person wants to keep “a note about the supplier Acme”\./);
    const keeper = text.match(/```markdown\n([\s\S]*?)```/)[1];
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: { playbook, ...args } });
      assert.ok(!result.isError, `${name}: ${result.content?.map((c) => c.text).join(' ')}`);
      return result.structuredContent;
    };
    await call('create_definition', {
      type: 'computation', name: 'keep-note', source: keeper,
      overview: 'Keeps one note per run, so that the lookup read-notes can read the notes back later.',
      diagram: "flowchart LR\n    A[The person's note] --> B[Kept as the run's output]",
    });
    const kept = await call('run_definition', { type: 'computation', name: 'keep-note', input: { title: 'Acme', note: 'Pays in 60 days.' } });
    assert.equal(kept.status, 'succeeded');
    await call('run_definition', { type: 'computation', name: 'keep-note', input: { title: 'Other', note: 'Not this one.' } });
    await call('create_definition', {
      type: 'lookup', name: 'read-notes',
      source: '---\ndescription: Reads back the notes kept under a title\ninput:\n  schema: {type: object, properties: {title: {type: string}}, required: [title]}\nruns:\n  of: computation/keep-note\n  where: run.output.title == input.title\n---\n',
      overview: 'Reads back every note kept under the title it is given, newest first.',
      diagram: 'flowchart LR\n    A[A title] --> B[The notes kept under it]',
    });
    const read = await call('run_definition', { type: 'lookup', name: 'read-notes', input: { title: 'Acme' } });
    assert.equal(read.status, 'succeeded');
    assert.deepEqual(read.output.runs.map((r) => r.output), [{ title: 'Acme', note: 'Pays in 60 days.' }]);
    await client.close();
  });
});
