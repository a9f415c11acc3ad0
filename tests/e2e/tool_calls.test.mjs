// Calls by hand to the real tool servers run.mjs started (tool_servers.mjs): query_connection reading the
// campaign brief through server-filesystem and refusing a tool that does not only read; execute_connection
// writing a note on the fixture (which arrives, once), answering a tool's own error as its answer, through
// server-everything's handshake and session, and to the server that speaks 2026-07-28 alone; each call in
// the playbook's history as tool_called with its arguments and answer, or their sizes alone where the
// entry keeps no content; a slow tool given up, unusable servers and misfitting arguments refused before
// anything is sent; and a key that may only read, offered the reading tools and refused the calls.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {
  ALL_SCOPES, assertToolFailure, assertToolSuccess, keyName, keyTransport, makeKey, pointers, publicRequest, publicUrl,
  READ_SCOPES, runtimeUrl, uniqueName,
} from './helpers.mjs';
import { BRIEFS, FIXTURE_TOKEN, fixtureSide, MODERN, toolServers, WRONG_TOKEN } from './tool_servers.mjs';

const BRIEF = BRIEFS['autumn-reporting-trial.txt'];
const LOCAL_DEVELOPER = { kind: 'local_developer', id: 'local', name: 'tester' };

async function connect(path) {
  const client = new Client({ name: 'tool-calls-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`)));
  return client;
}

async function post(path, body) {
  const res = await fetch(`${runtimeUrl()}${path}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text), text };
}

describe('calls to tools by hand', () => {
  const { servers } = toolServers();
  const side = fixtureSide();
  let client;
  let playbook;
  const call = (name, args = {}) => client.callTool({ name, arguments: { playbook, ...args } });
  const query = (server, tool, args, extra = {}) => call('query_connection', { server, tool, arguments: args, ...extra });
  const execute = (server, tool, args, extra = {}) => call('execute_connection', { server, tool, arguments: args, ...extra });
  /** The playbook's tool_called events, newest first. */
  const calls = async (pb = playbook) => assertToolSuccess(await client.callTool({
    name: 'list_playbook_events', arguments: { playbook: pb, limit: 100 },
  })).events.filter((e) => e.kind === 'tool_called');
  /** The event a call answered it was recorded as: listed in the history, and read whole with get_event. */
  const recorded = async (eventId) => {
    assert.ok((await calls()).some((e) => e.event_id === eventId), `the history lists ${eventId}`);
    return assertToolSuccess(await client.callTool({ name: 'get_event', arguments: { playbook, event_id: eventId } }));
  };

  before(async () => {
    client = await connect('/mcp');
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('tool calls') } })).id;
  });
  after(() => client?.close());

  test('query_connection reads the campaign brief through the filesystem server, and the history records the call', async () => {
    const result = await query('files', 'read_text_file', { path: 'autumn-reporting-trial.txt' });
    const read = assertToolSuccess(result);
    assert.equal(read.text, BRIEF, "the brief's text, as the filesystem server read it from the folder");
    assert.deepEqual(read.structured, { content: BRIEF });
    assert.deepEqual([read.name, read.outcome, read.is_error], ['files/read_text_file', 'result', false]);
    assert.ok(Number.isInteger(read.took_ms) && read.took_ms >= 0, `took_ms ${read.took_ms}`);
    const bytes = Buffer.byteLength(BRIEF);
    assert.equal(result.content[0].text,
      `The tool answered: ${bytes} bytes from files/read_text_file in ${read.took_ms} ms, recorded in the playbook's history as ${read.event_id}.`);

    const event = await recorded(read.event_id);
    assert.equal(event.summary, `tester called files/read_text_file by hand; it answered (${bytes} bytes).`);
    assert.deepEqual(event.data, {
      server: 'files', tool: 'read_text_file', mark: 'reads', by: LOCAL_DEVELOPER, took_ms: read.took_ms,
      arguments: { path: 'autumn-reporting-trial.txt' }, is_error: false, answer_size: bytes,
      answer: { text: BRIEF, structured: { content: BRIEF } },
    });
    assert.equal(event.run_id ?? null, null, 'a call by hand belongs to no run');
  });

  test("a brief that is not there answers the filesystem server's ENOENT as the tool's error", async () => {
    const result = await query('files', 'read_text_file', { path: 'winter-launch.txt' });
    const answer = assertToolSuccess(result);
    assert.deepEqual([answer.outcome, answer.is_error], ['error', true]);
    assert.match(answer.text, /ENOENT: no such file or directory, open '.*winter-launch\.txt'/);
    assert.match(result.content[0].text, /^The tool answered an error: \d+ bytes from files\/read_text_file in \d+ ms/);
    const event = await recorded(answer.event_id);
    assert.equal(event.data.is_error, true);
    assert.match(event.summary, /^tester called files\/read_text_file by hand; the tool answered an error \(\d+ bytes\)\.$/);
  });

  test('query_connection refuses a tool that does not only read, and calls nothing', async () => {
    const before = await side.calls();
    const history = (await calls()).length;
    const acts = assertToolFailure(await query('fixture', 'write_note', { text: 'Should not be written.' }), 'unavailable');
    assert.equal(acts.kind, 'tool_not_read_only');
    assert.equal(acts.detail,
      'query_connection calls only a tool marked reads, and fixture/write_note acts; execute_connection calls it, as a call that may act.');
    const unmarked = assertToolFailure(await query('fixture', 'unmarked_tool', {}), 'unavailable');
    assert.equal(unmarked.kind, 'tool_not_read_only');
    assert.equal(unmarked.detail,
      'query_connection calls only a tool marked reads, and fixture/unmarked_tool is unmarked, which counts as acts; execute_connection calls it, as a call that may act.');
    assert.deepEqual(await side.calls(), before, 'the server was called for nothing');
    assert.ok(!(await side.notes()).some((n) => n.text === 'Should not be written.'));
    assert.equal((await calls()).length, history, 'a refused call is not recorded as made');
  });

  test('execute_connection writes a note on the fixture: it arrives once, and the history records it', async () => {
    const text = `Autumn trial: brief checked ${uniqueName('note')}`;
    const before = await side.calls();
    const result = await execute('fixture', 'write_note', { text });
    const done = assertToolSuccess(result);
    const notes = await side.notes();
    assert.equal(notes.at(-1).text, text, 'the note arrived at the server');
    assert.equal(notes.filter((n) => n.text === text).length, 1, 'once');
    assert.equal((await side.calls()).write_note, (before.write_note ?? 0) + 1, 'the tool was called once');
    assert.equal(done.text, `Noted as note ${notes.length}.`);
    assert.deepEqual(done.structured, { note: notes.length });
    const event = await recorded(done.event_id);
    assert.deepEqual([event.data.server, event.data.tool, event.data.mark], ['fixture', 'write_note', 'acts']);
    assert.deepEqual(event.data.arguments, { text });
    assert.deepEqual(event.data.answer, { text: done.text, structured: done.structured });
    assert.deepEqual(event.data.by, LOCAL_DEVELOPER);
  });

  test("a tool that fails answers its error as the call's answer, not as a refusal", async () => {
    const result = await execute('fixture', 'fail', { reason: 'November is closed' });
    const answer = assertToolSuccess(result);
    assert.deepEqual([answer.outcome, answer.is_error, answer.text],
      ['error', true, 'The ledger is closed for the month, so nothing was done: November is closed.']);
    assert.match(result.content[0].text, new RegExp(`^The tool answered an error: ${Buffer.byteLength(answer.text)} bytes from fixture/fail in \\d+ ms, recorded`));
    const event = await recorded(answer.event_id);
    assert.equal(event.data.is_error, true);
    assert.equal(event.data.answer.text, answer.text);
  });

  test("server-everything's tools are called through its handshake and session", async () => {
    const echo = assertToolSuccess(await execute('everything', 'echo', { message: 'Autumn reporting trial' }));
    assert.equal(echo.text, 'Echo: Autumn reporting trial');
    const sum = assertToolSuccess(await execute('everything', 'get-sum', { a: 18000, b: 4500 }));
    assert.equal(sum.text, 'The sum of 18000 and 4500 is 22500.');
    const structured = assertToolSuccess(await execute('everything', 'get-structured-content', { location: 'Chicago' }));
    assert.equal(typeof structured.structured?.temperature, 'number', JSON.stringify(structured));
    assert.deepEqual(JSON.parse(structured.text), structured.structured);
  });

  test('the server of 2026-07-28 alone is spoken to in it; the fixture of earlier revisions through the handshake', async () => {
    const mark = (await side.requests()).length;
    const modern = assertToolSuccess(await execute('modern', 'echo', { text: 'spoken in 2026-07-28' }));
    assert.equal(modern.text, 'spoken in 2026-07-28');
    assert.deepEqual(modern.structured, { text: 'spoken in 2026-07-28' });
    const legacy = assertToolSuccess(await execute('fixture', 'echo', { text: 'spoken after initialize' }));
    assert.equal(legacy.text, 'spoken after initialize');

    const seen = (await side.requests()).slice(mark);
    const toModern = seen.filter((r) => r.door === 'modern');
    assert.ok(toModern.some((r) => r.method === 'tools/call' && r.tool === 'echo'), JSON.stringify(toModern));
    assert.deepEqual(toModern.filter((r) => r.method === 'initialize' || r.protocol_version !== MODERN), [],
      'the modern server was asked nothing but 2026-07-28 requests');
    // The isolate settled the fixture's revision when it first spoke to it (earlier tests listed its
    // tools): from then on it speaks that revision in that session, with no new handshake.
    const all = (await side.requests()).filter((r) => r.door === 'legacy').map((r) => [r.method, r.protocol_version]);
    const refused = all.findIndex(([m, v]) => m !== 'initialize' && v === MODERN);
    const handshake = all.findIndex(([m], i) => m === 'initialize' && i > refused);
    assert.ok(refused >= 0 && handshake > refused,
      `2026-07-28 first, refused, then initialize: ${JSON.stringify(all.slice(0, 6))}`);
    const settled = all.find(([m]) => m === 'notifications/initialized')?.[1];
    const toLegacy = seen.filter((r) => r.door === 'legacy').map((r) => [r.method, r.protocol_version]);
    assert.deepEqual(toLegacy, [['tools/call', settled]], 'the call goes in the settled revision, with no handshake');
    assert.ok(seen.every((r) => r.authorized), 'every request carried the secret FIXTURE_TOKEN names');
  });

  test('an event stream left open after the response is read up to the response, not to the deadline', async () => {
    const began = Date.now();
    const echo = assertToolSuccess(await execute('lingering', 'echo', { text: 'said once' }, { timeout_seconds: 30 }));
    assert.equal(echo.text, 'said once');
    assert.ok(Date.now() - began < 10_000, `answered in ${Date.now() - began} ms, not at the 30 s deadline`);
  });

  test('post_message answers its message_id, and read_replies the replies a person posted to it', async () => {
    const posted = assertToolSuccess(await execute('fixture', 'post_message', { channel: '#marketing', text: 'Is the autumn brief Ready?' }));
    const messageId = posted.structured.message_id;
    assert.match(messageId, /^msg_\d+$/);
    assert.ok(posted.text.includes(`{"message_id": "${messageId}"}`), posted.text);
    const unanswered = assertToolSuccess(await query('fixture', 'read_replies', { message_id: messageId }));
    assert.deepEqual([unanswered.text, unanswered.structured], ['No replies yet.', { message_id: messageId, replies: [] }]);
    await side.reply(messageId, 'Ready: the budget and the measure are clear.');
    const answered = assertToolSuccess(await query('fixture', 'read_replies', { message_id: messageId }));
    assert.deepEqual(answered.structured.replies, ['Ready: the budget and the measure are clear.']);
    const unknown = assertToolSuccess(await query('fixture', 'read_replies', { message_id: 'msg_0' }));
    assert.equal(unknown.is_error, true);
  });

  test('an answer longer than the history keeps is recorded cut, with its whole size', async () => {
    const long = assertToolSuccess(await execute('fixture', 'huge', { bytes: 40000 }));
    assert.equal(long.text.length, 40000, 'the caller reads the whole answer');
    const listed = (await calls()).find((e) => e.event_id === long.event_id);
    assert.equal(listed.data, undefined, 'a list leaves out data this large');
    const event = await recorded(long.event_id);
    assert.equal(event.data.answer_size, 40000);
    const kept = event.data.answer.text;
    assert.ok(Buffer.byteLength(kept) <= 32768, `history keeps at most 32768 bytes, not ${Buffer.byteLength(kept)}`);
    assert.ok(kept.endsWith('…') && long.text.startsWith(kept.slice(0, -1)), 'the start of the answer, cut with an ellipsis');

    // Bytes, not characters: an answer of three-byte characters is cut at the same size, whole characters.
    const euros = assertToolSuccess(await execute('fixture', 'huge', { bytes: 60000, unit: '€' }));
    assert.equal(Buffer.byteLength(euros.text), 60000);
    const wide = await recorded(euros.event_id);
    assert.equal(wide.data.answer_size, 60000);
    const keptWide = wide.data.answer.text;
    assert.ok(Buffer.byteLength(keptWide) <= 32768, `history keeps at most 32768 bytes, not ${Buffer.byteLength(keptWide)}`);
    assert.ok(Buffer.byteLength(keptWide) > 32000, 'and as much as fits');
    assert.match(keptWide, /^€+…$/u);
  });

  test("only the sizes are recorded for a server whose entry keeps no content", async () => {
    const secret = 'The board approved the budget cut to USD 9,000.';
    const echoed = assertToolSuccess(await execute('sizes', 'echo', { text: secret }));
    assert.equal(echoed.text, secret, 'the caller still reads the answer');
    const event = await recorded(echoed.event_id);
    assert.deepEqual(event.data, {
      server: 'sizes', tool: 'echo', mark: 'reads', by: LOCAL_DEVELOPER, took_ms: echoed.took_ms,
      arguments_size: JSON.stringify({ text: secret }).length, is_error: false, answer_size: secret.length,
    });
    assert.ok(!JSON.stringify(event).includes('budget cut'), 'neither the arguments nor the answer are kept');
  });

  test('a tool slower than timeout_seconds is given up once, and the failure recorded', async () => {
    const before = (await side.calls()).slow ?? 0;
    const history = (await calls()).length;
    const slow = assertToolFailure(await execute('fixture', 'slow', {}, { timeout_seconds: 1 }), 'unavailable');
    assert.equal(slow.kind, 'tool_unavailable');
    assert.match(slow.detail, /^The tool server “fixture” cannot be used just now \(unreachable\): it gave no answer within 1 seconds?; it may be down or between restarts/);
    assert.equal((await side.calls()).slow, before + 1, 'the call was made once, not again');
    const [event] = await calls();
    assert.equal((await calls()).length, history + 1);
    assert.deepEqual([event.data.tool, event.data.because], ['slow', 'unreachable']);
    assert.match(event.summary, /^tester called fixture\/slow by hand; the server failed \(unreachable\)\.$/);
  });

  test('a server that cannot be used is refused with its because and what mends it, and no credential shows', async () => {
    const wrongkey = assertToolFailure(await execute('wrongkey', 'echo', { text: 'x' }), 'unavailable');
    assert.equal(wrongkey.kind, 'tool_unavailable');
    assert.equal(wrongkey.detail,
      "The tool server “wrongkey” cannot be used just now (key_refused): it refused the runtime's credential with HTTP 401; whoever runs the runtime puts a credential the server accepts in the Worker secret its entry names.");
    const nokey = assertToolFailure(await execute('nokey', 'echo', { text: 'x' }), 'unavailable');
    assert.equal(nokey.detail,
      'The tool server “nokey” cannot be used just now (secret_not_set): its credential names the secret FIXTURE_UNSET_TOKEN, which is not set. Whoever runs the runtime sets it (wrangler secret put FIXTURE_UNSET_TOKEN; for wrangler dev, a line FIXTURE_UNSET_TOKEN=value in .dev.vars) and restarts it.');
    const down = assertToolFailure(await query('down', 'echo', { text: 'x' }), 'unavailable');
    assert.match(down.detail, /^The tool server “down” cannot be used just now \(unreachable\): it could not be reached: .+; it may be down or between restarts, and a later call may find it back; if it stays so, whoever runs the runtime checks its address in TOOL_SERVERS\.$/);
    for (const p of [wrongkey, nokey, down]) {
      assert.ok(!JSON.stringify(p).includes(WRONG_TOKEN) && !JSON.stringify(p).includes(FIXTURE_TOKEN));
    }
  });

  test('arguments that do not fit the tool are refused before anything is sent', async () => {
    const before = await side.calls();
    const misfit = assertToolFailure(await execute('fixture', 'write_note', { text: 5, urgent: true }), 'invalid_input');
    assert.equal(misfit.kind, 'tool_arguments');
    assert.deepEqual(pointers(misfit).sort(), ['/arguments/text', '/arguments/urgent']);
    const big = assertToolFailure(await execute('fixture', 'echo', { text: 'x'.repeat(70_000) }), 'invalid_input');
    assert.deepEqual(pointers(big), ['/arguments']);
    assert.match(big.errors[0].detail, /^is \d+ bytes as JSON, more than the 65536 a call sends$/);
    assert.deepEqual(await side.calls(), before);
  });

  test('a server or tool the playbook may not use is refused in words that say what search shows, and nothing is done', async () => {
    const before = await side.calls();
    const kept = assertToolFailure(await execute('private', 'write_note', { text: 'Not here.' }), 'not_found');
    assert.match(kept.detail, new RegExp(`^The playbook ${playbook} may use no tool server “private”; search shows the servers it may use: .*files.*\\.$`));
    assert.deepEqual(pointers(kept), ['/server']);
    assert.deepEqual(await side.calls(), before);

    const notAllowed = assertToolFailure(await execute('files', 'write_file', { path: 'sneaky.txt', content: 'x' }), 'not_found');
    assert.equal(notAllowed.detail,
      'The tool server “files” offers no tool “write_file” to this playbook; search with server files lists the 2 tools it offers, such as list_directory and read_text_file.');
    assert.deepEqual(pointers(notAllowed), ['/tool']);
    assert.ok(!existsSync(join(servers.files.dir, 'sneaky.txt')), 'nothing was written');
    const unknown = assertToolFailure(await execute('fixture', 'delete_all', {}), 'not_found');
    assert.match(unknown.detail, /^The tool server “fixture” offers no tool “delete_all” to this playbook; search with server fixture lists the 8 tools it offers, such as echo, fail, huge, post_message and read_replies\.$/);
  });

  test('a retired playbook calls none of its tools', async () => {
    const retired = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('retired tools') } })).id;
    assertToolSuccess(await client.callTool({ name: 'retire_playbook', arguments: { playbook: retired } }));
    const before = await side.calls();
    const refused = assertToolFailure(await client.callTool({
      name: 'execute_connection', arguments: { playbook: retired, server: 'fixture', tool: 'write_note', arguments: { text: 'x' } },
    }), 'conflict');
    assert.equal(refused.detail, `The playbook ${retired} is retired, so none of its tools is called; restore_playbook makes it active again.`);
    assert.deepEqual(await side.calls(), before);
  });

  test("on a playbook's endpoint and over HTTP the calls answer alike", async () => {
    const scoped = await connect(`/orgs/local/playbooks/${playbook}/mcp`);
    try {
      const inside = assertToolSuccess(await scoped.callTool({
        name: 'execute_connection', arguments: { server: 'modern', tool: 'echo', arguments: { text: 'from the endpoint' } },
      }));
      assert.equal(inside.text, 'from the endpoint');
      assert.equal((await recorded(inside.event_id)).data.arguments.text, 'from the endpoint');
    } finally {
      await scoped.close();
    }
    const route = (server, tool, verb) => `/v1/orgs/local/playbooks/${playbook}/tool-servers/${server}/tools/${tool}/${verb}`;
    const read = await post(route('files', 'read_text_file', 'query'), { arguments: { path: 'autumn-reporting-trial.txt' } });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.text, BRIEF);
    const notOnlyReads = await post(route('fixture', 'write_note', 'query'), { arguments: { text: 'x' } });
    assert.equal(notOnlyReads.status, 503, notOnlyReads.text);
    assert.deepEqual([notOnlyReads.json.reason, notOnlyReads.json.kind], ['unavailable', 'tool_not_read_only']);
    const text = `Over HTTP ${uniqueName('note')}`;
    const wrote = await post(route('fixture', 'write_note', 'execute'), { arguments: { text } });
    assert.equal(wrote.status, 200, wrote.text);
    assert.equal((await side.notes()).at(-1).text, text);
  });
});

