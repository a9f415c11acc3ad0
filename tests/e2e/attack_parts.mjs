// What the attacks of the trust tests (and of scripts/faults' trust part) are made of: a server of
// the attacker's that records every request it is sent, a request with a Host header of one's own,
// and a body sent without a length until the runtime stops it.
import { createServer, request as httpRequest } from 'node:http';
import { freePort } from './harness.mjs';

/** A server that records every request (method, path, headers) and answers as `route` says. */
export async function recorder(route) {
  const port = await freePort();
  const seen = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, path: req.url, headers: req.headers });
    route(req, res, port);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, origin: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

/** A GET with the headers given as they are, Host included. */
export function rawGet(port, path, headers) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c) => { body += c; }).on('end', () => resolve({ code: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * POSTs up to `total` bytes in chunks, with no Content-Length, until an answer arrives or the
 * runtime drops the connection; answers the status (`reset` for a connection dropped unanswered)
 * and how many bytes were written by then.
 */
export function chunkedPost(url, total, headers = {}) {
  return new Promise((resolve) => {
    const u = new URL(url);
    let sent = 0;
    let answered = false;
    const chunk = Buffer.alloc(1024 * 1024, 0x7b);
    const req = httpRequest({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8').on('data', (c) => { body += c; });
      res.on('end', () => {
        req.destroy();
        // wrangler's dev proxy answers a connection it lost to workerd as a 500 of its own.
        const lost = res.statusCode === 500 && body.startsWith('Error: Network connection lost');
        resolve({ status: lost ? 'lost' : res.statusCode, sent });
      });
    });
    req.on('error', () => {
      if (!answered) { answered = true; resolve({ status: 'reset', sent }); }
    });
    // Nobody reading what is sent holds the writer back: five seconds of that is an answer too.
    let stall;
    const stalled = () => {
      if (!answered) { answered = true; req.destroy(); resolve({ status: 'stalled', sent }); }
    };
    const pump = () => {
      clearTimeout(stall);
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          stall = setTimeout(stalled, 5_000);
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}
