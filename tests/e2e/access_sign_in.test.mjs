// Sign-in end to end: a runtime with PUBLIC_URL set, a real OpenID provider on loopback
// (oidc-provider), and the official TypeScript client's own OAuth support. From the first 401,
// the client discovers the runtime's metadata, registers itself, sends the person to sign in;
// the person signs in at the provider and allows access on the runtime's consent page; then
// the client calls tools as the person, refreshes, is refused once revoked, and loses what the
// person's role loses. A client ID metadata document is walked through by hand, since the SDK
// takes only https addresses for one.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { browser, forms } from './browse.mjs';
import { freePort, panicLines, startRuntime } from './harness.mjs';
import { PEOPLE, startOidcProvider } from './oidc_provider.mjs';

const ADMIN = `admin-${'x'.repeat(40)}`;
const CALLBACK = 'http://127.0.0.1:1/callback'; // never reached: the browser stops at it
const BROWSER_CLIENT = 'http://inspector.test:6274'; // a browser MCP client's origin, as the Inspector's

/** An OAuthClientProvider that keeps everything in memory, as a client app would on disk. */
function memoryProvider(name) {
  const kept = { authorizationUrl: undefined };
  return {
    kept,
    get redirectUrl() { return CALLBACK; },
    get clientMetadata() {
      return { client_name: name, redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    },
    clientInformation() { return kept.client; },
    saveClientInformation(info) { kept.client = info; },
    tokens() { return kept.tokens; },
    saveTokens(tokens) { kept.tokens = tokens; },
    redirectToAuthorization(url) { kept.authorizationUrl = url.toString(); },
    saveCodeVerifier(v) { kept.verifier = v; },
    codeVerifier() { return kept.verifier; },
  };
}

/** The person (a key of PEOPLE) signs in at the provider and answers the runtime's consent page. */
async function signIn(authorizationUrl, who, { decision = 'allow', runtimeOrigin } = {}) {
  const login = PEOPLE[who].sub;
  const b = browser();
  let page = await b.go(authorizationUrl, { stopAt: CALLBACK });
  // The provider's own pages: its login, then its consent to share the person's claims.
  for (let step = 0; step < 4 && page.url.includes('/interaction/'); step += 1) {
    const [form] = forms(page);
    const fields = form.fields.prompt === 'login' || 'login' in form.fields ? { ...form.fields, login, password: 'any' } : form.fields;
    page = await b.go(form.action, { method: 'POST', form: fields, stopAt: CALLBACK });
  }
  if (page.url.startsWith(CALLBACK)) return { page, code: new URL(page.url).searchParams.get('code') };
  const consent = forms(page).find((f) => f.action.endsWith('/oauth/consent'));
  if (!consent) return { page, code: null }; // a page that stops the sign-in, which the test reads
  const ended = await b.go(consent.action, { method: 'POST', form: { ...consent.fields, decision }, stopAt: CALLBACK, origin: runtimeOrigin });
  return { consentPage: page, page: ended, url: ended.url, code: ended.url.startsWith(CALLBACK) ? new URL(ended.url).searchParams.get('code') : null };
}

describe('sign-in through the runtime as authorization server', () => {
  let runtime; let oidc; let stateDir; let base;
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider(base);
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-signin-'));
    runtime = await startRuntime({
      stateDir, port,
      vars: { ...oidc.vars, PUBLIC_URL: base, ADMIN_TOKEN: ADMIN, OWNERS: `acme=${PEOPLE.ada.email}`, ALLOWED_ORIGINS: BROWSER_CLIENT },
    });
  });
  after(async () => {
    const panics = runtime ? panicLines(runtime.logs()) : [];
    // No credential in any log line: not a key, a code, an access or a refresh token, nor the provider's secret.
    const logs = runtime?.logs() ?? '';
    assert.deepEqual(logs.match(/pb(?:k|at|rt|ac|cs)_[A-Za-z0-9_-]{16,}/g) ?? [], [], 'the log holds no credential');
    assert.ok(!oidc || !logs.includes(oidc.clientSecret), 'the log holds no client secret');
    await runtime?.stop();
    await oidc?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panics, [], 'the Worker did not panic');
  });

  test('a request with no credential is challenged to the endpoint metadata', async () => {
    const res = await fetch(`${base}/orgs/acme/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate');
    assert.match(challenge, /^Bearer /);
    assert.ok(challenge.includes(`resource_metadata="${base}/.well-known/oauth-protected-resource/orgs/acme/mcp"`), challenge);
    assert.ok(challenge.includes('scope="org:read org:write playbook:read playbook:write"'), challenge);
    const prm = await (await fetch(`${base}/.well-known/oauth-protected-resource/orgs/acme/mcp`)).json();
    assert.equal(prm.resource, `${base}/orgs/acme/mcp`);
    assert.deepEqual(prm.authorization_servers, [base]);
    const as = await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json();
    assert.equal(as.issuer, base);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.equal(as.client_id_metadata_document_supported, true);
    // Local mode is off once sign-in is on, even on loopback, and the refusal says to sign in.
    const local = await fetch(`${base}/v1/orgs/local/playbooks`);
    assert.equal(local.status, 401);
    assert.match((await local.json()).detail, /Sign in from your MCP client/);
  });

  test('a browser client of an allowed origin may send a credential and read the challenge; another origin is refused', async () => {
    const preflight = await fetch(`${base}/mcp`, { method: 'OPTIONS', headers: { origin: BROWSER_CLIENT, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), BROWSER_CLIENT);
    assert.match(preflight.headers.get('access-control-allow-headers'), /authorization/);
    const challenged = await fetch(`${base}/mcp`, { method: 'POST', headers: { origin: BROWSER_CLIENT, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(challenged.status, 401);
    assert.equal(challenged.headers.get('access-control-allow-origin'), BROWSER_CLIENT);
    assert.match(challenged.headers.get('access-control-expose-headers'), /www-authenticate/);
    const metadata = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { headers: { origin: BROWSER_CLIENT } });
    assert.equal(metadata.headers.get('access-control-allow-origin'), BROWSER_CLIENT, 'the client reads the metadata too');
    const foreign = await fetch(`${base}/mcp`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  });

  let provider; let transport; let client;
  test('the SDK client signs Ada in with dynamic registration, PKCE and consent, then acts as her', async () => {
    provider = memoryProvider('e2e sign-in client');
    transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    client = new Client({ name: 'e2e-sign-in', version: '1.0.0' });
    await assert.rejects(client.connect(transport), UnauthorizedError);
    assert.ok(provider.kept.client?.client_id?.startsWith('pbcl_'), 'registered dynamically');
    const url = new URL(provider.kept.authorizationUrl);
    assert.equal(url.origin + url.pathname, `${base}/oauth/authorize`);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    const { code, consentPage } = await signIn(url.toString(), 'ada', { runtimeOrigin: base });
    assert.ok(consentPage.html.includes('Ada Lovelace') && consentPage.html.includes('e2e sign-in client'), 'the page says who asks for whom');
    assert.ok(consentPage.html.includes('<code>/mcp</code>'), 'and for which endpoint');
    assert.equal(consentPage.headers.get('x-frame-options'), 'DENY');
    assert.match(consentPage.headers.get('content-security-policy'), /frame-ancestors 'none'/);
    assert.ok(code?.startsWith('pbac_'), 'the client gets its code');
    await transport.finishAuth(code);
    transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    client = new Client({ name: 'e2e-sign-in', version: '1.0.0' });
    await client.connect(transport);
    assert.ok(client.getInstructions().includes('This connection acts as Ada Lovelace (person:user_2ada) in the org acme.'), client.getInstructions());
    const made = await client.callTool({ name: 'create_playbook', arguments: { name: `signed in ${Date.now()}` } });
    assert.ok(!made.isError, JSON.stringify(made.content));
    assert.equal(made.structuredContent.created_by.kind, 'person');
    assert.equal(made.structuredContent.created_by.id, 'person:user_2ada');
  });

  test('a refresh gives new tokens, and a refresh race signs nobody out', async () => {
    const tokens = provider.kept.tokens;
    const form = (refresh) => new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refresh, client_id: provider.kept.client.client_id }).toString();
    const post = (body) => fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const [a, b] = await Promise.all([post(form(tokens.refresh_token)), post(form(tokens.refresh_token))]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200, 'the loser of the race is not signed out');
    const [ta, tb] = [await a.json(), await b.json()];
    for (const t of [ta, tb]) {
      const res = await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: { authorization: `Bearer ${t.access_token}` } });
      assert.equal(res.status, 200);
    }
    provider.kept.tokens = ta;
  });

  test('a token granted for one endpoint is refused on another org and another resource', async () => {
    const token = provider.kept.tokens.access_token;
    const rpc = { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) };
    assert.equal((await fetch(`${base}/orgs/acme/mcp`, rpc)).status, 401, 'a /mcp token does not serve /orgs/acme/mcp');
    assert.equal((await fetch(`${base}/orgs/globex/mcp`, rpc)).status, 401);
    const other = await fetch(`${base}/v1/orgs/globex/playbooks`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(other.status, 403, 'the HTTP API of another org');
  });

  test('a role taken away takes effect on the next request', async () => {
    const token = provider.kept.tokens.access_token;
    const give = await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: admin, body: JSON.stringify({ person: 'person:user_3grace', role: 'owner' }) });
    assert.equal(give.status, 200, await give.text());
    const roles = await (await fetch(`${base}/v1/orgs/acme/roles`, { headers: admin })).json();
    assert.deepEqual(roles.assignments.map((a) => [a.person, a.role]).sort(), [['person:user_2ada', 'owner'], ['person:user_3grace', 'owner']]);
    assert.equal((await fetch(`${base}/v1/orgs/acme/roles/person:user_2ada`, { method: 'DELETE', headers: admin })).status, 200);
    const res = await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 403);
    const doc = await res.json();
    assert.equal(doc.kind, 'insufficient_scope');
    assert.match(res.headers.get('www-authenticate'), /error="insufficient_scope", scope="playbook:read"/);
    const back = await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: admin, body: JSON.stringify({ person: 'person:user_2ada', role: 'editor' }) });
    assert.equal(back.status, 200);
    assert.equal((await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  });

  test('revocation ends the grant: its tokens are refused', async () => {
    const { access_token: token, refresh_token: refresh } = provider.kept.tokens;
    const res = await fetch(`${base}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: refresh, client_id: provider.kept.client.client_id }).toString() });
    assert.equal(res.status, 200);
    const after = await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(after.status, 401);
    assert.match(after.headers.get('www-authenticate'), /error="invalid_token"/);
  });

  test('a person with no role is told on the page whom to ask, and a declined consent goes back as access_denied', async () => {
    provider = memoryProvider('e2e second client');
    transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await assert.rejects(new Client({ name: 'x', version: '1' }).connect(transport), UnauthorizedError);
    const nobody = await signIn(provider.kept.authorizationUrl, 'nobody', { runtimeOrigin: base });
    assert.equal(nobody.consentPage, undefined);
    assert.equal(nobody.page.status, 403);
    assert.ok(nobody.page.html.includes('person:user_4nobody') && nobody.page.html.includes('owner or admin'), nobody.page.html);
    await assert.rejects(new Client({ name: 'x', version: '1' }).connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider })), UnauthorizedError);
    const declined = await signIn(provider.kept.authorizationUrl, 'grace', { decision: 'deny', runtimeOrigin: base });
    assert.equal(new URL(declined.url).searchParams.get('error'), 'access_denied');
    assert.equal(new URL(declined.url).searchParams.get('iss'), base);
  });

  test('a consent posted from another site is refused', async () => {
    provider = memoryProvider('e2e third client');
    transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await assert.rejects(new Client({ name: 'x', version: '1' }).connect(transport), UnauthorizedError);
    const refused = await signIn(provider.kept.authorizationUrl, 'grace', { runtimeOrigin: 'https://evil.example' });
    assert.equal(refused.code, null);
    assert.equal(refused.page.status, 403);
  });

  test('a client ID metadata document is fetched and its client signs in', async () => {
    const docPort = await freePort();
    const clientId = `http://127.0.0.1:${docPort}/client.json`;
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ client_id: clientId, client_name: 'Metadata document client', redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }));
    }).listen(docPort, '127.0.0.1');
    try {
      const verifier = 'v'.repeat(64);
      const { createHash } = await import('node:crypto');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const url = `${base}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: CALLBACK, code_challenge: challenge, code_challenge_method: 'S256', state: 's1', resource: `${base}/mcp`, scope: 'playbook:read' })}`;
      const { code, consentPage } = await signIn(url, 'grace', { runtimeOrigin: base });
      assert.ok(consentPage.html.includes('Metadata document client'));
      const token = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK, resource: `${base}/mcp` }).toString() });
      assert.equal(token.status, 200, await token.clone().text());
      const t = await token.json();
      assert.equal(t.scope, 'playbook:read');
      const again = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: CALLBACK }).toString() });
      assert.equal(again.status, 400, 'a code works once');
      assert.equal((await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: { authorization: `Bearer ${t.access_token}` } })).status, 401, 'and its second use revoked the grant');
    } finally {
      server.close();
    }
  });
});
