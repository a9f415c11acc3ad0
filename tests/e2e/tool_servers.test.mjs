// Finding and reading the tools of tool servers, against the real servers run.mjs started and named in
// TOOL_SERVERS (tool_servers.mjs): search by terms, by mark and by server, paged; each server that
// cannot be used listed with its because and the words that mend it; the private server kept from a
// playbook it does not serve and the money server from /directory; search on a playbook's endpoint
// without a playbook argument and on the org's endpoint, the one of the five listed there; introspect of
// a filesystem tool whole, as its server lists it; dry_run and validate checking arguments against the
// tool's schema, each misfit at its pointer; and a tool or server a playbook may not use refused in
// words that say what search shows. Calls by hand are in tool_calls.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { assertToolFailure, assertToolSuccess, pointers, runtimeUrl, uniqueName } from './helpers.mjs';
import { FIXTURE_TOKEN, fixtureSide, toolServers, WRONG_TOKEN } from './tool_servers.mjs';

const MORE = ' More follow: pass next_cursor to read on.';
const FIVE = ['search', 'introspect', 'dry_run', 'query_connection', 'execute_connection'];

async function connect(path, headers = {}) {
  const client = new Client({ name: 'tool-servers-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`), { requestInit: { headers } }));
  return client;
}

/** Every tool a server lists, page after page, as the official SDK client reads them from the server itself. */
async function listedByServer(url, headers = {}) {
  const client = new Client({ name: 'tool-servers-truth', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

async function http(method, path, body) {
  const res = await fetch(`${runtimeUrl()}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: JSON.parse(text), text };
}

const names = (found) => found.tools.map((t) => t.name);

describe('finding the tools of tool servers', () => {
  const { settings, servers } = toolServers();
  const side = fixtureSide();
  let client;
  let playbook;
  const call = (name, args = {}) => client.callTool({ name, arguments: { playbook, ...args } });

  before(async () => {
    client = await connect('/mcp');
    playbook = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('tool servers') } })).id;
  });
  after(() => client?.close());

  test('search lists each server that serves the playbook, those that cannot be used with why and what mends it', async () => {
    const result = await call('search', { limit: 100 });
    const found = assertToolSuccess(result);
    const byName = Object.fromEntries(found.servers.map((s) => [s.name, s]));
    assert.deepEqual(Object.keys(byName), Object.keys(settings).filter((n) => n !== 'private').sort(),
      'every server of the settings but the one kept to another playbook, by name');
    for (const name of ['files', 'everything', 'fixture', 'modern', 'money', 'sizes', 'crm', 'crm_text']) {
      assert.equal(byName[name].available, true, `${name}: ${JSON.stringify(byName[name])}`);
      assert.equal(byName[name].type, name.startsWith('crm') ? 'openapi' : 'mcp');
      assert.equal(byName[name].because, undefined);
    }
    assert.equal(byName.crm.tools, 3, 'the CRM document offers its three operations');
    assert.equal(byName.files.tools, 2, 'files offers the two tools its entry allows');
    assert.equal(byName.fixture.tools, servers.fixture.tools.length, 'every page of the fixture was read');
    assert.equal(byName.modern.tools, servers.fixture.tools.length);
    assert.equal(byName.money.handles_money, true);
    assert.equal(byName.fixture.handles_money, false);
    assert.equal(byName.sizes.record_content, false);
    assert.equal(byName.fixture.record_content, true);

    assert.deepEqual([byName.down.available, byName.down.because], [false, 'unreachable']);
    assert.match(byName.down.detail, /^it could not be reached: .+; it may be down or between restarts, and a later call may find it back; if it stays so, whoever runs the runtime checks its address in TOOL_SERVERS\.$/);
    assert.deepEqual([byName.wrongkey.available, byName.wrongkey.because], [false, 'key_refused']);
    assert.equal(byName.wrongkey.detail,
      "it refused the runtime's credential with HTTP 401; whoever runs the runtime puts a credential the server accepts in the Worker secret its entry names.");
    assert.deepEqual([byName.nokey.available, byName.nokey.because, byName.nokey.type], [false, 'secret_not_set', null]);
    assert.equal(byName.nokey.detail,
      'its credential names the secret FIXTURE_UNSET_TOKEN, which is not set. Whoever runs the runtime sets it (wrangler secret put FIXTURE_UNSET_TOKEN; for wrangler dev, a line FIXTURE_UNSET_TOKEN=value in .dev.vars) and restarts it.');

    const total = found.servers.filter((s) => s.available).reduce((n, s) => n + s.tools, 0);
    assert.equal(found.tools.length, total, 'every tool offered, on one page of 100');
    assert.deepEqual(names(found), [...names(found)].sort(), 'sorted by server/tool');
    assert.equal(found.next_cursor, null);
    for (const t of found.tools) assert.equal(t.name, `${t.server}/${t.tool}`);

    const summary = result.content[0].text;
    assert.match(summary, new RegExp(`^${found.servers.length} tool servers serve the playbook ${playbook}, of which \\d+ cannot be used just now: `));
    for (const unusable of ['down (unreachable)', 'nokey (secret_not_set)', 'wrongkey (key_refused)']) {
      assert.ok(summary.includes(unusable), `the summary names ${unusable}: ${summary}`);
    }
    assert.match(summary, new RegExp(`${total} tools are offered, such as crm/createNote \\(acts\\), crm/getContact \\(reads\\)`));
    const shown = JSON.stringify(found);
    assert.ok(!shown.includes(FIXTURE_TOKEN) && !shown.includes(WRONG_TOKEN), 'no credential is shown');
  });

  test('terms find the tools holding every word in their server, name or description', async () => {
    const notebook = assertToolSuccess(await call('search', { terms: 'Notebook' }));
    assert.deepEqual(names(notebook), ['fixture/write_note', 'modern/write_note', 'money/write_note', 'sizes/write_note'],
      'write_note is the only tool whose description speaks of the notebook');
    const modern = assertToolSuccess(await call('search', { terms: 'modern note' }));
    assert.deepEqual(names(modern), ['modern/write_note'], "a word may be the server's name");
    const readText = assertToolSuccess(await call('search', { terms: 'read text' }));
    assert.ok(names(readText).includes('files/read_text_file'), names(readText).join());
    assert.ok(!names(readText).includes('files/list_directory'), 'every word must be found');
    const none = await call('search', { terms: 'calendar invite' });
    assert.deepEqual(assertToolSuccess(none).tools, []);
    assert.match(none.content[0].text, /\. No tools match\.$/);
  });

  test('only: read keeps the tools marked reads, only: write those marked acts or unmarked', async () => {
    const reads = assertToolSuccess(await call('search', { server: 'fixture', only: 'read' }));
    assert.deepEqual(reads.tools.map((t) => [t.name, t.mark, t.marked_by]), [
      ['fixture/echo', 'reads', 'server'], ['fixture/fail', 'reads', 'server'], ['fixture/huge', 'reads', 'server'],
      ['fixture/read_replies', 'reads', 'server'], ['fixture/slow', 'reads', 'server'],
    ]);
    const writes = assertToolSuccess(await call('search', { server: 'fixture', only: 'write' }));
    assert.deepEqual(writes.tools.map((t) => [t.name, t.mark, t.marked_by]), [
      ['fixture/post_message', 'acts', 'server'], ['fixture/unmarked_tool', 'unmarked', 'server'], ['fixture/write_note', 'acts', 'server'],
    ]);
    // The filesystem server's own readOnlyHint marks its tools; the entry marks nothing.
    const files = assertToolSuccess(await call('search', { server: 'files', only: 'read' }));
    assert.deepEqual(files.tools.map((t) => [t.name, t.mark, t.marked_by]),
      [['files/list_directory', 'reads', 'server'], ['files/read_text_file', 'reads', 'server']]);
  });

  test("server lists one server's tools, read across every page of its nextCursor", async () => {
    const truth = await listedByServer(servers.fixture.url, { authorization: `Bearer ${servers.fixture.token}` });
    assert.ok(truth.length > 2 * servers.fixture.page, 'the fixture lists its tools over at least three pages');
    for (const server of ['fixture', 'modern']) {
      const found = assertToolSuccess(await call('search', { server }));
      assert.deepEqual(found.servers.map((s) => s.name), [server]);
      const expected = truth.map((t) => ({
        name: `${server}/${t.name}`, server, tool: t.name, title: t.title ?? null, description: t.description,
        mark: { true: 'reads', false: 'acts', undefined: 'unmarked' }[t.annotations?.readOnlyHint], marked_by: 'server',
      })).sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(found.tools, expected, `${server}: the tools as the server lists them`);
    }
    const kept = assertToolFailure(await call('search', { server: 'private' }), 'not_found');
    assert.match(kept.detail, new RegExp(`^No tool server “private” serves the playbook ${playbook}; those that serve it are crm, crm_text, down, everything, files, fixture, `));
    assert.ok(!kept.detail.slice(kept.detail.indexOf('are ')).includes('private'), kept.detail);
    assert.deepEqual(kept.errors, [{ pointer: '/server', detail: 'is not a tool server that serves it' }]);
  });

  test('limit and cursor page through what search finds, and the summary says when more follow', async () => {
    const seen = [];
    let cursor;
    let pages = 0;
    do {
      const result = await call('search', { server: 'fixture', limit: 3, ...(cursor ? { cursor } : {}) });
      const page = assertToolSuccess(result);
      assert.ok(page.tools.length <= 3);
      seen.push(...names(page));
      cursor = page.next_cursor;
      assert.equal(result.content[0].text.endsWith(MORE), Boolean(cursor), result.content[0].text);
      pages += 1;
    } while (cursor && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(seen, servers.fixture.tools.map((t) => `fixture/${t}`).sort());

    // A page of the whole playbook's tools, more than fit: the summary still ends by saying so.
    const first = await call('search', {});
    const page = assertToolSuccess(first);
    assert.equal(page.tools.length, 20, 'twenty tools unless told');
    assert.equal(typeof page.next_cursor, 'string');
    assert.ok(first.content[0].text.endsWith(MORE), `the summary says more follow: ${first.content[0].text}`);
    const next = assertToolSuccess(await call('search', { cursor: page.next_cursor }));
    assert.ok(next.tools[0].name > page.tools.at(-1).name, 'the next page starts after the cursor');
  });

  test("on a playbook's endpoint the five tools take no playbook, and search answers as on /mcp", async () => {
    const scoped = await connect(`/orgs/local/playbooks/${playbook}/mcp`);
    try {
      const tools = (await scoped.listTools()).tools;
      for (const name of FIVE) {
        const tool = tools.find((t) => t.name === name);
        assert.ok(tool, `${name} is listed on the playbook's endpoint`);
        assert.equal(tool.inputSchema.properties.playbook, undefined, `${name} takes no playbook here`);
      }
      const here = assertToolSuccess(await scoped.callTool({ name: 'search', arguments: { server: 'fixture' } }));
      const there = assertToolSuccess(await call('search', { server: 'fixture' }));
      assert.deepEqual(here, there);
      const read = assertToolSuccess(await scoped.callTool({ name: 'introspect', arguments: { server: 'fixture', tool: 'echo' } }));
      assert.equal(read.name, 'fixture/echo');
      const extra = assertToolFailure(await scoped.callTool({ name: 'search', arguments: { playbook } }), 'invalid_input');
      assert.deepEqual(pointers(extra), ['/playbook']);
    } finally {
      await scoped.close();
    }
  });

  test("the org's endpoint lists search alone of the five, over the whole org", async () => {
    const org = await connect('/orgs/local/mcp');
    try {
      const listed = (await org.listTools()).tools.map((t) => t.name);
      assert.ok(listed.includes('search'), listed.join());
      for (const name of FIVE.slice(1)) assert.ok(!listed.includes(name), `${name} is not listed on the org's endpoint`);
      const result = await org.callTool({ name: 'search', arguments: { server: 'private' } });
      const found = assertToolSuccess(result);
      assert.deepEqual(found.servers.map((s) => s.name), ['private'],
        'without a playbook, a server kept to some playbooks of the org shows too');
      assert.equal(found.tools.length, servers.fixture.tools.length);
      assert.match(result.content[0].text, /^1 tool server serves the org local\. 8 tools are offered/);
    } finally {
      await org.close();
    }
  });

  test('/directory leaves out the servers that handle money', async () => {
    const everywhere = assertToolSuccess(await call('search', { limit: 100 }));
    assert.ok(everywhere.servers.some((s) => s.name === 'money'), '/mcp lists money');
    const directory = await connect('/directory');
    try {
      const found = assertToolSuccess(await directory.callTool({ name: 'search', arguments: { playbook, limit: 100 } }));
      assert.deepEqual(found.servers.map((s) => s.name), everywhere.servers.map((s) => s.name).filter((n) => n !== 'money'));
      assert.ok(!found.tools.some((t) => t.server === 'money'));
      // Named by hand, the server is refused as unavailable, in words that say /mcp offers it (the spec
      // names query_connection and execute_connection; introspect answers alike).
      for (const name of ['introspect', 'query_connection', 'execute_connection']) {
        const args = { playbook, server: 'money', tool: 'echo', ...(name === 'introspect' ? {} : { arguments: { text: 'directory' } }) };
        const refused = assertToolFailure(await directory.callTool({ name, arguments: args }), 'unavailable');
        assert.match(refused.detail, /^The directory listing does not offer the tool server money, .*; through \/mcp the same call works\.$/, name);
      }
    } finally {
      await directory.close();
    }
  });

  test('over HTTP, search answers what the tool answers', async () => {
    const mcp = assertToolSuccess(await call('search', { server: 'fixture', only: 'write' }));
    const inPlaybook = await http('GET', `/v1/orgs/local/playbooks/${playbook}/tool-servers/search?server=fixture&only=write`);
    assert.equal(inPlaybook.status, 200, inPlaybook.text);
    assert.deepEqual(inPlaybook.json, mcp);
    const byQuery = await http('GET', `/v1/orgs/local/tool-servers/search?playbook=${playbook}&terms=notebook`);
    assert.equal(byQuery.status, 200, byQuery.text);
    assert.deepEqual(names(byQuery.json), ['fixture/write_note', 'modern/write_note', 'money/write_note', 'sizes/write_note']);
    const bad = await http('GET', `/v1/orgs/local/playbooks/${playbook}/tool-servers/search?only=maybe`);
    assert.equal(bad.status, 400);
    assert.match(bad.type, /^application\/problem\+json/);
    assert.deepEqual(pointers(bad.json), ['/only']);
  });

  test('introspect reads a filesystem tool whole, as its server lists it', async () => {
    const [truth] = (await listedByServer(servers.files.url)).filter((t) => t.name === 'read_text_file');
    const result = await call('introspect', { server: 'files', tool: 'read_text_file' });
    const read = assertToolSuccess(result);
    assert.deepEqual(read, {
      name: 'files/read_text_file', server: 'files', tool: 'read_text_file', title: truth.title, description: truth.description,
      input_schema: truth.inputSchema, annotations: truth.annotations, mark: 'reads', marked_by: 'server', record_content: true,
    });
    assert.deepEqual(read.annotations, { readOnlyHint: true, openWorldHint: false }, 'the hints as the filesystem server gives them');
    assert.equal(result.content[0].text, 'files/read_text_file reads (marked by server), so query_connection or execute_connection calls it by hand.');

    const unmarked = await call('introspect', { server: 'fixture', tool: 'unmarked_tool' });
    const bare = assertToolSuccess(unmarked);
    assert.deepEqual([bare.annotations, bare.mark, bare.title], [{}, 'unmarked', null]);
    assert.equal(unmarked.content[0].text, 'fixture/unmarked_tool is unmarked, which counts as acts (marked by server), so execute_connection alone calls it by hand.');
    assert.equal(assertToolSuccess(await call('introspect', { server: 'sizes', tool: 'echo' })).record_content, false);

    const overHttp = await http('GET', `/v1/orgs/local/playbooks/${playbook}/tool-servers/files/tools/read_text_file`);
    assert.equal(overHttp.status, 200, overHttp.text);
    assert.deepEqual(overHttp.json, read);
  });

  test('a tool or server the playbook may not use is refused in words that say what search shows', async () => {
    // The filesystem server lists write_file; its entry allows two tools alone.
    const notAllowed = assertToolFailure(await call('introspect', { server: 'files', tool: 'write_file' }), 'not_found');
    assert.equal(notAllowed.detail,
      'The tool server “files” offers no tool “write_file” to this playbook; search with server files lists the 2 tools it offers, such as list_directory and read_text_file.');
    assert.deepEqual(notAllowed.errors, [{ pointer: '/tool', detail: 'is not a tool this server offers the playbook' }]);

    const kept = assertToolFailure(await call('introspect', { server: 'private', tool: 'echo' }), 'not_found');
    assert.match(kept.detail, new RegExp(`^The playbook ${playbook} may use no tool server “private”; search shows the servers it may use: crm, crm_text, down, everything, files, fixture, `));
    assert.ok(!kept.detail.slice(kept.detail.indexOf('may use:')).includes('private'), kept.detail);
    assert.deepEqual(kept.errors, [{ pointer: '/server', detail: 'is not a tool server this playbook may use' }]);
    const notAName = assertToolFailure(await call('introspect', { server: 'Files!', tool: 'echo' }), 'not_found');
    assert.deepEqual(notAName.errors, [{ pointer: '/server', detail: "is not a server's name" }]);

    const down = assertToolFailure(await call('introspect', { server: 'down', tool: 'echo' }), 'unavailable');
    assert.equal(down.kind, 'tool_unavailable');
    assert.match(down.detail, /^The tool server “down” cannot be used just now \(unreachable\): it could not be reached: .+; it may be down or between restarts/);
  });

  test("dry_run checks arguments against the tool's schema without calling it, each misfit at its pointer", async () => {
    const before = await side.calls();
    const fits = await call('dry_run', { server: 'files', tool: 'read_text_file', arguments: { path: 'autumn-reporting-trial.txt' } });
    assert.deepEqual(assertToolSuccess(fits), {
      name: 'files/read_text_file', valid: true, errors: [], mark: 'reads', marked_by: 'server', query_connection: true,
    });
    assert.equal(fits.content[0].text, 'execute_connection would call files/read_text_file with these arguments, and so would query_connection; the tool reads.');

    const misfits = await call('dry_run', { server: 'files', tool: 'read_text_file', arguments: { head: 'ten' } });
    const checked = assertToolSuccess(misfits);
    assert.equal(checked.valid, false);
    assert.deepEqual(checked.errors.map((e) => e.pointer).sort(), ['/arguments/head', '/arguments/path']);
    assert.equal(checked.errors.find((e) => e.pointer === '/arguments/path').detail, 'is required');
    assert.match(misfits.content[0].text, /^execute_connection would refuse these arguments: 2 misfits \(\/arguments\/\w+ /);

    const acts = await call('dry_run', { server: 'fixture', tool: 'write_note', arguments: { text: 'Not written.', loud: true } });
    const note = assertToolSuccess(acts);
    assert.deepEqual([note.valid, note.mark, note.query_connection], [false, 'acts', false]);
    assert.deepEqual(note.errors, [{ pointer: '/arguments/loud', detail: 'is not an argument this takes (loud)' }]);
    const writes = assertToolSuccess(await call('dry_run', { server: 'fixture', tool: 'write_note', arguments: { text: 'Not written.' } }));
    assert.equal(writes.valid, true);
    const said = (await call('dry_run', { server: 'fixture', tool: 'write_note', arguments: { text: 'Not written.' } })).content[0].text;
    assert.equal(said, 'execute_connection would call fixture/write_note with these arguments, and query_connection would refuse it, as it does not only read; the tool acts.');
    assert.deepEqual(await side.calls(), before, 'dry_run called no tool');
  });

  test('validate over HTTP: 200 when the arguments fit, 400 with a pointer at each misfit', async () => {
    const before = await side.calls();
    const route = `/v1/orgs/local/playbooks/${playbook}/tool-servers/fixture/tools/echo/validate`;
    const ok = await http('POST', route, { arguments: { text: 'Fits.' } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json, { name: 'fixture/echo', valid: true });
    const bad = await http('POST', route, { arguments: { text: 5, loud: true } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.type, /^application\/problem\+json/);
    assert.equal(bad.json.reason, 'invalid_input');
    assert.equal(bad.json.kind, 'tool_arguments');
    assert.deepEqual(pointers(bad.json).sort(), ['/arguments/loud', '/arguments/text']);
    assert.match(bad.json.detail, /^2 fields are not valid\./);
    const missing = await http('POST', route, {});
    assert.equal(missing.status, 400, 'left out, the arguments are {}, and echo requires text');
    assert.deepEqual(pointers(missing.json), ['/arguments/text']);
    const elsewhere = await http('POST', `/v1/orgs/local/playbooks/${playbook}/tool-servers/private/tools/echo/validate`, { arguments: { text: 'x' } });
    assert.equal(elsewhere.status, 404);
    assert.deepEqual(await side.calls(), before, 'validate called no tool');
    const doc = await (await fetch(`${runtimeUrl()}/v1/openapi.json`)).json();
    const op = doc.paths['/v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/validate'].post;
    assert.match(op.description, /400 with a pointer at each misfit/, 'the document says the status validate answers');
  });
});
