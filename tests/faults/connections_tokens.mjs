// The rows of the connections part (connections.mjs) where the stand-in service's token endpoint
// fails: while a person finishes a consent in headless Chromium, and while the token of a
// connected connection is refreshed; and the row where the service forgot every grant, so that a
// refresh is refused with invalid_grant. With them, what every row of the part is made of.
import { signInAtService } from '../e2e/standin_service.mjs';
import { wordsOf } from './connections_page.mjs';
import { must, sleep } from './wire.mjs';

// Access tokens last this long, so that a runtime that refreshes by the clock refreshes too; each
// refresh row first waits until the connection's token is past it.
export const TOKEN_TTL = 10;
const PAGE_MS = 60_000; // a consent whose token endpoint stalls holds the callback 15 s (AUTH_SECONDS)
export const MODES = ['error', 'stall', 'garbage'];
const MODE_SAYS = { error: 'answers 500', stall: 'never answers', garbage: 'answers 200 with garbage' };

export const tracker = (service) => ({
  tracker: {
    title: 'Tracker',
    description: 'The issues of the team, through the tracker\'s MCP server.',
    terms: ['issues'],
    server: { type: 'mcp', url: service.mcpUrl },
    ways: [{ kind: 'authorization', issuer: service.issuer, client: 'dynamic', scopes: [{ name: 'issues:read', says: 'Read the issues.' }] }],
    failure_codes: ['invalid_token'],
  },
});

/** A row of the table: what meets which fault, what it must come to, what came, and why it failed. */
export function row(fault, during, mustCome) {
  const failures = [];
  const saw = [];
  return {
    saw: (text) => saw.push(text),
    expect: (good, why) => { if (!good) failures.push(why); return good; },
    threw: (error) => failures.push(`stopped: ${String(error.message ?? error).slice(0, 300)}`),
    done: () => ({ fault, during, must: mustCome, saw: saw.join('; '), ok: failures.length === 0, detail: failures.join('; ') }),
  };
}


/** A connection as get_connection reads it, in a few words for the table. */
export async function stateOf(api, id) {
  const c = (await api.get(`/connections/${id}`)).json?.connection ?? {};
  return { ...c, said: `${c.status ?? '?'}${c.broken ? ` broken (${c.broken.kind})` : ''}` };
}

/** Whether the search of the playbook lists `name` as usable, or its because. */
export async function listed(api, playbook, name) {
  const found = (await api.get(`/playbooks/${playbook}/tool-servers/search?server=${name}`)).json;
  return found?.servers?.find((s) => s.name === name) ?? null;
}

/** One call by hand of list_issues on a tracker connection, over HTTP: what it came to. */
async function readIssues(api, playbook, name) {
  const answer = await api.post(`/playbooks/${playbook}/tool-servers/${name}/tools/list_issues/query`, { arguments: {} });
  return { ...answer, read: answer.status === 200 && answer.text.includes('Ada Lovelace') };
}

export const problemSaid = (a) => (a.json?.reason ? `${a.status} ${a.json.reason}: ${a.json.detail}` : `${a.status} ${a.text.slice(0, 200)}`);
export const becauseOf = (detail) => /\((\w+)\)/.exec(detail ?? '')?.[1] ?? null;

/**
 * Signs in at the service from a link's page in Chromium: the status and page of the runtime's
 * callback, and the page itself, still open, for the caller to approve on and close.
 */
async function consent(browser, url, seen) {
  const page = await browser.newPage();
  page.setDefaultTimeout(PAGE_MS);
  page.setDefaultNavigationTimeout(PAGE_MS);
  let callback = 0;
  page.on('response', (res) => { if (res.url().includes('/connect/callback')) callback = res.status(); });
  await page.goto(url);
  await Promise.all([page.waitForNavigation(), page.click('form[action$="/start"] button[type=submit]')]);
  await signInAtService(page, 'ada');
  const html = await page.content();
  seen.push(html);
  return { page, callback, html };
}

async function approveOn(page, seen) {
  await Promise.all([page.waitForNavigation(), page.click('form[action$="/approve"] button[type=submit]')]);
  const html = await page.content();
  seen.push(html);
  return html;
}

