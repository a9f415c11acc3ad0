// Part 5: connections. On a runtime of its own whose provider `tracker` (CONNECTION_PROVIDERS)
// is the stand-in service of tests/e2e/standin_service.mjs (an MCP server behind a real
// authorization server), and with connections given by hand to the misbehaving MCP server of
// tools_server.mjs, each row of the table meets one fault where a connection is most fragile:
//
// - the service's token endpoint answering 500, stalling or answering garbage while a person
//   finishes a consent in headless Chromium (the page says so in words; the connection stays
//   pending and is finished once the endpoint answers again), and while a connected connection's
//   token is refreshed (the call fails, the connection is not broken, and the next call refreshes);
//   a refresh refused with invalid_grant after the service forgot every grant breaks it;
// - the connection's MCP server answering garbage, a huge body, or nothing (the call fails with
//   its reason, nothing of the bad answer in it, the connection not broken);
// - hostile link tokens, forms and callbacks on the connect page (a clear refusal in words, never
//   a 5xx, and nothing approved);
// - then no credential (the keys given, the tokens and client secrets the service issued) in any
//   answer or in the Worker's log, and no panic.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { toolBody } from '../bench/mcp.mjs';
import { launchBrowser } from '../e2e/browser.mjs';
import { startStandinService } from '../e2e/standin_service.mjs';
import { forgedCallbacks, giveKey, hostileForms, hostileLinks, pageClient, wordsOf } from './connections_page.mjs';
import {
  becauseOf, consentRow, listed, MODES, refreshRow, revokedRow, row, stateOf, TOKEN_TTL, tracker,
} from './connections_tokens.mjs';
import { panics, start } from './runtime.mjs';
import { FAULTS, startFaultyServer } from './tools_server.mjs';
import { mcp, must, send } from './wire.mjs';

const CALL_MS = 60_000;
const JSON_TYPE = { 'content-type': 'application/json' };
// The server faults a connection's call meets, by family of tools_server.mjs; a stall is met
// with timeout_seconds, so that it costs seconds.
const SERVER_FAULTS = [
  { family: 'garbage', tools: ['not_json', 'wrong_id', 'not_jsonrpc'] },
  { family: 'huge', tools: ['declared', 'chunked'] },
  { family: 'stall', tools: ['silent'], timeout: 2 },
];
// What of a bad answer must never come back in the call's answer or its event.
const HALF_WRITTEN = ['never arrives whole', 'Bad Gateway', 'answer to another request', '"answer":[1,2,3]', 'x'.repeat(64)];

/** The org's HTTP API and /mcp; every answer is kept in `seen`, every 5xx but a 503 in `errors`. */
function client(base, seen, errors) {
  const answered = (what, status, text) => {
    if (status >= 500 && status !== 503) errors.push(`${what}: ${status} ${text.slice(0, 200)}`);
  };
  const call = async (method, path, body, timeoutMs = CALL_MS) => {
    const answer = await send(`${base}/v1/orgs/local${path}`, {
      method, headers: body ? JSON_TYPE : {}, body: body ? JSON.stringify(body) : undefined, timeoutMs,
    });
    seen.push(answer.text);
    answered(`${method} ${path}`, answer.status, answer.text);
    return answer;
  };
  return {
    answered,
    get: (path) => call('GET', path),
    post: (path, body, timeoutMs) => call('POST', path, body, timeoutMs),
    /** A tool over /mcp: its problem where it failed, else its structured answer. */
    tool: async (name, args) => {
      const answer = await mcp(base, toolBody(name, args));
      seen.push(answer.text);
      answered(`MCP ${name}`, answer.status, answer.text);
      const result = answer.message?.result;
      let problem = null;
      if (result?.isError) {
        try { problem = JSON.parse(result.content?.[1]?.text ?? ''); } catch { problem = { unreadable: result.content }; }
      }
      return { status: answer.status, problem, value: result && !result.isError ? result.structuredContent : null, text: answer.text };
    },
  };
}

