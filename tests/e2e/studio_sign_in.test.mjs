// Studio where people sign in: a runtime with PUBLIC_URL on loopback and the team's OpenID provider
// (oidc_provider.mjs). The operator makes Ada an editor and Grace a viewer of the org acme; nobody
// else holds a role. A key of the org builds a playbook with an open request. In headless Chromium
// each person signs in at the provider and opens Studio: Ada answers the request through its form;
// Grace reads every page but is offered no form that changes anything, and a post of hers is
// refused in words; a person with no role is refused every page.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launchBrowser } from './browser.mjs';
import { freePort, panicLines, startRuntime } from './harness.mjs';
import { api } from './helpers.mjs';
import { PEOPLE, signInAtTeam, startOidcProvider } from './oidc_provider.mjs';
import { assertStudioHeaders, DEFINITIONS, HOSTILE, screenshot, submit, watchedPage } from './studio_pages.mjs';

const ADMIN = `admin-${'s'.repeat(40)}`;
const ORG = 'acme';

describe('Studio where people sign in', { timeout: 180_000 }, () => {
  let oidc; let runtime; let stateDir; let base; let key;
  let playbook; let flowRun;
  const browsers = {};
  const pages = {};
  const v1 = (path) => `${base}/v1/orgs/${ORG}${path}`;
  const pb = (path = '') => `${base}/studio/${ORG}/playbooks/${playbook}${path}`;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    oidc = await startOidcProvider(base);
    stateDir = mkdtempSync(join(tmpdir(), 'runtime-studio-sign-in-'));
    runtime = await startRuntime({ stateDir, port, vars: { ...oidc.vars, PUBLIC_URL: base, ADMIN_TOKEN: ADMIN } });
    for (const [who, role] of [['ada', 'editor'], ['grace', 'viewer']]) {
      const res = await api('POST', v1('/roles'), ADMIN, { person: `person:${PEOPLE[who].sub}`, role });
      assert.equal(res.status, 200, res.text);
    }
    const made = await api('POST', v1('/keys'), ADMIN, { name: 'builder', scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] });
    assert.equal(made.status, 201, made.text);
    key = made.json.key;
    const created = await api('POST', v1('/playbooks'), key, { name: `${HOSTILE} orders` });
    assert.equal(created.status, 201, created.text);
    playbook = created.json.id;
    for (const { type, ...d } of DEFINITIONS) {
      const res = await api('POST', v1(`/playbooks/${playbook}/definitions/${type}`), key, d);
      assert.equal(res.status, 201, res.text);
    }
    const started = await api('POST', v1(`/playbooks/${playbook}/definitions/workflow/price-and-approve/run`), key, { input: { title: 'Winter', net: 10 } });
    assert.ok([200, 201, 202].includes(started.status), started.text);
    flowRun = started.json.run_id;
    for (const who of ['ada', 'grace', 'nobody']) {
      browsers[who] = await launchBrowser();
      pages[who] = await watchedPage(browsers[who].browser, base);
    }
  });
  after(async () => {
    for (const b of Object.values(browsers)) await b.close();
    const logs = runtime?.logs() ?? '';
    await runtime?.stop();
    await oidc?.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
    assert.deepEqual(panicLines(logs), [], 'the Worker did not panic');
  });

  /** Opens `url` as `who`, signing in first where the runtime asks. */
  async function visit(who, url) {
    const { page } = pages[who];
    let res = await page.goto(url);
    if (page.url().startsWith(oidc.issuer)) {
      await signInAtTeam(page, who);
      res = await page.reload();
    }
    return res;
  }

  async function openRequest() {
    for (let i = 0; i < 40; i += 1) {
      const listed = await api('GET', v1(`/playbooks/${playbook}/interactions`), key);
      if (listed.json?.requests?.length) return listed.json.requests[0];
      await new Promise((r) => { setTimeout(r, 250); });
    }
    assert.fail('the workflow never asked');
  }

  test('/studio sends a signed-in person to the org they hold a role in', async () => {
    const res = await visit('grace', `${base}/studio`);
    assert.equal(res.status(), 200);
    assert.equal(pages.grace.page.url(), `${base}/studio/${ORG}`);
    assertStudioHeaders(res.headers(), 'home');
  });

  test('a viewer reads every page but is offered no form that changes anything', async () => {
    const request = await openRequest();
    const { page } = pages.grace;
    for (const [path, shot] of [['', 'viewer-playbook'], ['/ledger', null], [`/runs/${flowRun}`, null], ['/requests', 'viewer-requests'], ['/definitions/workflow/price-and-approve', null]]) {
      const res = await visit('grace', pb(path));
      assert.equal(res.status(), 200, `${path}: ${await page.content()}`);
      assertStudioHeaders(res.headers(), path);
      assert.equal(await page.$('form[action$="/answer"]'), null, `${path}: no answer form`);
      assert.equal(await page.$('form[action$="/resolve"]'), null, `${path}: no resolve form`);
      if (path === '/requests') assert.match(await page.$eval('body', (el) => el.innerText), /answering it needs a role that changes playbooks/);
      if (shot) await screenshot(page, shot);
    }
    // A post of her own, with her page's proof, is refused by answer_interaction in words.
    const proof = (await page.cookies(base)).find((c) => c.name === 'page-form')?.value;
    const session = (await page.cookies(base)).find((c) => c.name === 'session')?.value;
    assert.ok(proof && session, 'Grace holds a session and a proof');
    const res = await fetch(pb(`/requests/${request.run_id}/answer`), {
      method: 'POST', redirect: 'manual',
      headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded', cookie: `session=${session}; page-form=${proof}` },
      body: new URLSearchParams({ csrf: proof, verdict: 'approve' }).toString(),
    });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /playbook:write/);
    const still = await api('GET', v1(`/playbooks/${playbook}/interactions`), key);
    assert.equal(still.json.requests.length, 1, 'still open');
  });

  test('an editor answers the request through its form and sees the run finish', async () => {
    const request = await openRequest();
    const { page } = pages.ada;
    const res = await visit('ada', pb('/requests'));
    assert.equal(res.status(), 200);
    const form = `/requests/${request.run_id}/answer`;
    await page.click(`form[action$="${form}"] input[type=radio][name=verdict][value=approve]`);
    const answered = await submit(page, form);
    assert.equal(answered.status(), 200);
    assert.match(await page.$eval('body', (el) => el.innerText), /succeeded/);
    await screenshot(page, 'editor-answered');
    const flow = await api('GET', v1(`/playbooks/${playbook}/runs/${flowRun}?wait_seconds=10`), key);
    assert.equal(flow.json.status, 'succeeded', flow.text);
  });

  test('a viewer comments; an editor resolves it on the page, while the viewer is refused in words', async () => {
    const { page } = pages.grace;
    await visit('grace', pb('/ledger'));
    await page.type('form[action$="/comments"] textarea[name=body]', 'Why did the **second** run take so long?');
    await submit(page, '/comments');
    const id = new URL(page.url()).hash.replace('#comment-', '');
    assert.match(id, /^cm_/, page.url());
    assert.equal(await page.$(`#comment-${id} form[action$="/resolve"]`), null, 'a viewer is offered no resolve');
    const listed = await api('GET', v1(`/playbooks/${playbook}/comments?address=ledger`), key);
    const mine = listed.json.comments.find((c) => c.id === id);
    assert.equal(mine?.by?.name, 'Grace Hopper', listed.text);
    // A post of hers to resolve it is refused by resolve_comment, in words.
    const cookies = await page.cookies(base);
    const proof = cookies.find((c) => c.name === 'page-form')?.value;
    const session = cookies.find((c) => c.name === 'session')?.value;
    const res = await fetch(pb(`/comments/${id}/resolve`), {
      method: 'POST', redirect: 'manual',
      headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded', cookie: `session=${session}; page-form=${proof}` },
      body: new URLSearchParams({ csrf: proof, how: 'acted' }).toString(),
    });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /The comment was not resolved/);
    // Ada resolves it on her page.
    await visit('ada', pb('/ledger'));
    await submit(pages.ada.page, `/comments/${id}/resolve`);
    await screenshot(pages.ada.page, 'editor-resolved');
    const after = await api('GET', v1(`/playbooks/${playbook}/comments?address=ledger&open=false`), key);
    assert.equal(after.json.comments.find((c) => c.id === id)?.status, 'resolved', after.text);
  });

  test('a person with no role in the org is refused every page', async () => {
    for (const path of ['', '/ledger', '/requests', `/runs/${flowRun}`, '/comments']) {
      const res = await visit('nobody', pb(path));
      assert.equal(res.status(), 403, path);
      assertStudioHeaders(res.headers(), `refused ${path}`);
      assert.match(await pages.nobody.page.content(), /hold no role in the org acme/);
    }
    const home = await visit('nobody', `${base}/studio`);
    assert.equal(home.status(), 403);
  });

  test('no page opened a dialog, logged an error or loaded anything from another server', () => {
    for (const who of ['ada', 'grace']) {
      assert.deepEqual(pages[who].seen.dialogs, [], who);
      assert.deepEqual(pages[who].seen.foreign, [], who);
    }
  });
});
