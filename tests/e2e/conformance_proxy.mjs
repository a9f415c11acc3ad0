// A forwarding proxy on loopback for conformance_client.test.mjs: the runtime under test is started
// with one tool server per client scenario of the conformance suite, each at a path of this proxy
// (/s/<name>/mcp), because a scenario's test server only exists, at a port of its own choosing, once
// the suite has started it. The scenario's command (conformance_client.mjs) tells the proxy where
// that path forwards to (POST /control/<name> with {"target": "<the scenario server's URL>"}); from
// then on every request to the path goes to the target as it came, and its answer comes back as it
// goes: the method, the headers (all but the hop-by-hop ones, with Host the target's), the body, and
// the status, headers and body of the answer, streamed piece by piece as the target writes it, so an
// event stream is not held back. A request whose path names no target gets 502 and reaches nothing.
//
// startForwardingProxy() answers { url, path(name), seen(name), close }: seen lists the requests
// forwarded for a name (method, path, status), for messages when a scenario fails.
import http from 'node:http';
import { readBody } from './http_body.mjs';

/** Headers of one hop, which a proxy does not pass on (RFC 9110 §7.6.1), and Host, which it sets. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);

/** The headers of a message as a list of [name, value], without the hop-by-hop ones. */
function endToEnd(rawHeaders) {
  const kept = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!HOP.has(rawHeaders[i].toLowerCase())) kept.push([rawHeaders[i], rawHeaders[i + 1]]);
  }
  return kept;
}


export async function startForwardingProxy() {
  const targets = new Map();
  const seen = new Map();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://proxy');
    const control = url.pathname.match(/^\/control\/([^/]+)$/);
    if (control && req.method === 'POST') {
      let target;
      try { target = new URL(JSON.parse(await readBody(req)).target); } catch { target = null; }
      if (!target || target.protocol !== 'http:') {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return res.end('The body must be {"target": "http://…"}.');
      }
      targets.set(control[1], target);
      seen.set(control[1], []);
      res.writeHead(204);
      return res.end();
    }
    const forward = url.pathname.match(/^\/s\/([^/]+)\/mcp$/);
    const target = forward && targets.get(forward[1]);
    if (!target) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      return res.end(`No target is set for ${url.pathname}: the scenario's command sets it with POST /control/<name>.`);
    }
    const record = { method: req.method, path: target.pathname, status: null };
    seen.get(forward[1]).push(record);
    const headers = endToEnd(req.rawHeaders);
    headers.push(['Host', target.host]);
    const upstream = http.request({
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers: headers.flat(), // as raw pairs: names as written, repeats and empty values kept
    });
    upstream.on('response', (answer) => {
      record.status = answer.statusCode;
      res.writeHead(answer.statusCode, answer.statusMessage, endToEnd(answer.rawHeaders).flat());
      // Every piece as it comes: an event stream reaches the runtime event by event.
      res.flushHeaders();
      answer.on('data', (chunk) => res.write(chunk));
      answer.on('end', () => res.end());
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      record.status = record.status ?? `error: ${error.message}`;
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`The target ${target.href} could not be reached: ${error.message}`);
      } else {
        res.destroy();
      }
    });
    // The runtime hanging up (a call given up, a stream read to its answer) hangs up on the target.
    res.on('close', () => { if (!res.writableFinished) upstream.destroy(); });
    req.pipe(upstream);
  });
  await new Promise((resolveListen) => { server.listen(0, '127.0.0.1', resolveListen); });
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: base,
    path: (name) => `${base}/s/${name}/mcp`,
    seen: (name) => seen.get(name) ?? [],
    close: () => new Promise((resolveClose) => { server.closeAllConnections?.(); server.close(() => resolveClose()); }),
  };
}

