// Real tool servers for the end-to-end suite, started on free loopback ports before the runtime so
// that the runtime's TOOL_SERVERS can name them:
//
//   files       the real @modelcontextprotocol/server-filesystem (stdio) behind the real supergateway
//               bridge (stdio → streamable HTTP, stateless), serving a folder of campaign briefs
//   everything  the real @modelcontextprotocol/server-everything in its streamableHttp mode (stateful:
//               initialize, then Mcp-Session-Id on every request)
//   fixture     a server written here with the official TypeScript SDK's low-level Server: stateless
//               streamable HTTP at /mcp behind a bearer token, its tools listed across pages of
//               nextCursor; and the same tools at /modern/mcp answering only protocol revision
//               2026-07-28, written by hand over node:http (the installed SDK speaks earlier ones),
//               and at /lingering/mcp, whose event streams stay open after the response
//   crm         a small JSON HTTP API behind an X-Api-Key header, with its OpenAPI 3.1 document at
//               /openapi.yaml and a 3.0 one kept as text, for the OpenAPI tool servers to come
//
// startToolServers() answers { vars, servers, close }: vars are the runtime's variables (TOOL_SERVERS
// and the secrets it names); servers the addresses and facts tests need. run.mjs hands both to the
// test files through the env E2E_TOOL_SERVERS, which toolServers() reads back; fixtureSide() and
// crmSide() drive the servers' side routes (what a tool did, which a test checks).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { freePort, ROOT } from './harness.mjs';
import { readBody } from './http_body.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const MODULES = join(ROOT, 'node_modules');
export const MODERN = '2026-07-28';

/** The bearer token the fixture takes, and a wrong one. */
export const FIXTURE_TOKEN = 'fixture-token-not-a-secret-7f3a9c';
export const WRONG_TOKEN = 'fixture-token-that-is-wrong-000000';
/** The key the CRM takes in X-Api-Key. */
export const CRM_KEY = 'crm-key-not-a-secret-51d2';
/** A playbook id no test playbook has: the `private` server serves it alone. */
export const NOBODYS_PLAYBOOK = 'pb_nobodyhasthisone';
/** How many tools one page of the fixture's tools/list holds. */
export const FIXTURE_PAGE = 3;

// ---- the campaign briefs the files server serves ----

export const BRIEFS = {
  'autumn-reporting-trial.txt': `Campaign brief: Autumn reporting trial

Audience: finance managers and controllers at UK and Irish firms of 50 to 250 staff who close
their month in spreadsheets today.
Offer: a 30-day free trial of the reporting pack, with a guided month-end close for the first
100 sign-ups.
Channel: LinkedIn sponsored content, then two follow-up emails to those who download the
month-end checklist.
Budget: USD 18,000 over six weeks, from 15 September to 27 October.
Success measure: 240 trial sign-ups at no more than USD 75 each, and 30 of them booking the
guided close.
Owner: Priya Natarajan, demand generation.
`,
  'spring-webinar.txt': `Campaign brief: Spring webinar series

Audience: operations leads at logistics firms.
Offer: three live webinars on route planning, with recordings.
Channel: email to the existing newsletter list.
Budget: USD 4,500.
Success measure: 600 registrations and 35% attendance.
`,
  'holiday-retargeting.md': `# Holiday retargeting

Audience: visitors of the pricing page in November who did not start a trial.
Offer: 20% off the first year when bought before 31 December.
Channel: display retargeting.
Budget: USD 9,000.
Success measure: 90 paid conversions.
`,
};

// ---- the fixture's tools ----

