// Connections end to end, in local mode, against a runtime of its own whose providers
// (CONNECTION_PROVIDERS) point at the stand-in service (standin_service.mjs): an issue tracker's
// MCP server behind a real authorization server (oidc-provider, with registration, resource
// indicators and refresh), a keyed task list, and a keyed HTTP API. The agent adds each kind of
// connection through the official MCP SDK client; the person opens the link in headless Chromium,
// signs in at the service or gives the key, and approves; then the tools answer through search,
// list_connection_tools and query_connection. The token is revoked at the service and the
// connection is broken until reconnected; `more` asks a write scope; a connection is removed.
// No credential the test gave or the service issued appears in any answer or in the log.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { launchBrowser } from './browser.mjs';
import { approveOnPage, standinProviders, submit } from './connect_flow.mjs';
import { panicLines, startRuntime } from './harness.mjs';
import { assertToolFailure, assertToolSuccess, pointers } from './helpers.mjs';
import { signInAtService, startStandinService } from './standin_service.mjs';


describe('connections', () => {
  let service; let runtime; let stateDir; let client; let browser;
  const answers = [];
  const call = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args });
    answers.push(JSON.stringify(result));
    return result;
  };

  before(async () => {
    service = await startStandinService();
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-connections-'));
    runtime = await startRuntime({ stateDir, vars: { CONNECTION_PROVIDERS: JSON.stringify(standinProviders(service)) } });
    client = new Client({ name: 'connections-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtime.url}/mcp`)));
    browser = await launchBrowser();
  });
  after(async () => {
    await client?.close();
    await browser?.close();
    await runtime?.stop();
    await service?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  });

  /** Opens a link as the local developer and returns the page. */
  async function open(url) {
    const page = await browser.newPage();
    const res = await page.goto(url);
    return { page, res };
  }

  test('search finds the providers a person may connect, by their words', async () => {
    const found = assertToolSuccess(await call('search', { terms: 'issues tracker' }));
    assert.ok(found.providers.some((p) => p.name === 'tracker' && p.title === 'Tracker'), JSON.stringify(found.providers));
    const tracker = found.providers.find((p) => p.name === 'tracker');
    assert.deepEqual(tracker.more, [{ name: 'write', for: 'Open and change issues as you.' }]);

    // A playbook's endpoint lists no tool that adds a connection, so its search names no provider.
    const pb = assertToolSuccess(await call('create_playbook', { name: 'Providers' })).id;
    const scoped = new Client({ name: 'connections-test-playbook', version: '1.0.0' });
    await scoped.connect(new StreamableHTTPClientTransport(new URL(`${runtime.url}/orgs/local/playbooks/${pb}/mcp`)));
    try {
      const there = assertToolSuccess(await scoped.callTool({ name: 'search', arguments: { terms: 'issues tracker' } }));
      assert.deepEqual(there.providers, []);
    } finally {
      await scoped.close();
    }
    assertToolSuccess(await call('retire_playbook', { playbook: pb }));
  });

  let trackerId; let trackerLink;
  test('a provider with a consent: added pending, signed in at the service on the page, approved, its tools answer as the person', async () => {
    const added = await call('add_connection', { provider: 'tracker' });
    const c = assertToolSuccess(added, { summaryLimit: 1000 });
    assert.equal(c.status, 'pending');
    assert.equal(c.because, 'connection_pending');
    assert.match(c.connect.url, new RegExp(`^${runtime.url}/connect/local/cl_`));
    assert.match(added.content[0].text, /Approve the Tracker connection/);
    assert.ok(!added.content[0].text.includes(c.connect.url), 'the words never give the address');
    trackerId = c.id; trackerLink = c.connect.url;

    const again = assertToolSuccess(await call('add_connection', { provider: 'tracker' }), { summaryLimit: 1000 });
    assert.equal(again.id, trackerId, 'a retried add adds nothing');

    const { page, res } = await open(trackerLink);
    assert.equal(res.status(), 200);
    assert.equal(res.headers()['x-frame-options'], 'DENY');
    assert.match(res.headers()['content-security-policy'], /frame-ancestors 'none'/);
    assert.match(await page.content(), /Connect Tracker to the org local/);
    assert.match(await page.content(), /Read the issues you can see\./);
    await submit(page, 'start');
    assert.ok(page.url().startsWith(service.issuer), `at the service: ${page.url()}`);
    await signInAtService(page, 'ada');
    assert.ok(page.url().startsWith(trackerLink), `back on the page: ${page.url()}`);
    await submit(page, 'approve');
    assert.match(await page.content(), /Tracker is connected/);
    await page.close();

    const listed = assertToolSuccess(await call('list_connections'));
    const tracker = listed.connections.find((x) => x.id === trackerId);
    assert.equal(tracker.status, 'connected');
    assert.equal(tracker.because, undefined);
    assert.ok(tracker.granted_scopes.some((s) => s.scope === 'issues:read' && s.says === 'Read the issues you can see.'), JSON.stringify(tracker.granted_scopes));
    assert.deepEqual(tracker.more, [{ name: 'write', for: 'Open and change issues as you.' }]);

    const tools = assertToolSuccess(await call('list_connection_tools', { connection: trackerId }));
    assert.deepEqual(tools.tools.map((t) => t.name), ['create_issue', 'list_issues']);
    assert.equal(tools.tools.find((t) => t.name === 'list_issues').mark, 'reads');

    const pb = assertToolSuccess(await call('create_playbook', { name: 'Triage' })).id;
    const read = assertToolSuccess(await call('query_connection', { playbook: pb, server: 'tracker', tool: 'list_issues', arguments: {} }));
    assert.match(JSON.stringify(read), /Ada Lovelace/);
  });

  test('an access token the service ended is refreshed as the connection is used; a failing token endpoint leaves it connected', async () => {
    const pb = assertToolSuccess(await call('list_playbooks')).playbooks[0].id;
    const query = () => call('query_connection', { playbook: pb, server: 'tracker', tool: 'list_issues', arguments: {} });
    const refreshed = () => service.requests().filter((r) => r.grant_type === 'refresh_token' && r.status === 200).length;
    const tracker = async () => assertToolSuccess(await call('list_connections')).connections.find((x) => x.id === trackerId);
    const before = refreshed();
    service.expireAccessTokens();
    assert.match(JSON.stringify(assertToolSuccess(await query())), /Ada Lovelace/);
    assert.ok(refreshed() > before, 'the tokens were refreshed at the service');
    let c = await tracker();
    assert.equal(c.status, 'connected');
    assert.equal(c.because, undefined);
    assert.match(JSON.stringify(assertToolSuccess(await query())), /Ada Lovelace/, 'the refreshed token is kept');

    for (const mode of ['error', 'garbage', 'stall']) {
      service.expireAccessTokens();
      service.failTokenEndpoint(mode);
      const refused = assertToolFailure(await query(), 'unavailable');
      assert.match(refused.detail, /connection_unavailable/, `${mode}: ${refused.detail}`);
      assert.match(refused.detail, /a later call may find it put right/, `${mode}: ${refused.detail}`);
      c = await tracker();
      assert.equal(c.status, 'connected', mode);
      assert.equal(c.because, undefined, `${mode}: the connection is not broken`);
      service.failTokenEndpoint(null);
      assert.match(JSON.stringify(assertToolSuccess(await query())), /Ada Lovelace/, `${mode}: it works again once the endpoint is back`);
    }
  });

  test('a token revoked at the service breaks the connection until the person signs in again', async () => {
    service.revokeAll();
    const pb = assertToolSuccess(await call('list_playbooks')).playbooks[0].id;
    await call('query_connection', { playbook: pb, server: 'tracker', tool: 'list_issues', arguments: {} });
    const found = assertToolSuccess(await call('search', { playbook: pb, server: 'tracker' }));
    const server = found.servers.find((s) => s.name === 'tracker');
    assert.equal(server.because, 'connection_broken', JSON.stringify(server));
    assert.match(server.detail ?? JSON.stringify(server), /reconnect_connection/);

    const linked = assertToolSuccess(await call('reconnect_connection', { connection: trackerId }), { summaryLimit: 1000 });
    await (await approveOnPage(browser, linked.connect.url, { person: 'ada' })).close();
    const read = assertToolSuccess(await call('query_connection', { playbook: pb, server: 'tracker', tool: 'list_issues', arguments: {} }));
    assert.match(JSON.stringify(read), /Ada Lovelace/);

    const old = await open(trackerLink);
    assert.equal(old.res.status(), 410, 'the first link was replaced');
    await old.page.close();
  });

  test('more asks a group of scopes beyond the first consent, keeping what was allowed', async () => {
    const linked = assertToolSuccess(await call('reconnect_connection', { connection: trackerId, more: 'write' }), { summaryLimit: 1000 });
    const { page } = await open(linked.connect.url);
    assert.match(await page.content(), /Open and change issues as you\./);
    await submit(page, 'start');
    await signInAtService(page, 'ada');
    await submit(page, 'approve');
    await page.close();
    const tracker = assertToolSuccess(await call('list_connections')).connections.find((x) => x.id === trackerId);
    const granted = tracker.granted_scopes.map((s) => s.scope);
    assert.ok(granted.includes('issues:read') && granted.includes('issues:write'), granted.join(' '));
    assert.deepEqual(tracker.more, []);
    const pb = assertToolSuccess(await call('list_playbooks')).playbooks[0].id;
    const made = assertToolSuccess(await call('execute_connection', { playbook: pb, server: 'tracker', tool: 'create_issue', arguments: { title: 'From a playbook' } }));
    assert.match(JSON.stringify(made), /From a playbook/);
  });

  test('a provider with a key: given on the page, kept sealed though it misses the pattern, and used', async () => {
    const c = assertToolSuccess(await call('add_connection', { provider: 'tasks' }), { summaryLimit: 1000 });
    const { page } = await open(c.connect.url);
    assert.match(await page.content(), /Settings, Keys/);
    await page.type('input[name=value]', service.keys.mcp);
    await submit(page, 'credential');
    assert.match(await page.content(), /does not match/i, 'the page says the key misses the pattern, and keeps it');
    await submit(page, 'approve');
    await page.close();
    const pb = assertToolSuccess(await call('list_playbooks')).playbooks[0].id;
    const tools = assertToolSuccess(await call('list_connection_tools', { connection: c.id }));
    assert.ok(tools.tools.length > 0);
    const read = await call('query_connection', { playbook: pb, server: 'tasks', tool: tools.tools.find((t) => t.mark === 'reads')?.name ?? tools.tools[0].name, arguments: {} });
    assert.notEqual(read.isError, true, JSON.stringify(read));
  });

  test('an HTTP API given by hand, with the key the page takes', async () => {
    const c = assertToolSuccess(await call('add_connection', {
      name: 'taskapi', type: 'openapi',
      entry: { document: service.openapiUrl, base_url: service.apiBaseUrl },
      credential: { kind: 'secret', name: 'X-Api-Key', in: 'header', instructions: 'Make a key under [API keys](https://tasks.example/api-keys).', key_page: 'https://tasks.example/api-keys' },
    }), { summaryLimit: 1000 });
    await (await approveOnPage(browser, c.connect.url, { key: service.keys.api })).close();
    const pb = assertToolSuccess(await call('list_playbooks')).playbooks[0].id;
    const read = assertToolSuccess(await call('query_connection', { playbook: pb, server: 'taskapi', tool: 'listTasks', arguments: {} }));
    assert.ok(read);
  });

  test('an MCP server given by hand is asked how it authenticates before anything is kept', async () => {
    const c = assertToolSuccess(await call('add_connection', { name: 'tracker2', type: 'mcp', entry: { url: service.mcpUrl } }), { summaryLimit: 1000 });
    assert.equal(c.credential.kind, 'authorization');
    assert.equal(c.credential.issuer, service.issuer);
    const secret = assertToolFailure(await call('add_connection', { name: 'tracker3', type: 'mcp', entry: { url: service.mcpUrl }, credential: { kind: 'secret', name: 'Authorization', in: 'header', instructions: 'x', key_page: 'https://x.example/k' } }), 'invalid_input');
    assert.ok(pointers(secret).includes('/credential/kind'));
    const none = assertToolFailure(await call('add_connection', { name: 'tasks2', type: 'mcp', entry: { url: service.keyedMcpUrl } }), 'invalid_input');
    assert.ok(pointers(none).includes('/credential'), JSON.stringify(none));
  });

  test('what the agent may not give is refused at its place', async () => {
    const unknown = assertToolFailure(await call('add_connection', { provider: 'nowhere' }), 'invalid_input');
    assert.ok(pointers(unknown).includes('/provider'));
    const own = assertToolFailure(await call('add_connection', { provider: 'tasks', credential: { kind: 'secret', oauth_client: 'own' } }), 'invalid_input');
    assert.ok(pointers(own).includes('/credential/oauth_client'), JSON.stringify(own));
    const reference = assertToolFailure(await call('add_connection', { name: 'envy', type: 'openapi', entry: { document: service.openapiUrl, base_url: '${API_BASE}' }, credential: { kind: 'secret', name: 'X-Api-Key', in: 'header', instructions: 'x', key_page: 'https://x.example/k' } }), 'invalid_input');
    assert.ok(pointers(reference).some((p) => p.startsWith('/entry')), JSON.stringify(reference));
  });

  test('a removed connection forgets its credential: its link and its tools are gone', async () => {
    const c = assertToolSuccess(await call('add_connection', { provider: 'tasks', name: 'tasks_gone' }), { summaryLimit: 1000 });
    const removed = assertToolSuccess(await call('remove_connection', { connection: c.id }));
    assert.equal(removed.status ?? removed.connection?.status, 'removed');
    assertToolFailure(await call('list_connection_tools', { connection: c.id }), 'not_found');
    const { page, res } = await open(c.connect.url);
    assert.ok([200, 410].includes(res.status()));
    assert.match(await page.content(), /nothing is connected|removed/i);
    await page.close();
  });

  test('a form posted from another site does nothing', async () => {
    const c = assertToolSuccess(await call('add_connection', { provider: 'tasks', name: 'tasks_csrf' }), { summaryLimit: 1000 });
    const res = await fetch(`${c.connect.url}/approve`, { method: 'POST', headers: { origin: 'http://evil.test', 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=x' });
    assert.equal(res.status, 403);
    const listed = assertToolSuccess(await call('list_connections')).connections.find((x) => x.id === c.id);
    assert.equal(listed.status, 'pending');
  });

  test('no credential appears in any answer or in the log', () => {
    const issued = service.issuedTokens();
    const secrets = [service.keys.mcp, service.keys.api, ...issued.access, ...issued.refresh].filter(Boolean);
    assert.ok(secrets.length >= 4, 'the service issued tokens and the test gave keys');
    const seen = answers.join('\n') + runtime.logs();
    for (const s of secrets) assert.ok(!seen.includes(s), `a credential leaked: ${s.slice(0, 6)}…`);
    assert.deepEqual(panicLines(runtime.logs()), []);
  });
});
