// The model stand-ins' scripted conversations (standin_models.mjs), spoken to as the runtime's provider
// code will speak to them once reasoning functions call tools: each request is answered by the turn its
// count of assistant messages names, a tool call comes back in each API's own format with an id of its
// own and the offered tool's whole name, and a request whose tool results do not answer the calls before
// them, or a call to a tool not offered, is refused with a 400 as the real APIs do. Later tests of the
// tool loop rely on these answers, so a stand-in that got them wrong would hide a runtime bug.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { ANTHROPIC_KEY, OPENAI_KEY } from './standin_models.mjs';

const ANTHROPIC = process.env.STANDIN_ANTHROPIC_URL;
const OPENAI = process.env.STANDIN_OPENAI_URL;

async function script(standin, body) {
  const res = await fetch(`${standin}/__script`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.text());
}

async function anthropic(body) {
  const res = await fetch(`${ANTHROPIC}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': ANTHROPIC_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ max_tokens: 300, ...body }),
  });
  return { status: res.status, json: await res.json() };
}

async function openai(body) {
  const res = await fetch(`${OPENAI}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPENAI_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const ANTHROPIC_TOOLS = [
  { name: 'files__read_text_file', description: 'Read a file', input_schema: { type: 'object' } },
  { name: 'fixture__write_note', description: 'Write a note', input_schema: { type: 'object' } },
  { name: 'modern__write_note', description: 'Write a note', input_schema: { type: 'object' } },
];
const OPENAI_TOOLS = ANTHROPIC_TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));

const TURNS = [
  { tool_calls: [{ name: 'read_text_file', input: { path: 'autumn-reporting-trial.txt' } }, { name: 'fixture__write_note', input: { text: 'read' } }] },
  { text: 'The brief is Ready.' },
];

