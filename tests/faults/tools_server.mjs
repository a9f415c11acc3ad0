// The misbehaving MCP tool server of part 4 (tools.mjs): node:http on a loopback port. It lists its
// tools as MCP asks, in 2026-07-28 (no handshake) and in 2025-11-25 (`initialize`, then its
// session), and misbehaves on tools/call as each tool's fault says. Each family of faults is a
// server of its own, at /<family>/mcp; /legacy/mcp lists every fault's tool but speaks 2025-11-25
// alone, so the faults are met through a session too; /good/mcp lists `echo`, which answers.
//
// FAULTS is the catalogue the part drives: each tool, what it does to the runtime's call, the
// `because` the runtime must say of it, and the words its detail must hold. A tool that never
// answers within a deadline (`waits`) is met by calls by hand with a short timeout_seconds, and by
// only a few runs, which wait out the 60-second call deadline together.
import http from 'node:http';
import { readBody } from '../e2e/http_body.mjs';

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

/** The most of an answer the runtime reads (src/shell/tool_servers.rs ANSWER_MAX_BYTES). */
export const ANSWER_MAX_BYTES = 4 * 1024 * 1024;
const GIGANTIC = ANSWER_MAX_BYTES + 1024 * 1024;
/** What the flood sends at most, as fast as it is read: far past the bound, short of harm. */
export const FLOOD_BYTES = 256 * 1024 * 1024;
const FLOOD_CHUNK = Buffer.alloc(64 * 1024, 'x');
/** The longest a stall or a trickle keeps its connection, so nothing outlives the part. */
const HOLD_MAX_MS = 150_000;

const OVER_MAX = new RegExp(`more than ${ANSWER_MAX_BYTES} bytes`);
const NO_ANSWER = /gave no answer within/;

/**
 * The faults, by tool. `because` is what the runtime must say of a call that met the fault (null:
 * the tool answered, with its own error); `says` what its detail must hold; `runs` how many
 * reasoning runs and lookups meet it (the waiting faults: a few, since each takes 60 s).
 */
export const FAULTS = [
  { family: 'drop', tool: 'cut_head', because: 'unreachable', says: /could not be reached/, does: 'reads the request and closes the connection before any answer' },
  { family: 'drop', tool: 'cut_body', because: 'unreachable', says: /could not be reached/, does: 'declares 64 KiB of JSON, sends 1 KiB of it, and closes' },
  { family: 'drop', tool: 'cut_chunked', because: 'unreachable', says: /could not be reached/, does: 'sends part of a chunked answer and closes without its last chunk' },
  { family: 'drop', tool: 'cut_stream', because: 'unreachable', says: /could not be reached/, does: 'opens an event stream, sends a notification, and closes mid-stream' },
  { family: 'stall', tool: 'silent', because: 'unreachable', says: NO_ANSWER, waits: true, runs: { reasoning: 1, lookup: 1 }, does: 'accepts the request and never answers' },
  { family: 'stall', tool: 'head_only', because: 'unreachable', says: NO_ANSWER, waits: true, runs: { reasoning: 0, lookup: 0 }, does: 'answers 200 and its headers, then never a byte of body' },
  { family: 'stall', tool: 'pings', because: 'unreachable', says: NO_ANSWER, waits: true, runs: { reasoning: 0, lookup: 1 }, does: 'opens an event stream and sends a ping comment every second, never the response' },
  { family: 'garbage', tool: 'not_json', because: 'failing', says: /not JSON/, does: 'answers 200 application/json with an HTML page' },
  { family: 'garbage', tool: 'not_jsonrpc', because: 'failing', says: /not the JSON-RPC response/, does: 'answers 200 with JSON that is not JSON-RPC' },
  { family: 'garbage', tool: 'stream_without_response', because: 'failing', says: /event stream ended without the response/, does: 'answers an event stream of a notification, a ping and another id\'s response, then ends' },
  { family: 'garbage', tool: 'wrong_id', because: 'failing', says: /not the JSON-RPC response/, does: 'answers a well-formed response to another request id' },
  { family: 'garbage', tool: 'no_content', because: 'failing', says: /holds no content/, does: 'answers the right id with a result that holds no content' },
  { family: 'huge', tool: 'declared', because: 'failing', says: OVER_MAX, does: 'answers 5 MiB of JSON with its Content-Length' },
  { family: 'huge', tool: 'chunked', because: 'failing', says: OVER_MAX, does: 'answers 5 MiB of JSON chunked, with no Content-Length' },
  { family: 'huge', tool: 'stream', because: 'failing', says: OVER_MAX, does: 'answers an event stream of 5 MiB of notifications before its response' },
  { family: 'huge', tool: 'flood', because: 'failing', says: OVER_MAX, does: 'streams 256 MiB of JSON chunked, as fast as it is read' },
  { family: 'huge', tool: 'trickle', because: 'unreachable', says: NO_ANSWER, waits: true, runs: { reasoning: 1, lookup: 0 }, does: 'answers 200 and then its JSON four bytes a second' },
  { family: 'status', tool: 'http_500', because: 'failing', says: /HTTP 500/, does: 'answers 500 with a JSON body that is not JSON-RPC' },
  { family: 'status', tool: 'http_503', because: 'failing', says: /HTTP 503/, does: 'answers 503 in plain text with Retry-After' },
  { family: 'status', tool: 'http_429', because: 'rate_limited', says: /HTTP 429/, does: 'answers 429 with Retry-After' },
  { family: 'status', tool: 'http_401', because: 'key_refused', says: /HTTP 401/, does: 'answers 401 with WWW-Authenticate' },
  { family: 'status', tool: 'http_403', because: 'key_refused', says: /HTTP 403/, does: 'answers 403' },
  { family: 'status', tool: 'rpc_error', because: 'failing', says: /answered the error -32603/, does: 'answers a JSON-RPC error (-32603) to the right id' },
  { family: 'own', tool: 'is_error', because: null, says: /ledger is closed/, does: 'answers the tool\'s own error (isError), which is an answer' },
];

