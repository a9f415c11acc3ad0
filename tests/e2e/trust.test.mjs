// What a deployed runtime promises an attacker cannot do, tried as the review that found each hole
// tried it: a runtime with PUBLIC_URL, ADMIN_TOKEN, OWNERS and a real OpenID provider (oidc-provider),
// two servers of the attacker's on loopback that record every request they are sent, and people who
// sign in through the runtime's own OAuth flow. One test per finding, named after it; each failed on
// the runtime before its fix. The access matrix at the end widens the isolation matrix
// (access_matrix.test.mjs, which runs on keys alone) to the callers only sign-in makes.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { browser, forms } from './browse.mjs';
import { chunkedPost, rawGet, recorder } from './attack_parts.mjs';
import { freePort, panicLines, startRuntime } from './harness.mjs';
import { PEOPLE, startOidcProvider } from './oidc_provider.mjs';
import { atProvider, authorizeUrl, CALLBACK, refresh, register, tokenFor } from './sign_in_flow.mjs';

const ADMIN = `admin-${'t'.repeat(40)}`;
const SHARED = 'shared-key-for-acme-0123456789abcdef';

const NOTES_API = (base) => JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Notes', version: '1' },
  servers: [{ url: base }],
  paths: { '/notes': { get: { operationId: 'listNotes', summary: 'List the notes.', responses: { 200: { description: 'The notes.' } } } } },
});