describe('scripted conversations of the model stand-ins', () => {
  test('Anthropic: tool_use blocks first, then the answer once every call has its result', async () => {
    assert.ok(ANTHROPIC, 'run through tests/e2e/run.mjs, which starts the stand-ins');
    await script(ANTHROPIC, { model: 'claude-loop-a', turns: TURNS });
    const user = { role: 'user', content: 'Review the autumn brief.' };
    const first = await anthropic({ model: 'claude-loop-a', tools: ANTHROPIC_TOOLS, messages: [user] });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.equal(first.json.stop_reason, 'tool_use');
    const uses = first.json.content;
    assert.deepEqual(uses.map((b) => [b.type, b.name, b.input]), [
      ['tool_use', 'files__read_text_file', { path: 'autumn-reporting-trial.txt' }],
      ['tool_use', 'fixture__write_note', { text: 'read' }],
    ]);
    assert.match(uses[0].id, /^toolu_/);
    assert.notEqual(uses[0].id, uses[1].id, 'each call has an id of its own');

    const answered = [user, { role: 'assistant', content: uses }, {
      role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: 'ok' })),
    }];
    const second = await anthropic({ model: 'claude-loop-a', tools: ANTHROPIC_TOOLS, messages: answered });
    assert.equal(second.status, 200, JSON.stringify(second.json));
    assert.equal(second.json.stop_reason, 'end_turn');
    assert.deepEqual(second.json.content, [{ type: 'text', text: 'The brief is Ready.' }]);

    // The same script again names new ids: a retried run cannot pass off old results.
    const again = await anthropic({ model: 'claude-loop-a', tools: ANTHROPIC_TOOLS, messages: [user] });
    assert.ok(again.json.content.every((b) => !uses.some((u) => u.id === b.id)), 'ids are never reused');

    const received = await fetch(`${ANTHROPIC}/__requests?model=claude-loop-a`).then((r) => r.json());
    assert.deepEqual(received.map((r) => r.turn), [0, 1, 0]);
  });

  test('Anthropic: results that do not answer the calls before them are refused with a 400', async () => {
    await script(ANTHROPIC, { model: 'claude-loop-b', turns: TURNS });
    const user = { role: 'user', content: 'Review the autumn brief.' };
    const { json } = await anthropic({ model: 'claude-loop-b', tools: ANTHROPIC_TOOLS, messages: [user] });
    const uses = json.content;
    const withResults = (results) => anthropic({
      model: 'claude-loop-b', tools: ANTHROPIC_TOOLS, messages: [user, { role: 'assistant', content: uses }, { role: 'user', content: results }],
    });
    const one = await withResults([{ type: 'tool_result', tool_use_id: uses[0].id, content: 'ok' }]);
    assert.equal(one.status, 400);
    assert.equal(one.json.error.type, 'invalid_request_error');
    assert.match(one.json.error.message, new RegExp(`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${uses[1].id}`));
    const stray = await withResults([...uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: 'ok' })),
      { type: 'tool_result', tool_use_id: 'toolu_made_up', content: 'ok' }]);
    assert.equal(stray.status, 400);
    assert.match(stray.json.error.message, /unexpected `tool_use_id` found in `tool_result` blocks: toolu_made_up/);
    const third = await anthropic({ model: 'claude-loop-b', messages: [user, { role: 'assistant', content: 'x' }, user, { role: 'assistant', content: 'y' }, user] });
    assert.equal(third.status, 400, 'a turn past the script is refused');
    assert.match(third.json.error.message, /has 2 turns, and this request is turn 3/);
  });

  test('a call to a tool the request does not offer is refused as the provider would', async () => {
    await script(ANTHROPIC, { model: 'claude-loop-c', turns: [{ tool_calls: [{ name: 'delete_everything', input: {} }] }] });
    const refused = await anthropic({ model: 'claude-loop-c', tools: ANTHROPIC_TOOLS, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error.message, /the tool delete_everything, which the request does not offer \(it offers files__read_text_file, fixture__write_note, modern__write_note\)/);
    await script(ANTHROPIC, { model: 'claude-loop-d', turns: [{ tool_calls: [{ name: 'write_note', input: {} }] }] });
    const ambiguous = await anthropic({ model: 'claude-loop-d', tools: ANTHROPIC_TOOLS, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(ambiguous.status, 400, 'a bare name two offered tools end with is not guessed');
    await script(OPENAI, { model: 'gpt-loop-c', turns: [{ tool_calls: [{ name: 'read_text_file', input: {} }] }] });
    const none = await openai({ model: 'gpt-loop-c', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(none.status, 400);
    assert.equal(none.json.error.type, 'invalid_request_error');
    assert.match(none.json.error.message, /it offers no tools/);
  });

  test('OpenAI: tool_calls with JSON arguments, then tool messages answering each id', async () => {
    await script(OPENAI, { model: 'gpt-loop-a', turns: TURNS });
    const start = [{ role: 'system', content: 'You review briefs.' }, { role: 'user', content: 'Review the autumn brief.' }];
    const first = await openai({ model: 'gpt-loop-a', tools: OPENAI_TOOLS, messages: start });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    const [choice] = first.json.choices;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, null);
    const calls = choice.message.tool_calls;
    assert.deepEqual(calls.map((c) => [c.type, c.function.name, JSON.parse(c.function.arguments)]), [
      ['function', 'files__read_text_file', { path: 'autumn-reporting-trial.txt' }],
      ['function', 'fixture__write_note', { text: 'read' }],
    ]);
    assert.equal(typeof calls[0].function.arguments, 'string', 'arguments are JSON text');
    assert.notEqual(calls[0].id, calls[1].id);

    const assistant = { role: 'assistant', content: null, tool_calls: calls };
    const results = calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: 'ok' }));
    const second = await openai({ model: 'gpt-loop-a', tools: OPENAI_TOOLS, messages: [...start, assistant, ...results] });
    assert.equal(second.status, 200, JSON.stringify(second.json));
    assert.equal(second.json.choices[0].finish_reason, 'stop');
    assert.equal(second.json.choices[0].message.content, 'The brief is Ready.');

    const missing = await openai({ model: 'gpt-loop-a', tools: OPENAI_TOOLS, messages: [...start, assistant, results[0]] });
    assert.equal(missing.status, 400);
    assert.match(missing.json.error.message, new RegExp(`did not have response messages: ${calls[1].id}`));
    const stray = await openai({ model: 'gpt-loop-a', tools: OPENAI_TOOLS, messages: [...start, assistant, ...results, { role: 'tool', tool_call_id: 'call_made_up', content: 'ok' }] });
    assert.equal(stray.status, 400);
    assert.match(stray.json.error.message, /messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/);
  });

  test('a single-answer script answers every request as before', async () => {
    await script(OPENAI, { model: 'gpt-plain', text: 'Ready.' });
    for (const messages of [[{ role: 'user', content: 'a' }], [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }]]) {
      const res = await openai({ model: 'gpt-plain', messages });
      assert.equal(res.status, 200);
      assert.equal(res.json.choices[0].message.content, 'Ready.');
      assert.equal(res.json.choices[0].message.tool_calls, undefined);
    }
  });
});
