// The hostile requests of part 2, generated rather than listed: every tool from tools/list and every
// HTTP route (read from the tools' own `method:` and `path:` in src/tools/*.rs, so a new tool is
// covered without touching this file), each argument replaced by values of the wrong type, too long,
// or naming nothing; broken JSON and wrong JSON-RPC shapes; bad headers, hostile Authorization headers
// among them; bodies over the limit and nested deeper than any parser should follow. Then random mutations of valid requests, until
// there are at least as many cases as asked for. Cases are yielded one at a time: some hold
// megabytes, and only a batch of them is ever in memory.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from '../e2e/harness.mjs';
import { badChecksumKey, wellFormedKey } from '../e2e/key_format.mjs';

const JSON_TYPE = { 'content-type': 'application/json' };
const MCP_JSON = { ...JSON_TYPE, accept: 'application/json', 'mcp-protocol-version': '2025-06-18' };
const MCP_SSE = { ...JSON_TYPE, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const MODERN = '2026-07-28';

const OVER_LIMIT = 1.5 * 1024 * 1024; // MAX_BODY_BYTES is 1 MiB
const DEPTH = 10_000;
const HUGE = 'x'.repeat(70_000); // longer than every string argument may be (source: 65,536)

/** The HTTP route of each tool, as its own file declares it. */
export function routesFromSource() {
  const dir = join(ROOT, 'src', 'tools');
  const routes = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.rs'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const m = text.match(/name:\s*"(\w+)"[\s\S]*?method:\s*Method::(\w+),\s*path:\s*"([^"]+)"/);
    if (m) routes.push({ tool: m[1], method: m[2].toUpperCase(), path: m[3] });
  }
  return routes;
}

// The routes over HTTP alone, which tools/list does not give: the body fields each takes beyond its path.
const HTTP_ONLY = {
  create_key: {
    properties: { name: { type: 'string' }, scopes: { type: 'array' }, playbooks: { type: 'array' }, expires_at: { type: 'string' } },
    required: ['name', 'scopes'],
  },
  assign_role: { properties: { person: { type: 'string' }, role: { type: 'string' } }, required: ['person', 'role'] },
};

/** The tool of a route: as tools/list gives it, or a stand-in for a route over HTTP alone (keys, roles). */
function toolOf(ctx, route) {
  const listed = ctx.tools.find((t) => t.name === route.tool);
  if (listed) return listed;
  const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((name) => name !== 'org');
  const known = HTTP_ONLY[route.tool] ?? { properties: {}, required: [] };
  const properties = { ...Object.fromEntries(params.map((name) => [name, { type: 'string' }])), ...known.properties };
  return { name: route.tool, inputSchema: { type: 'object', properties, required: [...new Set([...params, ...known.required])] } };
}

/** A value nested `depth` levels deep, as a parser that follows it all the way must recurse. */
const nested = (depth) => {
  let v = { leaf: true };
  for (let i = 0; i < depth; i += 1) v = i % 2 ? { a: v } : [v];
  return v;
};
const wide = () => Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]));

const STRINGS = [null, true, 0, 1.5, -1, [], {}, ['a'], { a: 'b' }, '', ' ', HUGE, '\u0000', '\ud800',
  '../../../etc/passwd', '<script>alert(1)</script>', "' OR '1'='1", '%00%ff', '🙂'.repeat(100),
  'pb_zzzzzzzzzzzzzzzz', 'ev_99999999999999999999', 'ev_-1', '\n\r\t', 'a'.repeat(65), 'nope'];
const INTEGERS = [null, '1', 1.5, -1, 0, 101, 1e308, -1e308, 2 ** 63, 'abc', [], {}, true, 9007199254740993];
const BOOLEANS = [null, 'true', 1, 0, [], {}, 'yes'];
const OBJECTS = [null, 'x', 1, [], [1], true, nested(120), wide(), { '': 1 }, JSON.parse('{"__proto__":{"polluted":1}}'),
  { constructor: { prototype: {} } }, { net: 'x' }, { net: 1e308 }, { net: null }, { ok: 'yes' }];
const ANYTHING = [null, 1, 'x', [], {}, { ok: 'yes' }, { ok: true, extra: 1 }, nested(120), HUGE, [{ ok: true }]];

