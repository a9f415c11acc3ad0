// Shared helpers of the end-to-end tests: the runtime's URL, raw MCP over HTTP (POST + SSE parsing),
// the expectations of the contract (instructions, tool annotations, the get-started prompt), the
// checks every successful or failed tool result must pass, and API keys made by the operator and used
// under a host name that is not loopback. Not a test file itself.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';

/** The URL of the runtime run.mjs started (no trailing slash). */
export function runtimeUrl() {
  const url = process.env.RUNTIME_URL;
  assert.ok(url, 'RUNTIME_URL is not set: run the suite with `node tests/e2e/run.mjs`');
  return url.replace(/\/+$/, '');
}

/** A name no other test uses: the org `local` is shared by every test file on one server. */
export function uniqueName(prefix = 'e2e') {
  return `${prefix} ${randomBytes(5).toString('hex')}`;
}

export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
export const MODERN_VERSION = '2026-07-28';

export const INSTRUCTION_SENTENCE_1 =
  'Before building or changing anything, read the guide start with get_guide: it says which function type each part of a job takes.';
export const INSTRUCTION_SENTENCE_2 =
  'A playbook is built from the job: each part is a function of the type its work needs, and a workflow runs the parts in order.';
export const LOCAL_USER = 'tester'; // harness.mjs passes --var LOCAL_USER:tester
export const IDENTITY_SENTENCE = `This connection acts as the local developer ${LOCAL_USER} (local) in the org local.`;

export const GET_STARTED_TEXT =
  'Create a playbook in Auto with one function and run it on a made-up example. Ask me what the playbook is for and anything else you need first, then give me a link to the run in Studio.';
export const WELCOME_START = 'This organization has no playbooks yet.';
export const GUIDES = [
  'start', 'terminology', 'playbooks', 'reasoning-function', 'lookup-function', 'interaction-function',
  'prediction-function', 'computation-function', 'workflow', 'triggers', 'events', 'templates', 'page',
  'access', 'connections', 'first-playbook', 'connect-a-service', 'give-tools', 'schedule', 'keep',
];

/** The contract's annotation table: [readOnly, destructive, idempotent, openWorld]. */
export const TOOL_HINTS = {
  create_playbook: [false, true, false, false],
  list_playbooks: [true, false, true, false],
  get_playbook: [true, false, true, false],
  update_playbook: [false, true, true, false],
  retire_playbook: [false, true, true, false],
  restore_playbook: [false, true, false, false],
  check_definition: [true, false, true, true],
  create_definition: [false, true, false, true],
  list_definitions: [true, false, true, false],
  get_definition: [true, false, true, false],
  update_definition: [false, true, true, true],
  pause_definition: [false, true, true, false],
  resume_definition: [false, true, true, false],
  retire_definition: [false, true, true, false],
  restore_definition: [false, true, false, false],
  run_definition: [false, true, false, true],
  get_run: [true, false, true, false],
  list_runs: [true, false, true, false],
  get_stats: [true, false, true, false],
  cancel_run: [false, true, true, false],
  rerun_run: [false, true, false, true],
  send_run_event: [false, true, false, false],
  get_asset: [true, false, true, false],
  list_interactions: [true, false, true, false],
  answer_interaction: [false, true, true, false],
  publish_event: [false, true, false, false],
  list_playbook_events: [true, false, true, false],
  get_event: [true, false, true, false],
  list_models: [true, false, true, true],
  list_generation_models: [true, false, true, false],
  search: [true, false, true, true],
  list_comments: [true, false, true, false],
  resolve_comment: [false, true, true, false],
  introspect: [true, false, true, true],
  dry_run: [true, false, true, true],
  query_connection: [true, false, false, true],
  execute_connection: [false, true, false, true],
  get_guide: [true, false, true, false],
  add_connection: [false, true, false, false],
  list_connections: [true, false, true, false],
  list_connection_tools: [true, false, true, true],
  reconnect_connection: [false, true, false, false],
  remove_connection: [false, true, true, false],
};

/**
 * The tools a key of READ_SCOPES is offered: the read-only ones, but for query_connection, which only
 * reads yet calls a tool server live as the playbook, so it needs playbook:write.
 */
