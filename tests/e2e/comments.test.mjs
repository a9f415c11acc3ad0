// Comments against the real Worker: the local developer comments over HTTP (on a step of a function,
// on the Ledger, and on the org's own things), an agent lists them over MCP with list_comments (by
// address, under an address, open or all) and resolves one, the person reopens it over HTTP and the
// agent sees reopened_at and reopened_by; an API key is refused make_comment; a retired playbook's
// comments are read but not resolved; and on a playbook's own endpoint the comment tools take no
// playbook and list_comments says what its open comments are.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from './fixtures.mjs';
import {
  ALL_SCOPES, assertToolFailure, assertToolSuccess, keyName, LOCAL_USER, makeKey, publicRequest, runtimeUrl, uniqueName,
} from './helpers.mjs';

/** The local developer on loopback, over HTTP, in the org local. */
async function http(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${runtimeUrl()}/v1/orgs/local${path}`, init);
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, text, json };
}

async function connect(path = '/mcp') {
  const client = new Client({ name: 'comments-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`)));
  return client;
}

describe('comments: people say, agents read and resolve', () => {
  let client;
  let playbook;
  const call = (name, args = {}) => client.callTool({ name, arguments: args });
  const ids = (page) => page.comments.map((c) => c.id);

  before(async () => {
    client = await connect();
    const made = await http('POST', '/playbooks', { name: uniqueName('comments') });
    assert.equal(made.status, 201, made.text);
    playbook = made.json.id;
    const fn = await http('POST', `/playbooks/${playbook}/definitions/computation`,
      { name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM });
    assert.equal(fn.status, 201, fn.text);
  });
  after(() => client?.close());

  test('a comment made over HTTP is listed, resolved over MCP, and reopened over HTTP', async () => {
    const address = 'definitions/computation/add-vat/page/figures/gross';
    const made = await http('POST', `/playbooks/${playbook}/comments`,
      { address, body: 'Round the **gross** to cents.', anchor: { x: 0.42, y: 0.1 } });
    assert.equal(made.status, 201, made.text);
    const comment = made.json;
    assert.match(comment.id, /^cm_[a-z2-7]{16}$/);
    assert.deepEqual(
      [comment.playbook, comment.address, comment.status, comment.version, comment.by.name, comment.anchor],
      [playbook, address, 'open', 1, LOCAL_USER, { x: 0.42, y: 0.1 }]);
    assert.deepEqual(comment.call, { tool: 'get_definition', arguments: { playbook, type: 'computation', name: 'add-vat' } });
    assert.ok(comment.studio.endsWith(`/studio/local/playbooks/${playbook}/definitions/computation/add-vat#comment-${comment.id}`), comment.studio);
    const ledger = (await http('POST', `/playbooks/${playbook}/comments`, { address: 'ledger', body: 'Why so many runs?' })).json;

    const all = assertToolSuccess(await call('list_comments', { playbook }));
    assert.deepEqual(ids(all), [ledger.id, comment.id], 'newest first');
    const on = assertToolSuccess(await call('list_comments', { playbook, address }));
    assert.deepEqual(ids(on), [comment.id]);
    const under = assertToolSuccess(await call('list_comments', { playbook, under: 'definitions/computation/add-vat' }));
    assert.deepEqual(ids(under), [comment.id]);
    const notUnder = assertToolSuccess(await call('list_comments', { playbook, under: 'definitions/computation/add' }));
    assert.deepEqual(ids(notUnder), [], 'under is a prefix at a /');
    const bad = assertToolFailure(await call('list_comments', { playbook, address: 'steps/x' }), 'invalid_input');
    assert.equal(bad.errors[0].pointer, '/address');

    const resolved = await call('resolve_comment', { playbook, id: comment.id, how: 'acted' });
    const closed = assertToolSuccess(resolved);
    assert.deepEqual([closed.status, closed.how, closed.resolved_by.name], ['resolved', 'acted', LOCAL_USER]);
    assert.match(resolved.content[0].text, /^Resolved the comment/);
    const again = assertToolSuccess(await call('resolve_comment', { playbook, id: comment.id, how: 'dismissed' }));
    assert.deepEqual([again.how, again.resolved_at], ['acted', closed.resolved_at], 'calling it again changes nothing');
    assert.deepEqual(ids(assertToolSuccess(await call('list_comments', { playbook, open: true }))), [ledger.id]);
    assert.deepEqual(ids(assertToolSuccess(await call('list_comments', { playbook, open: false }))), [ledger.id, comment.id]);

    const reopened = await http('POST', `/playbooks/${playbook}/comments/${comment.id}/reopen`);
    assert.equal(reopened.status, 200, reopened.text);
    const seen = assertToolSuccess(await call('list_comments', { playbook, address }));
    assert.equal(seen.comments[0].status, 'open');
    assert.equal(seen.comments[0].reopened_by.name, LOCAL_USER);
    assert.ok(Date.parse(seen.comments[0].reopened_at) >= Date.parse(closed.resolved_at));
    assert.equal(seen.comments[0].how, null);
  });

  test('a key is refused make_comment, and no tool makes or reopens a comment', async () => {
    const key = await makeKey('local', { name: keyName('comments'), scopes: ALL_SCOPES });
    const res = await publicRequest('POST', `/v1/orgs/local/playbooks/${playbook}/comments`,
      { key: key.key, body: { address: 'ledger', body: 'A bot speaks.' } });
    assert.equal(res.status, 403, res.text);
    assert.match(res.json.detail, /a comment is what a person says/);
    const listed = await publicRequest('GET', `/v1/orgs/local/playbooks/${playbook}/comments?open=false`, { key: key.key });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.json.comments.every((c) => c.body !== 'A bot speaks.'));
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('list_comments') && names.includes('resolve_comment'));
    assert.ok(!names.includes('make_comment') && !names.includes('reopen_comment'));
  });

  test("the org's own comments are kept apart and lead to their tool or to the person", async () => {
    const member = await http('POST', '/comments', { address: 'members/bob', body: 'Make Bob an editor.' });
    assert.equal(member.status, 201, member.text);
    assert.equal(member.json.playbook, undefined);
    assert.equal(member.json.report, true, 'no tool changes a member');
    assert.ok(member.json.studio.endsWith(`/studio/local/comments#comment-${member.json.id}`));
    const wrong = await http('POST', '/comments', { address: 'ledger', body: 'Not the org’s.' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.errors[0].detail, /settings\/\{page\}/);
    const own = assertToolSuccess(await call('list_comments', {}));
    assert.ok(ids(own).includes(member.json.id));
    assert.ok(own.comments.every((c) => c.playbook === undefined), 'none of a playbook');
    const mine = assertToolSuccess(await call('list_comments', { playbook, open: false }));
    assert.ok(!ids(mine).includes(member.json.id));
    assert.equal(assertToolSuccess(await call('resolve_comment', { id: member.json.id, how: 'dismissed' })).how, 'dismissed');
    const elsewhere = assertToolFailure(await call('resolve_comment', { playbook, id: member.json.id, how: 'acted' }), 'not_found');
    assert.equal(elsewhere.errors[0].pointer, '/id');
  });

  test("on a playbook's endpoint the comment tools take no playbook", async () => {
    const scoped = await connect(`/orgs/local/playbooks/${playbook}/mcp`);
    try {
      const listed = (await scoped.listTools()).tools.find((t) => t.name === 'list_comments');
      assert.equal(listed.inputSchema.properties.playbook, undefined);
      assert.match(listed.description, /A comment on an earlier version \(its version\) is read against the current document/);
      const page = assertToolSuccess(await scoped.callTool({ name: 'list_comments', arguments: { under: 'ledger' } }));
      assert.equal(page.comments.length, 1);
      assert.equal(page.comments[0].playbook, playbook);
    } finally {
      await scoped.close();
    }
  });

  test("a retired playbook's comments are read but not resolved", async () => {
    const made = (await http('POST', `/playbooks/${playbook}/comments`, { address: 'playbook', body: 'Rename it.' })).json;
    assert.equal((await http('POST', `/playbooks/${playbook}/retire`)).status, 200);
    const read = assertToolSuccess(await call('list_comments', { playbook, address: 'playbook' }));
    assert.deepEqual(ids(read), [made.id]);
    const refused = assertToolFailure(await call('resolve_comment', { playbook, id: made.id, how: 'acted' }), 'conflict');
    assert.match(refused.detail, /can be read but not resolved/);
    const notMade = await http('POST', `/playbooks/${playbook}/comments`, { address: 'ledger', body: 'More.' });
    assert.equal(notMade.status, 409, notMade.text);
    assert.equal((await http('POST', `/playbooks/${playbook}/restore`)).status, 200);
    assert.equal(assertToolSuccess(await call('resolve_comment', { playbook, id: made.id, how: 'acted' })).status, 'resolved');
  });
});
