// The requests every part of the fault harness sends: the HTTP API of the org `local` (local mode
// has no auth) and POST /mcp in the shape tests/bench/mcp.mjs sends it; the test that tells a
// problem document; and the small tools of the parts' loops (a bounded pool, a seeded random).
// Every request has a timeout, so no loop of the harness can hang on one answer.
import { MCP_HEADERS, readAnswer } from '../bench/mcp.mjs';

const ORG = 'local';
const TIMEOUT_MS = 30_000;

/** One answer as the harness reads it: status, content type, text, and the JSON when it parses. */
async function read(res) {
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let json;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  return { status: res.status, contentType, text, json };
}

/** Sends one request and reads its answer; a request that gets none rejects. */
export async function send(url, { method = 'GET', headers = {}, body, timeoutMs = TIMEOUT_MS } = {}) {
  const init = { method, headers, body, signal: AbortSignal.timeout(timeoutMs) };
  // A stream body goes out chunked, with no Content-Length: fetch requires `duplex` for it.
  if (body && typeof body.getReader === 'function') init.duplex = 'half';
  return read(await fetch(url, init));
}

/** The HTTP API of one playbook (or of the org's playbooks when `playbook` is left out). */
export function api(base, playbook) {
  const root = `${base}/v1/orgs/${ORG}/playbooks${playbook ? `/${playbook}` : ''}`;
  const json = { 'content-type': 'application/json' };
  return {
    get: (path, query = {}) => {
      const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== null));
      const qs = q.toString();
      return send(`${root}${path}${qs ? `?${qs}` : ''}`);
    },
    post: (path, body = {}) => send(`${root}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) }),
  };
}

export const ok = (answer) => answer.status >= 200 && answer.status < 300;

/** The answer's JSON, or an error that says what came instead. */
export function must(answer, what) {
  if (!ok(answer) || answer.json === undefined) {
    throw new Error(`${what}: HTTP ${answer.status}: ${answer.text.slice(0, 400)}`);
  }
  return answer.json;
}

/** A problem document: JSON sent as application/problem+json with a reason and a detail in words. */
export function isProblem(answer) {
  return answer.contentType.startsWith('application/problem+json')
    && typeof answer.json?.reason === 'string' && typeof answer.json?.detail === 'string';
}

/** Every page of a listing that answers `key` and `next_cursor`, bounded to `maxPages`. */
export async function allPages(client, path, key, query = {}, maxPages = 200) {
  const items = [];
  let cursor;
  for (let page = 0; page < maxPages; page += 1) {
    const body = must(await client.get(path, { ...query, cursor }), `GET ${path}`);
    items.push(...body[key]);
    cursor = body.next_cursor;
    if (!cursor) return items;
  }
  throw new Error(`GET ${path}: more than ${maxPages} pages`);
}

/** POST /mcp with the bench's headers; answers the JSON-RPC message (from JSON or the event stream). */
export async function mcp(base, body, headers = MCP_HEADERS) {
  const answer = await send(`${base}/mcp`, { method: 'POST', headers, body });
  let message;
  try { message = readAnswer(answer.text); } catch { message = undefined; }
  return { ...answer, message };
}

/** Runs `fn` over `items`, `width` at a time; answers the results in the items' order. */
export async function pool(items, width, fn) {
  const out = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next;
      next += 1;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}

/** A small seeded generator (mulberry32), so a run's random moments can be replayed with its seed. */
export function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (lo, hi) => lo + next() * (hi - lo),
    pick: (list) => list[Math.floor(next() * list.length)],
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