/** Adds a connection given by hand to a door of the misbehaving server, taking a key: its id, link and key. */
async function addKeyed(ctx, name, url) {
  const added = must(await ctx.api.post('/connections', {
    name, type: 'mcp', entry: { url },
    credential: { kind: 'secret', name: 'Authorization', in: 'header', scheme: 'Bearer', instructions: 'Make a key under [Keys](https://faults.example/keys).', key_page: 'https://faults.example/keys' },
  }), `add_connection ${name}`);
  ctx.ids[name] = added.id;
  const key = `faults-key-${randomBytes(12).toString('hex')}`;
  ctx.keys.push(key);
  return { id: added.id, link: new URL(added.connect.url).pathname, key };
}

/** As addKeyed, then gives the key on the page and approves it. */
async function keyedConnection(ctx, name, url) {
  const { link, key } = await addKeyed(ctx, name, url);
  const approved = await giveKey(ctx.pages, link, key);
  if (!/is connected/.test(approved.text)) throw new Error(`approving ${name}: ${approved.status} ${wordsOf(approved.text)}`);
}

/** Calls of a misbehaving connection's tools, by hand over HTTP and over MCP, and what they must come to. */
async function serverRow(ctx, { family, tools, timeout }) {
  const faults = tools.map((t) => FAULTS.find((f) => f.tool === t));
  const r = row(`its MCP server ${family === 'stall' ? 'never answers' : `answers ${family === 'huge' ? 'a body over the bound' : 'garbage'}`}`,
    `calls of the connection faults_${family} (${tools.join(', ')})`,
    'each call fails unavailable naming the fault\'s because, with nothing of the bad answer in it or its event; the connection stays connected');
  const name = `faults_${family}`;
  const { api } = ctx;
  try {
    await keyedConnection(ctx, name, ctx.faulty.url(family));
    const said = [];
    for (const fault of faults) {
      const args = { arguments: { note: 'fault' }, ...(timeout ? { timeout_seconds: timeout } : {}) };
      const byHttp = await api.post(`/playbooks/${ctx.playbook}/tool-servers/${name}/tools/${fault.tool}/query`, args);
      const byMcp = await api.tool('execute_connection', { playbook: ctx.playbook, server: name, tool: fault.tool, ...args });
      for (const [door, status, p, text] of [['http', byHttp.status, byHttp.json, byHttp.text], ['mcp', byMcp.status, byMcp.problem, byMcp.text]]) {
        const good = status === (door === 'http' ? 503 : 200) && p?.reason === 'unavailable' && p?.kind === 'tool_unavailable'
          && p.detail.includes(`(${fault.because})`) && fault.says.test(p.detail) && (!timeout || p.detail.includes(`within ${timeout} second`));
        r.expect(good, `${door} ${fault.tool}: ${status} ${(p?.detail ?? text).slice(0, 200)}`);
        const half = HALF_WRITTEN.filter((m) => text.includes(m));
        r.expect(half.length === 0 && text.length < 16 * 1024, `${door} ${fault.tool}: the answer (${text.length} bytes) holds ${half.join(', ') || 'too much'}`);
      }
      said.push(`${fault.tool}: ${byHttp.json?.reason ?? byHttp.status} (${becauseOf(byHttp.json?.detail) ?? '?'})`);
      const reached = ctx.faulty.calls()[`${family}/${fault.tool}`] ?? 0;
      r.expect(reached === 2, `${fault.tool} reached the server ${reached} times for 2 calls`);
    }
    const events = (await api.get(`/playbooks/${ctx.playbook}/events?kind=tool_called&limit=100`)).json?.events ?? [];
    for (const fault of faults) {
      const own = events.filter((e) => e.data?.server === name && e.data?.tool === fault.tool);
      r.expect(own.length === 2 && own.every((e) => e.data.because === fault.because), `${fault.tool}: ${own.length} tool_called events, becauses ${own.map((e) => e.data.because).join(', ')}`);
      const half = own.filter((e) => HALF_WRITTEN.some((m) => JSON.stringify(e).includes(m)));
      r.expect(half.length === 0, `${fault.tool}: an event holds the bad answer`);
    }
    const after = await stateOf(api, ctx.ids[name]);
    const searched = await listed(api, ctx.playbook, name);
    r.saw(`${said.join(', ')}; then ${after.said}, search ${searched?.because ?? (searched ? 'available' : 'not listed')}`);
    r.expect(after.status === 'connected' && !after.broken, `the connection was left ${after.said}`);
    r.expect(searched && searched.available !== false && !searched.because, `search lists it ${JSON.stringify(searched).slice(0, 200)}`);
  } catch (error) {
    r.threw(error);
  }
  return r.done();
}