/** The wrong values for an argument of this schema. */
function wrongValues(schema = {}) {
  const byType = { string: STRINGS, integer: INTEGERS, number: INTEGERS, boolean: BOOLEANS, object: OBJECTS };
  const values = byType[schema.type] ?? ANYTHING;
  return schema.enum ? [...values, 'COMPUTATION', 'generation', 'workflow ', schema.enum.join(',')] : values;
}

/** A valid value for each argument name, naming what the target playbook holds. */
function validArgs(tool, known) {
  const byName = {
    playbook: known.playbook,
    type: 'computation',
    name: { send_run_event: 'go', create_playbook: `hostile ${known.tag}`, update_playbook: `hostile ${known.tag}` }[tool.name] ?? 'add-vat',
    run_id: { send_run_event: known.waitingRun, answer_interaction: known.askingRun, run_definition: 'hostile-run' }[tool.name] ?? known.run,
    event_id: known.event,
    guide: 'start',
    source: known.source,
    overview: 'A definition of the hostile part of the fault harness, which does what it says.',
    diagram: 'flowchart LR\n  A[in] --> B[out]',
    input: { net: 1 },
    answer: { ok: true },
    kind: 'fault_probe',
    data: {},
    wait_seconds: 0,
    scopes: ['playbook:read'],
    key: 'key_aaaaaaaaaaaaaaaa',
    person: 'person:hostile-probe',
    role: 'viewer',
  };
  const args = {};
  for (const field of tool.inputSchema.required ?? []) args[field] = byName[field] ?? 'x';
  // Optional arguments without which the call could never pass, so that each case has one fault only.
  if (tool.name === 'run_definition') Object.assign(args, { input: byName.input, run_id: byName.run_id });
  if (['create_definition', 'update_definition'].includes(tool.name)) args.diagram = byName.diagram;
  return args;
}

/** Percent-encodes a value for a path or query; a lone surrogate, which has no UTF-8, goes as raw bad bytes. */
function encode(value) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/**
 * The request of a route for some arguments: path parameters in the path, the rest in the query or
 * the body. `pathOverride` puts raw text in place of a path parameter (the org is `local` unless it does).
 */
function routeRequest(route, args, pathOverride = {}) {
  const rest = { ...args };
  const path = route.path.replace(/\{(\w+)\}/g, (_, name) => {
    const value = rest[name];
    delete rest[name];
    if (name in pathOverride) return pathOverride[name];
    if (name === 'org') return 'local';
    return value === undefined ? '' : encode(value);
  });
  if (route.method === 'GET') {
    const query = Object.entries(rest).map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
    return { method: 'GET', path: query ? `${path}?${query}` : path };
  }
  return { method: route.method, path, headers: JSON_TYPE, body: JSON.stringify(rest) };
}

/** A path or query with every character a URL cannot carry as it is percent-encoded. */
const urlSafe = (text) => text.replace(/[^\x21-\x7e]/g, (ch) => encode(ch));

let rpcId = 0;
const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: (rpcId += 1), method, ...(params === undefined ? {} : { params }) });
const call = (name, args) => rpc('tools/call', { name, arguments: args });

// ---- the families ----

function* brokenJson(ctx) {
  const family = 'mcp: broken JSON';
  const bodies = ['', ' ', '{', '}', '[', ']', '{"jsonrpc":"2.0",', 'null', 'true', '1', '"x"', 'NaN', '{\'a\':1}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/list"', '{"jsonrpc":"2.0","id":1,"method":"ping",}',
    '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}', '{"jsonrpc":"2.0","id":1,"method":"ping"} trailing',
    '{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}', '\u0000', '{"a":"\\x"}',
    '{"jsonrpc":"2.0","id":1e999,"method":"ping"}', '{"jsonrpc":"2.0","id":1,"method":"\\ud800"}'];
  for (const body of bodies) {
    yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body };
    yield { family, method: 'POST', path: '/mcp', headers: MCP_SSE, body };
  }
  yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body: Buffer.from([0xff, 0xfe, 0x7b, 0x80, 0x22]) };
  // Every tool's valid call cut short at a dozen points.
  for (const tool of ctx.tools) {
    const body = call(tool.name, validArgs(tool, ctx.known));
    for (let i = 1; i <= 12; i += 1) {
      yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body: body.slice(0, Math.floor((body.length * i) / 13)) };
    }
  }
}

