// The isolation matrix: two orgs, acme and globex, each with playbooks, a definition, a run, an event and an asset made
// by its own full key (and a person given a role in acme); then every HTTP route of the OpenAPI document and every MCP tool (on /mcp and on the
// scoped endpoint it belongs to), naming acme's real ids, called as each caller that must not reach them:
// a key of globex, a key of acme kept to another playbook, a read-only key of acme (for writes), a revoked
// key, an expired key, and no credential on a host that is not loopback. Every cell must be refused (or, for
// a listing, leave acme's playbook out) and answer exactly what the same call naming made-up ids answers,
// so a refusal never tells whether acme's thing exists. A control column, acme's own full key, shows the
// reads do find the real ids and not the made-up ones. The matrix is printed as a table.
//
// Connections are the exception to the control. Only a person adds a connection (add_connection
// refuses a key), and on this shared runtime in local mode the one person is the local developer, who
// acts in the org local alone: no connection of acme can exist. So the connection and link the matrix
// names are real ones of the org local, added by the local developer on loopback, who reads them back
// there; every caller of acme, acme's own full key included, must be answered for them exactly as for
// made-up ones, and the control shows acme's full key refused add_connection in the documented words.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW, addVat, scriptTinyImage, TINY_IMAGE_DIAGRAM, TINY_IMAGE_OVERVIEW, tinyImageFunction,
} from './fixtures.mjs';
import {
  adminToken, ALL_SCOPES, keyName, makeKey, publicMcp, publicRequest, READ_KEY_TOOLS, READ_SCOPES, revokeKey, runtimeUrl,
  TOOL_HINTS, uniqueName,
} from './helpers.mjs';
import { wellFormedKey } from './key_format.mjs';
import { toolServers } from './tool_servers.mjs';
import { until } from './waiting.mjs';

const ACME = 'acme';
const GLOBEX = 'globex';
const MADE_UP_ORG = 'no-such-org';
const COLUMNS = ['globex key', 'acme kept to B', 'acme read-only', 'revoked', 'expired', 'no credential', 'acme full (control)'];
const DEAD = new Set(['revoked', 'expired', 'no credential']);
// The routes that manage access (keys and roles): no key reaches them, whatever its scopes.
const ACCESS_ROUTES = new Set(['create_key', 'list_keys', 'revoke_key', 'list_role_assignments', 'assign_role', 'unassign_role']);
// The routes only a person calls (a comment is what a person says): acme's own key is refused them too,
// so they have no control cell, and a test of their own shows the refusal.
const PEOPLE_ONLY = new Set(['make_comment', 'make_comment_in_playbook', 'reopen_comment', 'reopen_comment_in_playbook']);

/** Whether an operation names a connection or a link, which on this runtime are the org local's (see the top). */
const namesConnection = (path) => path.includes('{connection}') || path.includes('{token}');