/** The words a refusal gives: an HTML page's text, or a problem document's detail (as the entry
 * refuses a browser of another origin before any page sees it). */
function refusalWords(answer) {
  if (answer.type.startsWith('text/html')) return { as: 'page', words: wordsOf(answer.text, 10_000) };
  if (!answer.type.startsWith('application/problem+json')) return { as: answer.type || 'nothing', words: '' };
  try {
    const problem = JSON.parse(answer.text);
    return { as: 'problem', words: typeof problem.reason === 'string' ? String(problem.detail ?? '') : '' };
  } catch {
    return { as: 'unreadable problem', words: '' };
  }
}

/** Sends hostile cases to the page: each must be refused with its status, in words. */
async function hostileRow(ctx, fault, cases, after) {
  const r = row(fault, 'the connect page', 'each refused with its 4xx status, in words (a page, or a problem document); nothing approved or finished');
  try {
    const statuses = [];
    const kinds = [];
    for (const c of cases) {
      const answer = c.path ? await ctx.pages.go(c.path) : await c.send(ctx.pages);
      const { as, words } = refusalWords(answer);
      statuses.push(answer.status);
      kinds.push(as);
      r.expect(c.status.includes(answer.status), `${c.name}: ${answer.status} (wanted ${c.status.join(' or ')}) “${words.slice(0, 120)}”`);
      r.expect(words.length >= 20, `${c.name}: no refusal in words (${answer.type || 'no answer'}) “${answer.text.slice(0, 80)}”`);
    }
    const tally = (list) => [...new Set(list)].sort().map((x) => `${list.filter((y) => y === x).length} × ${x}`).join(', ');
    r.saw(`${cases.length} cases: ${tally(statuses)}; as ${tally(kinds)}`);
    await after(r);
  } catch (error) {
    r.threw(error);
  }
  return r.done();
}

/**
 * The rows of hostile cases on the connect page. Their targets: a connection whose key is given,
 * one approve away from connected, and a consent that never started; neither may move.
 */
async function pageRows(ctx, done) {
  const { api, pages } = ctx;
  const target = await addKeyed(ctx, 'faults_target', ctx.faulty.url('good'));
  const opened = await pages.open(target.link);
  const given = await pages.post(`${target.link}/credential`, { value: target.key }, opened.proof);
  if (given.status !== 200) throw new Error(`giving the key of faults_target: ${given.status} ${wordsOf(given.text)}`);
  const waiting = must(await api.post('/connections', { provider: 'tracker', name: 'tracker_waiting' }), 'add_connection tracker_waiting');
  const stillPending = async (r, id, name) => {
    const s = await stateOf(api, id);
    r.expect(s.status === 'pending', `${name} was left ${s.said}`);
  };
  done(await hostileRow(ctx, 'hostile link tokens', hostileLinks(target.link), (r) => stillPending(r, target.id, 'faults_target')));
  done(await hostileRow(ctx, 'hostile forms', hostileForms(target.link, opened.proof), async (r) => {
    await stillPending(r, target.id, 'faults_target');
    // The same proof, sent as the page sends it, approves: the refusals above were the cases' doing.
    const approved = await pages.post(`${target.link}/approve`, {}, opened.proof);
    r.expect(/is connected/.test(approved.text), `the page's own approve: ${approved.status} “${wordsOf(approved.text)}”`);
  }));
  done(await hostileRow(ctx, 'forged callbacks', forgedCallbacks(new URL(waiting.connect.url).pathname),
    (r) => stillPending(r, waiting.id, 'tracker_waiting')));
}