const FIXTURE_TOOLS = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Answers the text it is given, unchanged.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 2000, description: 'The text to answer.' } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'slow',
    title: 'Wait, then answer',
    description: 'Waits ms milliseconds (ten minutes unless told) and then answers how long it waited.',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: 600000, description: 'How long to wait.' } },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'huge',
    title: 'A long answer',
    description: 'Answers a text of bytes bytes, its unit repeated (fewer bytes where the unit does not divide them).',
    inputSchema: {
      type: 'object',
      properties: {
        bytes: { type: 'integer', minimum: 1, maximum: 8000000, description: 'How many bytes of text to answer.' },
        unit: { type: 'string', minLength: 1, maxLength: 16, description: 'The text repeated: 0123456789abcdef unless told.' },
      },
      required: ['bytes'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'fail',
    title: 'Always fails',
    description: 'Answers a tool error, as a tool does when what it was asked cannot be done.',
    inputSchema: { type: 'object', properties: { reason: { type: 'string' } }, additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'write_note',
    title: 'Write a note',
    description: 'Appends a note to the notebook of the team, which everyone then reads.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, maxLength: 500, description: 'The note.' } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  },
  {
    name: 'unmarked_tool',
    description: 'Does something its server says nothing about: it carries no hints.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'post_message',
    title: 'Post a message',
    description: 'Posts a message to a channel of the team chat and answers its message_id.',
    inputSchema: {
      type: 'object',
      properties: {
        channel: { type: 'string', minLength: 1, description: 'The channel, such as #marketing.' },
        text: { type: 'string', minLength: 1, maxLength: 4000, description: 'What the message says.' },
      },
      required: ['channel', 'text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'read_replies',
    title: 'Read the replies to a message',
    description: 'Answers the replies posted so far to a message, by its message_id.',
    inputSchema: {
      type: 'object',
      properties: { message_id: { type: 'string', minLength: 1 } },
      required: ['message_id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  },
];

/** What the fixture holds while it runs: notes written, messages posted, calls made, requests seen. */
function fixtureState() {
  return { notes: [], messages: new Map(), calls: {}, requests: [] };
}

const text = (t) => ({ type: 'text', text: t });

/** One page of the fixture's tools: `cursor` is the index of the page's first tool, as text. */
function toolsPage(cursor) {
  const start = cursor === undefined ? 0 : Number.parseInt(cursor, 10);
  if (!Number.isInteger(start) || String(start) !== String(cursor ?? 0) || start < 0 || start >= FIXTURE_TOOLS.length) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown cursor: ${cursor}`);
  }
  const end = start + FIXTURE_PAGE;
  return { tools: FIXTURE_TOOLS.slice(start, end), ...(end < FIXTURE_TOOLS.length ? { nextCursor: String(end) } : {}) };
}

/** Calls one fixture tool; `signal` aborts when the caller hangs up. */
async function callFixtureTool(state, name, args, signal) {
  state.calls[name] = (state.calls[name] ?? 0) + 1;
  switch (name) {
    case 'echo':
      return { content: [text(String(args.text ?? ''))], structuredContent: { text: String(args.text ?? '') } };
    case 'slow': {
      const ms = Number.isInteger(args.ms) ? args.ms : 600_000;
      await sleep(ms, undefined, { signal }).catch(() => {});
      return { content: [text(`Waited ${ms} ms.`)] };
    }
    case 'huge': {
      const unit = typeof args.unit === 'string' && args.unit ? args.unit : '0123456789abcdef';
      const size = Buffer.byteLength(unit);
      const whole = unit.repeat(Math.floor(Number(args.bytes) / size));
      // The rest of the bytes from the unit's first characters, as far as whole characters go.
      let rest = '';
      for (const ch of unit) {
        if (Buffer.byteLength(whole + rest + ch) > Number(args.bytes)) break;
        rest += ch;
      }
      return { content: [text(whole + rest)] };
    }
    case 'fail':
      return { content: [text(`The ledger is closed for the month, so nothing was done${args.reason ? `: ${args.reason}` : ''}.`)], isError: true };
    case 'write_note': {
      state.notes.push({ text: String(args.text), at: new Date().toISOString() });
      return { content: [text(`Noted as note ${state.notes.length}.`)], structuredContent: { note: state.notes.length } };
    }
    case 'unmarked_tool':
      return { content: [text('Done.')] };
    case 'post_message': {
      const messageId = `msg_${state.messages.size + 1}`;
      state.messages.set(messageId, { channel: String(args.channel), text: String(args.text), replies: [] });
      return {
        content: [text(`Posted ${messageId} to ${args.channel}: {"message_id": "${messageId}"}`)],
        structuredContent: { message_id: messageId },
      };
    }
    case 'read_replies': {
      const message = state.messages.get(String(args.message_id));
      if (!message) return { content: [text(`No message ${args.message_id} was posted.`)], isError: true };
      const replies = message.replies.map((r) => r.reply);
      return {
        content: [text(replies.length ? replies.join('\n') : 'No replies yet.')],
        structuredContent: { message_id: String(args.message_id), replies },
      };
    }
    default:
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
}


function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The legacy door: the SDK's Server over a stateless transport, one of each per request. */
async function legacyMcp(state, req, res, body) {
  const hangUp = new AbortController();
  const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => toolsPage(request.params?.cursor));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callFixtureTool(state, request.params.name, request.params.arguments ?? {}, hangUp.signal));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    hangUp.abort();
    transport.close().catch(() => {});
    server.close().catch(() => {});
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** A response as an event stream that a server leaves open after it: a comment, a notification,
 * then the response, and the stream never ended, as servers that SHOULD close it sometimes do not. */
function lingeringStream(res, message) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(': the answer follows\n\n');
  const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working on it' } };
  res.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
  res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/** The modern door: 2026-07-28 alone, by hand, answering JSON, or with `lingering` an event stream
 * left open after the response. */
async function modernMcp(state, req, res, body, { lingering = false } = {}) {
  const rpcError = (status, id, code, message, data) =>
    sendJson(res, status, { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } });
  if (!body || typeof body !== 'object' || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
    return rpcError(400, body?.id, -32600, 'Invalid Request: one JSON-RPC 2.0 message is expected.');
  }
  const claimed = body.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  const header = req.headers['mcp-protocol-version'];
  if (body.method === 'initialize' || claimed !== MODERN || header !== MODERN) {
    const requested = body.method === 'initialize' ? body.params?.protocolVersion ?? null : claimed ?? header ?? null;
    return rpcError(400, body.id, -32022, `Unsupported protocol version: ${requested ?? 'none given'}. This server speaks ${MODERN} alone, without initialize.`,
      { supported: [MODERN], requested });
  }
  if (req.headers['mcp-method'] !== body.method) {
    return rpcError(400, body.id, -32020, `The Mcp-Method header (${req.headers['mcp-method'] ?? 'none'}) is not the body's method ${body.method}.`);
  }
  if (body.id === undefined) {
    res.writeHead(202);
    return res.end();
  }
  const result = (value) => {
    const message = { jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', ...value } };
    return lingering ? lingeringStream(res, message) : sendJson(res, 200, message);
  };
  try {
    switch (body.method) {
      case 'server/discover':
        return result({ supportedVersions: [MODERN], capabilities: { tools: {} }, serverInfo: { name: 'fixture-modern', version: '1.0.0' } });
      case 'tools/list':
        return result(toolsPage(body.params?.cursor));
      case 'tools/call': {
        if (req.headers['mcp-name'] !== body.params?.name) {
          return rpcError(400, body.id, -32020, `The Mcp-Name header (${req.headers['mcp-name'] ?? 'none'}) is not the tool ${body.params?.name}.`);
        }
        const hangUp = new AbortController();
        res.on('close', () => hangUp.abort());
        return result(await callFixtureTool(state, body.params.name, body.params.arguments ?? {}, hangUp.signal));
      }
      default:
        return rpcError(404, body.id, -32601, `Method not found: ${body.method}`);
    }
  } catch (error) {
    if (error instanceof McpError) return rpcError(200, body.id, error.code, error.message);
    throw error;
  }
}

/** The fixture: /mcp (SDK, legacy revisions, stateless), /modern/mcp (2026-07-28 only), side routes. */
async function startFixture() {
  const state = fixtureState();
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://fixture');
      const text = await readBody(req);
      if (url.pathname === '/__calls' && req.method === 'GET') return sendJson(res, 200, state.calls);
      if (url.pathname === '/__notes' && req.method === 'GET') return sendJson(res, 200, state.notes);
      if (url.pathname === '/__requests' && req.method === 'GET') return sendJson(res, 200, state.requests);
      if (url.pathname === '/__messages' && req.method === 'GET') {
        return sendJson(res, 200, Object.fromEntries([...state.messages].map(([id, m]) => [id, m])));
      }
      if (url.pathname === '/__reply' && req.method === 'POST') {
        const { message_id: messageId, reply } = JSON.parse(text || '{}');
        const message = state.messages.get(messageId);
        if (!message) return sendJson(res, 404, { error: `no message ${messageId}` });
        if (typeof reply !== 'string' || !reply) return sendJson(res, 400, { error: 'reply must be a non-empty string' });
        message.replies.push({ reply, at: new Date().toISOString() });
        return sendJson(res, 200, { message_id: messageId, replies: message.replies.map((r) => r.reply) });
      }
      const door = { '/mcp': 'legacy', '/modern/mcp': 'modern', '/lingering/mcp': 'lingering' }[url.pathname];
      if (!door) return sendJson(res, 404, { error: `no route ${req.method} ${url.pathname}` });
      let body;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      state.requests.push({
        door,
        http: req.method,
        method: body?.method ?? null,
        tool: body?.method === 'tools/call' ? body.params?.name ?? null : null,
        protocol_version: req.headers['mcp-protocol-version'] ?? null,
        session: req.headers['mcp-session-id'] ?? null,
        authorized: req.headers.authorization === `Bearer ${FIXTURE_TOKEN}`,
      });
      if (req.headers.authorization !== `Bearer ${FIXTURE_TOKEN}`) {
        return sendJson(res, 401, { error: 'invalid_token', error_description: 'A valid bearer token is required.' },
          { 'www-authenticate': 'Bearer realm="fixture", error="invalid_token"' });
      }
      if (door === 'modern' || door === 'lingering') {
        if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST only' }, { allow: 'POST' });
        return await modernMcp(state, req, res, body, { lingering: door === 'lingering' });
      }
      return await legacyMcp(state, req, res, body);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: String(error?.message ?? error) });
      else res.destroy();
    }
    return undefined;
  });
  await new Promise((resolveListen) => { server.listen(0, '127.0.0.1', resolveListen); });
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    close: () => new Promise((resolveClose) => { server.closeAllConnections?.(); server.close(() => resolveClose()); }),
  };
}

// ---- the CRM, an HTTP API for OpenAPI tool servers ----

const CONTACTS = [
  { id: 'c_1001', name: 'Priya Natarajan', email: 'priya@northwind.example', company: 'Northwind Traders', stage: 'customer' },
  { id: 'c_1002', name: 'Tomás Ferreira', email: 'tomas@fabrikam.example', company: 'Fabrikam', stage: 'trial' },
  { id: 'c_1003', name: 'Aoife Byrne', email: 'aoife@contoso.example', company: 'Contoso', stage: 'lead' },
];

function crmYaml(base) {
  return `openapi: 3.1.0
info:
  title: Contacts CRM
  version: 1.0.0
  description: The contacts of the sales team, and notes on them.
servers:
  - url: ${base}
security:
  - ApiKey: []
paths:
  /contacts/{id}:
    get:
      operationId: getContact
      summary: Read one contact
      description: Answers the contact with this id.
      parameters:
        - name: id
          in: path
          required: true
          description: The contact's id, such as c_1001.
          schema: { type: string, pattern: '^c_[0-9]+$' }
      responses:
        '200':
          description: The contact.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Contact' }
        '404':
          description: No contact has this id.
  /contacts:
    get:
      operationId: searchContacts
      summary: Find contacts
      description: Answers the contacts whose name, email or company holds q.
      parameters:
        - name: q
          in: query
          required: false
          schema: { type: string, maxLength: 100 }
      responses:
        '200':
          description: The contacts found.
          content:
            application/json:
              schema:
                type: object
                properties:
                  contacts:
                    type: array
                    items: { $ref: '#/components/schemas/Contact' }
                required: [contacts]
  /notes:
    post:
      operationId: createNote
      summary: Add a note to a contact
      description: Adds a note that the whole sales team reads.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                contact_id: { type: string }
                text: { type: string, minLength: 1, maxLength: 1000 }
              required: [contact_id, text]
              additionalProperties: false
      responses:
        '201':
          description: The note as kept.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Note' }
        '400':
          description: The body does not fit.
components:
  securitySchemes:
    ApiKey:
      type: apiKey
      in: header
      name: X-Api-Key
  schemas:
    Contact:
      type: object
      properties:
        id: { type: string }
        name: { type: string }
        email: { type: string, format: email }
        company: { type: string }
        stage: { type: string, enum: [lead, trial, customer] }
        phone: { type: [string, 'null'] }
      required: [id, name, email, company, stage]
    Note:
      type: object
      properties:
        note_id: { type: string }
        contact_id: { type: string }
        text: { type: string }
      required: [note_id, contact_id, text]
`;
}

/** The same API as an OpenAPI 3.0 document, as JSON text (nullable in place of a type list). */
function crmJson30(base) {
  const contact = {
    type: 'object',
    properties: {
      id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string', format: 'email' }, company: { type: 'string' },
      stage: { type: 'string', enum: ['lead', 'trial', 'customer'] }, phone: { type: 'string', nullable: true },
    },
    required: ['id', 'name', 'email', 'company', 'stage'],
  };
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Contacts CRM', version: '1.0.0', description: 'The contacts of the sales team, and notes on them.' },
    servers: [{ url: base }],
    security: [{ ApiKey: [] }],
    paths: {
      '/contacts/{id}': {
        get: {
          operationId: 'getContact', summary: 'Read one contact', description: 'Answers the contact with this id.',
          parameters: [{ name: 'id', in: 'path', required: true, description: "The contact's id, such as c_1001.", schema: { type: 'string', pattern: '^c_[0-9]+$' } }],
          responses: {
            200: { description: 'The contact.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Contact' } } } },
            404: { description: 'No contact has this id.' },
          },
        },
      },
      '/contacts': {
        get: {
          operationId: 'searchContacts', summary: 'Find contacts', description: 'Answers the contacts whose name, email or company holds q.',
          parameters: [{ name: 'q', in: 'query', required: false, schema: { type: 'string', maxLength: 100 } }],
          responses: {
            200: {
              description: 'The contacts found.',
              content: { 'application/json': { schema: { type: 'object', properties: { contacts: { type: 'array', items: { $ref: '#/components/schemas/Contact' } } }, required: ['contacts'] } } },
            },
          },
        },
      },
      '/notes': {
        post: {
          operationId: 'createNote', summary: 'Add a note to a contact', description: 'Adds a note that the whole sales team reads.',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { contact_id: { type: 'string' }, text: { type: 'string', minLength: 1, maxLength: 1000 } },
                  required: ['contact_id', 'text'],
                  additionalProperties: false,
                },
              },
            },
          },
          responses: {
            201: { description: 'The note as kept.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
            400: { description: 'The body does not fit.' },
          },
        },
      },
    },
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
      schemas: {
        Contact: contact,
        Note: { type: 'object', properties: { note_id: { type: 'string' }, contact_id: { type: 'string' }, text: { type: 'string' } }, required: ['note_id', 'contact_id', 'text'] },
      },
    },
  };
  return JSON.stringify(doc, null, 1);
}

