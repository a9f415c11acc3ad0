// API keys as a bot or CI that holds one sees them, on a host that is not loopback (so no local mode):
// the tools each key is offered through the v1 and v2 TypeScript SDKs and the Python SDK (a full key all,
// a read-only key exactly the read-only ones, a key kept to a playbook the tools inside one), the calls
// that work and those refused (-32602 over MCP, 403 naming the scope over HTTP), the instructions naming
// the key, the 401 without a credential, revoked and expired keys refused like unknown ones, and the key
// routes: the secret shown once, never listed, bad bodies, names taken, who may make keys, last_used_at.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';

import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from './fixtures.mjs';
import { ROOT } from './harness.mjs';
import {
  adminToken, ALL_SCOPES, assertToolFailure, assertToolSuccess, INSTRUCTION_SENTENCE_1, keyName, keyTransport,
  makeKey, MODERN_VERSION, pointers, publicRequest, publicUrl, READ_KEY_TOOLS, READ_SCOPES, revokeKey, runtimeUrl, TOOL_HINTS,
  uniqueName,
} from './helpers.mjs';
import { badChecksumKey, hasKeyChecksum, wellFormedKey } from './key_format.mjs';
import { until } from './waiting.mjs';

const ORG = 'initech';
const PYTHON = join(ROOT, '.venv', 'bin', 'python');
const UNKNOWN_PB = 'pb_aaaaaaaaaaaaaaaa';
const ACTS_AS = (key) => `This connection acts as the key ${key.name} in the org ${ORG}.`;
const READ_ONLY_TOOLS = READ_KEY_TOOLS;

const http = (method, path, key, body) => publicRequest(method, path, { key, body });
const org = (path = '') => `/v1/orgs/${ORG}${path}`;

/** A detail with the ids it names blanked, so two refusals can be compared but for the id. */
const blank = (text, ...ids) => ids.reduce((t, id) => t.split(id).join('<id>'), text);

/** Asserts a problem document answered with `status` and `reason`; returns it. */
function problem(res, status, reason) {
  assert.equal(res.status, status, `status; body: ${res.text}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(res.json?.reason, reason, res.text);
  return res.json;
}

/** The tools a listing offers, with the contract's annotations on each. */
function offeredNames(tools) {
  for (const tool of tools) {
    const [readOnlyHint, destructiveHint, idempotentHint, openWorldHint] = TOOL_HINTS[tool.name] ?? [];
    assert.deepEqual(tool.annotations, { title: tool.title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint },
      `${tool.name}: annotations`);
  }
  return tools.map((t) => t.name).sort();
}

async function connectV1(key, path = '/mcp') {
  const client = new ClientV1({ name: 'e2e-keys-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${publicUrl()}${path}`), keyTransport(key)));
  return client;
}