export const FAMILIES = [...new Set(FAULTS.map((f) => f.family))];

const INPUT = {
  type: 'object',
  properties: { note: { type: 'string', maxLength: 200, description: 'Anything; the tool reads nothing of it.' } },
  additionalProperties: false,
};
const READS = { readOnlyHint: true, openWorldHint: false };

const listed = (name, description) => ({ name, description, inputSchema: INPUT, annotations: READS });

/** The tools each door lists. */
function doorTools(door) {
  if (door === 'good') return [listed('echo', 'Answers the note it is given, unchanged.')];
  const faults = door === 'legacy' ? FAULTS : FAULTS.filter((f) => f.family === door);
  return faults.map((f) => listed(f.tool, `A tool whose server ${f.does}.`));
}

const DOORS = ['good', 'legacy', ...FAMILIES];

const json = (value) => JSON.stringify(value);
const response = (id, result) => json({ jsonrpc: '2.0', id, result });
const rpcError = (id, code, message, data) => json({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } });
const textResult = (text, extra = {}) => ({ content: [{ type: 'text', text }], ...extra });
const event = (data) => `event: message\ndata: ${data}\n\n`;

/** A response of `bytes` or more whose text is `x`s: what the gigantic answers send. */
function giganticResponse(id, bytes) {
  return response(id, textResult('x'.repeat(bytes)));
}

/** Answers `id` with `body`, status 200, as JSON. */
function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/**
 * Keeps a connection the runtime is meant to give up on: `tick` runs every `everyMs` until the
 * runtime hangs up or HOLD_MAX_MS passes; then the answer ends.
 */
function hold(res, everyMs, tick) {
  const timer = everyMs ? setInterval(() => { if (!res.destroyed) tick(); }, everyMs) : null;
  const limit = setTimeout(() => { if (timer) clearInterval(timer); res.destroy(); }, HOLD_MAX_MS);
  res.on('close', () => { if (timer) clearInterval(timer); clearTimeout(limit); });
}

