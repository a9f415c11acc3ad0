// The connect page as a script drives it, without a browser: a link's page read with its proof
// (the `page-form` cookie and the `csrf` field its forms carry), its forms posted, and the
// hostile link tokens, forms and callbacks the connections part sends it. Every answer's text is
// kept in `seen`, for the part's grep for credentials.
import { randomBytes } from 'node:crypto';

const FORM = 'application/x-www-form-urlencoded';
const TIMEOUT_MS = 60_000;

/** The words of an HTML page, tags and runs of spaces gone, for the table and the checks. */
export function wordsOf(html, max = 160) {
  const text = String(html).replace(/<(style|script)[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ')
    .replace(/&#39;|&apos;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A client of the runtime's pages at `base`; `answered` hears every answer's status and path. */
export function pageClient(base, seen, answered) {
  const go = async (path, { method = 'GET', headers = {}, body } = {}) => {
    const init = { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) };
    if (body && typeof body.getReader === 'function') init.duplex = 'half';
    const res = await fetch(`${base}${path}`, init);
    const text = await res.text();
    seen.push(text);
    answered(`${method} ${path.slice(0, 80)}`, res.status, text);
    return { status: res.status, type: res.headers.get('content-type') ?? '', text, cookies: res.headers.getSetCookie() };
  };
  /** Opens a page and takes the proof its forms carry, when it gives one. */
  const open = async (path) => {
    const page = await go(path);
    const cookie = page.cookies.map((c) => c.split(';')[0]).find((c) => c.startsWith('page-form='));
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
    return { ...page, proof: cookie && csrf ? { cookie, csrf } : null };
  };
  /** Posts a form as the page's own would: from this origin, with the proof (or what stands for it). */
  const post = (path, fields, proof, headers = {}) => go(path, {
    method: 'POST',
    headers: { 'content-type': FORM, origin: base, ...(proof?.cookie ? { cookie: proof.cookie } : {}), ...headers },
    body: new URLSearchParams({ ...(proof?.csrf ? { csrf: proof.csrf } : {}), ...fields }).toString(),
  });
  return { base, go, open, post };
}

/** Gives a key on a link's page and approves it: the answer of the approve. */
export async function giveKey(pages, path, key) {
  const page = await pages.open(path);
  if (!page.proof) throw new Error(`the page ${path} gave no proof: ${page.status} ${wordsOf(page.text)}`);
  const given = await pages.post(`${path}/credential`, { value: key }, page.proof);
  if (given.status !== 200) throw new Error(`giving the key on ${path}: ${given.status} ${wordsOf(given.text)}`);
  return pages.post(`${path}/approve`, {}, page.proof);
}

/** A body of `bytes` sent as a stream, so it goes chunked with no Content-Length. */
function streamOf(bytes) {
  const chunk = Buffer.from(`value=${'k'.repeat(64 * 1024)}`);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.length;
      return controller.enqueue(chunk);
    },
  });
}

const aToken = () => `cl_${randomBytes(24).toString('base64url').slice(0, 32)}`;

/**
 * The link tokens a page is opened with that name no link of the org: each must be refused with
 * the status given, in words, as an HTML page. `link` is the path of a live link.
 */
export function hostileLinks(link) {
  const token = link.split('/').pop();
  return [
    { name: 'a well-formed token no link has', path: `/connect/local/${aToken()}`, status: [404] },
    { name: 'a token of another shape', path: '/connect/local/not-a-link', status: [404] },
    { name: 'a token of 4,000 characters', path: `/connect/local/cl_${'a'.repeat(4000)}`, status: [404, 414] },
    { name: 'a token of bytes that are not UTF-8', path: '/connect/local/%00%ff%fe%C0%AF', status: [404] },
    { name: 'a token that climbs out of its path', path: '/connect/local/..%2F..%2Fv1%2Fguides', status: [404] },
    { name: 'a script in the token', path: `/connect/local/${encodeURIComponent('<script>alert(1)</script>')}`, status: [404] },
    { name: 'the live token under another org', path: `/connect/acme/${token}`, status: [403, 404] },
    { name: 'the live token with a path after it', path: `${link}/approve/again`, status: [404] },
    { name: 'a form\'s address opened with GET', path: `${link}/approve`, status: [404, 405] },
  ];
}

