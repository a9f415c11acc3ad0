// The runtime's own pages in sign-in mode: a browser without a session is sent to sign in at the
// team's OpenID provider (oidc-provider on loopback) through the runtime's one callback, and
// comes back to the page it asked for with a session cookie; signing out ends the session.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { browser, forms } from './browse.mjs';
import { freePort, panicLines, startRuntime } from './harness.mjs';
import { PEOPLE, startOidcProvider } from './oidc_provider.mjs';

describe('sessions of the runtime pages', () => {
  let runtime; let oidc; let stateDir; let base;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider(base);
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-pages-'));
    runtime = await startRuntime({ stateDir, port, vars: { ...oidc.vars, PUBLIC_URL: base } });
  });
  after(async () => {
    const logs = runtime?.logs() ?? '';
    const panics = runtime ? panicLines(logs) : [];
    assert.deepEqual(logs.match(/pbps_[A-Za-z0-9_-]{16,}/g) ?? [], [], 'the log holds no session token');
    await runtime?.stop();
    await oidc?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panics, [], 'the Worker did not panic');
  });

  /** Goes to `url` in browser `b`, signing in at the provider as `who` where it asks. */
  async function visit(b, url, who) {
    let page = await b.go(url);
    for (let step = 0; step < 4 && page.url.includes('/interaction/'); step += 1) {
      const [form] = forms(page);
      const fields = 'login' in form.fields || form.fields.prompt === 'login' ? { ...form.fields, login: PEOPLE[who].sub, password: 'any' } : form.fields;
      page = await b.go(form.action, { method: 'POST', form: fields });
    }
    return page;
  }

  test('a page without a session signs the person in and comes back to it', async () => {
    const b = browser();
    const first = await fetch(`${base}/pages/me`, { redirect: 'manual' });
    assert.equal(first.status, 302);
    assert.equal(first.headers.get('location'), `${base}/pages/sign-in?to=%2Fpages%2Fme`);
    const page = await visit(b, `${base}/pages/me`, 'ada');
    assert.equal(page.url, `${base}/pages/me`, 'back where it started');
    assert.equal(page.status, 200, page.html);
    const me = JSON.parse(page.html);
    assert.equal(me.id, `person:${PEOPLE.ada.sub}`);
    assert.equal(me.name, 'Ada Lovelace');
    const cookie = b.cookies(base).get('session');
    assert.ok(cookie?.startsWith('pbps_'), 'the session is a cookie');
    // The same cookie works without signing in again.
    const again = await fetch(`${base}/pages/me`, { headers: { cookie: `session=${cookie}` } });
    assert.equal(again.status, 200);
  });

  test('the session cookie is HttpOnly and Lax, for the whole runtime', async () => {
    const start = await fetch(`${base}/pages/sign-in?to=%2Fpages%2Fme`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const to = new URL(start.headers.get('location'));
    assert.ok(to.searchParams.get('state').startsWith('pg.'));
    assert.equal(to.searchParams.get('redirect_uri'), `${base}/oauth/callback`, 'the one redirect URI the operator registered');
    const b = browser();
    let answer;
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (url, init) => {
      const res = await realFetch(url, init);
      if (String(url).startsWith(`${base}/oauth/callback`)) answer = res.headers.get('set-cookie');
      return res;
    };
    try {
      await visit(b, `${base}/pages/me`, 'grace');
    } finally {
      globalThis.fetch = realFetch;
    }
    assert.match(answer, /^session=pbps_[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=28800$/);
  });

  test('a sign-in goes back only to a page of this runtime', async () => {
    for (const to of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const res = await fetch(`${base}/pages/sign-in?to=${encodeURIComponent(to)}`, { redirect: 'manual' });
      assert.equal(res.status, 400, to);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    }
  });

  test('signing out ends the session, and another site cannot sign a person out', async () => {
    const b = browser();
    await visit(b, `${base}/pages/me`, 'ada');
    const cookie = `session=${b.cookies(base).get('session')}`;
    const foreign = await fetch(`${base}/pages/sign-out`, { method: 'POST', headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    assert.equal(foreign.status, 403);
    assert.equal((await fetch(`${base}/pages/me`, { headers: { cookie }, redirect: 'manual' })).status, 200);
    const out = await fetch(`${base}/pages/sign-out`, { method: 'POST', headers: { cookie, origin: base } });
    assert.equal(out.status, 200);
    assert.match(out.headers.get('set-cookie'), /^session=; .*Max-Age=0/);
    assert.equal((await fetch(`${base}/pages/me`, { headers: { cookie }, redirect: 'manual' })).status, 302, 'the session is gone');
    assert.equal((await fetch(`${base}/pages/sign-out`)).status, 405);
  });
});
