// Connections where people sign in: a runtime with PUBLIC_URL on loopback and the team's OpenID
// provider (oidc_provider.mjs), whose org acme Ada owns and where Grace is an admin. Each person's
// agent is the official SDK client signed in through the runtime's own OAuth. Ada's agent adds a
// connection to the stand-in tracker (standin_service.mjs); its link, opened in headless Chromium,
// first signs Ada in at the team's provider (the page session), then shows the connect page, where
// she signs in at the service and approves. Grace, in a browser of her own, may neither use Ada's
// link nor reconnect her connection; a key and the operator never add one; a runtime of API keys
// alone adds none for anybody; the page refuses to be framed and takes forms only from itself.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

import { browser as formBrowser, forms } from './browse.mjs';
import { launchBrowser } from './browser.mjs';
import { standinProviders } from './connect_flow.mjs';
import { freePort, panicLines, startRuntime } from './harness.mjs';
import { api, assertToolFailure, assertToolSuccess } from './helpers.mjs';
import { PEOPLE, signInAtTeam, startOidcProvider } from './oidc_provider.mjs';
import { signInAtService, startStandinService } from './standin_service.mjs';

const ADMIN = `admin-${'s'.repeat(40)}`;
const CALLBACK = 'http://127.0.0.1:1/callback'; // the agent's redirect URI: its browser stops there
const ORG = 'acme';


/** A person's agent: the SDK client, signed in as `who` through the runtime's own OAuth. */
async function agentOf(base, who) {
  const kept = {};
  const authProvider = {
    get redirectUrl() { return CALLBACK; },
    get clientMetadata() {
      return { client_name: `${who}'s agent`, redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    },
    clientInformation: () => kept.client,
    saveClientInformation: (info) => { kept.client = info; },
    tokens: () => kept.tokens,
    saveTokens: (tokens) => { kept.tokens = tokens; },
    redirectToAuthorization: (url) => { kept.authorizationUrl = url.toString(); },
    saveCodeVerifier: (v) => { kept.verifier = v; },
    codeVerifier: () => kept.verifier,
  };
  const endpoint = new URL(`${base}/mcp`);
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider });
  await assert.rejects(new Client({ name: `${who}-agent`, version: '1.0.0' }).connect(first), UnauthorizedError);
  // The person signs in at the team's provider, then allows the agent on the runtime's consent page.
  const b = formBrowser();
  let page = await b.go(kept.authorizationUrl, { stopAt: CALLBACK });
  for (let step = 0; step < 4 && page.url.includes('/interaction/'); step += 1) {
    const [form] = forms(page);
    const fields = 'login' in form.fields ? { ...form.fields, login: PEOPLE[who].sub, password: 'any' } : form.fields;
    page = await b.go(form.action, { method: 'POST', form: fields, stopAt: CALLBACK });
  }
  const consent = forms(page).find((f) => f.action.endsWith('/oauth/consent'));
  assert.ok(consent, `${who} is asked to allow the agent: ${page.status} ${page.html.slice(0, 300)}`);
  const ended = await b.go(consent.action, { method: 'POST', form: { ...consent.fields, decision: 'allow' }, stopAt: CALLBACK, origin: base });
  const code = new URL(ended.url).searchParams.get('code');
  assert.ok(code, `the agent of ${who} gets its code`);
  await first.finishAuth(code);
  const client = new Client({ name: `${who}-agent`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider }));
  return { client, token: () => kept.tokens.access_token };
}

/** The answer's headers that keep a page out of frames. */
function assertUnframed(headers, where) {
  assert.equal(headers['x-frame-options'] ?? headers.get?.('x-frame-options'), 'DENY', `${where}: X-Frame-Options`);
  assert.match(headers['content-security-policy'] ?? headers.get?.('content-security-policy') ?? '', /frame-ancestors 'none'/, `${where}: CSP`);
}