/**
 * The forms posted to a live link's approve (or beside it) that must do nothing: no proof, a
 * wrong one, another site, too large, not a form, another org, an unknown step or token.
 * `proof` is a good proof of `link`, which the cases break one way each.
 */
export function hostileForms(link, proof) {
  const token = link.split('/').pop();
  const approve = `${link}/approve`;
  return [
    { name: 'no proof at all', send: (p) => p.post(approve, {}, null), status: [403] },
    { name: 'the csrf field without its cookie', send: (p) => p.post(approve, {}, { csrf: proof.csrf }), status: [403] },
    { name: 'the cookie without the csrf field', send: (p) => p.post(approve, {}, { cookie: proof.cookie }), status: [403] },
    { name: 'a csrf field that is not the cookie\'s', send: (p) => p.post(approve, {}, { cookie: proof.cookie, csrf: 'A'.repeat(43) }), status: [403] },
    { name: 'a good proof from another site (Origin)', send: (p) => p.post(approve, {}, proof, { origin: 'http://evil.test' }), status: [403] },
    { name: 'a good proof with Origin: null', send: (p) => p.post(approve, {}, proof, { origin: 'null' }), status: [403] },
    {
      name: 'a good proof, cross-site by Sec-Fetch-Site, no Origin',
      send: (p) => p.go(approve, { method: 'POST', headers: { 'content-type': FORM, cookie: proof.cookie, 'sec-fetch-site': 'cross-site' }, body: `csrf=${proof.csrf}` }),
      status: [403],
    },
    { name: 'a good proof in a form of 64 KiB', send: (p) => p.post(`${link}/credential`, { value: 'k'.repeat(64 * 1024) }, proof), status: [413] },
    {
      name: 'a good proof, 4 MiB sent chunked',
      send: (p) => p.go(`${link}/credential`, { method: 'POST', headers: { 'content-type': FORM, origin: p.base, cookie: proof.cookie }, body: streamOf(4 * 1024 * 1024) })
        .catch((error) => ({ status: 0, type: '', text: `no answer: ${error.cause?.code ?? error.message}` })),
      status: [413],
    },
    {
      name: 'a good proof in a body that is not a form',
      send: (p) => p.go(approve, { method: 'POST', headers: { 'content-type': FORM, origin: p.base, cookie: proof.cookie }, body: `csrf=${proof.csrf}&%zz%=%E0%A4&&==` }),
      status: [400, 403],
    },
    { name: 'a good proof to a step no page has', send: (p) => p.post(`${link}/delete`, {}, proof), status: [404] },
    { name: 'a good proof to the live token under another org', send: (p) => p.post(`/connect/acme/${token}/approve`, {}, proof), status: [403, 404] },
    { name: 'a good proof to a token no link has', send: (p) => p.post(`/connect/local/${aToken()}/approve`, {}, proof), status: [404] },
    { name: 'a good proof with PUT', send: (p) => p.go(approve, { method: 'PUT', headers: { 'content-type': FORM, cookie: proof.cookie }, body: `csrf=${proof.csrf}` }), status: [404, 405] },
  ];
}

/**
 * Redirects back from a service that no consent of this browser started: no flow cookie, one
 * naming no link, another org or nonsense, and a live link's (which started no consent) with a
 * made-up code and state, or with the service's refusal.
 */
export function forgedCallbacks(link) {
  const token = link.split('/').pop();
  const at = (query, flow) => (p) => p.go(`/connect/callback?${query}`, { headers: flow ? { cookie: `connect-flow=${flow}` } : {} });
  return [
    { name: 'no flow cookie', send: at('code=made-up&state=made-up'), status: [400] },
    { name: 'a flow naming no link', send: at('code=made-up&state=made-up', `local~${aToken()}`), status: [400, 404, 409] },
    { name: 'a flow of another org', send: at('code=made-up&state=made-up', `acme~${token}`), status: [403, 404] },
    { name: 'a flow cookie of nonsense', send: at('code=made-up&state=made-up', '%ff%00~~~'), status: [400, 404] },
    { name: 'the live link, a made-up code and state', send: at('code=made-up&state=made-up', `local~${token}`), status: [400, 409] },
    { name: 'the live link, the service\'s refusal', send: at('error=access_denied&state=made-up', `local~${token}`), status: [400, 409] },
    { name: 'the live link, no query at all', send: at('', `local~${token}`), status: [400, 409] },
  ];
}