/**
 * Signs in at the service on the link of a pending connection and approves it: what it came to,
 * in a few words, and whether it is connected and its list_issues answers.
 */
async function finishConsent(ctx, url, name) {
  const again = await consent(ctx.browser, url, ctx.seen);
  const approved = await approveOn(again.page, ctx.seen);
  await again.page.close();
  const connected = await stateOf(ctx.api, ctx.ids[name]);
  const read = await readIssues(ctx.api, ctx.playbook, name);
  ctx.issued[name] = Date.now();
  const failed = [];
  if (!/is connected/.test(approved) || connected.status !== 'connected') failed.push(`finishing left it ${connected.said}: “${wordsOf(approved)}”`);
  if (!read.read) failed.push(`list_issues after: ${problemSaid(read)}`);
  return { said: `${connected.said}, list_issues ${read.read ? 'answered' : problemSaid(read).slice(0, 120)}`, failed };
}

/** Adds a tracker connection by the name `name`: its link. */
async function addTracker(ctx, name) {
  const added = must(await ctx.api.post('/connections', { provider: 'tracker', name }), `add_connection ${name}`);
  ctx.ids[name] = added.id;
  return added.connect.url;
}

/** The token endpoint fails as `mode` says while a person finishes the consent of a new connection. */
export async function consentRow(ctx, mode) {
  const r = row(`token endpoint ${MODE_SAYS[mode]}`, 'a person finishes a consent on the page',
    'the page says in words it did not work; the connection stays pending; it is finished once the endpoint answers');
  const name = `tracker_${mode}`;
  const { api, service, browser, seen } = ctx;
  try {
    const link = await addTracker(ctx, name);
    service.failTokenEndpoint(mode);
    const asked = service.counts().token ?? 0;
    let failed;
    try {
      failed = await consent(browser, link, seen);
    } finally {
      service.failTokenEndpoint(null);
    }
    await failed.page.close();
    ctx.api.answered(`GET /connect/callback (${mode})`, failed.callback, failed.html);
    const words = wordsOf(failed.html, 10_000);
    r.saw(`the callback answered ${failed.callback}: “${wordsOf(failed.html, 300)}”`);
    r.expect((service.counts().token ?? 0) > asked, 'the runtime never asked the token endpoint');
    r.expect(failed.callback >= 400 && failed.callback !== 500 && failed.callback < 600, `the callback answered ${failed.callback}`);
    r.expect(/did not work/i.test(words), 'the page does not say in words that signing in did not work');
    r.expect(!/access_token|\u0000/.test(failed.html), 'the page holds the garbage the endpoint sent');
    const pending = await stateOf(api, ctx.ids[name]);
    r.saw(`then ${pending.said}`);
    r.expect(pending.status === 'pending' && !pending.broken, `the connection was left ${pending.said}`);

    const finished = await finishConsent(ctx, link, name);
    r.saw(`signed in again with the endpoint back: ${finished.said}`);
    for (const why of finished.failed) r.expect(false, why);
  } catch (error) {
    r.threw(error);
  }
  return r.done();
}

/** Waits until the access token the connection last got is past its lifetime by the clock too. */
async function untilExpired(ctx, name) {
  const left = (ctx.issued[name] ?? 0) + (TOKEN_TTL + 1) * 1000 - Date.now();
  if (left > 0) await sleep(left);
}