async function startCrm() {
  const notes = [];
  const requests = [];
  let base;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://crm');
    const text = await readBody(req);
    if (url.pathname === '/openapi.yaml' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      return res.end(crmYaml(base));
    }
    if (url.pathname === '/__notes' && req.method === 'GET') return sendJson(res, 200, notes);
    if (url.pathname === '/__requests' && req.method === 'GET') return sendJson(res, 200, requests);
    requests.push({ method: req.method, path: url.pathname, query: url.search, key_ok: req.headers['x-api-key'] === CRM_KEY, body: text || null });
    if (req.headers['x-api-key'] !== CRM_KEY) {
      return sendJson(res, 401, { error: 'unauthorized', message: 'A valid X-Api-Key header is required.' });
    }
    const one = url.pathname.match(/^\/contacts\/([^/]+)$/);
    if (one && req.method === 'GET') {
      const contact = CONTACTS.find((c) => c.id === decodeURIComponent(one[1]));
      return contact ? sendJson(res, 200, { ...contact, phone: null }) : sendJson(res, 404, { error: 'not_found', message: `No contact ${one[1]}.` });
    }
    if (url.pathname === '/contacts' && req.method === 'GET') {
      const q = (url.searchParams.get('q') ?? '').toLowerCase();
      const found = CONTACTS.filter((c) => [c.name, c.email, c.company].some((f) => f.toLowerCase().includes(q)));
      return sendJson(res, 200, { contacts: found.map((c) => ({ ...c, phone: null })) });
    }
    if (url.pathname === '/notes' && req.method === 'POST') {
      let body;
      try { body = JSON.parse(text); } catch { return sendJson(res, 400, { error: 'invalid_json', message: 'The body is not JSON.' }); }
      if (typeof body?.contact_id !== 'string' || typeof body?.text !== 'string' || !body.text) {
        return sendJson(res, 400, { error: 'invalid_body', message: 'contact_id and text are required.' });
      }
      if (!CONTACTS.some((c) => c.id === body.contact_id)) return sendJson(res, 404, { error: 'not_found', message: `No contact ${body.contact_id}.` });
      const note = { note_id: `n_${notes.length + 1}`, contact_id: body.contact_id, text: body.text };
      notes.push(note);
      return sendJson(res, 201, note);
    }
    return sendJson(res, 404, { error: 'not_found', message: `No route ${req.method} ${url.pathname}.` });
  });
  await new Promise((resolveListen) => { server.listen(0, '127.0.0.1', resolveListen); });
  base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    yaml: crmYaml(base),
    json30: crmJson30(base),
    close: () => new Promise((resolveClose) => { server.closeAllConnections?.(); server.close(() => resolveClose()); }),
  };
}

