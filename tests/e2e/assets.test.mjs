// Assets end to end: a reasoning function calls the real server-everything's get-tiny-image, whose
// answer carries the MCP logo as an MCP image block; the runtime keeps it as an asset (its bytes in
// the local R2 bucket, its record in the playbook's object), the tool_call_answered event and what the
// model read name the asset instead of the base64, get_asset reads it over MCP and HTTP, and the bytes
// at its url are the logo's, SHA-256 and all, served with headers that never let a browser run them.
// Then who may fetch them: a read key of the org, yes; no credential, a key of another org and a key
// kept to another playbook, no. /directory lists no get_asset, and the org endpoint neither.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { scriptTinyImage, TINY_IMAGE_DIAGRAM, TINY_IMAGE_OVERVIEW, TINY_IMAGE_SAYS, tinyImageFunction } from './fixtures.mjs';
import { ROOT } from './harness.mjs';
import {
  ALL_SCOPES, assertToolFailure, assertToolSuccess, bearer, keyName, makeKey, publicFetch, publicRequest, publicUrl, READ_SCOPES,
  runtimeUrl, uniqueName,
} from './helpers.mjs';

const MODEL = 'gpt-4.1-assets';

/** The logo server-everything answers, decoded from its own source. */
function tinyImage() {
  const source = readFileSync(join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'tools', 'get-tiny-image.js'), 'utf8');
  const [, base64] = source.match(/MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"/) ?? [];
  assert.ok(base64, 'the logo in server-everything');
  return Buffer.from(base64, 'base64');
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

async function connect(path) {
  const client = new Client({ name: 'assets-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}${path}`)));
  return client;
}

describe('assets: a tool\'s image kept, read and served', { timeout: 120_000 }, () => {
  let client;
  let playbook;
  let other;
  let runId;
  let asset;
  const logo = tinyImage();
  const call = async (name, args = {}) => assertToolSuccess(await client.callTool({ name, arguments: { playbook, ...args } }));

  before(async () => {
    client = await connect('/mcp');
    const make = async (name) => assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name } })).id;
    playbook = await make(uniqueName('assets'));
    other = await make(uniqueName('assets other'));
    await call('create_definition', {
      type: 'reasoning', name: 'logo', source: tinyImageFunction(MODEL), overview: TINY_IMAGE_OVERVIEW, diagram: TINY_IMAGE_DIAGRAM,
    });
    await scriptTinyImage(MODEL);
    const run = await call('run_definition', { type: 'reasoning', name: 'logo', input: { subject: 'the logo' } });
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.output, TINY_IMAGE_SAYS);
    runId = run.run_id;
  });
  after(() => client?.close());

  test('the call\'s event names the asset, and neither it nor the model saw base64', async () => {
    const { events } = await call('list_playbook_events', { run_id: runId });
    const answered = events.find((e) => e.kind === 'tool_call_answered');
    assert.ok(answered, JSON.stringify(events.map((e) => e.kind)));
    const whole = await call('get_event', { event_id: answered.event_id });
    const [named] = whole.data.assets ?? [];
    assert.ok(named, JSON.stringify(whole.data));
    assert.match(named.asset_id, /^ast_[a-z2-7]{16}$/);
    assert.deepEqual([named.media_type, named.size, named.sha256], ['image/png', logo.length, sha256(logo)]);
    assert.ok(named.url.endsWith(`/v1/orgs/local/playbooks/${playbook}/assets/${named.asset_id}/content`), named.url);
    const text = whole.data.answer.text;
    assert.ok(text.includes(`[image image/png, ${logo.length} bytes, kept as the asset ${named.asset_id}]`), text);
    assert.ok(text.includes("Here's the image you requested:") && text.includes('The image above is the MCP logo.'), text);
    assert.ok(!JSON.stringify(whole).includes(logo.toString('base64').slice(0, 40)), 'no base64 in the event');

    const requests = await fetch(`${process.env.STANDIN_OPENAI_URL}/__requests?model=${MODEL}`).then((r) => r.json());
    const told = requests.at(-1).body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.deepEqual(told, [text], 'the model read the same words');
    asset = named;
  });

  test('get_asset answers the record with the address of its bytes, over MCP and HTTP', async () => {
    const read = await call('get_asset', { asset_id: asset.asset_id });
    assert.deepEqual(
      [read.asset_id, read.playbook, read.media_type, read.size, read.sha256],
      [asset.asset_id, playbook, 'image/png', logo.length, sha256(logo)],
    );
    assert.deepEqual(read.made_by, { kind: 'tool', run_id: runId, tool: 'everything/get-tiny-image' });
    assert.ok(!Number.isNaN(Date.parse(read.created_at)));
    assert.equal(new URL(read.url).pathname, `/v1/orgs/local/playbooks/${playbook}/assets/${asset.asset_id}/content`);

    const http = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${playbook}/assets/${asset.asset_id}`);
    assert.equal(http.status, 200);
    assert.deepEqual(await http.json(), read);

    const scoped = await connect(`/orgs/local/playbooks/${playbook}/mcp`);
    try {
      const there = assertToolSuccess(await scoped.callTool({ name: 'get_asset', arguments: { asset_id: asset.asset_id } }));
      assert.equal(there.sha256, read.sha256);
    } finally {
      await scoped.close();
    }
    assertToolFailure(await client.callTool({ name: 'get_asset', arguments: { playbook, asset_id: 'ast_aaaaaaaaaaaaaaaa' } }), 'not_found');
    assertToolFailure(await client.callTool({ name: 'get_asset', arguments: { playbook: other, asset_id: asset.asset_id } }), 'not_found');
  });

  test('the bytes at its url are the logo, as a PNG that is shown and never run', async () => {
    const res = await fetch(`${runtimeUrl()}${new URL(asset.url, runtimeUrl()).pathname}`);
    assert.equal(res.status, 200);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(sha256(bytes), asset.sha256);
    assert.ok(bytes.equals(logo), 'the very bytes the tool answered');
    assert.ok(bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'a PNG');
    const h = (name) => res.headers.get(name);
    assert.equal(h('content-type'), 'image/png');
    assert.equal(h('x-content-type-options'), 'nosniff');
    assert.equal(h('content-disposition'), `inline; filename="${asset.asset_id}"`);
    assert.equal(h('content-security-policy'), "default-src 'none'; sandbox");
    assert.match(h('cache-control'), /^private/);
    assert.equal(h('etag'), `"${asset.sha256}"`);

    const posted = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${playbook}/assets/${asset.asset_id}/content`, { method: 'POST' });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get('allow'), 'GET');
    const elsewhere = await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks/${other}/assets/${asset.asset_id}/content`);
    assert.equal(elsewhere.status, 404, 'another playbook keeps no such asset');
    assert.equal((await elsewhere.json()).reason, 'not_found');
  });

  test('only a caller who may read the playbook gets the bytes', async () => {
    const path = `/v1/orgs/local/playbooks/${playbook}/assets/${asset.asset_id}/content`;
    const reader = await makeKey('local', { name: keyName('assets-reader'), scopes: READ_SCOPES });
    const read = await publicFetch(`${publicUrl()}${path}`, { headers: bearer(reader.key) });
    assert.equal(read.status, 200);
    assert.equal(sha256(Buffer.from(await read.arrayBuffer())), asset.sha256, 'a read key of the org gets the bytes');

    const anonymous = await publicRequest('GET', path);
    assert.equal(anonymous.status, 401, anonymous.text);
    assert.equal(anonymous.json.reason, 'unauthorized');
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer/);

    const stranger = await makeKey('initech', { name: keyName('assets-stranger'), scopes: ALL_SCOPES });
    const foreign = await publicRequest('GET', path, { key: stranger.key });
    assert.equal(foreign.status, 403, foreign.text);
    assert.equal(foreign.json.reason, 'forbidden');
    assert.ok(!foreign.text.includes(asset.sha256));

    const kept = await makeKey('local', { name: keyName('assets-kept'), scopes: ALL_SCOPES, playbooks: [other] });
    const notHers = await publicRequest('GET', path, { key: kept.key });
    assert.equal(notHers.status, 404, notHers.text);
    const record = await publicRequest('GET', `/v1/orgs/local/playbooks/${playbook}/assets/${asset.asset_id}`, { key: kept.key });
    assert.equal(record.status, 404, record.text);
    assert.deepEqual(
      (await publicRequest('GET', `/v1/orgs/local/playbooks/${playbook}/assets/ast_aaaaaaaaaaaaaaaa/content`, { key: kept.key })).text,
      notHers.text.split(asset.asset_id).join('ast_aaaaaaaaaaaaaaaa'),
      'a refusal tells nothing of whether the asset exists',
    );
  });

  test('/directory lists no get_asset, nor does the org endpoint; a playbook endpoint does', async () => {
    const names = async (path) => {
      const c = await connect(path);
      try {
        return (await c.listTools()).tools.map((t) => t.name);
      } finally {
        await c.close();
      }
    };
    assert.ok((await names('/mcp')).includes('get_asset'));
    assert.ok(!(await names('/directory')).includes('get_asset'));
    assert.ok(!(await names('/orgs/local/mcp')).includes('get_asset'));
    assert.ok((await names(`/orgs/local/playbooks/${playbook}/mcp`)).includes('get_asset'));
    const directory = await connect('/directory');
    try {
      const refused = await directory.callTool({ name: 'get_asset', arguments: { playbook, asset_id: asset.asset_id } })
        .then((r) => r, (e) => e);
      const said = refused instanceof Error ? refused.message : JSON.stringify(refused);
      assert.match(said, /Unknown tool: get_asset/);
    } finally {
      await directory.close();
    }
  });
});
