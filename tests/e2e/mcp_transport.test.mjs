// The wire of POST /mcp as raw HTTP shows it: methods, headers, statuses, JSON-RPC error codes, the SSE
// framing of a handled request, the initialize negotiation of every legacy revision, the 2026-07-28 lane
// (server/discover, _meta, header checks), the Origin and Host checks, and that no session is ever issued.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  TOOL_HINTS,
  ACCEPT_BOTH, assertInstructions, GET_STARTED_TEXT, MODERN_VERSION, postMcp as post, postModern, rawHttp,
  runtimeUrl,
} from './helpers.mjs';

const seen = []; // every answer's headers, to check no Mcp-Session-Id anywhere
async function postMcp(body, options) {
  const res = await post(body, options);
  seen.push(res.headers);
  return res;
}
async function modern(...args) {
  const res = await postModern(...args);
  seen.push(res.headers);
  return res;
}
const rpc = (method, params, id = 1) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const initialize = (protocolVersion) => rpc('initialize',
  { protocolVersion, capabilities: {}, clientInfo: { name: 'e2e-raw', version: '1.0.0' } });

function assertRpcError(res, status, code) {
  assert.equal(res.status, status, `HTTP status; body: ${res.text}`);
  assert.equal(res.json?.jsonrpc, '2.0', `JSON-RPC body: ${res.text}`);
  assert.equal(res.json.error?.code, code, `error code; body: ${res.text}`);
  assert.equal(typeof res.json.error.message, 'string');
}