/** The token endpoint fails as `mode` says while the token of a connected connection is refreshed. */
export async function refreshRow(ctx, mode, name) {
  const r = row(`token endpoint ${MODE_SAYS[mode]}`, `the expired token of the connected ${name} is refreshed`,
    'the call fails as connection_unavailable; the connection stays connected; its next call, the endpoint back, refreshes and answers');
  const { api, service } = ctx;
  try {
    await untilExpired(ctx, name);
    service.expireAccessTokens();
    service.failTokenEndpoint(mode);
    const mark = service.requests().length;
    const t0 = Date.now();
    let failed;
    try {
      failed = await readIssues(api, ctx.playbook, name);
    } finally {
      service.failTokenEndpoint(null);
    }
    const took = ((Date.now() - t0) / 1000).toFixed(1);
    const during = service.requests().slice(mark);
    const tried = during.filter((e) => e.route === 'token').length;
    const refused401 = during.filter((e) => e.route === 'mcp' && e.status === 401).length;
    const because = becauseOf(failed.json?.detail);
    r.saw(`the call took ${took} s and ${tried} token requests: ${failed.read ? 'answered' : problemSaid(failed).slice(0, 160)}`);
    r.expect(tried > 0, `no refresh was tried: the call went out with the expired token${refused401 ? ` and the service answered 401 (${refused401}×)` : ''}`);
    r.expect(!failed.read && failed.status === 503 && failed.json?.reason === 'unavailable', `the call was answered ${problemSaid(failed).slice(0, 200)}`);
    // The spec's because for a credential that cannot be had just now, which a later call may put right.
    r.expect(because === 'connection_unavailable', `the call names ${because ?? 'no because'}, not connection_unavailable`);
    const after = await stateOf(api, ctx.ids[name]);
    const searched = await listed(api, ctx.playbook, name);
    r.saw(`then ${after.said}, search ${searched?.because ?? 'available'}`);
    r.expect(after.status === 'connected' && !after.broken, `the connection was left ${after.said}${after.broken ? `: ${after.broken.detail}` : ''}`);
    r.expect(searched?.because !== 'connection_broken', 'search lists it connection_broken');

    const mark2 = service.requests().length;
    const again = await readIssues(api, ctx.playbook, name);
    ctx.issued[name] = Date.now();
    const refreshed = service.requests().slice(mark2).some((e) => e.route === 'token' && e.grant_type === 'refresh_token' && e.status === 200);
    r.saw(`the endpoint back: list_issues ${again.read ? 'answered' : problemSaid(again).slice(0, 120)}${refreshed ? ' after a refresh' : ''}`);
    r.expect(again.read, `list_issues with the endpoint back: ${problemSaid(again).slice(0, 200)}`);
    r.expect(refreshed, 'no refresh_token grant succeeded once the endpoint answered again');
  } catch (error) {
    r.threw(error);
  }
  return r.done();
}

/**
 * The service forgets every grant: the refresh is refused with invalid_grant and breaks the
 * connection. A connection of its own, so that what the rows before did to theirs cannot matter.
 */
export async function revokedRow(ctx) {
  const name = 'tracker_revoked';
  const r = row('refresh refused with invalid_grant (every grant revoked)', `the expired token of the connected ${name} is refreshed`,
    'the connection is broken: connection_broken, in words that say reconnect_connection mends it');
  const { api, service } = ctx;
  try {
    const finished = await finishConsent(ctx, await addTracker(ctx, name), name);
    if (finished.failed.length) throw new Error(`connecting ${name}: ${finished.failed.join('; ')}`);
    await untilExpired(ctx, name);
    service.revokeAll();
    const mark = service.requests().length;
    const call = await readIssues(api, ctx.playbook, name);
    const during = service.requests().slice(mark);
    const refused = during.filter((e) => e.route === 'token' && e.grant_type === 'refresh_token' && e.error === 'invalid_grant').length;
    const after = await stateOf(api, ctx.ids[name]);
    const searched = await listed(api, ctx.playbook, name);
    r.saw(`${refused} refreshes refused invalid_grant; the call ${problemSaid(call).slice(0, 120)}; then ${after.said}, search ${searched?.because ?? 'available'}`);
    r.expect(refused > 0, `no refresh was refused with invalid_grant (the service saw: ${during.map((e) => `${e.route} ${e.status}`).join(', ') || 'nothing'})`);
    r.expect(!call.read && call.status === 503, `the call was answered ${problemSaid(call).slice(0, 200)}`);
    r.expect(after.status === 'connected' && after.broken, `the connection was left ${after.said}`);
    r.expect(searched?.because === 'connection_broken' && /reconnect_connection/.test(searched?.detail ?? ''),
      `search lists it ${JSON.stringify(searched).slice(0, 200)}`);
  } catch (error) {
    r.threw(error);
  }
  return r.done();
}