function* rpcShapes() {
  const family = 'mcp: JSON-RPC shapes';
  const post = (body, version = '2025-06-18') => ({ family, method: 'POST', path: '/mcp', headers: { ...MCP_JSON, 'mcp-protocol-version': version }, body: JSON.stringify(body) });
  for (const jsonrpc of [undefined, '1.0', 2, null, '2.0 ', ['2.0']]) yield post({ jsonrpc, id: 1, method: 'ping' });
  for (const id of [null, {}, [], true, 1.5, -1, 2 ** 53 + 1, 'x'.repeat(10_000), '']) {
    yield post({ jsonrpc: '2.0', id, method: 'tools/list' });
    yield post({ jsonrpc: '2.0', id, method: 'nope' });
  }
  const methods = ['initialize', 'ping', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get', 'resources/list',
    'resources/read', 'resources/templates/list', 'server/discover', 'completion/complete', 'logging/setLevel',
    'notifications/initialized', 'nope', '', 'TOOLS/LIST', 'tools/list ', 'rpc.discover', 'x'.repeat(10_000)];
  const params = [undefined, null, [], 'x', 1, { x: 1 }, { name: 1 }, { name: 'get_run' }, { uri: 5 }, { uri: 'auto://nope' },
    { _meta: 1 }, { _meta: { 'io.modelcontextprotocol/protocolVersion': 5 } }, { protocolVersion: [], capabilities: 'x', clientInfo: 1 }];
  for (const method of methods) for (const p of params) yield post({ jsonrpc: '2.0', id: 7, method, params: p });
  for (const method of [null, 1, [], {}]) yield post({ jsonrpc: '2.0', id: 1, method });
  yield post({ jsonrpc: '2.0', id: 1 });
  yield post({ jsonrpc: '2.0', id: 1, result: {}, error: {} });
  yield post({ jsonrpc: '2.0', id: 1, error: { code: 'x' } });
  yield post({ jsonrpc: '2.0', method: 'notifications/nope', params: 'x' });
  // Batches: only 2025-03-26 takes them; every other revision must refuse them.
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const modern = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } };
  const batches = [[], [1], [[]], [{}], [ping, {}], [ping, { jsonrpc: '2.0', id: 2, method: 'initialize', params: {} }], [modern],
    Array.from({ length: 1_000 }, (_, i) => ({ ...ping, id: i })), [[ping]], [null, 'x', 2], [ping, ping, ping]];
  for (const version of ['2025-03-26', '2025-06-18', MODERN]) for (const batch of batches) yield post(batch, version);
}

function* toolArguments(ctx) {
  const family = 'mcp: tool arguments';
  let n = 0;
  const post = (body) => ({ family, method: 'POST', path: '/mcp', headers: (n += 1) % 2 ? MCP_JSON : MCP_SSE, body });
  for (const tool of ctx.tools) {
    const valid = validArgs(tool, ctx.known);
    const props = tool.inputSchema.properties ?? {};
    for (const [field, schema] of Object.entries(props)) {
      for (const value of wrongValues(schema)) yield post(call(tool.name, { ...valid, [field]: value }));
    }
    for (const field of tool.inputSchema.required ?? []) {
      const { [field]: _, ...rest } = valid;
      yield post(call(tool.name, rest));
    }
    yield post(call(tool.name, { ...valid, unknown_argument: 1 }));
    for (const args of [null, [], 'x', 1, true, undefined]) yield post(rpc('tools/call', { name: tool.name, arguments: args }));
  }
  for (const name of ['nope', '', null, 1, ['get_run'], ' get_run', 'GET_RUN', 'get_run\u0000', HUGE]) {
    yield post(call(name, { playbook: ctx.known.playbook, run_id: ctx.known.run }));
  }
}

