// The bench's tool server: node:http on a loopback port, answering at once. It serves SERVERS
// addresses, /s01/mcp to /s20/mcp, each an MCP server of 2026-07-28 (no handshake) listing TOOLS
// tools; tools/call of any of them answers the text it is given. The tool rows of the bench
// (tools.mjs) name all of them in TOOL_SERVERS, search across them, and call s01's `echo` from a
// reasoning run. It keeps the last tools/call it was sent (GET /__last), so the bench times the very
// request the runtime makes against the server alone.
import http from 'node:http';
import { readBody } from '../e2e/http_body.mjs';

export const SERVERS = 20;
export const TOOLS = 50;
/** Each server's tools are named for things a ledger holds, so that a search finds one per server. */
const NOUNS = ['invoice', 'payment', 'refund', 'customer', 'supplier', 'account', 'ledger', 'journal', 'budget', 'receipt'];
const VERBS = ['read', 'list', 'find', 'count', 'export'];

/** The name of server `i` (from 0): s01 … s20. */
export const serverName = (i) => `s${String(i + 1).padStart(2, '0')}`;

/** The tools of one server: `echo`, then reads of ledger things, TOOLS in all. */
function toolsOf(server) {
  const tools = [{
    name: 'echo',
    description: 'Answers the text it is given, unchanged.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
    annotations: { readOnlyHint: true, openWorldHint: false },
  }];
  for (let i = 0; tools.length < TOOLS; i += 1) {
    const noun = NOUNS[i % NOUNS.length];
    const verb = VERBS[Math.floor(i / NOUNS.length) % VERBS.length];
    tools.push({
      name: `${verb}_${noun}_${i}`,
      description: `${verb[0].toUpperCase()}${verb.slice(1)}s the ${noun} records of the ${server} ledger, by date and by owner.`,
      inputSchema: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, owner: { type: 'string' } } },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  }
  return tools;
}


function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Starts the server; answers its base address and close(). */
export async function startBenchToolServer() {
  const lists = new Map(Array.from({ length: SERVERS }, (_, i) => [serverName(i), toolsOf(serverName(i))]));
  let last = null;
  const server = http.createServer(async (req, res) => {
    const text = await readBody(req);
    if (req.url === '/__last' && req.method === 'GET') return send(res, 200, last);
    const server = req.url.match(/^\/(s\d\d)\/mcp$/)?.[1];
    if (!server || !lists.has(server) || req.method !== 'POST') return send(res, 404, { error: `no route ${req.method} ${req.url}` });
    let body;
    try { body = JSON.parse(text); } catch { return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }); }
    if (body.id === undefined) {
      res.writeHead(202);
      return res.end();
    }
    const result = (value) => send(res, 200, { jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', ...value } });
    switch (body.method) {
      case 'server/discover':
        return result({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, serverInfo: { name: server, version: '1.0.0' } });
      case 'tools/list':
        return result({ tools: lists.get(server) });
      case 'tools/call':
        last = { url: req.url, headers: req.headers, body: text };
        return result({ content: [{ type: 'text', text: String(body.params?.arguments?.text ?? '') }] });
      default:
        return send(res, 200, { jsonrpc: '2.0', id: body.id, error: { code: -32601, message: `Method not found: ${body.method}` } });
    }
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}