describe('a deploy a team can trust', () => {
  let runtime; let oidc; let stateDir; let base; let attacker; let elsewhere;
  const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  const bearer = (token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
  const tokens = {};

  before(async () => {
    // The second server, another origin, where a redirect of the first one points.
    elsewhere = await recorder((req, res, port) => {
      res.setHeader('content-type', 'application/json');
      if (req.url.startsWith('/client.json')) {
        res.end(JSON.stringify({ client_id: `http://127.0.0.1:${port}/client.json`, client_name: 'Moved', redirect_uris: [CALLBACK] }));
      } else {
        res.end(NOTES_API(`http://127.0.0.1:${port}`));
      }
    });
    attacker = await recorder((req, res, port) => {
      if (req.url === '/moved/openapi.json') {
        res.writeHead(302, { location: `${elsewhere.origin}/openapi.json` }).end();
      } else if (req.url === '/client.json') {
        res.writeHead(302, { location: `http://localhost:${elsewhere.port}/client.json` }).end();
      } else if (req.url === '/notes') {
        res.setHeader('content-type', 'application/json');
        res.end('[]');
      } else {
        res.setHeader('content-type', 'application/json');
        res.end(NOTES_API(`http://127.0.0.1:${port}`));
      }
    });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider(base);
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-trust-'));
    const listed = {
      SHARED_KEY: { orgs: ['acme'], hosts: [`127.0.0.1:${attacker.port}`] },
      // Listed by mistake: the runtime's own secrets are never sent, whatever the list says.
      ADMIN_TOKEN: { orgs: '*', hosts: [`127.0.0.1:${attacker.port}`] },
    };
    runtime = await startRuntime({
      stateDir, port,
      vars: {
        ...oidc.vars, PUBLIC_URL: base, ADMIN_TOKEN: ADMIN, SHARED_KEY: SHARED,
        OWNERS: `acme=${PEOPLE.ada.email},evil=${PEOPLE.grace.email},beta=${PEOPLE.mallory.email},gamma=${PEOPLE.trudy.email}`,
        CONNECTION_VARIABLES: JSON.stringify(listed),
      },
    });
    tokens.ada = (await tokenFor(base, 'ada', 'org:read org:write playbook:read playbook:write')).tokens;
    tokens.grace = (await tokenFor(base, 'grace', 'org:read org:write playbook:read playbook:write')).tokens;
  });

  after(async () => {
    const logs = runtime?.logs() ?? '';
    const panics = runtime ? panicLines(logs) : [];
    await runtime?.stop();
    await oidc?.close();
    await attacker?.close();
    await elsewhere?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.ok(!logs.includes(ADMIN) && !logs.includes(SHARED), 'no secret in the log');
    assert.deepEqual(panics, [], 'the Worker did not panic');
  });

  /** Every header value the two servers were ever sent. */
  const sentValues = () => [...attacker.seen, ...elsewhere.seen].flatMap((r) => Object.values(r.headers).flat());

  test('finding 1: no connection sends the operator\'s secrets, and a listed variable goes only to its org and hosts', async () => {
    const add = (org, token, variable, name) => fetch(`${base}/v1/orgs/${org}/connections`, {
      method: 'POST', headers: bearer(token),
      body: JSON.stringify({ name, type: 'openapi', entry: { document: `${attacker.origin}/openapi.json`, base_url: attacker.origin }, credential: { kind: 'reference', variable, name: 'x-leak', in: 'header' } }),
    });
    // Grace owns the org evil alone: she tries every secret of the runtime's own.
    for (const variable of ['ADMIN_TOKEN', 'CONNECTIONS_KEY', 'OIDC_CLIENT_SECRET', 'SHARED_KEY']) {
      const res = await add('evil', tokens.grace.access_token, variable, `leak-${variable.toLowerCase().replace(/_/g, '-')}`);
      assert.equal(res.status, 400, `${variable}: ${res.status}`);
      const doc = await res.json();
      assert.equal(doc.errors[0].pointer, '/credential/variable', JSON.stringify(doc));
      assert.match(doc.errors[0].detail, /CONNECTION_VARIABLES/);
    }
    // Ada's acme may send SHARED_KEY, to the host it is listed for alone.
    const wrongHost = await fetch(`${base}/v1/orgs/acme/connections`, {
      method: 'POST', headers: bearer(tokens.ada.access_token),
      body: JSON.stringify({ name: 'wrong-host', type: 'openapi', entry: { document: `${elsewhere.origin}/openapi.json`, base_url: elsewhere.origin }, credential: { kind: 'reference', variable: 'SHARED_KEY', name: 'x-shared', in: 'header' } }),
    });
    assert.equal(wrongHost.status, 400);
    assert.match((await wrongHost.json()).errors[0].detail, /not to 127\.0\.0\.1/);
    assert.ok(!sentValues().includes(ADMIN), 'ADMIN_TOKEN never reached a server');
  });

  let notes;
  test('finding 1 and 6: a listed variable reaches its server, and not the origin a redirect names', async () => {
    const added = await fetch(`${base}/v1/orgs/acme/connections`, {
      method: 'POST', headers: bearer(tokens.ada.access_token),
      body: JSON.stringify({ name: 'notes', type: 'openapi', entry: { document: `${attacker.origin}/moved/openapi.json`, base_url: attacker.origin }, credential: { kind: 'reference', variable: 'SHARED_KEY', name: 'x-shared', in: 'header' } }),
    });
    assert.equal(added.status, 201, await added.clone().text());
    notes = await added.json();
    // Ada approves it on the runtime's page, signed in there.
    const b = browser();
    let page = await b.go(notes.connect.url);
    page = await atProvider(b, page, 'ada');
    const approve = forms(page).find((f) => f.action.endsWith('/approve'));
    assert.ok(approve, page.html.slice(0, 500));
    const done = await b.go(approve.action, { method: 'POST', form: approve.fields, origin: base });
    assert.equal(done.status, 200, done.html.slice(0, 300));
    const before = elsewhere.seen.length;
    const listed = await fetch(`${base}/v1/orgs/acme/connections/${notes.id}/tools`, { headers: bearer(tokens.ada.access_token) });
    assert.equal(listed.status, 200, await listed.clone().text());
    assert.deepEqual((await listed.json()).tools.map((t) => t.name), ['listNotes']);
    const atServer = attacker.seen.filter((r) => r.path === '/moved/openapi.json' && r.headers['x-shared']);
    assert.ok(atServer.some((r) => r.headers['x-shared'] === SHARED), 'the listed variable went to its own host');
    const moved = elsewhere.seen.slice(before);
    assert.ok(moved.length > 0, 'the redirect was followed');
    assert.ok(moved.every((r) => !('x-shared' in r.headers) && !('authorization' in r.headers)), JSON.stringify(moved.map((r) => r.headers)));
  });

  test('finding 2: a stopped sign-in sent to another browser signs nobody in', async () => {
    // The victim, Ada, is signed in on the runtime's pages.
    const victim = browser();
    let page = await victim.go(`${base}/pages/me`);
    page = await atProvider(victim, page, 'ada');
    assert.equal(JSON.parse(page.html).id, `person:${PEOPLE.ada.sub}`);
    // Grace starts a page's sign-in, signs in at the provider, and stops before the callback.
    const thief = browser();
    let stopped = await thief.go(`${base}/pages/sign-in?to=%2Fpages%2Fme`, { stopAt: `${base}/oauth/callback` });
    stopped = await atProvider(thief, stopped, 'grace', `${base}/oauth/callback`);
    assert.ok(stopped.url.startsWith(`${base}/oauth/callback`), stopped.url);
    const opened = await victim.go(stopped.url);
    assert.equal(opened.status, 403, opened.html.slice(0, 300));
    assert.match(opened.html, /began in another browser/);
    assert.equal(JSON.parse((await victim.go(`${base}/pages/me`)).html).id, `person:${PEOPLE.ada.sub}`, 'the victim is still herself');
    // The same in an MCP client's sign-in: the consent page never opens in the victim's browser.
    const clientId = await register(base, 'thief client');
    const { url } = authorizeUrl(base, clientId, 'playbook:read');
    let mcp = await thief.go(url, { stopAt: `${base}/oauth/callback` });
    mcp = await atProvider(thief, mcp, 'grace', `${base}/oauth/callback`);
    const refused = await victim.go(mcp.url);
    assert.equal(refused.status, 403);
    assert.ok(!forms(refused).some((f) => f.action.endsWith('/oauth/consent')));
    // In the browser that began it, a sign-in goes on.
    let own = await thief.go(`${base}/pages/sign-in?to=%2Fpages%2Fme`);
    own = await atProvider(thief, own, 'grace');
    assert.equal(JSON.parse(own.html).id, `person:${PEOPLE.grace.sub}`);
  });

  test('finding 3: a token allowed org:write alone makes no key beyond it and gives no role', async () => {
    const { tokens: narrow, consent } = await tokenFor(base, 'ada', 'org:write');
    assert.match(consent.html, /make and revoke API keys/, 'the consent page says org:write manages access');
    const all = ['org:read', 'org:write', 'playbook:read', 'playbook:write'];
    const wide = await fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ name: 'wide', scopes: all }) });
    assert.equal(wide.status, 400);
    assert.deepEqual((await wide.json()).errors.map((e) => e.pointer), ['/scopes/0', '/scopes/2', '/scopes/3']);
    const within = await fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ name: 'within', scopes: ['org:write'] }) });
    assert.equal(within.status, 201);
    const owner = await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ person: `person:${PEOPLE.nobody.sub}`, role: 'owner' }) });
    assert.equal(owner.status, 403);
    assert.match((await owner.json()).detail, /up to what the giver holds/);
    // A key a person made stops when they lose the role that let them make it, and works again with it.
    const give = await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(tokens.ada.access_token), body: JSON.stringify({ person: `person:${PEOPLE.grace.sub}`, role: 'admin' }) });
    assert.equal(give.status, 200);
    const graceInAcme = (await tokenFor(base, 'grace', 'org:read org:write playbook:read playbook:write', { org: 'acme' })).tokens;
    const made = await fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(graceInAcme.access_token), body: JSON.stringify({ name: 'grace-bot', scopes: ['playbook:read'] }) });
    assert.equal(made.status, 201);
    const key = (await made.json()).key;
    const reads = () => fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(key) }).then((r) => r.status);
    assert.equal(await reads(), 200);
    const adminGivesOwner = await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(graceInAcme.access_token), body: JSON.stringify({ person: `person:${PEOPLE.nobody.sub}`, role: 'owner' }) });
    assert.equal(adminGivesOwner.status, 403, 'an admin gives no role above her own');
    await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(tokens.ada.access_token), body: JSON.stringify({ person: `person:${PEOPLE.grace.sub}`, role: 'viewer' }) });
    assert.equal(await pollUntil(reads, 401), 401, 'the demoted maker\'s key stops within the 5 seconds a key is trusted');
    await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(tokens.ada.access_token), body: JSON.stringify({ person: `person:${PEOPLE.grace.sub}`, role: 'admin' }) });
    assert.equal(await pollUntil(reads, 200), 200);
  });

  test('the access matrix: who manages keys and roles, for each caller sign-in makes', async () => {
    const viewer = await fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: admin, body: JSON.stringify({ person: `person:${PEOPLE.nobody.sub}`, role: 'viewer' }) });
    assert.equal(viewer.status, 200);
    const callers = {
      'owner, org:write alone': (await tokenFor(base, 'ada', 'org:write')).tokens.access_token,
      'viewer, every scope allowed': (await tokenFor(base, 'nobody', 'org:read org:write playbook:read playbook:write')).tokens.access_token,
      'owner of another org': tokens.grace.access_token,
      'a full key': (await (await fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'full', scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] }) })).json()).key,
    };
    const spare = async () => (await (await fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ name: `spare-${Math.random().toString(36).slice(2, 8)}`, scopes: ['org:read'] }) })).json()).id;
    const ops = {
      'create_key, every scope': (t) => fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(t), body: JSON.stringify({ name: `m-${Math.random().toString(36).slice(2, 8)}`, scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] }) }),
      'create_key, org:write': (t) => fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(t), body: JSON.stringify({ name: `w-${Math.random().toString(36).slice(2, 8)}`, scopes: ['org:write'] }) }),
      list_keys: (t) => fetch(`${base}/v1/orgs/acme/keys`, { headers: bearer(t) }),
      revoke_key: async (t) => fetch(`${base}/v1/orgs/acme/keys/${await spare()}`, { method: 'DELETE', headers: bearer(t) }),
      list_role_assignments: (t) => fetch(`${base}/v1/orgs/acme/roles`, { headers: bearer(t) }),
      'assign_role viewer': (t) => fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(t), body: JSON.stringify({ person: 'person:user_9someone', role: 'viewer' }) }),
      'unassign_role viewer': (t) => fetch(`${base}/v1/orgs/acme/roles/person:${PEOPLE.nobody.sub}`, { method: 'DELETE', headers: bearer(t) }),
    };
    const want = {
      'owner, org:write alone': [400, 201, 200, 200, 200, 403, 403],
      'viewer, every scope allowed': [403, 403, 403, 403, 403, 403, 403],
      'owner of another org': [403, 403, 403, 403, 403, 403, 403],
      'a full key': [403, 403, 403, 403, 403, 403, 403],
    };
    const seen = {};
    for (const [who, token] of Object.entries(callers)) {
      seen[who] = [];
      for (const op of Object.values(ops)) {
        const res = await op(token);
        seen[who].push(res.status);
        await res.arrayBuffer();
      }
    }
    console.log(['| caller | ' + Object.keys(ops).join(' | ') + ' |', ...Object.entries(seen).map(([who, row]) => `| ${who} | ${row.join(' | ')} |`)].join('\n'));
    assert.deepEqual(seen, want);
  });

  test('finding 5: an address the provider does not mark verified makes nobody an owner', async () => {
    for (const who of ['mallory', 'trudy']) {
      const b = browser();
      let page = await b.go(`${base}/studio`);
      page = await atProvider(b, page, who);
      assert.equal(page.status, 403, `${who}: ${page.html.slice(0, 300)}`);
    }
    for (const org of ['beta', 'gamma']) {
      const roles = await (await fetch(`${base}/v1/orgs/${org}/roles`, { headers: admin })).json();
      assert.deepEqual(roles.assignments, [], `${org} has no owner`);
    }
  });

  test('finding 6: a client\'s metadata document that redirects is refused, and its target is never fetched', async () => {
    const clientId = `${attacker.origin}/client.json`;
    const seenBefore = elsewhere.seen.length;
    const { url } = authorizeUrl(base, clientId, 'playbook:read');
    const res = await fetch(url, { redirect: 'manual' });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /a redirect, which this runtime does not follow/);
    assert.equal(elsewhere.seen.length, seenBefore, 'the address it redirected to was not fetched');
  });

  test('finding 7: a rotated refresh token replayed ends the grant for its thief and its owner', async () => {
    const { tokens: first, clientId } = await tokenFor(base, 'ada', 'playbook:read');
    const second = await refresh(base, clientId, first.refresh_token);
    assert.equal(second.status, 200);
    const third = await refresh(base, clientId, second.body.refresh_token);
    assert.equal(third.status, 200, 'the owner refreshes again, ending the first token\'s grace');
    const replay = await refresh(base, clientId, first.refresh_token);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.match(replay.body.error_description, /revoked/);
    for (const t of [second.body.access_token, third.body.access_token]) {
      assert.equal((await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(t) })).status, 401);
    }
    assert.equal((await refresh(base, clientId, third.body.refresh_token)).status, 400, 'the owner\'s newest token is refused too');
  });

  test('finding 4: a body without a length is refused at its bound, not read whole', async () => {
    // The Worker answers 413 once the body passes its bound (16 KiB here, 1 MiB on /mcp). wrangler's
    // dev proxy, still sending the rest to workerd, then often drops the connection, or holds the
    // answer and stops reading, instead of passing the answer on: either way it came, or reading
    // stopped, long before the body's end, which shows the Worker stopped reading. (On Cloudflare
    // the 413 itself arrives.)
    const refusedEarly = ({ status, sent }) => {
      assert.ok([413, 'reset', 'lost', 'stalled'].includes(status), `${status} after ${sent} bytes`);
      assert.ok(sent < 64 * 1024 * 1024, `${sent} bytes were taken before the answer`);
    };
    refusedEarly(await chunkedPost(`${base}/oauth/register`, 256 * 1024 * 1024));
    refusedEarly(await chunkedPost(`${base}/mcp`, 256 * 1024 * 1024, { authorization: `Bearer ${tokens.ada.access_token}`, accept: 'application/json, text/event-stream' }));
    // A body within the bound is still read whole.
    const small = await fetch(`${base}/mcp`, { method: 'POST', headers: { ...bearer(tokens.ada.access_token), accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(small.status, 200);
  });

  test('finding 4: registrations and sign-ins from one address are limited, and keys still answer', async () => {
    const statuses = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: `flood ${i}`, redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }) });
      statuses.push(res.status);
      if (res.status === 429) assert.equal(res.headers.get('retry-after'), '60');
      await res.arrayBuffer();
    }
    assert.ok(statuses.includes(429), statuses.join(' '));
    assert.ok(statuses.filter((s) => s === 201).length <= 10, statuses.join(' '));
    // A page's sign-in counts 60 a minute: past them, a page that says to wait.
    const starts = [];
    for (let i = 0; i < 70; i += 1) {
      const res = await fetch(`${base}/pages/sign-in?to=%2F`, { redirect: 'manual' });
      starts.push(res.status);
      if (res.status === 429) {
        assert.equal(res.headers.get('retry-after'), '60');
        assert.match(await res.text(), /Too many sign-ins/);
      } else {
        await res.arrayBuffer();
      }
    }
    assert.ok(starts.filter((s) => s === 302).length <= 60 && starts.includes(429), starts.join(' '));
    // Whoever holds a credential is not held up by the flood.
    assert.equal((await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(tokens.ada.access_token) })).status, 200);
  });
});

describe('finding 8: local mode is only the operator\'s to turn on', () => {
  let runtime; let stateDir;
  before(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-nolocal-'));
    runtime = await startRuntime({ stateDir, vars: { LOCAL_MODE: 'off' } });
  });
  after(async () => {
    const panics = runtime ? panicLines(runtime.logs()) : [];
    await runtime?.stop();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panics, [], 'the Worker did not panic');
  });

  test('finding 8: no Host header opens local mode on a runtime that did not turn it on', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const status = await rawGet(runtime.port, '/v1/orgs/local/playbooks', { host });
      assert.equal(status.code, 401, `Host: ${host}`);
      assert.match(status.body, /Local mode is off here/);
    }
    const page = await fetch(`${runtime.url}/studio/local`, { redirect: 'manual' });
    assert.notEqual(page.status, 200, 'nor its pages');
  });
});

/** Polls `read` until it answers `want`, for up to 8 seconds; answers the last answer. */
async function pollUntil(read, want) {
  let last;
  for (let i = 0; i < 40; i += 1) {
    last = await read();
    if (last === want) return last;
    await sleep(200);
  }
  return last;
}