function* modernAndScoped(ctx) {
  const family = 'mcp: revisions and endpoints';
  const meta = (version = MODERN, capabilities = {}) => ({
    'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': capabilities,
  });
  const args = { playbook: ctx.known.playbook, run_id: ctx.known.run };
  const body = (m) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_run', arguments: args, _meta: m } });
  const headers = (h) => ({ ...JSON_TYPE, accept: 'application/json', ...h });
  const good = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'get_run' };
  const variants = [
    [meta(), {}], [meta(), { 'mcp-protocol-version': MODERN }], [meta(), { ...good, 'mcp-method': 'tools/list' }],
    [meta(), { ...good, 'mcp-name': 'get_playbook' }], [meta(), { ...good, 'mcp-name': '=?base64?!!!?=' }],
    [meta(), { ...good, 'mcp-name': '=?base64?Z2V0X3J1bg==?=' }], [meta(), { ...good, 'mcp-protocol-version': '2025-06-18' }],
    [meta(5), good], [meta('1999-01-01'), { ...good, 'mcp-protocol-version': '1999-01-01' }], [meta(MODERN, null), good],
    [meta(MODERN, []), good], [{ 'io.modelcontextprotocol/protocolVersion': MODERN }, good], [meta('2025-06-18'), good], [meta(), good],
  ];
  for (const [m, h] of variants) yield { family, method: 'POST', path: '/mcp', headers: headers(h), body: body(m) };
  const endpoints = ['/orgs/local/mcp', '/orgs/other/mcp', `/orgs/local/playbooks/${ctx.known.playbook}/mcp`,
    '/orgs/local/playbooks/pb_zzzzzzzzzzzzzzzz/mcp', `/orgs/other/playbooks/${ctx.known.playbook}/mcp`, '/orgs//mcp',
    '/mcp/', '/mcp/extra', '/MCP', '/orgs/local/playbooks//mcp', '/orgs/%2e%2e/mcp'];
  for (const path of endpoints) {
    for (const b of [call('get_run', args), call('get_run', { run_id: ctx.known.run }), call('create_playbook', { name: 1 }), rpc('tools/list'), '{']) {
      yield { family, method: 'POST', path, headers: MCP_JSON, body: b };
    }
  }
}

function* httpPathsAndQueries(ctx) {
  const family = 'http: paths, queries, methods';
  const bad = ['x'.repeat(300), '%', '%zz', '%00', '..', '.', 'pb_zzzzzzzzzzzzzzzz', '%F0%9F%99%82', '%3Cscript%3E',
    "'%20OR%201=1", 'ev_99999999999999999999999', 'ev_-1', 'null', '%ED%A0%80', '%2F', 'a%2Fb'];
  for (const route of ctx.routes) {
    const tool = toolOf(ctx, route);
    const valid = validArgs(tool, ctx.known);
    for (const name of [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
      const values = name === 'org' ? ['other', 'LOCAL', 'local%20', ...bad.slice(0, 4)] : bad;
      for (const value of values) yield { family, ...routeRequest(route, valid, { [name]: value }) };
    }
    if (route.method === 'GET') {
      // The valid query and one more pair: an argument with a bad value (given twice when the query has it), or a stray.
      const path = routeRequest(route, valid).path;
      const plus = (pair) => ({ family, method: 'GET', path: `${path}${path.includes('?') ? '&' : '?'}${pair}` });
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        if (route.path.includes(`{${field}}`)) continue;
        for (const value of ['abc', '-1', '1e9', '', '1.5', 'true', 'x'.repeat(5_000), '%ZZ', '[]', '{}', ...(schema.enum ? ['nope'] : [])]) {
          yield plus(`${field}=${value}`);
        }
      }
      for (const pair of ['nope=1', 'limit=1&limit=2', 'playbook=x', 'org=other', '=', '&&&', 'a=%ED%A0%80', `x=${'y'.repeat(20_000)}`]) {
        yield plus(pair);
      }
    }
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'].filter((m) => m !== route.method)) {
      yield { family, ...routeRequest(route, valid), method, ...(method === 'GET' || method === 'HEAD' ? { body: undefined, headers: {} } : {}) };
    }
  }
  for (const path of ['/', '/v1', '/v1/', '/v1/orgs', '/v1/orgs/local', '/v1/guides/nope', '/v1/guides/%00', '/v2/orgs/local/playbooks', '/favicon.ico', '/.env', '/v1/orgs/local/playbooks/../../mcp']) {
    for (const method of ['GET', 'POST', 'DELETE']) yield { family, method, path, headers: method === 'POST' ? JSON_TYPE : {}, body: method === 'POST' ? '{}' : undefined };
  }
}

