// Studio as the local developer, in headless Chromium: the home, a playbook named as a script,
// its workflow and function pages, the Ledger with a run beside it, a finished run, an open
// request answered through its form (a wrong answer refused beside the form first) until the
// workflow run finishes, and a comment that list_comments then shows the agent, which resolves
// it. Every page carries Studio's CSP, loads nothing from another server, opens no dialog and
// logs no console error; a foreign Origin is refused. Screenshots go to test-results/screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { launchBrowser } from './browser.mjs';
import { assertToolSuccess, runtimeUrl, uniqueName } from './helpers.mjs';
import {
  assertStudioHeaders, DEFINITIONS, HOSTILE, HOSTILE_IMG, open, screenshot, submit, watchedPage,
} from './studio_pages.mjs';

describe('Studio as the local developer', { timeout: 180_000 }, () => {
  const base = runtimeUrl();
  let client; let b; let page; let seen;
  let playbook; let name; let tools;
  let vatRun; let flowRun; let made; const defined = [];
  const call = async (tool, args = {}) => assertToolSuccess(await client.callTool({ name: tool, arguments: { playbook, ...args } }), { summaryLimit: 1000 });
  const pb = (path = '') => `${base}/studio/local/playbooks/${playbook}${path}`;
  const text = () => page.$eval('body', (el) => el.innerText);

  before(async () => {
    client = new Client({ name: 'studio-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    tools = new Set((await client.listTools()).tools.map((t) => t.name));
    name = `${HOSTILE} ${uniqueName('studio')}`;
    made = assertToolSuccess(await client.callTool({ name: 'create_playbook', arguments: { name, description: `Prices orders ${HOSTILE_IMG}`, page: `# Orders\n\n**Bold** and ${HOSTILE}` } }));
    playbook = made.id;
    for (const d of DEFINITIONS) defined.push(await call('create_definition', d));
    vatRun = await call('run_definition', { type: 'computation', name: 'add-vat', input: { net: 100 } });
    flowRun = await call('run_definition', { type: 'workflow', name: 'price-and-approve', input: { title: HOSTILE_IMG, net: 50 } });
    b = await launchBrowser();
    ({ page, seen } = await watchedPage(b.browser, base));
    page.on('response', (res) => {
      const type = res.headers()['content-type'] ?? '';
      if (res.url().startsWith(`${base}/studio`) && type.startsWith('text/html')) assertStudioHeaders(res.headers(), res.url());
    });
  });
  after(async () => {
    await b?.close();
    await client?.close();
  });

  test('/studio opens the local org, whose home lists the playbook by its name, as text', async () => {
    const res = await page.goto(`${base}/studio`);
    assert.equal(res.status(), 200);
    assert.equal(page.url(), `${base}/studio/local`);
    assertStudioHeaders(res.headers(), 'home');
    assert.ok((await text()).includes(name), 'the name is shown as it is written');
    assert.ok(await page.$(`a[href="/studio/local/playbooks/${playbook}"]`), 'it links to the playbook');
    await screenshot(page, 'home');
  });

  test("the playbook's page shows its page, its definitions by type and the ways on", async () => {
    await open(page, pb(), 'playbook');
    const body = await text();
    assert.ok(body.includes(`Bold and ${HOSTILE}`), body);
    assert.ok(await page.$('.page strong'), 'the page is Markdown');
    assert.match(body, /How its runs went\s+In the last 7 days, \d+ runs \(was 0\): \d+ succeeded/, 'the week as get_stats says it');
    for (const d of DEFINITIONS) assert.ok(await page.$(`a[href="/studio/local/playbooks/${playbook}/definitions/${d.type}/${d.name}"]`), d.name);
    for (const tab of ['ledger', 'requests', 'comments']) assert.ok(await page.$(`nav a[href$="/${tab}"]`), tab);
    const glance = await page.$eval(`a[href$="/definitions/workflow/price-and-approve"]`, (a) => a.closest('tr').innerText);
    assert.match(glance, /No order priced yet|The last order/, 'the workflow at a glance');
    await screenshot(page, 'playbook');
  });

  test("a workflow's page shows its document, overview and picture, and its runs", async () => {
    await open(page, pb('/definitions/workflow/price-and-approve'), 'workflow');
    const body = await text();
    assert.ok(body.includes("Prices an order and asks for approval."), body);
    assert.ok(body.includes('steps:'), 'the document');
    assert.ok(body.includes(flowRun.run_id), 'its run');
    assert.ok(body.includes('Orders priced'), 'its page, rendered');
    await screenshot(page, 'definition-workflow');
    const img = await page.$('figure img');
    assert.ok(img, 'the picture');
    const src = await img.evaluate((el) => el.getAttribute('src'));
    const svg = await fetch(`${base}${src}`);
    assert.equal(svg.status, 200);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(svg.headers.get('content-security-policy'), /default-src 'none'/);
    assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the picture is drawn');
  });

  test("a function's page shows its diagram and its finished run", async () => {
    await open(page, pb('/definitions/computation/add-vat'), 'function');
    const body = await text();
    assert.ok(body.includes('Adds 20% VAT'), body);
    const drawn = await page.$('figure img');
    assert.ok(drawn, 'the diagram, drawn');
    assert.match(await drawn.evaluate((el) => el.getAttribute('src')), /^data:image\/svg\+xml;base64,/, 'drawn into the page');
    assert.ok(await drawn.evaluate((el) => el.complete && el.naturalWidth > 0), 'and shown');
    assert.ok(body.includes(vatRun.run_id), body);
    await screenshot(page, 'definition-function');
  });

  test('the Ledger lists runs newest first, filters them, and shows a chosen run beside', async () => {
    await open(page, pb(`/ledger?run=${vatRun.run_id}`), 'ledger');
    let body = await text();
    const listed = () => page.$$eval('tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.innerText)));
    const rows = await listed();
    const times = rows.map((r) => r[3]);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    assert.ok(await page.$('aside a[href$="/runs/' + vatRun.run_id + '"]'), 'the chosen run beside');
    assert.ok(body.includes('"gross": 120'), body);
    await screenshot(page, 'ledger');
    await open(page, pb('/ledger?definition=computation%2Fadd-vat&status=succeeded'), 'ledger filtered');
    const filtered = await listed();
    assert.ok(filtered.some((r) => r[0] === vatRun.run_id), JSON.stringify(filtered));
    assert.ok(filtered.every((r) => r[1] === 'computation/add-vat' && r[2] === 'succeeded'), JSON.stringify(filtered));
    await open(page, pb('/ledger?status=nonsense'), 'ledger refused');
    assert.ok((await page.$('p.refused')), 'a filter list_runs refuses is said');
  });

  test('a finished run shows its input, output and whole history', async () => {
    await open(page, pb(`/runs/${vatRun.run_id}`), 'run');
    const body = await text();
    assert.ok(body.includes('"net": 100') && body.includes('"gross": 120'), body);
    assert.ok(body.includes('run_succeeded'), 'its history');
    await screenshot(page, 'run');
  });

  test('an open request is answered through its form: a wrong answer is refused beside it, then the run finishes', async () => {
    let listed;
    for (let i = 0; i < 40; i += 1) {
      listed = await call('list_interactions');
      if (listed.requests.length > 0) break;
      await new Promise((r) => { setTimeout(r, 250); });
    }
    const [request] = listed.requests;
    assert.ok(request, 'the workflow asks');
    await open(page, pb('/requests'), 'requests');
    assert.ok((await text()).includes(`Approve ${HOSTILE_IMG} at 60`), await text());
    await screenshot(page, 'requests');
    const form = `/requests/${request.run_id}/answer`;
    const sel = `form[action$="${form}"]`;
    // The form is made from the answer_schema: a choice for each verdict, a note to write.
    assert.ok(await page.$(`${sel} input[type=radio][name=verdict][value=approve]`), 'the verdict is a choice');
    await page.type(`${sel} textarea[name=note]`, HOSTILE);
    // The page's own checks aside (as a browser that does not check would send it), the runtime refuses it.
    await page.$eval(sel, (f) => { f.noValidate = true; });
    const refused = await submit(page, form);
    assert.equal(refused.status(), 400);
    assert.ok(await page.$(`#request-${request.run_id} .refused`), 'the refusal beside the form');
    assert.match(await page.$eval(`#request-${request.run_id}`, (el) => el.innerText), /verdict/i, 'it names the field');
    assert.equal(await page.$eval(`${sel} textarea[name=note]`, (el) => el.value), HOSTILE, 'what was written is kept');
    await screenshot(page, 'requests-refused');
    await page.click(`${sel} input[type=radio][name=verdict][value=approve]`);
    const answered = await submit(page, form);
    assert.equal(answered.status(), 200);
    assert.equal(new URL(page.url()).pathname, `/studio/local/playbooks/${playbook}/runs/${request.run_id}`);
    assert.ok((await text()).includes('succeeded'), await text());
    const flow = await call('get_run', { run_id: flowRun.run_id, wait_seconds: 10 });
    assert.equal(flow.status, 'succeeded', JSON.stringify(flow));
    await open(page, pb(`/runs/${flowRun.run_id}`), 'workflow run');
    assert.ok((await text()).includes('succeeded'));
    await screenshot(page, 'run-workflow');
  });

  test('a finished workflow run is drawn with each step coloured, and its timeline', async () => {
    await open(page, pb(`/runs/${flowRun.run_id}`), 'workflow run');
    const [img, timeline] = await page.$$('figure img');
    assert.ok(img && timeline, 'the run on its picture, and its timeline');
    assert.match(await timeline.evaluate((el) => el.getAttribute('src')), /^data:image\/svg\+xml;base64,/);
    assert.ok(await timeline.evaluate((el) => el.complete && el.naturalWidth > 0), 'the timeline is drawn');
    const src = await img.evaluate((el) => el.getAttribute('src'));
    const svg = await fetch(`${base}${src}`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(await svg.text(), /succeeded/);
  });

  test('a comment left on the playbook is what list_comments shows the agent, which resolves it', async () => {
    assert.ok(tools.has('list_comments') && tools.has('resolve_comment'), 'the agent is offered the comment tools');
    await open(page, pb(), 'playbook');
    await page.type('form[action$="/comments"] textarea[name=body]', `Check the rate ${HOSTILE}`);
    await submit(page, '/comments');
    assert.match(page.url(), /#comment-cm_/);
    const said = await call('list_comments', { address: 'playbook' });
    const mine = said.comments.find((c) => c.body === `Check the rate ${HOSTILE}`);
    assert.ok(mine, JSON.stringify(said));
    assert.equal(mine.by.name, 'tester');
    await screenshot(page, 'comment');
    // A comment on one step of a run, from the run's page.
    await open(page, pb(`/runs/${flowRun.run_id}`), 'workflow run');
    const step = `runs/${flowRun.run_id}/steps/price`;
    const form = `form:has(input[name=address][value="${step}"])`;
    await page.$eval(`input[name=address][value="${step}"]`, (el) => el.closest('details').querySelector('summary').click());
    await page.type(`${form} textarea[name=body]`, 'Is 20% the right rate here?');
    await Promise.all([page.waitForNavigation(), page.click(`${form} button[type=submit]`)]);
    const onStep = await call('list_comments', { under: `runs/${flowRun.run_id}` });
    assert.deepEqual(onStep.comments.map((c) => c.address), [step], JSON.stringify(onStep));
    assert.ok(await page.$(`#comment-${onStep.comments[0].id}`), 'the run page shows it');
    await call('resolve_comment', { id: mine.id, how: 'acted' });
    await open(page, pb('/comments'), 'comments');
    assert.ok(await page.$(`#comment-${mine.id} .st-resolved`), 'shown resolved');
    await screenshot(page, 'comments');
  });

  test('every studio link the agent was given opens the page it names', async () => {
    const links = [made.studio, ...defined.map((d) => d.studio), vatRun.studio, flowRun.studio];
    for (const link of links) {
      assert.ok(link.startsWith(`${base}/studio/local/`), link);
      await open(page, link, link);
      assert.ok((await text()).length > 0);
    }
  });

  test('a failed workflow run is run again from its failing step through its form, once the step is fixed', async () => {
    const rounding = (type) => `---\ndescription: Rounds a gross amount\ninput:\n  schema: { type: object, properties: { net: { type: number } }, required: [net] }\noutput:\n  schema: { type: object, properties: { gross: { type: ${type} } }, required: [gross] }\ncompute:\n  gross: input.net * 1\n---\n`;
    const invoice = '---\ndescription: Adds VAT, then rounds\ninput:\n  schema: { type: object, properties: { net: { type: number } }, required: [net] }\nsteps:\n  - id: vat\n    function: computation/add-vat\n    input:\n      net: input.net\n  - id: round\n    function: computation/rounding\n    input:\n      net: steps.vat.output.gross\noutput:\n  gross: steps.round.output.gross\n---\n';
    const fn = { overview: 'Rounds a gross amount and answers it to the workflow that asks.', diagram: 'flowchart LR\n  A[gross] --> B[rounded]' };
    await call('create_definition', { type: 'computation', name: 'rounding', source: rounding('string'), ...fn });
    await call('create_definition', { type: 'workflow', name: 'invoice', source: invoice, overview: 'Adds VAT to an order, then rounds the gross and answers it.' });
    await call('run_definition', { type: 'workflow', name: 'invoice', input: { net: 10 }, run_id: 'studio-inv-1' });
    let old;
    for (let i = 0; i < 10 && old?.status !== 'failed'; i++) old = await call('get_run', { run_id: 'studio-inv-1', wait_seconds: 2 });
    assert.equal(old.status, 'failed', JSON.stringify(old));
    await call('update_definition', { type: 'computation', name: 'rounding', source: rounding('number'), ...fn });

    await open(page, pb('/runs/studio-inv-1'), 'the failed run');
    const offered = await page.$$eval('form[action$="/runs/studio-inv-1/rerun"] input[name=from_step]', (els) => els.map((e) => e.value));
    assert.deepEqual(offered, ['round'], 'offered on the step that failed alone');
    const res = await submit(page, '/runs/studio-inv-1/rerun');
    assert.equal(res.status(), 200);
    const rerun = new URL(page.url()).pathname.split('/').pop();
    assert.notEqual(rerun, 'studio-inv-1', 'the new run\'s page');
    const done = await call('get_run', { run_id: rerun, wait_seconds: 5 });
    assert.deepEqual([done.status, done.rerun_of], ['succeeded', { run_id: 'studio-inv-1', from_step: 'round' }]);
    const vat = (await call('list_runs', { type: 'computation', name: 'add-vat', limit: 100 })).runs.filter((r) => r.within?.run_id === rerun);
    assert.deepEqual(vat, [], 'the step before was not run again');
    await screenshot(page, 'run-again');
  });

  test('a form from another site, or a page asked for by one, is refused and changes nothing', async () => {
    for (const path of ['/comments', `/requests/run_x/answer`, '/runs/run_x/rerun']) {
      const res = await fetch(pb(path), {
        method: 'POST', redirect: 'manual',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'csrf=x&body=hi&address=playbook',
      });
      assert.equal(res.status, 403, path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    }
    const same = await fetch(pb('/comments'), {
      method: 'POST', redirect: 'manual',
      headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrf=forged&body=hi&address=playbook',
    });
    assert.equal(same.status, 403, 'without the proof of the page');
    const other = await fetch(pb(), { headers: { origin: 'https://evil.example' } });
    assert.equal(other.status, 403);
  });

  test('no page opened a dialog, logged an error or loaded anything from another server', () => {
    assert.deepEqual(seen.dialogs, []);
    assert.deepEqual(seen.errors, []);
    assert.deepEqual(seen.foreign, []);
  });
});