describe('POST /mcp, raw', () => {
  test('GET and DELETE on /mcp are 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${runtimeUrl()}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      await res.arrayBuffer();
      seen.push(res.headers);
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST', `${method} Allow header`);
    }
  });

  test('a handled request is answered 200 as an SSE stream with one message event', async () => {
    const res = await postMcp(rpc('ping', undefined, 'p-1'));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const messages = res.events.filter((e) => e.data);
    assert.equal(messages.length, 1, res.text);
    assert.equal(messages[0].hasEventField, true, `the event is named: ${res.text}`);
    assert.equal(messages[0].event, 'message');
    assert.deepEqual(JSON.parse(messages[0].data), { jsonrpc: '2.0', id: 'p-1', result: {} });
  });

  test('a client that accepts only JSON gets plain JSON', async () => {
    const res = await postMcp(rpc('ping', undefined, 7), { headers: { accept: 'application/json' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    assert.deepEqual(JSON.parse(res.text), { jsonrpc: '2.0', id: 7, result: {} });
  });

  test('ping answers {}', async () => {
    const res = await postMcp(rpc('ping', undefined, 42));
    assert.deepEqual(res.json, { jsonrpc: '2.0', id: 42, result: {} });
  });

  test('a body that is not JSON is 400, -32700, id null, as plain JSON', async () => {
    const res = await postMcp('{"jsonrpc": "2.0", "id": 1, "method": ');
    assertRpcError(res, 400, -32700);
    assert.match(res.headers.get('content-type'), /^application\/json/);
    assert.equal(res.json.id, null);
  });

  test('what is not a JSON-RPC message is 400, -32600', async () => {
    const bodies = [
      {},
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: { nested: true }, method: 'ping' },
      { jsonrpc: '2.0', id: 1, method: 42 },
      [],
      'null',
    ];
    for (const body of bodies) {
      const res = await postMcp(typeof body === 'string' ? body : JSON.stringify(body));
      assertRpcError(res, 400, -32600);
    }
  });

  test('an unknown method is -32601', async () => {
    const res = await postMcp(rpc('nothing/here', {}, 3));
    assert.equal(res.status, 200);
    assertRpcError(res, 200, -32601);
    assert.equal(res.json.id, 3);
  });

  test('a notification, and a response the client posts, are 202 with an empty body', async () => {
    for (const body of [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
      { jsonrpc: '2.0', id: 9, result: {} },
      { jsonrpc: '2.0', id: 10, error: { code: -32601, message: 'no' } },
    ]) {
      const res = await postMcp(body);
      assert.equal(res.status, 202, JSON.stringify(body));
      assert.equal(res.text, '', `empty body for ${JSON.stringify(body)}`);
    }
  });

  test('an unsupported MCP-Protocol-Version header is 400 before handling', async () => {
    const res = await postMcp(rpc('ping'), { headers: { 'mcp-protocol-version': '1999-01-01' } });
    assertRpcError(res, 400, -32600);
  });

  test('a foreign Origin is 403; the runtime\'s own origin is accepted', async () => {
    const foreign = await postMcp(rpc('ping'), { headers: { origin: 'http://evil.example.com' } });
    assert.equal(foreign.status, 403, foreign.text);
    assert.match(foreign.headers.get('content-type') ?? '', /json/);
    const own = await postMcp(rpc('ping'), { headers: { origin: runtimeUrl() } });
    assert.equal(own.status, 200, own.text);
    assert.deepEqual(own.json.result, {});
  });

  test('a body over 1 MiB is 413', async () => {
    const big = JSON.stringify(rpc('ping', { padding: 'x'.repeat(1024 * 1024 + 10) }));
    const res = await postMcp(big);
    assert.equal(res.status, 413, res.text.slice(0, 300));
  });

  test('a Content-Type other than application/json is 415', async () => {
    const res = await postMcp(JSON.stringify(rpc('ping')), { headers: { 'content-type': 'text/plain' } });
    assert.equal(res.status, 415, res.text);
  });

  test('an Accept that allows neither JSON nor SSE is 406', async () => {
    const res = await postMcp(rpc('ping'), { headers: { accept: 'text/html' } });
    assert.equal(res.status, 406, res.text);
  });

  for (const version of ['2024-10-07', '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
    test(`initialize asking ${version} is answered ${version}`, async () => {
      const res = await postMcp(initialize(version));
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('mcp-session-id'), null);
      const { result } = res.json;
      assert.equal(result.protocolVersion, version);
      assert.equal(result.serverInfo.name, 'auto-runtime');
      assert.deepEqual(Object.keys(result.capabilities).sort(), ['prompts', 'resources', 'tools']);
      assert.equal(result.resultType, undefined, 'legacy results carry no resultType');
      if (version !== '2024-10-07') assertInstructions(result.instructions, version);
    });
  }

  test('initialize asking an unknown revision is answered 2025-11-25', async () => {
    const res = await postMcp(initialize('1999-01-01'));
    assert.equal(res.json.result.protocolVersion, '2025-11-25');
    const modernAsk = await postMcp(initialize(MODERN_VERSION));
    assert.equal(modernAsk.json.result.protocolVersion, '2025-11-25', 'initialize never answers 2026-07-28');
  });

  test('the prompt and resources of a legacy client, and their errors', async () => {
    const got = await postMcp(rpc('prompts/get', { name: 'get-started' }));
    assert.equal(got.json.result.messages[0].content.text, GET_STARTED_TEXT);
    const unknownPrompt = await postMcp(rpc('prompts/get', { name: 'no-such-prompt' }));
    assertRpcError(unknownPrompt, 200, -32602);
    assert.match(unknownPrompt.json.error.message, /no-such-prompt/);
    const unknownResource = await postMcp(rpc('resources/read', { uri: 'guide://no-such-guide' }));
    assertRpcError(unknownResource, 200, -32002);
    const unknownTool = await postMcp(rpc('tools/call', { name: 'no_such_tool', arguments: {} }));
    assertRpcError(unknownTool, 200, -32602);
    assert.match(unknownTool.json.error.message, /no_such_tool/);
  });

  test('bad params are -32602 naming the argument', async () => {
    const noName = await postMcp(rpc('tools/call', { arguments: {} }));
    assertRpcError(noName, 200, -32602);
    assert.match(noName.json.error.message, /\bname\b/);
    const notObject = await postMcp(rpc('tools/call', { name: 'get_playbook', arguments: 'a string' }));
    assertRpcError(notObject, 200, -32602);
    assert.match(notObject.json.error.message, /arguments/);
    const noUri = await postMcp(rpc('resources/read', {}));
    assertRpcError(noUri, 200, -32602);
    assert.match(noUri.json.error.message, /\buri\b/);
    const noPrompt = await postMcp(rpc('prompts/get', {}));
    assertRpcError(noPrompt, 200, -32602);
    assert.match(noPrompt.json.error.message, /\bname\b/);
  });

  test('2026-07-28: server/discover answers versions, capabilities, instructions, resultType', async () => {
    const res = await modern('server/discover');
    assert.equal(res.status, 200, res.text);
    const { result } = res.json;
    assert.equal(result.resultType, 'complete');
    assert.ok(result.supportedVersions.includes(MODERN_VERSION), `supportedVersions ${result.supportedVersions}`);
    for (const cap of ['tools', 'prompts', 'resources']) assert.ok(result.capabilities[cap], cap);
    assertInstructions(result.instructions, 'discover');
    assert.equal(result._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'auto-runtime');
  });

  test('2026-07-28: list results carry resultType and cache hints (spec MUST: ttlMs, cacheScope)', async () => {
    for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/list']) {
      const { json } = await modern(method);
      assert.equal(json.result?.resultType, 'complete', `${method}: ${JSON.stringify(json)}`);
      assert.equal(typeof json.result.ttlMs, 'number', `${method} ttlMs`);
      assert.ok(['public', 'private'].includes(json.result.cacheScope), `${method} cacheScope`);
    }
    const tools = await modern('tools/list');
    assert.equal(tools.json.result.tools.length, Object.keys(TOOL_HINTS).length);
  });

  test('2026-07-28: a tool call carries resultType and the two text blocks', async () => {
    const res = await modern('tools/call', { name: 'get_guide', arguments: { guide: 'start' } });
    const { result } = res.json;
    assert.equal(result.resultType, 'complete');
    assert.equal(result.structuredContent.name, 'start');
    assert.deepEqual(JSON.parse(result.content[1].text), result.structuredContent);
  });

  test('2026-07-28: a header that disagrees with the request is 400', async () => {
    const versionMismatch = await modern('tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } });
    assertRpcError(versionMismatch, 400, -32020);
    const methodMismatch = await modern('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } });
    assertRpcError(methodMismatch, 400, -32020);
    const nameMismatch = await modern('tools/call', { name: 'get_guide', arguments: { guide: 'start' } },
      { headers: { 'mcp-name': 'list_playbooks' } });
    assertRpcError(nameMismatch, 400, -32020);
  });

  test('2026-07-28: an unsupported revision is 400, -32022, naming the supported ones', async () => {
    const res = await modern('tools/list', {}, { version: '2099-01-01' });
    assertRpcError(res, 400, -32022);
    assert.ok(res.json.error.data?.supported?.includes(MODERN_VERSION), JSON.stringify(res.json.error));
  });

  test('2026-07-28: the header without _meta is 400, -32602', async () => {
    const res = await postMcp(rpc('tools/list', {}), {
      headers: { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
    });
    assertRpcError(res, 400, -32602);
  });

  test('2026-07-28: unknown and removed methods are 404, -32601', async () => {
    for (const method of ['nothing/here', 'ping']) {
      const res = await modern(method);
      assertRpcError(res, 404, -32601);
    }
  });

  test('2026-07-28: unknown prompt, resource and tool are -32602', async () => {
    const prompt = await modern('prompts/get', { name: 'no-such-prompt' });
    assert.equal(prompt.json.error?.code, -32602, prompt.text);
    const resource = await modern('resources/read', { uri: 'guide://no-such-guide' });
    assert.equal(resource.json.error?.code, -32602, resource.text);
    const tool = await modern('tools/call', { name: 'no_such_tool', arguments: {} });
    assert.equal(tool.json.error?.code, -32602, tool.text);
  });

  test('a request whose URL host is not loopback, with no credential, is 401, saying how to send a key', async () => {
    const body = JSON.stringify(rpc('ping'));
    const res = await rawHttp(`${runtimeUrl()}/mcp`, {
      method: 'POST',
      headers: { host: 'example.com', 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body,
    });
    assert.equal(res.status, 401, res.text);
    assert.match(res.headers['content-type'] ?? '', /json/);
    const problem = JSON.parse(res.text);
    assert.equal(problem.status, 401);
    assert.match(`${problem.title} ${problem.detail}`, /key/i, `says how to configure a key: ${res.text}`);
    const http = await rawHttp(`${runtimeUrl()}/v1/orgs/local/playbooks`, { headers: { host: 'example.com' } });
    assert.equal(http.status, 401, 'the HTTP API refuses a non-loopback host too');
    const localhost = await rawHttp(`${runtimeUrl()}/mcp`, {
      method: 'POST',
      headers: { host: `localhost:${new URL(runtimeUrl()).port}`, 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body,
    });
    assert.equal(localhost.status, 200, `localhost is loopback too: ${localhost.text}`);
  });

  test('a legacy and a 2026-07-28 tools/list list the same tools', async () => {
    const legacy = await postMcp(rpc('tools/list', {}));
    const now = await modern('tools/list');
    assert.deepEqual(now.json.result.tools, legacy.json.result.tools);
  });

  test('no answer carried an Mcp-Session-Id header', () => {
    assert.ok(seen.length > 30, `checked ${seen.length} answers`);
    for (const headers of seen) assert.equal(headers.get('mcp-session-id'), null);
  });
});