function* httpBodies(ctx) {
  const family = 'http: bodies';
  for (const route of ctx.routes.filter((r) => r.method !== 'GET')) {
    const tool = toolOf(ctx, route);
    const valid = validArgs(tool, ctx.known);
    const request = routeRequest(route, valid);
    for (const body of ['{', '[]', '1', '"x"', 'null', 'true', '{"a":1', '{"a":1}}', '\uFEFF{}', '{"a":"\\ud800"}']) {
      yield { family, ...request, body };
    }
    for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
      if (route.path.includes(`{${field}}`)) {
        yield { family, ...routeRequest(route, valid), body: JSON.stringify({ [field]: valid[field] ?? 'x' }) };
        continue;
      }
      for (const value of wrongValues(schema)) yield { family, ...routeRequest(route, { ...valid, [field]: value }) };
    }
    for (const field of tool.inputSchema.required ?? []) {
      if (route.path.includes(`{${field}}`)) continue;
      const { [field]: _, ...rest } = valid;
      yield { family, ...routeRequest(route, rest) };
    }
    yield { family, ...routeRequest(route, { ...valid, unknown_field: 1 }) };
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'APPLICATION/JSON']) {
      // A Buffer body, so fetch adds no Content-Type of its own when the case has none.
      yield { family, ...request, headers: type ? { 'content-type': type } : {}, body: Buffer.from(request.body) };
    }
  }
}

function* badHeaders(ctx) {
  const family = 'headers';
  const mcpBody = call('get_run', { playbook: ctx.known.playbook, run_id: ctx.known.run });
  const httpPath = `/v1/orgs/local/playbooks/${ctx.known.playbook}/events`;
  const httpBody = JSON.stringify({ kind: 'fault_probe', data: {} });
  const variants = [
    { accept: 'text/html' }, { accept: 'image/png' }, { accept: '' }, { accept: 'application/xml, text/plain' },
    { accept: '*/*;q=0' }, { accept: 'x'.repeat(10_000) }, { 'content-type': 'text/plain' }, { 'content-type': '' },
    { 'content-type': 'application/json;;;' }, { 'content-type': 'x'.repeat(10_000) }, { 'mcp-protocol-version': '' },
    { 'mcp-protocol-version': 'x' }, { 'mcp-protocol-version': '1999-01-01' }, { 'mcp-protocol-version': MODERN },
    { 'mcp-protocol-version': 'x'.repeat(10_000) }, { 'mcp-protocol-version': '2025-06-18, 2025-03-26' },
    { origin: 'http://evil.example' }, { origin: 'null' }, { origin: 'file://' }, { origin: 'http://127.0.0.1:1' },
    { origin: 'x'.repeat(5_000) }, { authorization: 'Bearer x' }, { authorization: 'Basic !!!' },
    { authorization: `Bearer ${'x'.repeat(50_000)}` }, { 'x-huge': 'x'.repeat(500_000) }, { 'x-huge': 'x'.repeat(2_000_000) },
    Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`x-many-${i}`, 'v'])), { cookie: 'a=b; '.repeat(2_000) },
    { 'mcp-method': 'tools/list' }, { 'mcp-name': 'x'.repeat(10_000) }, { 'content-encoding': 'gzip' },
  ];
  for (const h of variants) {
    yield { family, method: 'POST', path: '/mcp', headers: { ...MCP_JSON, ...h }, body: mcpBody };
    yield { family, method: 'POST', path: httpPath, headers: { ...JSON_TYPE, ...h }, body: httpBody };
  }
  yield { family, method: 'GET', path: `/v1/orgs/local/playbooks?x=${'y'.repeat(100_000)}` };
  yield { family, method: 'GET', path: `/${'a/'.repeat(20_000)}` };
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) yield { family, method, path: '/mcp', headers: MCP_JSON };
}

