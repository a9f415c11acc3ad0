// GET /debug in headless Chromium: the page shows every tool a real MCP client is listed on /mcp,
// with its title and hints, and on /directory once the switch picks it; Ctrl+K and `/` open the
// search, which finds a guide by a word that only that guide holds. The page asks nothing of
// another origin and logs no error (a script or style its CSP refused would log one). Screenshots
// go to test-results/screenshots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { launchBrowser } from './browser.mjs';
import { ROOT } from './harness.mjs';
import { runtimeUrl } from './helpers.mjs';

const SHOTS = join(ROOT, 'test-results', 'screenshots');
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

/** What a real MCP client is given on `path`: every tool (every page of the list) and every prompt with its messages. */
async function served(base, path) {
  const client = new Client({ name: 'e2e-debug', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`)));
  try {
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const { prompts } = await client.listPrompts();
    const picked = [];
    for (const p of prompts) {
      const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, `<${a.name}>`]));
      picked.push({ ...p, got: await client.getPrompt({ name: p.name, arguments: args }) });
    }
    return { tools, prompts: picked };
  } finally {
    await client.close();
  }
}

/** The tools a panel of the page shows, as the browser lays it out: only a visible panel counts. */
function shownTools(page, panel) {
  return page.$$eval(`#${panel} [data-kind="tool"]`, (els) => els
    .filter((el) => el.checkVisibility())
    .map((el) => ({ name: el.dataset.name, title: el.querySelector('.title')?.textContent, text: el.textContent })));
}

describe('GET /debug', () => {
  let base; let b; let page;
  const foreign = [];
  const errors = [];

  before(async () => {
    base = runtimeUrl();
    b = await launchBrowser();
    page = await b.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on('request', (r) => { if (!r.url().startsWith(`${base}/`)) foreign.push(r.url()); });
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(String(e)));
    const res = await page.goto(`${base}/debug`);
    assert.equal(res.status(), 200);
  });
  after(async () => {
    await b?.close();
  });

  test('it needs no key, forbids framing and allows its own script and style alone', async () => {
    const res = await fetch(`${base}/debug`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/html/);
    const csp = res.headers.get('content-security-policy');
    assert.match(csp, /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
    assert.ok(!csp.includes('unsafe'), csp);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'same-origin');
    const html = await res.text();
    assert.ok(!/<script[^>]*\ssrc=/i.test(html) && !/<link\b/i.test(html) && !/<img\b/i.test(html));
    const post = await fetch(`${base}/debug`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET');
    const refused = await fetch(`${base}/debug`, { headers: { origin: 'https://evil.example' } });
    assert.equal(refused.status, 403, 'a page of another origin is refused as on every route');
  });

  test('it shows every tool tools/list gives on /mcp, with its title and hints', async () => {
    const { tools } = await served(base, '/mcp');
    const shown = await shownTools(page, 'root');
    assert.deepEqual(shown.map((t) => t.name), tools.map((t) => t.name));
    for (const [i, tool] of tools.entries()) {
      assert.equal(shown[i].title, tool.title, tool.name);
      // run_definition's and rerun_run's destructiveHint depends on the tool servers serving the org,
      // which the page says.
      const depends = ['run_definition', 'rerun_run'].includes(tool.name);
      const hints = depends ? HINTS.filter((h) => h !== 'destructiveHint') : HINTS;
      for (const h of hints) assert.ok(shown[i].text.includes(`${h}: ${tool.annotations[h]}`), `${tool.name} ${h}`);
      for (const arg of Object.keys(tool.inputSchema.properties ?? {})) assert.ok(shown[i].text.includes(arg), `${tool.name} ${arg}`);
    }
    assert.ok(shown.find((t) => t.name === 'run_definition').text.includes('destructiveHint is true while a tool server serves'));
    assert.deepEqual(await shownTools(page, 'directory'), [], 'one connection shows at a time');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'debug.png') });
    // One tool, one prompt and the top of one guide as a reviewer sees them.
    for (const [id, file] of [['root-tool-create_definition', 'debug-tool.png'], ['root-prompt-schedule', 'debug-prompt.png'], ['guide-start', 'debug-guide.png']]) {
      const box = await (await page.$(`#${id}`)).boundingBox();
      await page.screenshot({ path: join(SHOTS, file), captureBeyondViewport: true, clip: { x: box.x, y: box.y, width: box.width, height: Math.min(box.height, 1400) } });
    }
  });

  test('switching to /directory shows its list', async () => {
    const { tools } = await served(base, '/directory');
    await page.click('label[for="pick-directory"]');
    const shown = await shownTools(page, 'directory');
    assert.deepEqual(shown.map((t) => t.name), tools.map((t) => t.name));
    assert.deepEqual(await shownTools(page, 'root'), []);
    await page.click('label[for="pick-root"]');
    assert.ok((await shownTools(page, 'root')).length > 0);
  });

  test('Ctrl+K and / open the search, which finds a guide by a word only it holds', async () => {
    const { tools, prompts } = await served(base, '/mcp');
    const list = await (await fetch(`${base}/v1/guides`)).json();
    const guides = [];
    for (const g of list.guides) {
      const text = await (await fetch(`${base}/v1/guides/${g.name}`)).text();
      guides.push({ name: g.name, words: `${g.name} ${g.title} ${g.description} ${text}`.toLowerCase() });
    }
    const elsewhere = JSON.stringify([tools, prompts]).toLowerCase();
    const counts = new Map();
    for (const g of guides) {
      for (const w of new Set(g.words.match(/[a-z]{9,}/g))) counts.set(w, [...(counts.get(w) ?? []), g.name]);
    }
    const only = [...counts].filter(([w, in_]) => in_.length === 1 && !elsewhere.includes(w))
      .sort(([a], [b]) => b.length - a.length);
    assert.ok(only.length >= 2, 'some words are held by one guide alone');
    const find = async (word) => {
      await page.$eval('#search-words', (el) => { el.value = ''; });
      await page.type('#search-words', word);
      await page.waitForFunction(() => document.querySelectorAll('#search-hits li').length > 0);
      return page.$$eval('#search-hits a', (as) => as.map((a) => ({ name: a.textContent, href: a.getAttribute('href') })));
    };

    const [word, [guide]] = only[0];
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyK');
    await page.keyboard.up('Control');
    assert.ok(await page.$eval('#search', (d) => d.open), 'Ctrl+K opens the search');
    assert.deepEqual(await find(word), [{ name: guide, href: `#guide-${guide}` }], word);
    await page.screenshot({ path: join(SHOTS, 'debug-search.png') });
    await page.keyboard.press('Enter');
    assert.equal(await page.$eval('#search', (d) => d.open), false, 'picking a result closes the search');
    assert.equal(new URL(page.url()).hash, `#guide-${guide}`);

    const [other, [otherGuide]] = only[1];
    await page.keyboard.press('/');
    assert.ok(await page.$eval('#search', (d) => d.open), '/ opens the search');
    assert.deepEqual((await find(other)).map((h) => h.name), [otherGuide], other);
    await page.keyboard.press('Escape');

    await page.keyboard.press('/');
    const byName = await find('get_guide');
    assert.equal(byName[0].name, 'get_guide', 'a tool by its name comes first');
    await page.keyboard.press('Escape');
  });

  test('nothing left for another origin and nothing logged an error', () => {
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
  });
});