async function connectV2(key, path = '/mcp') {
  const client = new ClientV2({ name: 'e2e-keys-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN_VERSION } } });
  await client.connect(new TransportV2(new URL(`${publicUrl()}${path}`), keyTransport(key)));
  return client;
}

function runPython(plans) {
  return new Promise((resolveRun) => {
    const script = join(ROOT, 'tests', 'e2e', 'python_keys.py');
    const child = spawn(PYTHON, [script, publicUrl(), JSON.stringify(plans)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('exit', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const rejectsWith32602 = (promise, name) => assert.rejects(promise, (error) => {
  assert.equal(error.code, -32602, `${name}: ${error.message}`);
  assert.match(error.message, new RegExp(name));
  return true;
});

describe('API keys on a host that is not loopback', () => {
  let full;
  let reader;
  let kept;
  let keptPb; // the playbook `kept` is kept to
  let otherPb; // a playbook of the org it does not reach
  let keptTools; // the tools a key kept to a playbook should be offered, from the full key's listing

  before(async () => {
    full = await makeKey(ORG, { name: keyName('full'), scopes: ALL_SCOPES });
    reader = await makeKey(ORG, { name: keyName('reader'), scopes: READ_SCOPES });
    const made = async (name) => {
      const res = await http('POST', org('/playbooks'), full.key, { name: uniqueName(name) });
      assert.equal(res.status, 201, res.text);
      return res.json;
    };
    keptPb = await made('kept');
    otherPb = await made('other');
    kept = await makeKey(ORG, { name: keyName('kept'), scopes: ALL_SCOPES, playbooks: [keptPb.id] });
    const client = await connectV1(full.key);
    const { tools } = await client.listTools();
    await client.close();
    keptTools = [...tools.filter((t) => t.inputSchema.properties?.playbook).map((t) => t.name), 'list_playbooks', 'get_guide'].sort();
  });

  test('without a credential the runtime answers 401 with a Bearer challenge, and loopback still works', async () => {
    for (const [method, path, body] of [['GET', org('/playbooks')], ['GET', '/v1/guides'], ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }]]) {
      const res = await http(method, path, undefined, body);
      const p = problem(res, 401, 'unauthorized');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="playbook-runtime"', path);
      assert.match(p.detail, /Authorization: Bearer/, 'the refusal says what to send');
    }
    await assert.rejects(connectV1(undefined), (error) => {
      assert.equal(error.code, 401, error.message);
      return true;
    });
    // The same request to 127.0.0.1 is the local developer's.
    assert.equal((await fetch(`${runtimeUrl()}/v1/orgs/local/playbooks`)).status, 200);
  });

  test('a made key is shown once: pbk_, 53 characters, its checksum, and its view', () => {
    assert.equal(full.key.length, 53);
    assert.ok(hasKeyChecksum(full.key), full.key);
    assert.match(full.id, /^key_[a-z2-7]{16}$/);
    assert.deepEqual(
      { scopes: full.scopes, playbooks: full.playbooks, expires_at: full.expires_at, last_used_at: full.last_used_at },
      { scopes: ALL_SCOPES, playbooks: null, expires_at: null, last_used_at: null });
    assert.equal(full.prefix, `${full.key.slice(0, 10)}…`);
    assert.deepEqual(full.created_by, { kind: 'operator', id: 'operator', name: 'the operator' });
    assert.deepEqual(kept.playbooks, [keptPb.id]);
  });

  describe('through the v1 TypeScript SDK', () => {
    test('each key is offered its tools, and the instructions name it', async () => {
      for (const [key, expected] of [[full, Object.keys(TOOL_HINTS).sort()], [reader, READ_ONLY_TOOLS], [kept, keptTools]]) {
        const client = await connectV1(key.key);
        try {
          assert.deepEqual(offeredNames((await client.listTools()).tools), expected, key.name);
          const instructions = client.getInstructions();
          assert.ok(instructions.startsWith(INSTRUCTION_SENTENCE_1), instructions.slice(0, 100));
          assert.ok(instructions.includes(ACTS_AS(key)), `${key.name}: ${instructions}`);
        } finally {
          await client.close();
        }
      }
    });

    test('a full key builds a computation and runs it, and the records name the key', async () => {
      const client = await connectV1(full.key);
      try {
        const call = (name, args) => client.callTool({ name, arguments: args });
        const pb = assertToolSuccess(await call('create_playbook', { name: uniqueName('by key') }));
        const at = { playbook: pb.id, type: 'computation', name: 'add-vat' };
        const made = assertToolSuccess(await call('create_definition', { ...at, source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM }));
        assert.deepEqual(made.created_by, { kind: 'key', id: full.id, name: full.name });
        const run = assertToolSuccess(await call('run_definition', { ...at, input: { net: 100 } }));
        assert.equal(run.status, 'succeeded');
        assert.deepEqual(run.output, { vat: 20, gross: 120 });
        const read = await http('GET', org(`/playbooks/${pb.id}/runs/${run.run_id}`), full.key);
        assert.equal(read.status, 200, read.text);
        assert.deepEqual(read.json.output, { vat: 20, gross: 120 }, 'the run is there over HTTP for the same key');
      } finally {
        await client.close();
      }
    });

    test('a read-only key reads, and a write it is not offered is -32602', async () => {
      const client = await connectV1(reader.key);
      try {
        const listed = assertToolSuccess(await client.callTool({ name: 'list_playbooks', arguments: { limit: 100 } }));
        assert.ok(listed.playbooks.some((p) => p.id === otherPb.id));
        await rejectsWith32602(client.callTool({ name: 'create_playbook', arguments: { name: uniqueName('no') } }), 'create_playbook');
        await rejectsWith32602(client.callTool({ name: 'update_playbook', arguments: { playbook: keptPb.id, name: 'x' } }), 'update_playbook');
      } finally {
        await client.close();
      }
    });

    test("a key kept to a playbook gets not_found for another, as for one that does not exist", async () => {
      const client = await connectV1(kept.key);
      try {
        const call = (name, args) => client.callTool({ name, arguments: args });
        assertToolSuccess(await call('get_playbook', { playbook: keptPb.id }));
        const other = assertToolFailure(await call('get_playbook', { playbook: otherPb.id }), 'not_found');
        const unknown = assertToolFailure(await call('get_playbook', { playbook: UNKNOWN_PB }), 'not_found');
        assert.equal(blank(other.detail, otherPb.id), blank(unknown.detail, UNKNOWN_PB));
        await rejectsWith32602(call('create_playbook', { name: uniqueName('no') }), 'create_playbook');
        await rejectsWith32602(call('list_models', {}), 'list_models');
      } finally {
        await client.close();
      }
    });

    test("the kept playbook's own endpoint and /directory serve the key; another playbook's is 404", async () => {
      const scoped = await connectV1(kept.key, `/orgs/${ORG}/playbooks/${keptPb.id}/mcp`);
      try {
        assert.ok(scoped.getInstructions().includes(ACTS_AS(kept)));
        assertToolSuccess(await scoped.callTool({ name: 'list_definitions', arguments: { type: 'computation' } }));
      } finally {
        await scoped.close();
      }
      const directory = await connectV1(full.key, '/directory');
      try {
        assert.ok(directory.getInstructions().includes(ACTS_AS(full)));
        // The directory listing leaves out the tools of generation functions and their assets, and
        // rerun_run, which could start a generation function's run again.
        const listed = Object.keys(TOOL_HINTS).filter((name) => !['list_generation_models', 'get_asset', 'rerun_run'].includes(name)).sort();
        assert.deepEqual(offeredNames((await directory.listTools()).tools), listed);
      } finally {
        await directory.close();
      }
      const notKept = problem(await http('POST', `/orgs/${ORG}/playbooks/${otherPb.id}/mcp`, kept.key, {}), 404, 'not_found');
      const unknown = problem(await http('POST', `/orgs/${ORG}/playbooks/${UNKNOWN_PB}/mcp`, kept.key, {}), 404, 'not_found');
      assert.equal(blank(notKept.detail, otherPb.id), blank(unknown.detail, UNKNOWN_PB));
      problem(await http('POST', '/orgs/globex/mcp', full.key, {}), 403, 'forbidden');
    });
  });

  describe('through the v2 TypeScript SDK (2026-07-28)', () => {
    test('each key is offered its tools, and the instructions name it', async () => {
      for (const [key, expected] of [[full, Object.keys(TOOL_HINTS).sort()], [reader, READ_ONLY_TOOLS], [kept, keptTools]]) {
        const client = await connectV2(key.key);
        try {
          assert.equal(client.getNegotiatedProtocolVersion(), MODERN_VERSION);
          assert.deepEqual(offeredNames((await client.listTools()).tools), expected, key.name);
          assert.ok(client.getInstructions().includes(ACTS_AS(key)), key.name);
        } finally {
          await client.close();
        }
      }
    });

    test('a read-only key cannot run, a kept key lists only its playbook, a full key updates', async () => {
      const asReader = await connectV2(reader.key);
      const asKept = await connectV2(kept.key);
      const asFull = await connectV2(full.key);
      try {
        await rejectsWith32602(asReader.callTool({ name: 'run_definition', arguments: { playbook: keptPb.id, type: 'computation', name: 'x' } }), 'run_definition');
        const listed = assertToolSuccess(await asKept.callTool({ name: 'list_playbooks', arguments: { limit: 100 } }));
        assert.deepEqual(listed.playbooks.map((p) => p.id), [keptPb.id]);
        const updated = assertToolSuccess(await asFull.callTool({ name: 'update_playbook', arguments: { playbook: otherPb.id, description: 'Changed by a key.' } }));
        assert.equal(updated.description, 'Changed by a key.');
      } finally {
        await Promise.all([asReader.close(), asKept.close(), asFull.close()]);
      }
    });
  });

  test('through the Python SDK, legacy and auto: each key its tools and calls', { timeout: 180_000 }, async () => {
    assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run scripts/setup (it installs the Python MCP SDK into .venv)`);
    const plans = [];
    for (const mode of ['legacy', 'auto']) {
      plans.push(
        { label: `full ${mode}`, key: full.key, mode, calls: [['get_playbook', { playbook: otherPb.id }]] },
        { label: `reader ${mode}`, key: reader.key, mode, calls: [['create_playbook', { name: uniqueName('no') }]] },
        { label: `kept ${mode}`, key: kept.key, mode, calls: [['list_playbooks', { limit: 100 }], ['get_playbook', { playbook: otherPb.id }]] },
        { label: `none ${mode}`, mode },
        { label: `unknown ${mode}`, key: wellFormedKey(), mode },
      );
    }
    const { code, stdout, stderr } = await runPython(plans);
    assert.equal(code, 0, `python_keys.py failed:\n${stderr}`);
    const out = JSON.parse(stdout);
    const asResult = (c) => ({ isError: c.result.is_error, content: c.result.content, structuredContent: c.result.structured_content ?? undefined });
    for (const mode of ['legacy', 'auto']) {
      for (const [label, key, expected] of [['full', full, Object.keys(TOOL_HINTS).sort()], ['reader', reader, READ_ONLY_TOOLS], ['kept', kept, keptTools]]) {
        const s = out[`${label} ${mode}`];
        assert.equal(s.connect_error, undefined, `${label} ${mode}: ${JSON.stringify(s.connect_error)}`);
        assert.equal(s.protocol_version, mode === 'auto' ? MODERN_VERSION : '2025-11-25');
        assert.deepEqual(offeredNames(s.tools), expected, `${label} ${mode}`);
        assert.ok(s.instructions.includes(ACTS_AS(key)), `${label} ${mode}`);
      }
      assert.equal(assertToolSuccess(asResult(out[`full ${mode}`].calls[0])).id, otherPb.id);
      assert.equal(out[`reader ${mode}`].calls[0].error?.code, -32602, JSON.stringify(out[`reader ${mode}`].calls[0]));
      const [listed, other] = out[`kept ${mode}`].calls;
      assert.deepEqual(assertToolSuccess(asResult(listed)).playbooks.map((p) => p.id), [keptPb.id]);
      assertToolFailure(asResult(other), 'not_found');
      for (const label of ['none', 'unknown']) {
        const s = out[`${label} ${mode}`];
        assert.ok(s.connect_error, `${label} ${mode} must not connect`);
        assert.equal(s.tools, undefined);
        assert.ok(s.statuses.length > 0 && s.statuses.every((st) => st === 401), `${label} ${mode}: ${s.statuses}`);
      }
    }
  });

  describe('over HTTP', () => {
    test('an operation a key lacks the scope for is 403 insufficient_scope naming the scope', async () => {
      const orgOnly = await makeKey(ORG, { name: keyName('org-read'), scopes: ['org:read'] });
      const pbOnly = await makeKey(ORG, { name: keyName('pb-read'), scopes: ['playbook:read'] });
      const cases = [
        [reader, 'POST', org('/playbooks'), { name: uniqueName('no') }, 'org:write'],
        [reader, 'PUT', org(`/playbooks/${otherPb.id}`), { description: 'no' }, 'playbook:write'],
        [reader, 'POST', org(`/playbooks/${otherPb.id}/definitions/computation/add-vat/run`), { input: { net: 1 } }, 'playbook:write'],
        [orgOnly, 'GET', org('/playbooks'), undefined, 'playbook:read'],
        [pbOnly, 'GET', org('/models'), undefined, 'org:read'],
      ];
      for (const [key, method, path, body, scope] of cases) {
        const p = problem(await http(method, path, key.key, body), 403, 'forbidden');
        assert.deepEqual({ kind: p.kind, scope: p.scope }, { kind: 'insufficient_scope', scope }, `${key.name} ${method} ${path}`);
        assert.ok(p.detail.includes(scope), p.detail);
      }
      assert.equal((await http('GET', org('/models'), orgOnly.key)).status, 200, 'org:read lists the models');
      assert.equal((await http('GET', org(`/playbooks/${otherPb.id}`), pbOnly.key)).status, 200, 'playbook:read reads a playbook');
    });

    test('a key kept to a playbook reaches it alone, and another org not at all', async () => {
      assert.equal((await http('GET', org(`/playbooks/${keptPb.id}`), kept.key)).status, 200);
      const other = problem(await http('GET', org(`/playbooks/${otherPb.id}`), kept.key), 404, 'not_found');
      const unknown = problem(await http('GET', org(`/playbooks/${UNKNOWN_PB}`), kept.key), 404, 'not_found');
      assert.equal(blank(other.detail, otherPb.id), blank(unknown.detail, UNKNOWN_PB));
      problem(await http('GET', org('/models'), kept.key), 403, 'forbidden');
      problem(await http('POST', org('/playbooks'), kept.key, { name: uniqueName('no') }), 403, 'forbidden');
      const listed = await http('GET', org('/playbooks?limit=100'), kept.key);
      assert.deepEqual(listed.json.playbooks.map((p) => p.id), [keptPb.id]);
      problem(await http('GET', '/v1/orgs/globex/playbooks', full.key), 403, 'forbidden');
    });
  });

  describe('revoked and expired keys', () => {
    const unknownBody = async (path) => (await http('GET', path, wellFormedKey())).text;

    test('a revoked key is refused at once, with the body of an unknown key, over HTTP and MCP', async () => {
      const key = await makeKey(ORG, { name: keyName('soon-revoked'), scopes: READ_SCOPES });
      assert.equal((await http('GET', org('/playbooks'), key.key)).status, 200, 'works before');
      const revoked = await revokeKey(ORG, key.id);
      assert.equal(revoked.id, key.id);
      assert.equal(revoked.key, undefined, 'a revocation does not show the secret');
      const refused = await http('GET', org('/playbooks'), key.key);
      problem(refused, 401, 'unauthorized');
      assert.equal(refused.text, await unknownBody(org('/playbooks')));
      assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="playbook-runtime"');
      assert.equal((await http('POST', '/mcp', key.key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 401);
      const listed = await publicRequest('GET', org('/keys'), { key: adminToken() });
      assert.ok(!listed.json.keys.some((k) => k.id === key.id), 'a revoked key is not listed');
      assert.equal((await revokeKey(ORG, key.id)).id, key.id, 'revoking it again changes nothing');
      assert.equal((await http('GET', org('/playbooks'), key.key)).status, 401);
    });

    test('unknown, malformed and bad-checksum keys get the one refusal', async () => {
      const bodies = new Set();
      for (const secret of [wellFormedKey(), badChecksumKey(), 'pbk_short', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNO']) {
        const res = await http('GET', org('/playbooks'), secret);
        problem(res, 401, 'unauthorized');
        bodies.add(res.text);
      }
      assert.equal(bodies.size, 1, [...bodies].join('\n'));
    });

    test('a key is not made already expired', async () => {
      const name = keyName('born-expired');
      const res = await http('POST', org('/keys'), adminToken(), { name, scopes: READ_SCOPES, expires_at: new Date(Date.now() - 1_000).toISOString() });
      const p = problem(res, 400, 'invalid_input');
      assert.deepEqual(p.errors?.map((e) => [e.pointer, e.detail]), [['/expires_at', 'must be in the future']], res.text);
      const listed = await http('GET', org('/keys'), adminToken());
      assert.ok(!listed.json.keys.some((k) => k.name === name), 'no key was made');
    });

    test('a key works until it expires and is refused just after, as an unknown key is, though it was used just before', async () => {
      // Two seconds: long enough to make both keys and use one on a busy machine; the refusal is
      // awaited, not slept for. The used key is one this isolate trusts for 5 s from its use unless
      // its expiry comes first: a refusal within two seconds of the expiry shows that it does.
      const expiresAt = new Date(Date.now() + 2_000).toISOString();
      const used = await makeKey(ORG, { name: keyName('expiring'), scopes: READ_SCOPES, expires_at: expiresAt });
      const unused = await makeKey(ORG, { name: keyName('expiring-unused'), scopes: READ_SCOPES, expires_at: expiresAt });
      assert.equal(used.expires_at, expiresAt);
      assert.equal((await http('GET', org('/playbooks'), used.key)).status, 200, 'works before it expires');
      const refused = await until('the used key is refused once expired', () => http('GET', org('/playbooks'), used.key),
        (res) => res.status !== 200, { deadline: Date.parse(expiresAt) + 2_000 });
      assert.ok(Date.now() >= Date.parse(expiresAt), `refused at ${new Date().toISOString()}, before it expired at ${expiresAt}`);
      problem(refused, 401, 'unauthorized');
      assert.equal(refused.text, await unknownBody(org('/playbooks')));
      const never = await http('GET', org('/playbooks'), unused.key);
      problem(never, 401, 'unauthorized');
      assert.equal(never.text, refused.text);
    });
  });

  describe('the key routes', () => {
    const operator = (method, path, body) => publicRequest(method, path, { key: adminToken(), body });

    test('list_keys answers views newest first, never a secret or a digest', async () => {
      const a = await makeKey(ORG, { name: keyName('list-a'), scopes: READ_SCOPES });
      const b = await makeKey(ORG, { name: keyName('list-b'), scopes: ['playbook:read'], playbooks: [keptPb.id] });
      const res = await operator('GET', org('/keys'));
      assert.equal(res.status, 200, res.text);
      const ids = res.json.keys.map((k) => k.id);
      assert.ok(ids.indexOf(b.id) === 0 && ids.indexOf(a.id) === 1, `newest first: ${ids}`);
      for (const k of res.json.keys) {
        assert.deepEqual(Object.keys(k).sort(),
          ['created_at', 'created_by', 'expires_at', 'id', 'last_used_at', 'name', 'playbooks', 'prefix', 'scopes']);
        assert.match(k.prefix, /^pbk_[0-9A-Za-z]{6}…$/);
      }
      for (const secret of [a.key, b.key, full.key, reader.key, kept.key]) {
        assert.ok(!res.text.includes(secret), 'no secret in the listing');
        assert.ok(!res.text.includes(createHash('sha256').update(secret).digest('hex')), 'no digest in the listing');
      }
      const { key: _secret, ...view } = b;
      assert.deepEqual(res.json.keys[0], view, 'the listing shows the key as it was made, but its secret');
    });

    test('last_used_at is set, to the minute, once the key is used', async () => {
      const key = await makeKey(ORG, { name: keyName('used'), scopes: READ_SCOPES });
      const before = Date.now();
      const find = async () => (await operator('GET', org('/keys'))).json.keys.find((k) => k.id === key.id);
      assert.equal((await find()).last_used_at, null);
      assert.equal((await http('GET', org('/playbooks'), key.key)).status, 200);
      const used = (await find()).last_used_at;
      assert.match(used ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00\.000Z$/);
      const minute = Math.floor(before / 60_000) * 60_000;
      assert.ok(Date.parse(used) >= minute && Date.parse(used) <= Date.now(), `${used} is this minute`);
    });

    test('bad bodies are 400 invalid_input with a pointer at each field', async () => {
      const name = keyName('bad');
      const cases = [
        [{ name: 'has space', scopes: READ_SCOPES }, '/name'],
        [{ name: '', scopes: READ_SCOPES }, '/name'],
        [{ name: 'x'.repeat(65), scopes: READ_SCOPES }, '/name'],
        [{ name, scopes: ['org:admin'] }, '/scopes/0'],
        [{ name, scopes: ['org:read', 'org:read'] }, '/scopes/1'],
        [{ name, scopes: [] }, '/scopes'],
        [{ name, scopes: READ_SCOPES, playbooks: ['nope'] }, '/playbooks/0'],
        [{ name, scopes: READ_SCOPES, expires_at: 'soon' }, '/expires_at'],
        [{ name, scopes: READ_SCOPES, expires_at: '2020-01-01T00:00:00Z' }, '/expires_at'],
        [{ name, scopes: READ_SCOPES, colour: 'red' }, '/colour'],
        [{ scopes: READ_SCOPES }, '/name'],
      ];
      for (const [body, pointer] of cases) {
        const p = problem(await operator('POST', org('/keys'), body), 400, 'invalid_input');
        assert.ok(pointers(p).includes(pointer), `${pointer} for ${JSON.stringify(body)}: ${JSON.stringify(p)}`);
      }
      // Fields the schema takes but the key's own checks refuse are all named at once.
      const all = problem(await operator('POST', org('/keys'),
        { name: 'a b', scopes: ['org:read', 'org:read'], playbooks: ['nope'], expires_at: 'never' }), 400, 'invalid_input');
      assert.deepEqual(pointers(all), ['/name', '/scopes/1', '/playbooks/0', '/expires_at'], 'every bad field is named');
      const listed = await operator('GET', org('/keys'));
      assert.ok(!listed.json.keys.some((k) => k.name === name), 'no refused body made a key');
    });

    test('a name a live key has is 409; once it is revoked the name is free', async () => {
      const name = keyName('taken');
      const first = await makeKey(ORG, { name, scopes: READ_SCOPES });
      problem(await operator('POST', org('/keys'), { name, scopes: ALL_SCOPES }), 409, 'conflict');
      // Another org may have a key of that name.
      await makeKey('globex', { name, scopes: READ_SCOPES });
      await revokeKey(ORG, first.id);
      const again = await makeKey(ORG, { name, scopes: READ_SCOPES });
      assert.notEqual(again.id, first.id);
      assert.notEqual(again.key, first.key);
    });

    test('a key never makes, lists or revokes keys, even a full one', async () => {
      for (const [method, path, body] of [['POST', org('/keys'), { name: keyName('no'), scopes: READ_SCOPES }],
        ['GET', org('/keys')], ['DELETE', org(`/keys/${reader.id}`)]]) {
        const p = problem(await http(method, path, full.key, body), 403, 'forbidden');
        assert.match(p.detail, /A key never manages keys/, p.detail);
      }
      assert.equal((await http('GET', org('/playbooks'), reader.key)).status, 200, 'the key it tried to revoke still works');
    });

    test('the operator token reaches the key routes of any org and nothing else', async () => {
      const hooli = await makeKey('hooli', { name: keyName('ops'), scopes: READ_SCOPES });
      assert.equal((await operator('GET', '/v1/orgs/hooli/keys')).json.keys[0].id, hooli.id);
      problem(await operator('DELETE', '/v1/orgs/hooli/keys/key_aaaaaaaaaaaaaaaa'), 404, 'not_found');
      const refusals = [
        ['GET', org('/playbooks')], ['POST', org('/playbooks'), { name: uniqueName('op') }], ['GET', org(`/playbooks/${otherPb.id}`)],
        ['GET', org('/models')], ['POST', '/mcp', {}], ['POST', '/directory', {}], ['POST', `/orgs/${ORG}/mcp`, {}],
        ['POST', `/orgs/${ORG}/playbooks/${otherPb.id}/mcp`, {}],
      ];
      for (const [method, path, body] of refusals) {
        const p = problem(await operator(method, path, body), 403, 'forbidden');
        assert.match(p.detail, /ADMIN_TOKEN/, `${method} ${path}: ${p.detail}`);
      }
      // On loopback too: a request that carries Authorization is judged by it.
      problem(await publicRequest('GET', '/v1/orgs/local/playbooks', { key: adminToken(), url: runtimeUrl() }), 403, 'forbidden');
      problem(await http('GET', org('/keys'), `${adminToken()}x`), 401, 'unauthorized');
    });

    test('the operator is refused the guide operation as every other one', async () => {
      problem(await operator('GET', '/v1/guides/start'), 403, 'forbidden');
    });

    test('the local developer makes keys of the org local alone; a key is judged as a key on loopback too', async () => {
      const local = (method, path, body, key) => publicRequest(method, path, { key, body, url: runtimeUrl() });
      const made = await local('POST', '/v1/orgs/local/keys', { name: keyName('local'), scopes: READ_SCOPES });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.json.created_by.kind, 'local_developer');
      problem(await local('POST', `/v1/orgs/${ORG}/keys`, { name: keyName('no'), scopes: READ_SCOPES }), 403, 'forbidden');
      problem(await local('GET', `/v1/orgs/${ORG}/keys`), 403, 'forbidden');
      assert.ok((await local('GET', '/v1/orgs/local/keys')).json.keys.some((k) => k.id === made.json.id));
      // The read-only key on 127.0.0.1 is not the local developer: it may not write.
      const p = problem(await local('POST', '/v1/orgs/local/playbooks', { name: uniqueName('no') }, made.json.key), 403, 'forbidden');
      assert.equal(p.scope, 'org:write');
      problem(await local('GET', '/v1/orgs/local/playbooks', undefined, wellFormedKey()), 401, 'unauthorized');
    });
  });
});