function* authorizationHeaders(ctx) {
  const family = 'headers: Authorization';
  const base62 = (n) => Array.from({ length: n }, (_, i) => 'aZ09kQ'[i % 6]).join('');
  const values = [
    // No value, or not one value.
    'Bearer', 'Bearer ', 'bearer', 'BEARER', 'Bearer\t', 'Bearer  ', `Bearer ${wellFormedKey()} ${wellFormedKey()}`,
    `Bearer ${wellFormedKey()}, Bearer ${wellFormedKey()}`, `Bearer ${wellFormedKey()},${wellFormedKey()}`, 'Bearer "pbk_"',
    // Malformed and of other schemes.
    'pbk_', wellFormedKey(), `Token ${wellFormedKey()}`, `Bearer: ${wellFormedKey()}`, `Bearer=${wellFormedKey()}`,
    'Basic dXNlcjpwYXNz', 'Basic !!!', 'Basic', 'Digest username="x", realm="y"', 'Negotiate YIIB', 'Bearer =?utf-8?b?cGJr?=',
    'Bearer %70bk_', 'Bearer ../../etc/passwd', "Bearer ' OR '1'='1", 'Bearer null', 'Bearer {}',
    // Wrong prefixes on a key-sized value, and a key cut or grown by one.
    `Bearer ghp_${base62(49)}`, `Bearer PBK_${base62(49)}`, `Bearer pbk-${base62(49)}`, `Bearer sk-${base62(50)}`,
    `Bearer ${wellFormedKey().slice(0, -1)}`, `Bearer ${wellFormedKey()}x`, `Bearer pbk_${base62(20)}_${base62(28)}`,
    // Real-looking keys the runtime never issued: a bad checksum, random base62, and a right checksum.
    `Bearer ${badChecksumKey()}`, `Bearer pbk_${base62(49)}`, `Bearer ${wellFormedKey()}`, `bearer ${wellFormedKey()}`,
    // Huge: past the 1,024 characters the runtime reads, just under, and far past.
    `Bearer ${'x'.repeat(1_017)}`, `Bearer ${'x'.repeat(1_018)}`, `Bearer pbk_${'A'.repeat(10_000)}`, `Bearer ${'x'.repeat(60_000)}`,
    // Not ASCII (Latin-1, which a header can carry as bytes).
    `Bearer pbk_${'\u00e9'.repeat(49)}`, 'Bearer caf\u00e9', `Bearer ${wellFormedKey().slice(0, -1)}\u00ff`, '\u00a0Bearer x',
  ];
  const targets = [
    { method: 'POST', path: '/mcp', headers: MCP_JSON, body: call('get_run', { playbook: ctx.known.playbook, run_id: ctx.known.run }) },
    { method: 'POST', path: '/mcp', headers: MCP_SSE, body: rpc('tools/list') },
    { method: 'POST', path: `/orgs/local/playbooks/${ctx.known.playbook}/mcp`, headers: MCP_JSON, body: rpc('tools/list') },
    { method: 'GET', path: `/v1/orgs/local/playbooks/${ctx.known.playbook}` },
    { method: 'POST', path: `/v1/orgs/local/playbooks/${ctx.known.playbook}/events`, headers: JSON_TYPE, body: JSON.stringify({ kind: 'fault_probe', data: {} }) },
    { method: 'POST', path: '/v1/orgs/local/keys', headers: JSON_TYPE, body: JSON.stringify({ name: 'hostile', scopes: ['playbook:read'] }) },
    { method: 'GET', path: '/v1/guides' },
  ];
  for (const value of values) {
    for (const t of targets) yield { family, ...t, headers: { ...t.headers, authorization: value } };
  }
}

function* hugeBodies(ctx) {
  const family = 'bodies over 1 MiB';
  const filler = 'x'.repeat(OVER_LIMIT);
  const targets = [{ method: 'POST', path: '/mcp', headers: MCP_JSON, body: call('publish_event', { playbook: ctx.known.playbook, kind: 'k', data: { filler } }) }];
  for (const route of ctx.routes.filter((r) => r.method !== 'GET')) {
    const tool = toolOf(ctx, route);
    const request = routeRequest(route, validArgs(tool, ctx.known));
    targets.push({ ...request, body: JSON.stringify({ filler }) });
  }
  for (const t of targets) {
    yield { family, ...t }; // with its Content-Length
    // Streamed without a Content-Length, so only counting the bytes read can find it too large.
    const bytes = Buffer.from(t.body);
    yield {
      family, ...t, body: () => new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
          controller.close();
        },
      }),
    };
  }
  // Just under the limit, in an argument whose schema allows far less.
  const near = 'y'.repeat(1_000_000);
  const playbook = ctx.known.playbook;
  for (const [name, args] of [['create_playbook', { name: near }], ['publish_event', { playbook, kind: near }],
    ['get_guide', { guide: near }], ['list_models', { provider: near }],
    ['create_definition', { playbook, type: 'computation', name: 'near', source: near, overview: 'o' }]]) {
    yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body: call(name, args) };
  }
}