export const READ_KEY_TOOLS = Object.keys(TOOL_HINTS)
  .filter((name) => TOOL_HINTS[name][0] && name !== 'query_connection').sort();

/** Asserts the instructions of the contract; `label` names the revision for messages. */
export function assertInstructions(instructions, label = '') {
  assert.equal(typeof instructions, 'string', `${label} instructions missing`);
  assert.ok(instructions.startsWith(INSTRUCTION_SENTENCE_1),
    `${label} instructions must open with the guide-start sentence; got: ${instructions.slice(0, 200)}`);
  const end2 = instructions.indexOf(INSTRUCTION_SENTENCE_2);
  assert.ok(end2 > 0, `${label} instructions lack the sentence about building a playbook from the job`);
  assert.ok(end2 + INSTRUCTION_SENTENCE_2.length <= 512,
    `${label} the first two sentences must end within 512 characters (they end at ${end2 + INSTRUCTION_SENTENCE_2.length})`);
  assert.ok(instructions.includes(IDENTITY_SENTENCE),
    `${label} instructions must say "${IDENTITY_SENTENCE}"; got: ${instructions}`);
}

/** Asserts tools/list holds exactly the tools of TOOL_HINTS with the spec's annotations. */
export function assertToolList(tools) {
  assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(TOOL_HINTS).sort());
  for (const tool of tools) {
    const [readOnlyHint, destructiveHint, idempotentHint, openWorldHint] = TOOL_HINTS[tool.name];
    assert.equal(typeof tool.title, 'string', `${tool.name}: title`);
    assert.ok(tool.title.length > 0, `${tool.name}: empty title`);
    assert.equal(typeof tool.description, 'string', `${tool.name}: description`);
    assert.ok(tool.description.length > 20, `${tool.name}: description too short`);
    assert.equal(tool.inputSchema?.type, 'object', `${tool.name}: inputSchema.type`);
    assert.equal(tool.outputSchema, undefined, `${tool.name}: no tool has an output schema`);
    assert.deepEqual(tool.annotations,
      { title: tool.title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint },
      `${tool.name}: annotations`);
  }
}

function isJson(text) {
  try { JSON.parse(text); return true; } catch { return false; }
}

/** A successful tool result: summary ≤ limit and not JSON, content[1] = structuredContent. Returns it. */
export function assertToolSuccess(result, { summaryLimit = 400 } = {}) {
  assert.notEqual(result.isError, true, `tool failed: ${JSON.stringify(result.content)}`);
  assert.ok(Array.isArray(result.content) && result.content.length >= 2, 'two content blocks');
  const [summary, json] = result.content;
  assert.equal(summary.type, 'text');
  assert.ok(summary.text.length > 0, 'empty summary');
  assert.ok(summary.text.length <= summaryLimit, `summary of ${summary.text.length} chars: ${summary.text}`);
  assert.ok(!isJson(summary.text), `the first text block must not be JSON: ${summary.text}`);
  assert.equal(json.type, 'text');
  assert.ok(result.structuredContent && typeof result.structuredContent === 'object', 'structuredContent');
  assert.deepEqual(JSON.parse(json.text), result.structuredContent, 'content[1].text must parse to structuredContent');
  return result.structuredContent;
}

/** A failed tool result: isError, no structuredContent, words then a problem document. Returns the problem. */
export function assertToolFailure(result, reason) {
  assert.equal(result.isError, true, `expected a failure, got ${JSON.stringify(result)}`);
  assert.equal(result.structuredContent, undefined, 'a failure has no structuredContent');
  const [words, json] = result.content;
  assert.equal(words.type, 'text');
  assert.ok(words.text.length > 0 && !isJson(words.text), `the first block explains in words: ${words.text}`);
  assert.equal(json.type, 'text');
  const problem = JSON.parse(json.text);
  assert.equal(problem.reason, reason, `problem reason: ${json.text}`);
  assert.equal(typeof problem.detail, 'string', 'problem detail');
  return problem;
}

/** The pointers of a problem document's errors. */
export function pointers(problem) {
  return (problem.errors ?? []).map((e) => e.pointer);
}

