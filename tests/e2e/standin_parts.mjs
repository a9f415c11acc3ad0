// The parts of the connection stand-in (standin_service.mjs) that are not its configuration: the
// service's accounts and its sign-in pages over oidc-provider's interaction API, the helper that
// completes them in Chromium, the provider's storage, and one MCP request answered by the SDK.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { readBody } from './http_body.mjs';

/** The service's own accounts: a person signs in at the service with their login and password. */
export const SERVICE_PEOPLE = {
  ada: { login: 'ada', password: 'ada-at-the-service', name: 'Ada Lovelace' },
  grace: { login: 'grace', password: 'grace-at-the-service', name: 'Grace Hopper' },
};

export const text = (t) => ({ content: [{ type: 'text', text: t }] });
const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** The provider's storage, one per service (its own memory adapter is shared by every provider in
 * the process), so that revokeAll can forget this service's tokens and grants and nothing else. */
export function mapAdapter(store) {
  return class MapAdapter {
    constructor(model) { this.model = model; }
    key(id) { return `${this.model}:${id}`; }
    async upsert(id, payload, expiresIn) {
      store.set(this.key(id), { model: this.model, payload: structuredClone(payload), until: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    }
    async find(id) {
      const entry = store.get(this.key(id));
      if (!entry || entry.until <= Date.now()) return undefined;
      return structuredClone(entry.payload);
    }
    async findByUid(uid) {
      const found = [...store.values()].find((e) => e.model === this.model && e.payload.uid === uid);
      return found ? this.find(found.payload.jti) : undefined;
    }
    async findByUserCode() { return undefined; }
    async consume(id) {
      const entry = store.get(this.key(id));
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id) { store.delete(this.key(id)); }
    async revokeByGrantId(grantId) {
      for (const [key, entry] of store) if (entry.payload.grantId === grantId) store.delete(key);
    }
  };
}

/** A page of the service's sign-in: a form the helper finds by its data-standin-step. */
function page(title, body) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

/** The login and consent pages, over oidc-provider's interaction API. */
export async function interaction(provider, req, res, url, people) {
  const [, , uid, action] = url.pathname.split('/');
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) return sendJson(res, 400, { error: 'interaction mismatch' });
  const form = new URLSearchParams(req.method === 'POST' ? await readBody(req) : '');
  const html = (status, body) => { res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }); res.end(body); };

  if (details.prompt.name === 'login') {
    let error = '';
    if (action === 'login' && req.method === 'POST') {
      const person = people[form.get('login') ?? ''];
      if (person && person.password === form.get('password')) {
        return provider.interactionFinished(req, res, { login: { accountId: person.login } }, { mergeWithLastSubmission: false });
      }
      error = '<p role="alert">No one at the service signs in with that login and password.</p>';
    }
    return html(error ? 401 : 200, page('Sign in to the Stand-in tracker', `${error}
<form method="post" action="/interaction/${uid}/login" data-standin-step="login">
<label>Login <input name="login" autocomplete="username"></label>
<label>Password <input name="password" type="password" autocomplete="current-password"></label>
<button type="submit">Sign in</button></form>`));
  }

  if (details.prompt.name !== 'consent') return sendJson(res, 501, { error: `no page for the prompt ${details.prompt.name}` });
  if (action === 'confirm' && req.method === 'POST') {
    if (form.get('decision') !== 'allow') {
      return provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The person declined at the service.' }, { mergeWithLastSubmission: false });
    }
    // Grant what the request asks, as a person who clicks "Allow" does.
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = details.prompt.details;
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  const client = await provider.Client.find(details.params.client_id);
  const asked = Object.entries(details.prompt.details.missingResourceScopes ?? {})
    .map(([resource, scopes]) => `<li>${escapeHtml(resource)}: ${scopes.map(escapeHtml).join(', ')}</li>`).join('');
  return html(200, page('Allow access to the Stand-in tracker?', `
<p>${escapeHtml(client?.clientName ?? details.params.client_id)} asks to act as ${escapeHtml(people[details.session.accountId]?.name ?? details.session.accountId)}.</p>
<ul>${asked}</ul>
<form method="post" action="/interaction/${uid}/confirm" data-standin-step="consent">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></form>`));
}

/** One MCP request, answered by the SDK's Server over a stateless transport made for it. */
export async function mcp(req, res, body, tools, call, auth) {
  const server = new Server({ name: 'standin', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    if (!tools.some((t) => t.name === request.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return call(request.params.name, request.params.arguments ?? {}, extra.authInfo);
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => { transport.close().catch(() => {}); server.close().catch(() => {}); });
  await server.connect(transport);
  req.auth = auth;
  await transport.handleRequest(req, res, body);
}

export const parse = (raw) => { try { return raw ? JSON.parse(raw) : undefined; } catch { return null; } };

/**
 * Signs `login` in at the service and answers its consent in Chromium, from wherever `page` is:
 * each login or consent page of the service it finds it completes, until the browser has left the
 * service (a session or a grant already there skips its page). Answers the address it ended at.
 * @param {import('puppeteer-core').Page} page
 * @param {string} login one of SERVICE_PEOPLE
 * @param {{decline?: boolean}} [options] decline: press Deny at the consent page
 */
export async function signInAtService(page, login, { decline = false } = {}) {
  const person = SERVICE_PEOPLE[login];
  if (!person) throw new Error(`no one at the service signs in as ${login}`);
  for (let step = 0; step < 4; step += 1) {
    const at = await page.$eval('form[data-standin-step]', (f) => f.dataset.standinStep).catch(() => null);
    if (!at) return page.url();
    if (at === 'login') {
      await page.type('input[name=login]', person.login);
      await page.type('input[name=password]', person.password);
      await Promise.all([page.waitForNavigation(), page.click('form[data-standin-step=login] button[type=submit]')]);
      if (await page.$('[role=alert]')) throw new Error(`the service refused the sign-in of ${login}`);
    } else {
      await Promise.all([page.waitForNavigation(), page.click(`button[name=decision][value=${decline ? 'deny' : 'allow'}]`)]);
    }
  }
  throw new Error(`the service kept asking at ${page.url()}`);
}
