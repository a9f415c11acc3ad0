// Part 7: trust. On a runtime of its own with PUBLIC_URL, ADMIN_TOKEN, OWNERS and a real OpenID
// provider, each hole a review once found is tried again, harder than the end-to-end test tries it
// (tests/e2e/trust.test.mjs): a connection naming each of the runtime's own secrets, a stopped
// sign-in opened in another browser, a token allowed org:write alone making keys and owners, bodies
// of 300 MB sent without a length, a flood of registrations, addresses the provider does not vouch
// for, a client document that redirects, a replayed refresh token, and a forged Host on a runtime
// without local mode. Every attack must be refused. The runtime's memory (wrangler and workerd) is
// read before and after, and a key's request is timed before and during a flood of sign-ins.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chunkedPost, rawGet, recorder } from '../e2e/attack_parts.mjs';
import { browser, forms } from '../e2e/browse.mjs';
import { freePort } from '../e2e/harness.mjs';
import { PEOPLE, startOidcProvider } from '../e2e/oidc_provider.mjs';
import { atProvider, authorizeUrl, CALLBACK, refresh, register, tokenFor } from '../e2e/sign_in_flow.mjs';
import { panics, residentBytes, start } from './runtime.mjs';

const ADMIN = `admin-${'f'.repeat(40)}`;
const MiB = 1024 * 1024;
/** The runtime's own secrets and settings a connection must never send, whatever it names. */
const OWN = ['ADMIN_TOKEN', 'CONNECTIONS_KEY', 'OIDC_CLIENT_SECRET', 'OIDC_CLIENT_ID', 'ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'PUBLIC_URL', 'OWNERS', 'GITHUB_CLIENT_SECRET'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export async function trust({ say }) {
  const checks = [];
  const rows = [];
  const logs = [];
  const check = (name, ok, detail = '') => checks.push({ part: 'trust', name, ok, detail: ok ? '' : String(detail).slice(0, 500) });
  const row = (attack, tries, refused, saw) => {
    rows.push({ attack, tries, refused, saw });
    check(`${attack}: every try refused`, refused === tries, saw);
  };

  const attacker = await recorder((req, res, port) => {
    if (req.url === '/client.json') {
      res.writeHead(302, { location: `http://localhost:${port}/inside.json` }).end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const oidc = await startOidcProvider(base);
  const stateDir = mkdtempSync(join(tmpdir(), 'faults-trust-'));
  const nolocalDir = mkdtempSync(join(tmpdir(), 'faults-nolocal-'));
  let rt;
  let nolocal;
  try {
    const listed = Object.fromEntries(OWN.map((name) => [name, { orgs: '*', hosts: [`127.0.0.1:${attacker.port}`] }]));
    rt = await start(stateDir, logs, {
      ...oidc.vars, PUBLIC_URL: base, ADMIN_TOKEN: ADMIN, ANTHROPIC_API_KEY: 'sk-ant-not-a-real-key-0123456789',
      OWNERS: `acme=${PEOPLE.ada.email},evil=${PEOPLE.grace.email},beta=${PEOPLE.mallory.email},gamma=${PEOPLE.trudy.email}`,
      CONNECTION_VARIABLES: JSON.stringify(listed),
    }, port);
    const rssStart = residentBytes(rt.port);
    const bearer = (token) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const ada = (await tokenFor(base, 'ada', 'org:read org:write playbook:read playbook:write')).tokens;
    const grace = (await tokenFor(base, 'grace', 'org:read org:write playbook:read playbook:write')).tokens;

    say('trust: a connection naming each of the runtime\'s own secrets');
    let refused = 0; let tries = 0; const saw = [];
    for (const variable of OWN) {
      for (const place of [{ in: 'header', name: 'x-leak' }, { in: 'query', name: 'leak' }]) {
        tries += 1;
        const res = await fetch(`${base}/v1/orgs/evil/connections`, {
          method: 'POST', headers: bearer(grace.access_token),
          body: JSON.stringify({ name: `leak-${tries}`, type: 'openapi', entry: { document: `${attacker.origin}/openapi.json`, base_url: attacker.origin }, credential: { kind: 'reference', variable, ...place } }),
        });
        const doc = await res.json();
        if (res.status === 400 && doc.errors?.[0]?.pointer === '/credential/variable') refused += 1; else saw.push(`${variable} ${place.in}: ${res.status}`);
      }
    }
    const leaked = attacker.seen.some((r) => JSON.stringify(r).includes(ADMIN));
    row('a connection of kind reference naming a runtime secret', tries, refused, saw.join('; ') || `${refused} refused at /credential/variable`);
    check('no server was ever sent ADMIN_TOKEN', !leaked);

    say('trust: stopped sign-ins opened in another browser');
    const victim = browser();
    await atProvider(victim, await victim.go(`${base}/pages/me`), 'ada');
    tries = 5; refused = 0;
    for (let i = 0; i < tries; i += 1) {
      const thief = browser();
      let stopped = await thief.go(`${base}/pages/sign-in?to=%2Fpages%2Fme`, { stopAt: `${base}/oauth/callback` });
      stopped = await atProvider(thief, stopped, 'grace', `${base}/oauth/callback`);
      const opened = await victim.go(stopped.url);
      const me = JSON.parse((await victim.go(`${base}/pages/me`)).html);
      if (opened.status === 403 && me.id === `person:${PEOPLE.ada.sub}`) refused += 1;
    }
    row('a stopped sign-in\'s callback sent to a signed-in victim', tries, refused, `${refused} answered 403, the victim still Ada`);

    say('trust: a token allowed org:write alone');
    const narrow = (await tokenFor(base, 'ada', 'org:write')).tokens;
    const attempts = [
      fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ name: 'wide', scopes: ['org:read', 'org:write', 'playbook:read', 'playbook:write'] }) }),
      fetch(`${base}/v1/orgs/acme/keys`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ name: 'reader', scopes: ['playbook:read'] }) }),
      fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ person: `person:${PEOPLE.nobody.sub}`, role: 'owner' }) }),
      fetch(`${base}/v1/orgs/acme/roles`, { method: 'POST', headers: bearer(narrow.access_token), body: JSON.stringify({ person: `person:${PEOPLE.nobody.sub}`, role: 'viewer' }) }),
      fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(narrow.access_token) }),
    ];
    const statuses = await Promise.all((await Promise.all(attempts)).map(async (r) => { await r.arrayBuffer(); return r.status; }));
    row('a token of org:write alone making wider keys, giving roles, reading', statuses.length, statuses.filter((s) => s >= 400 && s < 500).length, statuses.join(' '));

    say('trust: bodies of 300 MB sent without a length');
    const rssBeforeBodies = residentBytes(rt.port);
    const bodies = [];
    for (const [path, headers] of [['/oauth/register', {}], ['/oauth/token', { 'content-type': 'application/x-www-form-urlencoded' }], ['/mcp', { ...bearer(ada.access_token), accept: 'application/json, text/event-stream' }], [`/v1/orgs/acme/playbooks`, bearer(ada.access_token)]]) {
      bodies.push({ path, ...(await chunkedPost(`${base}${path}`, 300 * MiB, headers)) });
    }
    const rssAfterBodies = residentBytes(rt.port);
    const early = bodies.filter((b) => [413, 400, 'reset', 'lost', 'stalled'].includes(b.status) && b.sent < 64 * MiB);
    row('a 300 MB body with no length', bodies.length, early.length, bodies.map((b) => `${b.path}: ${b.status} after ${(b.sent / MiB).toFixed(0)} MiB`).join('; '));
    const bodyGrowth = rssAfterBodies - rssBeforeBodies;
    check('the runtime\'s memory grew less than 64 MiB over the four bodies', bodyGrowth < 64 * MiB, `${(bodyGrowth / MiB).toFixed(1)} MiB`);

    say('trust: addresses the provider does not vouch for');
    tries = 0; refused = 0;
    for (const who of ['mallory', 'trudy']) {
      tries += 1;
      const b = browser();
      const page = await atProvider(b, await b.go(`${base}/studio`), who);
      const org = who === 'mallory' ? 'beta' : 'gamma';
      const roles = await (await fetch(`${base}/v1/orgs/${org}/roles`, { headers: bearer(ADMIN) })).json();
      if (page.status === 403 && roles.assignments?.length === 0) refused += 1;
    }
    row('an unverified address named in OWNERS signing in', tries, refused, `${refused} shown no role, their org left without an owner`);

    say('trust: a client document that redirects inside');
    const cimd = await fetch(authorizeUrl(base, `${attacker.origin}/client.json`, 'playbook:read').url, { redirect: 'manual' });
    const followed = attacker.seen.some((r) => r.path === '/inside.json');
    row('a client ID metadata document that redirects to localhost', 1, cimd.status === 400 && !followed ? 1 : 0, `${cimd.status}, its target fetched: ${followed}`);

    say('trust: a replayed refresh token');
    const { tokens: first, clientId } = await tokenFor(base, 'ada', 'playbook:read');
    const second = await refresh(base, clientId, first.refresh_token);
    const third = await refresh(base, clientId, second.body.refresh_token);
    const replay = await refresh(base, clientId, first.refresh_token);
    const after = await refresh(base, clientId, third.body.refresh_token);
    const access = await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(third.body.access_token) });
    row('a rotated refresh token replayed', 1, replay.status === 400 && after.status === 400 && access.status === 401 ? 1 : 0, `replay ${replay.status}, the owner's refresh ${after.status}, its access token ${access.status}`);

    say('trust: a flood of registrations and sign-ins');
    const keyed = () => fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(ada.access_token) }).then((r) => r.arrayBuffer());
    const quiet = [];
    for (let i = 0; i < 20; i += 1) quiet.push(await timed(keyed));
    const flood = [];
    const registrations = [];
    const flooding = (async () => {
      for (let batch = 0; batch < 15; batch += 1) {
        const sent = Array.from({ length: 20 }, (_, i) => fetch(`${base}/oauth/register`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: `flood ${batch}-${i}`, redirect_uris: [CALLBACK], token_endpoint_auth_method: 'none' }),
        }).then(async (r) => { await r.arrayBuffer(); registrations.push(r.status); }));
        const starts = Array.from({ length: 10 }, () => fetch(`${base}/pages/sign-in?to=%2F`, { redirect: 'manual' }).then((r) => r.arrayBuffer()));
        await Promise.all([...sent, ...starts]);
      }
    })();
    while (registrations.length < 280) flood.push(await timed(keyed));
    await flooding;
    const kept = registrations.filter((s) => s === 201).length;
    const limited = registrations.filter((s) => s === 429).length;
    rows.push({ attack: '300 registrations from one address, with 150 sign-ins begun beside them', tries: registrations.length, refused: limited, saw: `${kept} kept, ${limited} answered 429` });
    check('at most the limit of registrations (10 a minute) was kept, the rest answered 429', kept <= 10 && kept + limited === registrations.length, `${kept} kept, ${limited} limited`);

    const rssEnd = residentBytes(rt.port);
    check('the runtime still answers a key', (await fetch(`${base}/v1/orgs/acme/playbooks`, { headers: bearer(ada.access_token) })).status === 200);

    say('trust: a forged Host on a runtime without local mode');
    nolocal = await start(nolocalDir, logs, { LOCAL_MODE: 'off' });
    const forged = [
      { host: 'localhost' }, { host: '127.0.0.1' }, { host: '[::1]' },
      { host: 'runtime.example.com', 'x-forwarded-host': 'localhost', 'x-forwarded-for': '127.0.0.1' },
      { host: 'localhost', forwarded: 'for=127.0.0.1;host=localhost', 'x-real-ip': '127.0.0.1', 'cf-connecting-ip': '127.0.0.1' },
    ];
    const answers = [];
    for (const headers of forged) answers.push((await rawGet(nolocal.port, '/v1/orgs/local/playbooks', headers)).code);
    row('a request without a credential, its Host or forwarding headers forged', forged.length, answers.filter((c) => c === 401).length, answers.join(' '));

    const found = panics(logs);
    check('no panic in the log', found.length === 0, found.join('\n'));
    return {
      stats: {
        rows,
        memory: { start: rssStart, beforeBodies: rssBeforeBodies, afterBodies: rssAfterBodies, end: rssEnd },
        latency: { quiet: median(quiet), flood: median(flood) },
        registrations: { sent: registrations.length, kept, limited },
      },
      checks,
    };
  } finally {
    await rt?.stop();
    await nolocal?.stop();
    await oidc.close();
    await attacker.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(nolocalDir, { recursive: true, force: true });
  }
}