describe('a key that may only read, on a host that is not loopback', () => {
  const ORG = 'toolco';
  const side = fixtureSide();
  let reader;
  let full;
  let playbook;

  before(async () => {
    reader = await makeKey(ORG, { name: keyName('tools-reader'), scopes: READ_SCOPES });
    full = await makeKey(ORG, { name: keyName('tools-full'), scopes: ALL_SCOPES });
    const made = await publicRequest('POST', `/v1/orgs/${ORG}/playbooks`, { key: full.key, body: { name: uniqueName('keyed tools') } });
    assert.equal(made.status, 201, made.text);
    playbook = made.json.id;
  });

  test('is offered search, introspect and dry_run, and neither query_connection nor execute_connection', async () => {
    const client = new Client({ name: 'tool-calls-reader', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${publicUrl()}/mcp`), keyTransport(reader.key)));
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      for (const name of ['search', 'introspect', 'dry_run']) assert.ok(listed.includes(name), `${name} is offered`);
      for (const name of ['query_connection', 'execute_connection']) assert.ok(!listed.includes(name), `${name} is not offered`);
      const found = assertToolSuccess(await client.callTool({ name: 'search', arguments: { playbook, server: 'files' } }));
      assert.deepEqual(found.tools.map((t) => t.name), ['files/list_directory', 'files/read_text_file']);
      const checked = assertToolSuccess(await client.callTool({
        name: 'dry_run', arguments: { playbook, server: 'files', tool: 'read_text_file', arguments: { path: 'autumn-reporting-trial.txt' } },
      }));
      assert.equal(checked.valid, true);
      await assert.rejects(client.callTool({
        name: 'query_connection', arguments: { playbook, server: 'files', tool: 'read_text_file', arguments: { path: 'autumn-reporting-trial.txt' } },
      }), (error) => error.code === -32602 && /query_connection/.test(error.message));
    } finally {
      await client.close();
    }
  });

  test('is refused the calls over HTTP with 403 naming playbook:write, and reads the rest', async () => {
    const before = await side.calls();
    const route = (tool, verb) => `/v1/orgs/${ORG}/playbooks/${playbook}/tool-servers/fixture/tools/${tool}/${verb}`;
    for (const [verb, tool, name] of [['query', 'echo', 'query_connection'], ['execute', 'write_note', 'execute_connection']]) {
      const res = await publicRequest('POST', route(tool, verb), { key: reader.key, body: { arguments: { text: 'x' } } });
      assert.equal(res.status, 403, res.text);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.deepEqual([res.json.reason, res.json.kind, res.json.scope], ['forbidden', 'insufficient_scope', 'playbook:write']);
      assert.equal(res.json.detail, `${name} needs the scope playbook:write, which this caller does not hold.`);
    }
    assert.deepEqual(await side.calls(), before, 'nothing was called');
    for (const [method, path, body] of [
      ['GET', `/v1/orgs/${ORG}/playbooks/${playbook}/tool-servers/search?server=fixture`],
      ['GET', `/v1/orgs/${ORG}/playbooks/${playbook}/tool-servers/fixture/tools/echo`],
      ['POST', route('echo', 'dry-run'), { arguments: { text: 'x' } }],
      ['POST', route('echo', 'validate'), { arguments: { text: 'x' } }],
    ]) {
      const res = await publicRequest(method, path, { key: reader.key, body });
      assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
    }
  });

  test('a full key calls, and the history names the key', async () => {
    const res = await publicRequest('POST', `/v1/orgs/${ORG}/playbooks/${playbook}/tool-servers/fixture/tools/echo/execute`,
      { key: full.key, body: { arguments: { text: 'by key' } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.text, 'by key');
    const events = await publicRequest('GET', `/v1/orgs/${ORG}/playbooks/${playbook}/events`, { key: reader.key });
    const event = events.json.events.find((e) => e.event_id === res.json.event_id);
    assert.deepEqual(event.data.by, { kind: 'key', id: full.id, name: full.name });
    assert.equal(event.summary, `${full.name} called fixture/echo by hand; it answered (6 bytes).`);
  });
});