// ---- real servers from npm, as child processes ----

const liveGroups = new Set();
let exitHook = false;

/**
 * Starts a Node program of an npm package in its own process group, with the loopback preload, and
 * waits until `ready()` holds. Answers {stop, log}.
 */
async function startProcess(label, args, { cwd, env = {}, ready, timeoutMs = 30_000 }) {
  const child = spawn(process.execPath, ['--import', join(here, 'loopback_only.mjs'), ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'], // stdin stays open: supergateway ends when its stdin does
    detached: true,
  });
  liveGroups.add(child.pid);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const pgid of liveGroups) {
        try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
      }
    });
  }
  let log = '';
  const keep = (chunk) => { log = (log + chunk).slice(-65_536); };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  let exited = null;
  const exitPromise = new Promise((resolveExit) => {
    child.on('exit', (code, signal) => { exited = { code, signal }; resolveExit(exited); });
    child.on('error', (error) => { keep(`\n[spawn error] ${error.message}\n`); exited = { code: -1 }; resolveExit(exited); });
  });
  const killGroup = (signal) => {
    try { process.kill(-child.pid, signal); } catch { /* gone */ }
  };
  const stop = async () => {
    if (!liveGroups.has(child.pid)) return;
    if (!exited) {
      killGroup('SIGTERM');
      if (!(await Promise.race([exitPromise, sleep(5_000).then(() => null)]))) killGroup('SIGKILL');
    }
    killGroup('SIGKILL'); // whatever of the group is left, such as a bridged server
    liveGroups.delete(child.pid);
    child.stdin.destroy();
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${label} exited (${JSON.stringify(exited)}) before it served\n--- log ---\n${log}`);
    if (await ready().catch(() => false)) return { stop, log: () => log };
    await sleep(100);
  }
  await stop();
  throw new Error(`${label} did not serve within ${timeoutMs} ms\n--- log ---\n${log}`);
}

const answers = (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(2_000) }).then(async (r) => { await r.arrayBuffer(); return r.status; });

/** server-filesystem behind supergateway, serving `dir`. */
async function startFiles(dir) {
  const port = await freePort();
  const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
  // The filesystem server resolves a relative path against its allowed folders (and the process's
  // cwd only when it has none), so both are the briefs' folder: a bare file name reads the file.
  const stdio = [process.execPath, join(MODULES, '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js'), dir].map(quote).join(' ');
  const proc = await startProcess('supergateway (server-filesystem)', [
    join(MODULES, 'supergateway', 'dist', 'index.js'),
    '--stdio', stdio,
    '--outputTransport', 'streamableHttp',
    '--port', String(port),
    '--streamableHttpPath', '/mcp',
    '--healthEndpoint', '/healthz',
    '--logLevel', 'info',
  ], { cwd: dir, ready: async () => (await answers(`http://127.0.0.1:${port}/healthz`)) === 200 });
  return { url: `http://127.0.0.1:${port}/mcp`, ...proc };
}