/** Every credential the part gave or the service issued: none may appear in an answer or the log. */
function leakRow(ctx, log) {
  const r = row('every credential', 'all of the part: answers, pages and the Worker\'s log', 'no key given, token issued or client secret registered appears; no panic line');
  const issued = ctx.service.issuedTokens();
  const clientSecrets = ctx.service.clients().map((c) => c.client_secret).filter(Boolean);
  // Named by kind and place, so that the report never holds a piece of one.
  const named = (what, list) => list.map((value, i) => ({ name: `${what} ${i + 1}`, value }));
  const secrets = [...named('key', ctx.keys), ...named('access token', issued.access), ...named('refresh token', issued.refresh), ...named('client secret', clientSecrets)];
  const seen = ctx.seen.join('\n');
  const inAnswers = secrets.filter((s) => seen.includes(s.value)).map((s) => s.name);
  const inLog = secrets.filter((s) => log.includes(s.value)).map((s) => s.name);
  const panicked = panics(ctx.logs);
  r.saw(`${ctx.keys.length} keys, ${issued.access.length} access and ${issued.refresh.length} refresh tokens, ${clientSecrets.length} client secrets, grepped in ${ctx.seen.length} answers and ${log.length.toLocaleString('en-US')} bytes of log; ${panicked.length} panic lines`);
  r.expect(ctx.keys.length >= 3 && issued.access.length >= 3 && issued.refresh.length >= 3, 'too few credentials were given or issued to look for');
  r.expect(inAnswers.length === 0, `found in answers: ${inAnswers.join(', ')}`);
  r.expect(inLog.length === 0, `found in the log: ${inLog.join(', ')}`);
  r.expect(panicked.length === 0, panicked.slice(0, 3).join(' ;; '));
  return r.done();
}

export async function connections({ say }) {
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-connections-'));
  const logs = [];
  const seen = [];
  const errors = [];
  const service = await startStandinService({ accessTokenTtl: TOKEN_TTL });
  const faulty = await startFaultyServer();
  let rt = null;
  let browser = null;
  try {
    rt = await start(stateDir, logs, { CONNECTION_PROVIDERS: JSON.stringify(tracker(service)) });
    browser = await launchBrowser();
    const t0 = Date.now();
    const api = client(rt.url, seen, errors);
    const pages = pageClient(rt.url, seen, api.answered);
    const playbook = must(await api.post('/playbooks', { name: 'faults connections' }), 'create_playbook').id;
    const ctx = { api, pages, service, faulty, browser, seen, logs, playbook, ids: {}, issued: {}, keys: [] };
    const rows = [];
    const done = (r) => { rows.push(r); say(`connections: ${r.ok ? 'pass' : 'FAIL'} · ${r.fault} · ${r.during}${r.ok ? '' : `: ${r.detail.slice(0, 300)}`}`); };

    for (const mode of MODES) done(await consentRow(ctx, mode));
    for (const mode of MODES) done(await refreshRow(ctx, mode, `tracker_${mode}`));
    done(await revokedRow(ctx));
    for (const fault of SERVER_FAULTS) done(await serverRow(ctx, fault));
    await pageRows(ctx, done);

    const seconds = (Date.now() - t0) / 1000;
    await browser.close();
    browser = null;
    await rt.stop();
    const log = logs.map((read) => read()).join('\n');
    rt = null;
    done(leakRow(ctx, log));

    const check = (name, ok, detail) => ({ part: 'connections', name, ok, detail });
    const checks = [
      ...rows.map((r) => check(`${r.fault}, ${r.during}: ${r.must}`, r.ok, r.detail)),
      check('no answer was a 5xx but a 503', errors.length === 0, errors.slice(0, 5).join(' ;; ')),
    ];
    say(`connections: ${rows.length} rows in ${seconds.toFixed(0)} s; ${checks.filter((c) => !c.ok).length} checks failed`);
    return { stats: { rows, seconds, answers: seen.length, ttl: TOKEN_TTL }, checks };
  } finally {
    await browser?.close();
    await rt?.stop();
    await service.close();
    await faulty.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