describe('connections where people sign in', () => {
  let service; let oidc; let runtime; let stateDir; let base;
  let ada; let grace; let adaBrowser; let graceBrowser;
  const answers = [];
  const call = async (agent, name, args = {}) => {
    const result = await agent.client.callTool({ name, arguments: args });
    answers.push(JSON.stringify(result));
    return result;
  };
  const connectionOf = async (id) => assertToolSuccess(await call(ada, 'list_connections')).connections.find((c) => c.id === id);

  before(async () => {
    service = await startStandinService();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider(base);
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-connections-sign-in-'));
    runtime = await startRuntime({
      stateDir, port,
      vars: { ...oidc.vars, PUBLIC_URL: base, ADMIN_TOKEN: ADMIN, OWNERS: `${ORG}=${PEOPLE.ada.email}`, CONNECTION_PROVIDERS: JSON.stringify({ tracker: standinProviders(service).tracker }) },
    });
    // Ada owns acme by OWNERS; the operator makes Grace an admin, whose role holds org:write, so
    // what refuses her below is that the connection is Ada's, not her role.
    const role = await api('POST', `${base}/v1/orgs/${ORG}/roles`, ADMIN, { person: `person:${PEOPLE.grace.sub}`, role: 'admin' });
    assert.equal(role.status, 200, role.text);
    ada = await agentOf(base, 'ada');
    grace = await agentOf(base, 'grace');
    [adaBrowser, graceBrowser] = await Promise.all([launchBrowser(), launchBrowser()]);
  });
  after(async () => {
    await ada?.client.close();
    await grace?.client.close();
    await adaBrowser?.close();
    await graceBrowser?.close();
    const logs = runtime?.logs() ?? '';
    await runtime?.stop();
    await oidc?.close();
    await service?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panicLines(logs), [], 'the Worker did not panic');
  });

  let added; let link;
  test("Ada's agent, signed in as Ada, adds a connection whose link is at the public address", async () => {
    const instructions = ada.client.getInstructions();
    assert.ok(instructions.includes(`acts as Ada Lovelace (person:${PEOPLE.ada.sub}) in the org ${ORG}`), instructions);
    const result = await call(ada, 'add_connection', { provider: 'tracker' });
    added = assertToolSuccess(result, { summaryLimit: 1000 });
    assert.equal(added.status, 'pending');
    assert.deepEqual(added.added_by, { kind: 'person', id: `person:${PEOPLE.ada.sub}`, name: 'Ada Lovelace' });
    assert.match(added.connect.url, new RegExp(`^${base}/connect/${ORG}/cl_[A-Za-z0-9_-]+$`));
    assert.match(result.content[0].text, /Approve the Tracker connection/);
    link = added.connect.url;
  });

  test("Grace, signed in in her own browser, may not use Ada's link, and nothing changes", async () => {
    const page = await graceBrowser.newPage();
    const first = await page.goto(link);
    const chain = first.request().redirectChain().map((r) => r.url());
    assert.equal(chain[0], link);
    assert.ok(chain.includes(`${base}/pages/sign-in?to=${encodeURIComponent(new URL(link).pathname)}`), chain.join('\n'));
    assert.ok(page.url().startsWith(oidc.issuer), `Grace signs in at the team's provider first: ${page.url()}`);
    await signInAtTeam(page, 'grace');
    assert.equal(page.url(), link, 'back at the link once signed in');
    const shown = await page.reload();
    assert.equal(shown.status(), 403);
    assertUnframed(shown.headers(), "the refusal of Grace's visit");
    const html = await page.content();
    assert.match(html, /Only the person who added this connection may use its link\./);
    assert.ok(!html.includes('<form'), 'the page offers her nothing to do');
    assert.ok(!html.includes('Read the issues you can see.'), 'nor says what the connection asks');

    // Grace's own browser can hold a proof of her making, so a post of hers passes the form's
    // checks; what refuses it is that the link is Ada's.
    const session = (await page.cookies(base)).find((c) => c.name === 'session')?.value;
    assert.ok(session?.startsWith('pbps_'), 'Grace has a page session');
    const proof = 'g'.repeat(43);
    for (const step of ['cancel', 'start', 'approve']) {
      const res = await fetch(`${link}/${step}`, {
        method: 'POST', redirect: 'manual',
        headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded', cookie: `session=${session}; page-form=${proof}` },
        body: new URLSearchParams({ csrf: proof }).toString(),
      });
      assert.equal(res.status, 403, step);
      assertUnframed(res.headers, `Grace's ${step}`);
      assert.match(await res.text(), /Only the person who added this connection may use its link\./, step);
    }
    await page.close();

    // Her agent may not reconnect it, nor use the link's operations over HTTP.
    const relinked = assertToolFailure(await call(grace, 'reconnect_connection', { connection: added.id }), 'forbidden');
    assert.match(relinked.detail, /Only Ada Lovelace .*who added the connection tracker, reconnects it/, relinked.detail);
    const token = new URL(link).pathname.split('/').pop();
    for (const [method, path] of [['GET', ''], ['POST', '/approve'], ['POST', '/cancel']]) {
      const res = await api(method, `${base}/v1/orgs/${ORG}/connect/${token}${path}`, grace.token(), method === 'POST' ? {} : undefined);
      assert.equal(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.match(res.json.detail, /This link is for Ada Lovelace/);
    }

    const c = await connectionOf(added.id);
    assert.equal(c.status, 'pending', 'still pending: not cancelled, not approved');
    assert.equal(c.because, 'connection_pending');
    assert.deepEqual(c.added_by, added.added_by);
    assert.equal(c.updated_at, added.updated_at, 'not touched at all');
  });

  test("Ada's link signs her in at the team's provider, then she connects the service on the page", async () => {
    const page = await adaBrowser.newPage();
    const first = await page.goto(link);
    assert.equal(first.request().redirectChain()[1]?.url(), `${base}/pages/sign-in?to=${encodeURIComponent(new URL(link).pathname)}`);
    assert.ok(page.url().startsWith(`${oidc.issuer}/interaction/`), `at the team's provider: ${page.url()}`);
    assert.ok(await page.$('input[name=login]'), "the team's provider asks her to sign in");
    await signInAtTeam(page, 'ada');
    assert.equal(page.url(), link, 'back at the link');
    const content = await page.content();
    assert.match(content, /Connect Tracker to the org acme/);
    assert.match(content, /You are signed in as <strong>Ada Lovelace<\/strong>/);
    assert.match(content, /Read the issues you can see\./);

    await Promise.all([page.waitForNavigation(), page.click('form[action$="/start"] button[type=submit]')]);
    assert.ok(page.url().startsWith(service.issuer), `at the service: ${page.url()}`);
    await signInAtService(page, 'ada');
    assert.ok(page.url().startsWith(link), `back on the page: ${page.url()}`);
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/approve"] button[type=submit]')]);
    assert.match(await page.content(), /Tracker is connected/);
    await page.close();

    const c = await connectionOf(added.id);
    assert.equal(c.status, 'connected');
    assert.equal(c.because, undefined);
    assert.deepEqual(c.added_by, { kind: 'person', id: `person:${PEOPLE.ada.sub}`, name: 'Ada Lovelace' });
    assert.ok(c.granted_scopes.some((s) => s.scope === 'issues:read'), JSON.stringify(c.granted_scopes));
    assert.equal(c.connect, undefined, 'a listing never holds a link');
    const tools = assertToolSuccess(await call(ada, 'list_connection_tools', { connection: added.id }));
    assert.deepEqual(tools.tools.map((t) => t.name), ['create_issue', 'list_issues']);
  });

  test("Grace may not reconnect Ada's connected connection either, and her visit to the used link shows her nothing", async () => {
    const refused = assertToolFailure(await call(grace, 'reconnect_connection', { connection: added.id }), 'forbidden');
    assert.match(refused.detail, /Only Ada Lovelace/);
    const page = await graceBrowser.newPage();
    const res = await page.goto(link);
    assert.equal(res.status(), 403);
    assert.match(await page.content(), /Only the person who added this connection may use its link\./);
    assert.doesNotMatch(await page.content(), /is connected/);
    await page.close();
    const c = await connectionOf(added.id);
    assert.equal(c.status, 'connected');
    // Ada herself may: the refusal above is about who, not about the connection.
    const relinked = assertToolSuccess(await call(ada, 'reconnect_connection', { connection: added.id }), { summaryLimit: 1000 });
    assert.match(relinked.connect.url, new RegExp(`^${base}/connect/${ORG}/cl_`));
  });

  test('the connect page cannot be framed, and takes no form from another origin or without its proof', async () => {
    const pending = assertToolSuccess(await call(ada, 'add_connection', { provider: 'tracker', name: 'tracker_forms' }), { summaryLimit: 1000 });
    const url = pending.connect.url;
    const page = await adaBrowser.newPage();
    const shown = await page.goto(url);
    assert.equal(shown.status(), 200, 'Ada is signed in in this browser already');
    assertUnframed(shown.headers(), 'the connect page');
    const csrf = await page.$eval('form[action$="/cancel"] input[name=csrf]', (i) => i.value);
    assert.match(csrf, /^[A-Za-z0-9_-]{43}$/);

    // Another origin on the same host (same site, so the browser sends every cookie, Strict ones
    // too): a form that even carries the right proof is refused, and a frame of the page is empty.
    const evilPort = await freePort();
    const evil = `http://127.0.0.1:${evilPort}`;
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      if (req.url === '/frame') return res.end(`<!doctype html><iframe src="${url}" width="600" height="400"></iframe>`);
      return res.end(`<!doctype html><form method="post" action="${url}/cancel"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Win a prize</button></form>`);
    }).listen(evilPort, '127.0.0.1');
    try {
      const other = await adaBrowser.newPage();
      await other.goto(`${evil}/`);
      const [answer] = await Promise.all([other.waitForNavigation(), other.click('button[type=submit]')]);
      assert.equal(answer.status(), 403);
      assertUnframed(answer.headers(), 'the refusal of a form from another origin');
      assert.match(await other.content(), /sent from another site than this runtime's own page, so nothing was done/);

      // The runtime answers the frame, and the browser, reading the answer's headers, puts its own
      // refusal in the frame: the frame settles on one document or the other, and it must be that one.
      const answered = other.waitForResponse((r) => r.url() === url);
      await other.goto(`${evil}/frame`);
      assert.equal((await answered).status(), 200, 'the frame asked for the connect page and was answered');
      const framed = await other.waitForFrame((f) => f.parentFrame() === other.mainFrame() && /^(chrome-error:|http:)/.test(f.url()));
      const inside = await framed.evaluate(() => document.body.innerText);
      assert.equal(framed.url(), 'chrome-error://chromewebdata/', `the browser refused the frame; it shows: ${inside.slice(0, 200)}`);
      assert.match(inside, /refused to connect/);
      assert.ok(!inside.includes('Connect Tracker'), inside);
      await other.close();
    } finally {
      server.close();
    }
    assert.equal((await connectionOf(pending.id)).status, 'pending', 'the forged cancel did nothing');

    // The page's own form, its proof taken away.
    await page.$eval('form[action$="/cancel"] input[name=csrf]', (i) => { i.value = 'x'.repeat(43); });
    const [forged] = await Promise.all([page.waitForNavigation(), page.click('form[action$="/cancel"] button[type=submit]')]);
    assert.equal(forged.status(), 403);
    assertUnframed(forged.headers(), 'the refusal of a form without its proof');
    assert.match(await page.content(), /did not come from the page this runtime showed you/);
    assert.equal((await connectionOf(pending.id)).status, 'pending', 'the cancel without its proof did nothing');

    // And the same form, as the page gave it, does what it says: the refusals above were the checks'.
    const again = await page.goto(url);
    assert.equal(again.status(), 200);
    const [done] = await Promise.all([page.waitForNavigation(), page.click('form[action$="/cancel"] button[type=submit]')]);
    assertUnframed(done.headers(), 'the answer to a form');
    assert.match(await page.content(), /You cancelled the Tracker connection, so nothing is connected/);
    await page.close();
    assert.equal(await connectionOf(pending.id), undefined, 'the page cancelled it: it is listed no more');
    const gone = await api('GET', `${base}/v1/orgs/${ORG}/connections/${pending.id}`, ada.token());
    assert.equal(gone.status, 404, gone.text);
  });

  test('a key of the org, and the operator, never add a connection; the key may still read them', async () => {
    const made = await api('POST', `${base}/v1/orgs/${ORG}/keys`, ADMIN, { name: 'ci-bot', scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] });
    assert.equal(made.status, 201, made.text);
    const key = made.json.key;
    assert.match(key, /^pbk_/);
    const body = { provider: 'tracker', name: 'tracker_by_key' };
    const byKey = await api('POST', `${base}/v1/orgs/${ORG}/connections`, key, body);
    assert.equal(byKey.status, 403, byKey.text);
    assert.equal(byKey.json.reason, 'forbidden', byKey.text);
    assert.match(byKey.json.detail, /A connection is added by a person.*a key does not add one/);

    const keyAgent = new Client({ name: 'ci-bot', version: '1.0.0' });
    await keyAgent.connect(new StreamableHTTPClientTransport(new URL(`${base}/orgs/${ORG}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const result = await keyAgent.callTool({ name: 'add_connection', arguments: body });
      answers.push(JSON.stringify(result));
      const refused = assertToolFailure(result, 'forbidden');
      assert.match(refused.detail, /added by a person/);
      const listed = await keyAgent.callTool({ name: 'list_connections', arguments: {} });
      assert.ok(assertToolSuccess(listed).connections.some((c) => c.id === added.id), 'the key reads the connections');
    } finally {
      await keyAgent.close();
    }

    // The operator's token manages keys and roles alone, so it reaches no connection at all.
    const byOperator = await api('POST', `${base}/v1/orgs/${ORG}/connections`, ADMIN, body);
    assert.equal(byOperator.status, 403, byOperator.text);
    assert.match(byOperator.json.detail, /ADMIN_TOKEN manages keys and roles, and nothing else/);
    const names = assertToolSuccess(await call(ada, 'list_connections')).connections.map((c) => c.name);
    assert.ok(!names.includes('tracker_by_key'), 'nothing was added');
  });

  test('no credential the service issued, nor a session or key, appears in an answer or the log', () => {
    const issued = service.issuedTokens();
    assert.ok(issued.access.length >= 1 && issued.refresh.length >= 1, 'the service issued tokens');
    const seen = answers.join('\n') + runtime.logs();
    for (const s of [...issued.access, ...issued.refresh]) assert.ok(!seen.includes(s), `a token of the service leaked: ${s.slice(0, 8)}…`);
    assert.deepEqual(runtime.logs().match(/pb(?:k|at|rt|ac|cs|ps)_[A-Za-z0-9_-]{16,}/g) ?? [], [], 'the log holds no credential of the runtime');
    assert.ok(!seen.includes(oidc.clientSecret), "the team provider's client secret");
  });
});

describe('a runtime of API keys alone adds no connection', () => {
  let runtime; let stateDir; let base;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-connections-keys-'));
    // PUBLIC_URL without OIDC_ISSUER: nobody signs in; the stand-in is not needed, for nothing
    // reaches it, so the provider points at a port nothing listens on.
    const tracker = { url: `http://127.0.0.1:${await freePort()}` };
    runtime = await startRuntime({
      stateDir, port,
      vars: { PUBLIC_URL: base, ADMIN_TOKEN: ADMIN, CONNECTION_PROVIDERS: JSON.stringify({ tracker: standinProviders({ mcpUrl: `${tracker.url}/mcp`, issuer: tracker.url }).tracker }) },
    });
  });
  after(async () => {
    const logs = runtime?.logs() ?? '';
    await runtime?.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panicLines(logs), [], 'the Worker did not panic');
  });

  test('every caller is refused add_connection, in words that say nobody signs in here', async () => {
    const made = await api('POST', `${base}/v1/orgs/${ORG}/keys`, ADMIN, { name: 'full', scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] });
    assert.equal(made.status, 201, made.text);
    const key = made.json.key;
    // The key works here: it lists the org's (no) connections.
    const listed = await api('GET', `${base}/v1/orgs/${ORG}/connections`, key);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.json.connections, []);
    const byKey = await api('POST', `${base}/v1/orgs/${ORG}/connections`, key, { provider: 'tracker' });
    assert.equal(byKey.status, 403, byKey.text);
    assert.match(byKey.json.detail, /signs nobody in \(API keys alone\), so no person could approve a connection/);
    // The operator's token reaches keys and roles alone, here as where people sign in.
    const byOperator = await api('POST', `${base}/v1/orgs/${ORG}/connections`, ADMIN, { provider: 'tracker' });
    assert.equal(byOperator.status, 403, byOperator.text);
    assert.equal(byOperator.json.reason, 'forbidden');
    const client = new Client({ name: 'keys-alone', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/orgs/${ORG}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const refused = assertToolFailure(await client.callTool({ name: 'add_connection', arguments: { provider: 'tracker' } }), 'forbidden');
      assert.match(refused.detail, /signs nobody in/);
    } finally {
      await client.close();
    }
    const after = await api('GET', `${base}/v1/orgs/${ORG}/connections`, key);
    assert.deepEqual(after.json.connections, [], 'nothing was added');
    // Nor does its connect page open for anybody.
    const page = await fetch(`${base}/connect/${ORG}/cl_${'a'.repeat(32)}`, { redirect: 'manual' });
    assert.equal(page.status, 503);
    assert.match(await page.text(), /signs nobody in/);
  });
});