/** The local developer's call on loopback, in the org local. */
async function local(method, path, body) {
  const res = await fetch(`${runtimeUrl()}/v1/orgs/local${path}`, {
    method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json() };
}

/** Valid arguments of each operation, naming the things `ids` gives. */
function argsFor(ids) {
  const { playbook, run_id, event_id, connection, token } = ids;
  const fn = { playbook, type: 'computation', name: ids.name };
  return {
    create_playbook: { name: 'matrix intruder' },
    list_playbooks: {},
    get_playbook: { playbook },
    update_playbook: { playbook, description: 'Changed by an intruder.' },
    retire_playbook: { playbook },
    restore_playbook: { playbook },
    check_definition: { playbook, type: 'computation', name: 'intruder', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
    create_definition: { playbook, type: 'computation', name: 'intruder', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
    list_definitions: { playbook, type: 'computation' },
    get_definition: fn,
    update_definition: { ...fn, source: addVat('0.5'), overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM },
    pause_definition: { ...fn, reason: 'An intruder.' },
    resume_definition: fn,
    retire_definition: fn,
    restore_definition: fn,
    run_definition: { ...fn, input: { net: 1 } },
    get_run: { playbook, run_id },
    get_run_history: { playbook, run_id },
    render_page: fn,
    render_playbook_page: { playbook },
    get_playbook_analytics: { playbook },
    list_runs: { playbook },
    get_stats: { playbook },
    cancel_run: { playbook, run_id },
    rerun_run: { playbook, run_id },
    send_run_event: { playbook, run_id, name: 'go' },
    list_interactions: { playbook },
    answer_interaction: { playbook, run_id, answer: { ok: true } },
    publish_event: { playbook, kind: 'intrusion' },
    list_playbook_events: { playbook },
    get_event: { playbook, event_id },
    get_asset: { playbook, asset_id: ids.asset },
    get_asset_content: { playbook, asset_id: ids.asset },
    list_models: {},
    list_generation_models: {},
    get_guide: { guide: 'start' },
    create_key: { name: 'intruder', scopes: ['org:read'] },
    list_keys: {},
    revoke_key: { key: ids.key },
    list_role_assignments: {},
    assign_role: { person: ids.person, role: 'owner' },
    unassign_role: { person: ids.person },
    list_guides: {},
    get_openapi: {},
    // The tool servers' operations, on a tool every playbook of the org may use (tool_servers.mjs).
    search: { playbook },
    search_in_playbook: { playbook },
    introspect: { playbook, server: 'fixture', tool: 'echo' },
    dry_run: { playbook, server: 'fixture', tool: 'echo', arguments: { text: 'matrix' } },
    validate: { playbook, server: 'fixture', tool: 'echo', arguments: { text: 'matrix' } },
    query_connection: { playbook, server: 'fixture', tool: 'echo', arguments: { text: 'matrix' } },
    execute_connection: { playbook, server: 'fixture', tool: 'echo', arguments: { text: 'matrix' } },
    // Connections and the operations of a connection's link.
    add_connection: { name: 'intruder', type: 'mcp', entry: { url: 'https://mcp.example/mcp' }, credential: { kind: 'none' } },
    list_connections: {},
    list_connection_tools: { connection },
    reconnect_connection: { connection },
    remove_connection: { connection },
    get_connection: { connection },
    set_connection_playbooks: { connection, playbooks: [playbook] },
    set_connection_signing_secret: { connection, secret: 'intruder-signing-secret' },
    remove_connection_signing_secret: { connection },
    list_providers: {},
    read_link: { token },
    approve: { token },
    give_credential: { token, value: 'intruder-key' },
    give_client: { token, client_id: 'intruder', client_secret: 'intruder-secret' },
    start: { token },
    finish: { token, query: 'code=intruder&state=intruder' },
    cancel: { token },
    // Comments: the org's own on its routes, a playbook's on the others. No key can make a comment, so
    // the id names none of acme's, real or made up, and each is answered as for any other id.
    list_comments: {},
    list_comments_in_playbook: { playbook },
    make_comment: { address: 'org', body: 'An intruder says hello.' },
    make_comment_in_playbook: { playbook, address: 'ledger', body: 'An intruder says hello.' },
    resolve_comment: { id: ids.comment, how: 'acted' },
    resolve_comment_in_playbook: { playbook, id: ids.comment, how: 'acted' },
    reopen_comment: { id: ids.comment },
    reopen_comment_in_playbook: { playbook, id: ids.comment },
  };
}

/** Blanks every id of the call (real or made up), so two answers compare but for the ids. */
function blanked(text, ids) {
  return ids.filter(Boolean).reduce((t, id) => t.split(id).join('<id>'), text);
}

/** An HTTP operation of the document as a request: path parameters in the path, the rest as the body. */
function httpCall(op, args, org, key) {
  const rest = { ...args };
  const path = op.path.replace(/\{(\w+)\}/g, (_, name) => {
    if (name === 'org') return org;
    const value = rest[name];
    delete rest[name];
    return encodeURIComponent(value);
  });
  const body = op.method === 'POST' || op.method === 'PUT' ? rest : undefined;
  return publicRequest(op.method, path, { key, body });
}

/** What an MCP answer shows, in a word: an HTTP refusal's status, a JSON-RPC error's code, a tool failure's reason, or ok. */
function mcpLabel(res) {
  if (res.status !== 200) return String(res.status);
  if (res.json?.error) return String(res.json.error.code);
  if (res.json?.result?.isError) return JSON.parse(res.json.result.content[1].text).reason;
  return 'ok';
}

function printTable(title, rows) {
  const header = ['operation', ...COLUMNS];
  const table = [header, ...rows.map((r) => [r.op, ...COLUMNS.map((c) => r.cells[c] ?? '')])];
  const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log(`\n${title}\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${table.slice(1).map(line).join('\n')}\n`);
}

describe('isolation matrix: nothing of acme is reached, or told of, by anyone but acme', () => {
  const keys = {}; // column → secret (undefined for no credential)
  let real; // acme's real ids
  let madeUp; // the same kinds of ids, naming nothing
  let operations; // the OpenAPI document's operations
  let unknownKeyBody; // what a key the runtime never issued is answered
  let tools; // acme's full key's tools/list on /mcp
  let onOrg; // the tools acme's org endpoint lists to that key
  let onPlaybook; // the tools acme's playbook endpoint lists to it
  let localConnection; // the connection of the org local the matrix names, removed afterwards

  before(async () => {
    const acmeFull = await makeKey(ACME, { name: keyName('acme-full'), scopes: ALL_SCOPES });
    const globexFull = await makeKey(GLOBEX, { name: keyName('globex-full'), scopes: ALL_SCOPES });
    // The expired key is made first and used at once, so this isolate trusts it; it expires while the
    // rest is made, and is awaited below to be refused, well within the 5 s that trust lasts.
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    const expiring = await makeKey(ACME, { name: keyName('acme-expiring'), scopes: ALL_SCOPES, expires_at: expiresAt });
    const alive = await publicRequest('GET', `/v1/orgs/${ACME}/playbooks`, { key: expiring.key });
    assert.equal(alive.status, 200, `works while alive: ${alive.text}`);

    const build = async (org, key) => {
      const call = async (method, path, body, status = [200, 201]) => {
        const res = await publicRequest(method, `/v1/orgs/${org}${path}`, { key, body });
        assert.ok(status.includes(res.status), `${method} ${path}: ${res.text}`);
        return res.json;
      };
      const pb = await call('POST', '/playbooks', { name: uniqueName(`${org} target`) });
      await call('POST', `/playbooks/${pb.id}/definitions/computation`,
        { name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM });
      const run = await call('POST', `/playbooks/${pb.id}/definitions/computation/add-vat/run`, { input: { net: 100 }, run_id: 'matrix-run' });
      assert.equal(run.status, 'succeeded');
      // An asset: the MCP logo a reasoning run's tool answered, kept by the runtime (assets.test.mjs).
      const model = `gpt-4.1-matrix-${org}`;
      await call('POST', `/playbooks/${pb.id}/definitions/reasoning`,
        { name: 'logo', source: tinyImageFunction(model), overview: TINY_IMAGE_OVERVIEW, diagram: TINY_IMAGE_DIAGRAM });
      await scriptTinyImage(model);
      const drawn = await call('POST', `/playbooks/${pb.id}/definitions/reasoning/logo/run`, { input: { subject: 'the logo' } });
      assert.equal(drawn.status, 'succeeded', JSON.stringify(drawn));
      const history = await call('GET', `/playbooks/${pb.id}/events?run_id=${drawn.run_id}`);
      const asset = history.events.find((e) => e.kind === 'tool_call_answered')?.data?.assets?.[0]?.asset_id;
      assert.ok(asset, JSON.stringify(history.events));
      const event = await call('POST', `/playbooks/${pb.id}/events`, { kind: 'matrix_probe', data: {} });
      const other = await call('POST', '/playbooks', { name: uniqueName(`${org} other`) });
      return { playbook: pb.id, name: 'add-vat', run_id: run.run_id, event_id: event.event_id, asset, other: other.id, title: pb.name };
    };
    const acme = await build(ACME, acmeFull.key);
    await build(GLOBEX, globexFull.key);

    const kept = await makeKey(ACME, { name: keyName('acme-kept'), scopes: ALL_SCOPES, playbooks: [acme.other] });
    const reader = await makeKey(ACME, { name: keyName('acme-reader'), scopes: READ_SCOPES });
    const revoked = await makeKey(ACME, { name: keyName('acme-revoked'), scopes: ALL_SCOPES });
    assert.equal((await publicRequest('GET', `/v1/orgs/${ACME}/playbooks/${acme.playbook}`, { key: revoked.key })).status, 200, 'works while alive');
    await revokeKey(ACME, revoked.id);
    // A person who holds a role in acme, given it by the operator.
    const person = `person:matrix-${keyName('ada')}`;
    const given = await publicRequest('POST', `/v1/orgs/${ACME}/roles`, { key: adminToken(), body: { person, role: 'viewer' } });
    assert.equal(given.status, 200, given.text);
    // A real connection, pending, and its link: the local developer's, in the org local (see the top).
    const { crm } = toolServers().servers;
    const added = await local('POST', '/connections', {
      name: `matrix-${keyName('crm').toLowerCase().replace(/[^a-z0-9_-]/g, '-')}`.slice(0, 64), type: 'openapi',
      entry: { document: crm.document, base_url: crm.base },
      credential: { kind: 'secret', name: crm.header, in: 'header', instructions: 'Make a key under [Keys](https://crm.example/keys).', key_page: 'https://crm.example/keys' },
    });
    assert.equal(added.status, 201, JSON.stringify(added.json));
    const connection = added.json.id;
    const token = new URL(added.json.connect.url).pathname.split('/').pop();
    assert.equal((await local('GET', `/connections/${connection}`)).status, 200, 'the connection is real');
    assert.equal((await local('GET', `/connect/${token}`)).json.link?.state, 'open', 'the link is real');
    localConnection = connection;
    real = { ...acme, key: reader.id, person, connection, token, comment: 'cm_aaaaaaaaaaaaaaaa' };
    madeUp = {
      playbook: 'pb_zzzzzzzzzzzzzzzz', name: 'no-such-function', run_id: 'no-such-run', event_id: 'ev_424242', asset: 'ast_zzzzzzzzzzzzzzzz',
      key: 'key_zzzzzzzzzzzzzzzz', person: 'person:no-such-person',
      connection: 'con_zzzzzzzzzzzzzzzz', token: `cl_${'z'.repeat(32)}`, comment: 'cm_zzzzzzzzzzzzzzzz',
    };
    Object.assign(keys, {
      'globex key': globexFull.key, 'acme kept to B': kept.key, 'acme read-only': reader.key, revoked: revoked.key,
      expired: expiring.key, 'no credential': undefined, 'acme full (control)': acmeFull.key,
    });

    const doc = await publicRequest('GET', '/v1/openapi.json', { key: acmeFull.key });
    operations = Object.entries(doc.json.paths).flatMap(([path, item]) =>
      Object.entries(item).filter(([m]) => ['get', 'post', 'put', 'delete'].includes(m))
        .map(([method, op]) => ({ method: method.toUpperCase(), path, id: op.operationId, scope: op['x-scope'] })));
    const listed = async (path) => (await publicMcp(path, 'tools/list', {}, { key: acmeFull.key })).json.result.tools;
    tools = await listed('/mcp');
    onOrg = new Set((await listed(`/orgs/${ACME}/mcp`)).map((t) => t.name));
    onPlaybook = new Set((await listed(`/orgs/${ACME}/playbooks/${acme.playbook}/mcp`)).map((t) => t.name));
    unknownKeyBody = (await publicRequest('GET', `/v1/orgs/${ACME}/playbooks`, { key: wellFormedKey() })).text;
    await until('the expiring key is refused', () => publicRequest('GET', `/v1/orgs/${ACME}/playbooks`, { key: expiring.key }),
      (res) => res.status === 401, { deadline: Date.parse(expiresAt) + 2_000 });
  });

  after(async () => {
    if (localConnection) assert.equal((await local('DELETE', `/connections/${localConnection}`)).status, 200);
  });

  test("acme's own full key is refused add_connection: a key never adds a connection", async () => {
    const res = await publicRequest('POST', `/v1/orgs/${ACME}/connections`, { key: keys['acme full (control)'], body: argsFor(real).add_connection });
    assert.equal(res.status, 403, res.text);
    assert.match(res.json.detail, /a key does not add one/);
    const listed = await publicRequest('GET', `/v1/orgs/${ACME}/connections`, { key: keys['acme full (control)'] });
    assert.deepEqual(listed.json.connections, [], 'acme has no connection');
  });

  test("acme's own full key is refused make_comment and reopen_comment: a comment is what a person says", async () => {
    for (const id of PEOPLE_ONLY) {
      const op = operations.find((o) => o.id === id);
      const res = await httpCall(op, argsFor(real)[id], ACME, keys['acme full (control)']);
      assert.equal(res.status, 403, `${id}: ${res.text}`);
      assert.match(res.json.detail, /a comment is what a person says/, id);
    }
  });

  test('the matrix covers every operation of the OpenAPI document and every tool', () => {
    const ids = operations.map((o) => o.id);
    assert.ok(ids.length >= 58, `${ids.length} operations`);
    assert.deepEqual(ids.filter((id) => !(id in argsFor(real))), [], 'operations the matrix has no arguments for');
    assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(TOOL_HINTS).sort());
  });

  test('every HTTP route refuses, alike for real and made-up ids', { timeout: 120_000 }, async () => {
    const rows = [];
    const failures = [];
    for (const op of operations) {
      const cells = {};
      const public_ = !op.path.includes('{org}');
      // A write needs a write scope: dry_run and validate are POSTs that only read.
      const write = op.scope?.endsWith(':write') || ACCESS_ROUTES.has(op.id) || PEOPLE_ONLY.has(op.id);
      for (const column of COLUMNS) {
        const control = column === 'acme full (control)';
        if ((column === 'acme read-only' && !write) || (control && (write || public_))) { cells[column] = '·'; continue; }
        const res = await httpCall(op, argsFor(real)[op.id], ACME, keys[column]);
        const fake = await httpCall(op, argsFor(madeUp)[op.id], ACME, keys[column]);
        const ids = [...Object.values(real), ...Object.values(madeUp)].filter((v) => typeof v === 'string' && v.length > 4);
        const where = `${op.method} ${op.path} as ${column}`;
        let label = String(res.status);
        if (control) {
          // The owner tells real from made up, which is what the others must not be able to.
          label = `${res.status}/${fake.status}`;
          // A connection or link of the org local is not acme's: its own key finds it no more than a made-up one.
          const expect = namesConnection(op.path) ? '404/404' : op.path.includes('{playbook}') ? '200/404' : '200/200';
          if (label !== expect) failures.push(`${where}: ${label}, expected ${expect}`);
        } else if (public_ && !DEAD.has(column)) {
          label = `${res.status} public`; // the guides and the document, which hold nothing of an org
          if (res.status !== 200) failures.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`);
        } else if (['list_playbooks', 'search'].includes(op.id) && res.status === 200) {
          // A listing of the org (its playbooks, the tool servers of the playbooks a key reaches).
          label = '200 hidden';
          if (res.text.includes(real.playbook) || res.text.includes(real.title)) failures.push(`${where} lists acme's playbook`);
        } else {
          if (![401, 403, 404].includes(res.status)) failures.push(`${where}: ${res.status} ${res.text.slice(0, 200)}`);
          if (res.status !== fake.status || blanked(res.text, ids) !== blanked(fake.text, ids)) {
            failures.push(`${where} tells real from made-up ids:\n  ${res.status} ${res.text}\n  ${fake.status} ${fake.text}`);
          }
          if (column === 'globex key') {
            const elsewhere = await httpCall(op, argsFor(madeUp)[op.id], MADE_UP_ORG, keys[column]);
            if (blanked(res.text, [...ids, ACME, MADE_UP_ORG]) !== blanked(elsewhere.text, [...ids, ACME, MADE_UP_ORG])) {
              failures.push(`${where} tells acme from an org that does not exist:\n  ${res.text}\n  ${elsewhere.text}`);
            }
          }
          if (DEAD.has(column) && column !== 'no credential' && res.text !== unknownKeyBody) {
            failures.push(`${where}: not the unknown key's refusal: ${res.text}`);
          }
        }
        if (column === 'no credential' && res.headers.get('www-authenticate') !== 'Bearer realm="playbook-runtime"') {
          failures.push(`${where}: no Bearer challenge`);
        }
        cells[column] = label;
      }
      rows.push({ op: `${op.method} ${op.path.replace('/v1/orgs/{org}', '')}`, cells });
    }
    printTable('HTTP: each route naming acme\'s ids (control: real/made-up)', rows);
    assert.deepEqual(failures, []);
    // What each caller is refused with, so that a refusal of the wrong kind shows too.
    const column = (name) => rows.filter((r) => !r.op.includes('/v1/')).map((r) => r.cells[name]);
    for (const dead of DEAD) assert.ok(rows.every((r) => r.cells[dead] === '401'), `${dead} is always 401`);
    assert.ok(column('globex key').every((c) => c === '403'), 'a key of another org is 403 everywhere in acme');
    assert.ok(column('acme read-only').every((c) => c === '403' || c === '·'), 'a read-only key is 403 on every write');
  });

  test('every MCP tool refuses on /mcp and on its scoped endpoint, alike for real and made-up ids', { timeout: 180_000 }, async () => {
    const rows = [];
    const failures = [];
    const ids = [...Object.values(real), ...Object.values(madeUp)].filter((v) => typeof v === 'string' && v.length > 4);
    // A tool that names a playbook goes to /mcp; and each tool to the scoped endpoint that lists it, a
    // playbook's (which takes no playbook argument) before acme's org endpoint. get_guide, which every
    // endpoint lists to every caller, goes to /mcp alone.
    const doors = (tool, at, org = ACME) => {
      // A comment tool names a playbook here, as every tool inside one does; the org's own are the HTTP rows'.
      const args = argsFor(at)[tool.name.endsWith('_comment') || tool.name.endsWith('_comments') ? `${tool.name}_in_playbook` : tool.name];
      const out = [];
      if (tool.inputSchema.properties?.playbook || tool.name === 'get_guide') out.push(['/mcp', args]);
      if (tool.name === 'get_guide') return out;
      if (onPlaybook.has(tool.name)) {
        const { playbook, ...inside } = args;
        out.push([`/orgs/${org}/playbooks/${playbook}/mcp`, inside]);
      } else if (onOrg.has(tool.name)) {
        out.push([`/orgs/${org}/mcp`, args]);
      }
      return out;
    };
    for (const tool of tools) {
      const cells = {};
      const readOnly = tool.annotations.readOnlyHint;
      for (const column of COLUMNS) {
        const control = column === 'acme full (control)';
        // query_connection only reads, yet a read-only key is not offered it: it calls a tool server live.
        const offeredToReader = READ_KEY_TOOLS.includes(tool.name);
        if ((column === 'acme read-only' && offeredToReader) || (control && (!readOnly || tool.name === 'get_guide'))) { cells[column] = '·'; continue; }
        const labels = [];
        const realDoors = doors(tool, real);
        const fakeDoors = doors(tool, madeUp);
        for (let i = 0; i < realDoors.length; i += 1) {
          const where = `${tool.name} on ${realDoors[i][0]} as ${column}`;
          const call = ([path, args], key) => publicMcp(path, 'tools/call', { name: tool.name, arguments: args }, { key });
          const res = await call(realDoors[i], keys[column]);
          const fake = await call(fakeDoors[i], keys[column]);
          const label = mcpLabel(res);
          if (control) {
            labels.push(`${label}/${mcpLabel(fake)}`);
            continue;
          }
          if (tool.name === 'get_guide' && !DEAD.has(column)) {
            labels.push('ok public');
            if (label !== 'ok') failures.push(`${where}: ${res.text.slice(0, 200)}`);
            continue;
          }
          if (tool.name === 'list_playbooks' && label === 'ok') {
            labels.push('ok hidden');
            if (res.text.includes(real.playbook) || res.text.includes(real.title)) failures.push(`${where} lists acme's playbook`);
            continue;
          }
          labels.push(label);
          if (label === 'ok') failures.push(`${where} was served: ${res.text.slice(0, 300)}`);
          if (res.status !== fake.status || blanked(res.text, ids) !== blanked(fake.text, ids)) {
            failures.push(`${where} tells real from made-up ids:\n  ${res.status} ${res.text}\n  ${fake.status} ${fake.text}`);
          }
          if (column === 'globex key' && realDoors[i][0] !== '/mcp') {
            const elsewhere = await call(doors(tool, madeUp, MADE_UP_ORG)[i], keys[column]);
            if (blanked(res.text, [...ids, ACME, MADE_UP_ORG]) !== blanked(elsewhere.text, [...ids, ACME, MADE_UP_ORG])) {
              failures.push(`${where} tells acme from an org that does not exist:\n  ${res.text}\n  ${elsewhere.text}`);
            }
          }
          if (DEAD.has(column) && column !== 'no credential' && res.text !== unknownKeyBody) {
            failures.push(`${where}: not the unknown key's refusal: ${res.text}`);
          }
        }
        cells[column] = labels.join(' · ');
      }
      rows.push({ op: `${tool.name} (${doors(tool, real).map(([p]) => p.replace(real.playbook, '{pb}').replace(`/orgs/${ACME}`, '/orgs/acme')).join(', ')})`, cells });
      if (cells['acme full (control)'] !== '·') {
        const connectionOf = tool.inputSchema.properties?.connection; // the org local's (see the top)
        const expect = doors(tool, real).map(() => (connectionOf ? 'not_found/not_found' : tool.inputSchema.properties?.playbook ? 'ok/not_found' : 'ok/ok')).join(' · ');
        if (cells['acme full (control)'] !== expect) failures.push(`${tool.name} control: ${cells['acme full (control)']}, expected ${expect}`);
      }
    }
    printTable('MCP: each tool naming acme\'s ids, on /mcp · on its scoped endpoint (control: real/made-up)', rows);
    assert.deepEqual(failures, []);
    const byName = (r) => r.op.split(' ')[0];
    const namesPlaybook = rows.filter((r) => tools.find((t) => t.name === byName(r)).inputSchema.properties?.playbook);
    assert.ok(namesPlaybook.every((r) => r.cells['globex key'] === 'not_found · 403'), 'globex: not found on /mcp, 403 on acme\'s endpoints');
    assert.ok(namesPlaybook.every((r) => ['not_found · 404', 'not_found · not_found'].includes(r.cells['acme kept to B'])),
      'kept to B: acme\'s playbook A is not found, on /mcp and on either endpoint');
    assert.ok(namesPlaybook.every((r) => ['-32602 · -32602', '·'].includes(r.cells['acme read-only'])), 'read-only: a write is not offered');
    for (const dead of DEAD) {
      assert.ok(rows.every((r) => r.cells[dead].split(' · ').every((c) => c === '401')), `${dead} is always 401`);
    }
  });
});