function* deepNesting(ctx) {
  const family = 'deeply nested JSON';
  const open = '['.repeat(DEPTH);
  const objects = '{"a":'.repeat(DEPTH);
  const closed = `${open}${']'.repeat(DEPTH)}`;
  const bodies = [open, objects, closed, `${objects}1${'}'.repeat(DEPTH)}`];
  const inArgs = (inner) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"publish_event","arguments":{"playbook":"${ctx.known.playbook}","kind":"k","data":${inner}}}}`;
  for (const body of bodies) {
    yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body };
    yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body: inArgs(body) };
    for (const route of ctx.routes.filter((r) => r.method !== 'GET')) {
      const tool = toolOf(ctx, route);
      yield { family, ...routeRequest(route, validArgs(tool, ctx.known)), body };
    }
  }
  // Deep but within what a parser takes (serde_json stops at 128), where a schema or a store must walk it.
  for (const depth of [60, 120, 126]) {
    const value = nested(depth);
    for (const [name, args] of [['publish_event', { kind: 'fault_deep', data: { v: value } }],
      ['run_definition', { type: 'computation', name: 'add-vat', input: { net: 1, v: value } }],
      ['answer_interaction', { run_id: ctx.known.askingRun, answer: { ok: true, v: value } }],
      ['send_run_event', { run_id: ctx.known.waitingRun, name: 'nothing', data: { v: value } }]]) {
      yield { family, method: 'POST', path: '/mcp', headers: MCP_JSON, body: call(name, { playbook: ctx.known.playbook, ...args }) };
    }
  }
}

/** Random edits of valid requests to tools that change nothing the harness relies on. */
function* mutations(ctx, count) {
  const family = 'random mutations';
  const safe = ctx.tools.filter((t) => t.annotations?.readOnlyHint || ['publish_event', 'run_definition', 'create_playbook'].includes(t.name));
  const pool = [];
  for (const tool of safe) {
    const args = validArgs(tool, ctx.known);
    pool.push({ method: 'POST', path: '/mcp', headers: MCP_JSON, body: call(tool.name, args) });
    const route = ctx.routes.find((r) => r.tool === tool.name);
    if (route) {
      const request = routeRequest(route, args);
      pool.push(request.method === 'GET' ? { ...request, body: request.path } : request);
    }
  }
  const noise = ['{', '}', '[', ']', '"', ',', ':', '\\', '\u0000', 'null', '1e999', '-', '\ud800', '%', '?', '&', '/'];
  const { rng } = ctx;
  for (let i = 0; i < count; i += 1) {
    const base = rng.pick(pool);
    let text = base.body;
    const edits = 1 + Math.floor(rng.next() * 3);
    for (let e = 0; e < edits; e += 1) {
      const at = Math.floor(rng.next() * text.length);
      const op = Math.floor(rng.next() * 4);
      if (op === 0) text = text.slice(0, at) + text.slice(at + 1);
      else if (op === 1) text = text.slice(0, at) + rng.pick(noise) + text.slice(at);
      else if (op === 2) text = text.slice(0, at) + rng.pick(noise) + text.slice(at + 1);
      else text = text.slice(0, at);
    }
    // A GET carries its mutation in the path and query, where a byte a URL cannot hold goes percent-encoded.
    if (base.method === 'GET') yield { family, method: 'GET', path: `/${urlSafe(text).replace(/^\/+/, '')}` };
    else yield { family, ...base, body: text };
  }
}

/** Every case, family by family, then random mutations up to `least` in all. */
export function* cases(ctx, least) {
  let n = 0;
  for (const family of [brokenJson, rpcShapes, toolArguments, modernAndScoped, httpPathsAndQueries, httpBodies, badHeaders, authorizationHeaders, hugeBodies, deepNesting]) {
    for (const c of family(ctx)) {
      n += 1;
      yield c;
    }
  }
  yield* mutations(ctx, Math.max(500, least - n));
}