/** server-everything, streamable HTTP with sessions. */
async function startEverything() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const proc = await startProcess('server-everything', [
    join(MODULES, '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'), 'streamableHttp',
  ], {
    cwd: ROOT,
    env: { PORT: String(port) },
    // Any answer at all (a GET without a session is 400) says it listens.
    ready: async () => (await answers(url)) > 0,
  });
  return { url, ...proc };
}

/**
 * Starts every tool server. `vars` are the runtime's variables: TOOL_SERVERS and the secrets it
 * names; `servers` what tests need to reach and drive the servers; close() stops them all.
 */
export async function startToolServers() {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-briefs-'));
  for (const [name, body] of Object.entries(BRIEFS)) writeFileSync(join(dir, name), body);
  const started = [];
  const close = async () => {
    await Promise.allSettled(started.map((s) => s.close?.() ?? s.stop?.()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const fixture = await startFixture();
    started.push(fixture);
    const crm = await startCrm();
    started.push(crm);
    const [files, everything] = await Promise.all([startFiles(dir), startEverything()]);
    started.push(files, everything);
    // The discard port, where nothing listens (as for the model stand-ins' offline gateway): a port
    // freed here could be handed to the runtime started next, and down would then answer.
    const down = 'http://127.0.0.1:9/mcp';

    const fixtureUrl = `${fixture.base}/mcp`;
    const modernUrl = `${fixture.base}/modern/mcp`;
    const token = { kind: 'secret', name: 'FIXTURE_TOKEN' };
    const crmKey = { kind: 'secret', name: 'CRM_API_KEY', in: 'header', name_of_header: 'X-Api-Key' };
    const settings = {
      files: { type: 'mcp', url: files.url, allowed: ['read_text_file', 'list_directory'] },
      everything: { type: 'mcp', url: everything.url, allowed: '*' },
      fixture: { type: 'mcp', url: fixtureUrl, allowed: '*', credential: token, sends: 'post_message', reads_replies: 'read_replies' },
      modern: { type: 'mcp', url: modernUrl, allowed: '*', credential: token },
      lingering: { type: 'mcp', url: `${fixture.base}/lingering/mcp`, allowed: ['echo'], credential: token },
      wrongkey: { type: 'mcp', url: fixtureUrl, allowed: '*', credential: { kind: 'secret', name: 'FIXTURE_WRONG_TOKEN' } },
      nokey: { type: 'mcp', url: fixtureUrl, allowed: '*', credential: { kind: 'secret', name: 'FIXTURE_UNSET_TOKEN' } },
      down: { type: 'mcp', url: down, allowed: '*' },
      money: { type: 'mcp', url: fixtureUrl, allowed: '*', credential: token, handles_money: true },
      private: { type: 'mcp', url: fixtureUrl, allowed: '*', credential: token, playbooks: [NOBODYS_PLAYBOOK] },
      sizes: { type: 'mcp', url: fixtureUrl, allowed: '*', credential: token, record_content: false },
      crm: { type: 'openapi', document: `${crm.base}/openapi.yaml`, base_url: crm.base, allowed: '*', credential: crmKey },
      crm_text: { type: 'openapi', document_text: crm.json30, base_url: crm.base, allowed: '*', credential: crmKey },
    };
    const vars = {
      TOOL_SERVERS: JSON.stringify(settings),
      FIXTURE_TOKEN,
      FIXTURE_WRONG_TOKEN: WRONG_TOKEN,
      CRM_API_KEY: CRM_KEY,
    };
    const servers = {
      files: { url: files.url, dir, briefs: Object.keys(BRIEFS) },
      everything: { url: everything.url },
      fixture: {
        url: fixtureUrl, modern_url: modernUrl, base: fixture.base, token: FIXTURE_TOKEN,
        tools: FIXTURE_TOOLS.map((t) => t.name), page: FIXTURE_PAGE,
      },
      down: { url: down },
      crm: {
        base: crm.base, document: `${crm.base}/openapi.yaml`, document_text: crm.json30, key: CRM_KEY,
        header: 'X-Api-Key', operations: ['getContact', 'searchContacts', 'createNote'],
      },
    };
    const logs = () => ({ files: files.log(), everything: everything.log() });
    return { vars, settings, servers, logs, close };
  } catch (error) {
    await close();
    throw error;
  }
}

// ---- what test files read ----

/** What run.mjs started, as the test files' env carries it: { settings, servers }. */
export function toolServers() {
  const text = process.env.E2E_TOOL_SERVERS;
  if (!text) throw new Error('E2E_TOOL_SERVERS is not set: run the suite with `node tests/e2e/run.mjs`');
  return JSON.parse(text);
}

/** The fixture's side routes: what its tools did. */
export function fixtureSide(base = toolServers().servers.fixture.base) {
  const get = (path) => fetch(`${base}${path}`).then((r) => r.json());
  return {
    /** Calls made so far, by tool name. */
    calls: () => get('/__calls'),
    /** The notes write_note appended, in order. */
    notes: () => get('/__notes'),
    /** Every MCP request it received: {door, http, method, tool, protocol_version, session, authorized}. */
    requests: () => get('/__requests'),
    /** The messages post_message posted, by id, with their replies. */
    messages: () => get('/__messages'),
    /** Replies to a posted message, as a person in the chat would. */
    reply: async (messageId, reply) => {
      const res = await fetch(`${base}/__reply`, { method: 'POST', body: JSON.stringify({ message_id: messageId, reply }) });
      if (res.status !== 200) throw new Error(`replying to ${messageId}: ${res.status} ${await res.text()}`);
      return res.json();
    },
  };
}

/** The CRM's side routes: the notes it keeps and the requests it received. */
export function crmSide(base = toolServers().servers.crm.base) {
  const get = (path) => fetch(`${base}${path}`).then((r) => r.json());
  return { notes: () => get('/__notes'), requests: () => get('/__requests') };
}