/** Sends FLOOD_BYTES of a response as fast as the runtime reads them; `sent` hears how many it took. */
function flood(id, res, sent) {
  let bytes = 0;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`);
  res.on('close', () => sent(bytes));
  const pump = () => {
    while (bytes < FLOOD_BYTES && !res.destroyed) {
      bytes += FLOOD_CHUNK.length;
      if (!res.write(FLOOD_CHUNK)) return res.once('drain', pump);
    }
    return res.end('"}]}}');
  };
  pump();
}

/** Does to one tools/call what the fault of `tool` says; `flooded` hears how much a flood sent. */
function misbehave(tool, id, req, res, flooded) {
  const ok = response(id, textResult('An answer that never arrives whole.'));
  switch (tool) {
    case 'cut_head':
      return req.socket.destroy();
    case 'cut_body':
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 65_536 });
      res.write(ok.padEnd(1024, ' ').slice(0, 1024));
      return setTimeout(() => res.destroy(), 50);
    case 'cut_chunked':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(ok.slice(0, 20));
      return setTimeout(() => res.destroy(), 50);
    case 'cut_stream':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(json({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: 1 } })));
      return setTimeout(() => res.destroy(), 50);
    case 'silent':
      return hold(res, 0, () => {});
    case 'head_only':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return hold(res, 0, () => {});
    case 'pings':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(': ping\n\n');
      return hold(res, 1000, () => res.write(': ping\n\n'));
    case 'not_json':
      return sendJson(res, 200, '<html><body><h1>502 Bad Gateway</h1></body></html>');
    case 'not_jsonrpc':
      return sendJson(res, 200, json({ status: 'ok', called: true, answer: [1, 2, 3] }));
    case 'stream_without_response': {
      const body = event(json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } }))
        + ': ping\n\n' + event(response(id + 1000, textResult('An answer to someone else.'))) + 'data: {not json\n\n';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end(body);
    }
    case 'wrong_id':
      return sendJson(res, 200, response(id + 1000, textResult('An answer to another request.')));
    case 'no_content':
      return sendJson(res, 200, response(id, { answer: 42 }));
    case 'declared':
      return sendJson(res, 200, giganticResponse(id, GIGANTIC));
    case 'chunked':
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(giganticResponse(id, GIGANTIC));
    case 'stream': {
      const note = event(json({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(64 * 1024) } }));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end(note.repeat(Math.ceil(GIGANTIC / note.length)) + event(ok));
    }
    case 'flood':
      return flood(id, res, flooded);
    case 'trickle': {
      const body = giganticResponse(id, GIGANTIC);
      let at = 0;
      res.writeHead(200, { 'content-type': 'application/json' });
      return hold(res, 1000, () => { res.write(body.slice(at, at + 4)); at += 4; });
    }
    case 'http_500':
      return sendJson(res, 500, json({ error: 'internal', message: 'The ledger service failed.' }));
    case 'http_503':
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '30' });
      return res.end('Service Unavailable');
    case 'http_429':
      return sendJson(res, 429, json({ error: 'rate_limited', message: 'Slow down.' }), { 'retry-after': '30' });
    case 'http_401':
      return sendJson(res, 401, json({ error: 'invalid_token' }), { 'www-authenticate': 'Bearer realm="faults", error="invalid_token"' });
    case 'http_403':
      return sendJson(res, 403, json({ error: 'forbidden' }));
    case 'rpc_error':
      return sendJson(res, 200, rpcError(id, -32603, 'Internal error: the ledger service is down'));
    case 'is_error':
      return sendJson(res, 200, response(id, textResult('The ledger is closed for the month, so nothing was read.', { isError: true })));
    default:
      return sendJson(res, 200, rpcError(id, -32602, `Unknown tool: ${tool}`));
  }
}


/**
 * Starts the server. Answers its base address, the address of each door, the tools/call requests
 * it received by `door/tool`, the bytes each flood sent before the runtime hung up, and close().
 */
export async function startFaultyServer() {
  const calls = {};
  const floods = [];
  const sessions = new Set();
  let nextSession = 1;
  const server = http.createServer(async (req, res) => {
    // A runtime that hangs up on a gigantic or held answer leaves writes that fail: they are its doing.
    res.on('error', () => {});
    const door = DOORS.find((d) => req.url === `/${d}/mcp`);
    if (!door) return sendJson(res, 404, json({ error: `no route ${req.method} ${req.url}` }));
    if (req.method !== 'POST') return sendJson(res, 405, json({ error: 'POST only' }), { allow: 'POST' });
    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return sendJson(res, 400, rpcError(null, -32700, 'Parse error'));
    }
    if (!body || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
      return sendJson(res, 400, rpcError(body?.id, -32600, 'Invalid Request'));
    }
    const version = req.headers['mcp-protocol-version'];
    const modern = version === MODERN;
    if (modern && door === 'legacy') {
      return sendJson(res, 400, rpcError(body.id, -32022, `Unsupported protocol version: ${MODERN}. This server speaks ${LEGACY}.`,
        { supported: [LEGACY], requested: MODERN }));
    }
    if (body.method === 'initialize') {
      const session = `s${nextSession++}`;
      sessions.add(session);
      return sendJson(res, 200, response(body.id, {
        protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: { name: `faults-${door}`, version: '1.0.0' },
      }), { 'mcp-session-id': session });
    }
    if (!modern && !sessions.has(req.headers['mcp-session-id'])) {
      return sendJson(res, 404, rpcError(body.id, -32001, 'Session not found'));
    }
    if (body.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    const result = (value) => sendJson(res, 200, response(body.id, modern ? { resultType: 'complete', ...value } : value));
    switch (body.method) {
      case 'server/discover':
        return result({ supportedVersions: [MODERN, LEGACY], capabilities: { tools: {} }, serverInfo: { name: `faults-${door}`, version: '1.0.0' } });
      case 'tools/list':
        return result({ tools: doorTools(door) });
      case 'tools/call': {
        const tool = body.params?.name;
        calls[`${door}/${tool}`] = (calls[`${door}/${tool}`] ?? 0) + 1;
        if (door === 'good') return result(textResult(String(body.params?.arguments?.note ?? '')));
        return misbehave(tool, body.id, req, res, (bytes) => floods.push(bytes));
      }
      default:
        return sendJson(res, 200, rpcError(body.id, -32601, `Method not found: ${body.method}`));
    }
  });
  server.on('connection', (socket) => socket.on('error', () => {}));
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    url: (door) => `${base}/${door}/mcp`,
    doors: DOORS,
    calls: () => ({ ...calls }),
    floods: () => [...floods],
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
