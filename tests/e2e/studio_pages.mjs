// What the Studio tests share: the documents of a small playbook (a computation, an interaction
// and a workflow that prices then asks), hostile text for every field a person can write, and a
// Chromium page that records what the page did besides showing itself: dialogs, console errors,
// requests to another server, and the answers' headers.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';
import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from './fixtures.mjs';

/** Text that would run if a page put it in its HTML as markup. */
export const HOSTILE = '<script>alert(1)</script>';
export const HOSTILE_IMG = '<img src=x onerror=alert(2)>';

export const APPROVE_PRICE = `---
description: "Asks the owner to approve a price ${HOSTILE_IMG}"
input:
  schema: { type: object, properties: { title: { type: string }, gross: { type: number } }, required: [title, gross] }
ask:
  deliver: agent
  answer:
    schema:
      type: object
      properties:
        verdict: { type: string, enum: [approve, revise] }
        note: { type: string }
      required: [verdict]
---
Approve {{ input.title }} at {{ input.gross }}?
`;

export const PRICE_AND_APPROVE = `---
description: "Prices an order, then asks its owner to approve the price ${HOSTILE_IMG}"
glance:
  headline: "{% if latest %}The last order, {{ latest.input.title }}, {{ latest.status }}{% else %}No order priced yet{% endif %}"
  figures:
    - label: Orders
      value: counts.runs
    - label: Waiting
      value: counts.running
  attention: counts.failed > 0
page: |
  # Orders priced

  {% if latest and latest.output -%}
  The last order, **{{ latest.input.title }}**, came to {{ latest.output.price.gross }}.
  {%- else -%}
  No order has been priced yet.
  {%- endif %}
input:
  schema: { type: object, properties: { title: { type: string }, net: { type: number } }, required: [title, net] }
steps:
  - id: price
    function: computation/add-vat
    input:
      net: input.net
  - id: approve
    function: interaction/approve-price
    input:
      title: input.title
      gross: steps.price.output.gross
output:
  price: steps.price.output
  approval: steps.approve.output
---
`;

/** The definitions of the playbook, in the order they are saved. */
export const DEFINITIONS = [
  { type: 'computation', name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
  {
    type: 'interaction', name: 'approve-price', source: APPROVE_PRICE,
    overview: "Asks the owner of an order to approve its price.",
    diagram: 'flowchart LR\n  A[price] --> B[ask the owner] --> C[verdict]',
  },
  { type: 'workflow', name: 'price-and-approve', source: PRICE_AND_APPROVE, overview: "Prices an order and asks for **approval**." },
];

/** The CSP every Studio page carries. */
export function assertStudioHeaders(headers, where) {
  const csp = headers['content-security-policy'] ?? '';
  for (const part of ["default-src 'none'", "img-src 'self' data:", "form-action 'self'", "frame-ancestors 'none'"]) {
    assert.ok(csp.includes(part), `${where}: CSP ${csp} lacks ${part}`);
  }
  assert.ok(!/script-src/.test(csp), `${where}: no script is allowed`);
  assert.equal(headers['x-frame-options'], 'DENY', `${where}: X-Frame-Options`);
}

/** Where screenshots go: test-results/screenshots/<name>.png under the repository. */
export async function screenshot(page, name) {
  const dir = join(ROOT, 'test-results', 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/**
 * A Chromium page that records what it did besides showing itself: `dialogs` opened,
 * console `errors`, and `foreign` requests to any other server than `base`.
 */
export async function watchedPage(browser, base) {
  const page = await browser.newPage();
  const seen = { dialogs: [], errors: [], foreign: [] };
  page.on('dialog', async (d) => { seen.dialogs.push(d.message()); await d.dismiss().catch(() => {}); });
  // Chromium logs a page answered with a refusal (a 4xx) as a console error of its own; those are
  // the answers the tests ask for, not something a page ran.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of 4')) seen.errors.push(m.text());
  });
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  // What a page of this runtime asks of another server; the provider's own sign-in pages are not
  // the runtime's, and what they load is theirs.
  page.on('request', (r) => {
    const url = r.url();
    const from = r.isNavigationRequest() ? '' : (r.frame()?.url() ?? '');
    if (from.startsWith(`${base}/`) && !url.startsWith(`${base}/`) && !url.startsWith('data:')) seen.foreign.push(url);
  });
  return { page, seen };
}

/** Opens `url` and checks the answer is a Studio page with its headers; answers its HTTP status. */
export async function open(page, url, where, { status = 200 } = {}) {
  const res = await page.goto(url);
  assert.equal(res.status(), status, `${where}: ${res.status()} ${(await page.content()).slice(0, 600)}`);
  assertStudioHeadersOrPage(res.headers(), where);
  return res;
}

function assertStudioHeadersOrPage(headers, where) {
  assert.equal(headers['x-frame-options'], 'DENY', `${where}: X-Frame-Options`);
  assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/, `${where}: CSP`);
}

/** Presses the submit button of the form whose action ends with `action`, and waits for the page it brings. */
export async function submit(page, action) {
  const [res] = await Promise.all([page.waitForNavigation(), page.click(`form[action$="${action}"] button[type=submit]`)]);
  return res;
}