export const PLAYBOOK_ID = /^pb_[a-z2-7]{16}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The fields of a playbook; `withPage` for get/create/update answers. */
export function assertPlaybook(pb, { withPage }) {
  assert.match(pb.id, PLAYBOOK_ID);
  assert.equal(typeof pb.name, 'string');
  assert.equal(typeof pb.description, 'string');
  assert.ok(['active', 'retired'].includes(pb.status), `status ${pb.status}`);
  assert.match(pb.created_at, RFC3339);
  assert.match(pb.updated_at, RFC3339);
  if (pb.status === 'retired') assert.match(pb.retired_at, RFC3339);
  else assert.equal(pb.retired_at, undefined, 'an active playbook has no retired_at');
  if (withPage) assert.equal(typeof pb.page, 'string', 'page');
  else assert.equal(pb.page, undefined, 'a listed playbook has no page');
}

// ---- raw MCP over HTTP ----

/** Parses a text/event-stream body into events {event, data, id, comments}. */
export function parseSse(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const ev = { event: 'message', data: '', comments: [], hasEventField: false };
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) ev.comments.push(line.slice(1).trim());
      else if (line.startsWith('event:')) { ev.event = line.slice(6).trim(); ev.hasEventField = true; }
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('id:')) ev.id = line.slice(3).trim();
    }
    ev.data = data.join('\n');
    if (data.length) events.push(ev);
  }
  return events;
}

export const ACCEPT_BOTH = 'application/json, text/event-stream';

/**
 * POSTs a body (object → JSON, string as is) to /mcp and reads the answer.
 * Returns {status, headers, text, json}: json is the JSON-RPC message, from a JSON body or the SSE stream's
 * single message event.
 */
export async function postMcp(body, { headers = {}, url = runtimeUrl() } = {}) {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let json;
  let events;
  if (contentType.startsWith('text/event-stream')) {
    events = parseSse(text);
    const messages = events.filter((e) => e.event === 'message');
    assert.equal(messages.length, 1, `one message event expected in: ${text}`);
    json = JSON.parse(messages[0].data);
  } else if (text && /json/.test(contentType)) {
    json = JSON.parse(text);
  }
  return { status: res.status, headers: res.headers, text, json, events };
}

/** The `_meta` a 2026-07-28 request carries. */
export function modernMeta(version = MODERN_VERSION, capabilities = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'e2e-raw', version: '1.0.0' },
  };
}

/** A 2026-07-28 request: body with `_meta`, headers MCP-Protocol-Version, Mcp-Method and Mcp-Name. */
export function postModern(method, params = {}, { id = 1, headers = {}, version = MODERN_VERSION, capabilities = {} } = {}) {
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(version, capabilities) } };
  const h = { 'mcp-protocol-version': version, 'mcp-method': method };
  if (params.name !== undefined) h['mcp-name'] = params.name;
  if (params.uri !== undefined) h['mcp-name'] = params.uri;
  return postMcp(body, { headers: { ...h, ...headers } });
}

