// The connection stand-in (standin_service.mjs) used as a real client would use it, without the
// runtime: discovery from the MCP server's 401, registration by DCR, an authorization code flow with
// PKCE and a resource indicator in headless Chromium, the token on the official MCP SDK client, a
// refresh, a revocation; the keyed MCP server and the OpenAPI API with and without their keys; the
// token endpoint's failure modes. The connection tests rely on each of these, so a stand-in that
// got one wrong would hide a runtime bug or invent one.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { launchBrowser } from './browser.mjs';
import { signInAtService, startStandinService } from './standin_service.mjs';

const b64url = (buf) => buf.toString('base64url');

/** Connects the SDK client to `url` with `headers` on every request. */
async function sdkClient(url, headers) {
  const client = new Client({ name: 'standin-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function form(url, fields) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
  return { status: res.status, json: await res.json() };
}

/** A tools/call as raw JSON-RPC, for the answers the SDK client turns into exceptions. */
function rawCall(url, headers, name, args = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
}

describe('the connection stand-in', () => {
  let service;
  let browser;
  let callback; // the redirect URI: a page that says the browser came back
  before(async () => {
    service = await startStandinService();
    browser = await launchBrowser();
    const server = http.createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<p>Back at the client.</p>'); });
    await new Promise((r) => { server.listen(0, '127.0.0.1', r); });
    callback = { url: `http://127.0.0.1:${server.address().port}/callback`, close: () => new Promise((r) => { server.close(r); }) };
  });
  after(async () => {
    await browser?.close();
    await callback?.close();
    await service?.close();
  });

  test('OAuth: discovered from the 401, registered by DCR, signed in with PKCE and a resource, refreshed, revoked', async () => {
    // Discovery, as the MCP authorization spec has a client do it.
    const unauthorized = await rawCall(service.mcpUrl, {}, 'list_issues');
    assert.equal(unauthorized.status, 401);
    const challenge = unauthorized.headers.get('www-authenticate');
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    assert.equal(metadataUrl, `${service.issuer}/.well-known/oauth-protected-resource/mcp`);
    const resource = await (await fetch(metadataUrl)).json();
    assert.equal(resource.resource, service.mcpUrl);
    assert.deepEqual(resource.authorization_servers, [service.issuer]);
    const as = await (await fetch(`${resource.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json();
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.ok(as.registration_endpoint, 'registration is open');

    // Dynamic client registration, a public client as MCP clients often are.
    const registered = await fetch(as.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Playbook runtime (test)',
        redirect_uris: [callback.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.equal(registered.status, 201);
    const { client_id: clientId } = await registered.json();
    assert.deepEqual(service.clients().map((c) => c.client_id), [clientId]);

    const verifier = b64url(randomBytes(32));
    const state = b64url(randomBytes(16));
    const authorizeUrl = (extra = {}) => `${as.authorization_endpoint}?${new URLSearchParams({
      response_type: 'code', client_id: clientId, redirect_uri: callback.url, scope: service.scopes.read, state, resource: service.mcpUrl,
      code_challenge: b64url(createHash('sha256').update(verifier).digest()), code_challenge_method: 'S256', ...extra,
    })}`;

    // PKCE is required: without a challenge the request goes back with an error, no page shown.
    const noPkce = new URL(authorizeUrl());
    noPkce.searchParams.delete('code_challenge');
    noPkce.searchParams.delete('code_challenge_method');
    const refused = await fetch(noPkce, { redirect: 'manual' });
    assert.equal(new URL(refused.headers.get('location')).searchParams.get('error'), 'invalid_request');

    const page = await browser.newPage();
    await page.goto(authorizeUrl());
    const back = new URL(await signInAtService(page, 'ada'));
    assert.equal(`${back.origin}${back.pathname}`, callback.url);
    assert.equal(back.searchParams.get('state'), state);
    const code = back.searchParams.get('code');
    assert.ok(code, `a code came back: ${back}`);

    const exchanged = await form(as.token_endpoint, {
      grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: callback.url, client_id: clientId, resource: service.mcpUrl,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.json));
    assert.equal(exchanged.json.token_type, 'Bearer');
    assert.equal(exchanged.json.scope, service.scopes.read);
    assert.ok(exchanged.json.refresh_token, 'a refresh token for a client registered for the refresh_token grant');
    // A JWT for the MCP server alone: the resource indicator is its audience.
    const claims = JSON.parse(Buffer.from(exchanged.json.access_token.split('.')[1], 'base64url').toString());
    assert.deepEqual([claims.iss, claims.aud, claims.sub, claims.client_id], [service.issuer, service.mcpUrl, 'ada', clientId]);

    // The official SDK client, with the token: the person who signed in is who the tools act as.
    let client = await sdkClient(service.mcpUrl, { authorization: `Bearer ${exchanged.json.access_token}` });
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.equal(byName.list_issues.annotations.readOnlyHint, true);
    assert.equal(byName.create_issue.annotations.destructiveHint, true);
    const listed = await client.callTool({ name: 'list_issues', arguments: {} });
    assert.match(listed.content[0].text, /^Issues \(open\) as Ada Lovelace sees them:\n#1 Export to CSV drops the last row \(open\)/);
    await client.close();

    // create_issue needs the write scope, which this token was not granted.
    const noWrite = await rawCall(service.mcpUrl, { authorization: `Bearer ${exchanged.json.access_token}` }, 'create_issue', { title: 'x' });
    assert.equal(noWrite.status, 403);
    assert.match(noWrite.headers.get('www-authenticate'), /error="insufficient_scope", scope="issues:write"/);

    // An expired access token is refused; the refresh token gets a new one (and, for a public
    // client, a new refresh token: the old one is spent).
    service.expireAccessTokens();
    assert.equal((await rawCall(service.mcpUrl, { authorization: `Bearer ${exchanged.json.access_token}` }, 'list_issues')).status, 401);
    const refreshed = await form(as.token_endpoint, { grant_type: 'refresh_token', refresh_token: exchanged.json.refresh_token, client_id: clientId });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    assert.notEqual(refreshed.json.refresh_token, exchanged.json.refresh_token);
    client = await sdkClient(service.mcpUrl, { authorization: `Bearer ${refreshed.json.access_token}` });
    assert.match((await client.callTool({ name: 'list_issues', arguments: { state: 'closed' } })).content[0].text, /#3 Typo on the billing page/);
    await client.close();

    // Revoked at the service: the token is a 401 that still says where to sign in, the refresh is refused.
    service.revokeAll();
    const revoked = await rawCall(service.mcpUrl, { authorization: `Bearer ${refreshed.json.access_token}` }, 'list_issues');
    assert.equal(revoked.status, 401);
    assert.match(revoked.headers.get('www-authenticate'), /resource_metadata=".+", error="invalid_token"/);
    const refusedRefresh = await form(as.token_endpoint, { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: clientId });
    assert.equal(refusedRefresh.status, 400);
    assert.equal(refusedRefresh.json.error, 'invalid_grant');

    // Signed in still, the person is asked to consent again, and may decline.
    await page.goto(authorizeUrl({ scope: `${service.scopes.read} ${service.scopes.write}` }));
    const declined = new URL(await signInAtService(page, 'ada', { decline: true }));
    assert.equal(declined.searchParams.get('error'), 'access_denied');

    const tokenCalls = service.requests().filter((r) => r.route === 'token');
    assert.deepEqual(tokenCalls.map((r) => [r.grant_type, r.status, r.error]),
      [['authorization_code', 200, undefined], ['refresh_token', 200, undefined], ['refresh_token', 400, 'invalid_grant']]);
    assert.deepEqual(service.issuedTokens().refresh, [exchanged.json.refresh_token, refreshed.json.refresh_token]);
  });

  test('a write with the write scope names the person, and a second person is told apart', async () => {
    const as = await (await fetch(`${service.issuer}/.well-known/oauth-authorization-server`)).json();
    const { client_id: clientId } = await (await fetch(as.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [callback.url], token_endpoint_auth_method: 'none' }),
    })).json();
    const verifier = b64url(randomBytes(32));
    const second = await launchBrowser(); // Grace's own browser: the first holds Ada's session
    try {
      const page = await second.newPage();
      await page.goto(`${as.authorization_endpoint}?${new URLSearchParams({
        response_type: 'code', client_id: clientId, redirect_uri: callback.url, scope: `${service.scopes.read} ${service.scopes.write}`,
        resource: service.mcpUrl, code_challenge: b64url(createHash('sha256').update(verifier).digest()), code_challenge_method: 'S256',
      })}`);
      const code = new URL(await signInAtService(page, 'grace')).searchParams.get('code');
      const tokens = await form(as.token_endpoint, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: callback.url, client_id: clientId, resource: service.mcpUrl });
      assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
      assert.equal(tokens.json.refresh_token, undefined, 'no refresh token to a client not registered for the grant');
      const client = await sdkClient(service.mcpUrl, { authorization: `Bearer ${tokens.json.access_token}` });
      const made = await client.callTool({ name: 'create_issue', arguments: { title: 'Search ignores accents' } });
      assert.equal(made.content[0].text, 'Grace Hopper opened issue #4: Search ignores accents');
      await client.close();
      assert.deepEqual(service.issues().at(-1), { number: 4, title: 'Search ignores accents', state: 'open', by: 'grace' });
    } finally {
      await second.close();
    }
  });

  test('the token endpoint fails as told: 500, garbage, a stall; then answers again', async () => {
    const token = `${service.issuer}/token`;
    const body = { grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: 'nobody' };
    service.failTokenEndpoint('error');
    const failed = await fetch(token, { method: 'POST', body: new URLSearchParams(body) });
    assert.equal(failed.status, 500);
    service.failTokenEndpoint('garbage');
    const garbage = await fetch(token, { method: 'POST', body: new URLSearchParams(body) });
    assert.equal(garbage.status, 200);
    await assert.rejects(garbage.json(), SyntaxError);
    service.failTokenEndpoint('stall');
    await assert.rejects(fetch(token, { method: 'POST', body: new URLSearchParams(body), signal: AbortSignal.timeout(300) }), { name: 'TimeoutError' });
    service.failTokenEndpoint(null);
    const answered = await form(token, body);
    assert.equal(answered.status, 401);
    assert.equal(answered.json.error, 'invalid_client');
  });

  test('the keyed MCP server takes its key and names no authorization server', async () => {
    const without = await rawCall(service.keyedMcpUrl, {}, 'list_tasks');
    assert.equal(without.status, 401);
    assert.doesNotMatch(without.headers.get('www-authenticate') ?? '', /resource_metadata/);
    const wrong = await rawCall(service.keyedMcpUrl, { authorization: `Bearer ${service.keys.api}` }, 'list_tasks');
    assert.equal(wrong.status, 401, 'the API key is not the MCP key');
    const client = await sdkClient(service.keyedMcpUrl, { authorization: `Bearer ${service.keys.mcp}` });
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['list_tasks', 'add_task']);
    assert.equal((await client.callTool({ name: 'add_task', arguments: { title: 'Book the venue' } })).content[0].text, 'Added t_3: Book the venue');
    assert.match((await client.callTool({ name: 'list_tasks', arguments: {} })).content[0].text, /t_3 \[ \] Book the venue$/);
    await client.close();
  });

  test('the OpenAPI API: its document, a read and a write with X-Api-Key, refused without', async () => {
    const doc = await (await fetch(service.openapiUrl)).json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.servers[0].url, service.apiBaseUrl);
    assert.deepEqual(doc.components.securitySchemes.apiKey, { type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    assert.deepEqual(Object.keys(doc.paths['/tasks']), ['get', 'post']);
    const tasks = `${service.apiBaseUrl}/tasks`;
    assert.equal((await fetch(tasks)).status, 401);
    assert.equal((await fetch(tasks, { headers: { 'x-api-key': service.keys.mcp } })).status, 401);
    const made = await fetch(tasks, { method: 'POST', headers: { 'x-api-key': service.keys.api, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Order badges' }) });
    assert.equal(made.status, 201);
    const listed = await (await fetch(tasks, { headers: { 'x-api-key': service.keys.api } })).json();
    assert.deepEqual(listed.tasks.at(-1), { id: 't_4', title: 'Order badges', done: false });
    assert.equal(service.counts().api, 4);
  });
});