/** A request through node:http, which lets a test set Host (fetch does not). */
export function rawHttp(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolveRes, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolveRes({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Runs `fn` with a `call(name, args)` of the official v1 client connected to a runtime's /mcp. */
export async function withClient(url, fn, name = 'e2e') {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  try {
    return await fn((tool, args = {}) => client.callTool({ name: tool, arguments: args }));
  } finally {
    await client.close();
  }
}

// ---- API keys, the operator, and a host that is not loopback ----

/** What another computer's request would name as Host. Only these tests resolve it, to 127.0.0.1. */
export const PUBLIC_HOST = 'runtime.test';
export const ALL_SCOPES = ['org:read', 'org:write', 'playbook:read', 'playbook:write'];
export const READ_SCOPES = ['org:read', 'playbook:read'];

// Connects to loopback while the URL, and so the Host header, says PUBLIC_HOST: the runtime must then
// see a request from elsewhere, where local mode does not answer.
const publicAgent = new Agent({
  connect: {
    lookup(hostname, options, callback) {
      if (hostname !== PUBLIC_HOST) return dns.lookup(hostname, options, callback);
      if (options?.all) return callback(null, [{ address: '127.0.0.1', family: 4 }]);
      return callback(null, '127.0.0.1', 4);
    },
  },
});

/** The runtime's URL under PUBLIC_HOST (no trailing slash). */
export function publicUrl() {
  return `http://${PUBLIC_HOST}:${new URL(runtimeUrl()).port}`;
}

/** fetch that reaches PUBLIC_HOST; the SDK transports take it as their `fetch` option. */
export function publicFetch(url, init = {}) {
  return undiciFetch(url, { ...init, dispatcher: publicAgent });
}

/** The operator's token run.mjs started the runtime with. */
export function adminToken() {
  const token = process.env.ADMIN_TOKEN;
  assert.ok(token, 'ADMIN_TOKEN is not set: run the suite with `node tests/e2e/run.mjs`');
  return token;
}

export const bearer = (secret) => ({ authorization: `Bearer ${secret}` });

/** A key name no other test uses (a key's name takes no spaces). */
export function keyName(prefix = 'key') {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/**
 * An HTTP request under PUBLIC_HOST, with `key` as the bearer credential if given; an object body goes as
 * JSON. `url` sends it elsewhere (runtimeUrl() for loopback). Returns {status, headers, text, json}.
 */
export async function publicRequest(method, path, { key, body, headers = {}, url = publicUrl() } = {}) {
  const h = { ...(key ? bearer(key) : {}), ...headers };
  if (body !== undefined && typeof body !== 'string') h['content-type'] ??= 'application/json';
  const res = await publicFetch(`${url}${path}`, {
    method, headers: h, body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

/** Makes a key of `org` as the operator; answers the key's view with its secret as `key`. */
export async function makeKey(org, body) {
  const res = await publicRequest('POST', `/v1/orgs/${org}/keys`, { key: adminToken(), body });
  assert.equal(res.status, 201, `making a key of ${org}: ${res.text}`);
  return res.json;
}

/** Revokes a key as the operator; answers the revoked key's view. */
export async function revokeKey(org, id) {
  const res = await publicRequest('DELETE', `/v1/orgs/${org}/keys/${id}`, { key: adminToken() });
  assert.equal(res.status, 200, `revoking ${id}: ${res.text}`);
  return res.json.key;
}

/** The options an SDK's StreamableHTTPClientTransport takes to reach PUBLIC_HOST with a key. */
export function keyTransport(key) {
  return { fetch: publicFetch, requestInit: { headers: key ? bearer(key) : {} } };
}

/**
 * One stateless 2026-07-28 MCP request under PUBLIC_HOST to an endpoint path (/mcp, /orgs/…/mcp).
 * Returns {status, text, json}: json is the JSON-RPC answer, or the problem document of a refusal.
 */
export async function publicMcp(path, method, params = {}, { key, id = 1 } = {}) {
  const headers = { accept: ACCEPT_BOTH, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method };
  if (params.name !== undefined) headers['mcp-name'] = params.name;
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } };
  const res = await publicRequest('POST', path, { key, body, headers });
  let json = res.json;
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = parseSse(res.text).filter((e) => e.event === 'message');
    assert.equal(messages.length, 1, `one message event expected in: ${res.text}`);
    json = JSON.parse(messages[0].data);
  }
  return { status: res.status, text: res.text, json };
}

/**
 * An answer that carries `studio` (create_playbook, create_definition, update_definition,
 * run_definition), checked to be a page of this runtime's Studio under `path` when given, and
 * returned without it, as the reads of the same thing answer it.
 */
export function withoutStudio(value, path = '') {
  const { studio, ...rest } = value;
  assert.equal(typeof studio, 'string', `studio is answered: ${JSON.stringify(value).slice(0, 200)}`);
  assert.ok(new URL(studio).pathname.startsWith(`/studio/local${path}`), `a Studio page: ${studio}`);
  return rest;
}

/** An HTTP request to `url` as JSON with a bearer credential; answers {status, headers, json}. */
export async function api(method, url, credential, body) {
  const headers = { authorization: `Bearer ${credential}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}
