// The life of a definition as an agent sees it through the official v1 MCP client
// (@modelcontextprotocol/sdk): versions (a repeated save changes nothing, a changed document, overview
// or diagram is the next version, get_definition answers the current one), used_by (a lookup of runs
// shows in the used_by of what it reads, until it is retired; a lookup of a definition the playbook does
// not hold is refused at /runs/of), pause, resume, retire and restore with their idempotence and
// conflicts, names taken, list_definitions with include_retired and its pages, and definitions in a
// retired or unknown playbook. Documents and refusals of each type are in definitions.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addVat } from './fixtures.mjs';
import { assertToolFailure, assertToolSuccess, pointers, runtimeUrl, uniqueName, withoutStudio } from './helpers.mjs';

const OVERVIEW = 'Takes a net amount, adds the tax on it, and answers the tax and the gross amount.';
const DIAGRAM = 'flowchart TD\n  A[Net amount] --> B[Add VAT] --> C[Answer vat and gross]';

const computation = addVat;
const lookupOf = (of) => `---
description: Reads the last runs of ${of}
runs:
  of: ${of}
  status: succeeded
  limit: 5
---
`;
const READ_KEYS = ['created_at', 'created_by', 'description', 'diagram', 'document', 'has_page', 'name', 'overview',
  'status', 'type', 'updated_at', 'updated_by', 'used_by', 'version'];

describe('the life of a definition through @modelcontextprotocol/sdk (v1)', () => {
  let client;
  const call = (name, args = {}) => client.callTool({ name, arguments: args });
  const ok = async (name, args) => assertToolSuccess(await call(name, args));
  const newPlaybook = async (prefix) => (await ok('create_playbook', { name: uniqueName(prefix) })).id;
  const saveArgs = (playbook, type, name, source, extra) =>
    ({ playbook, type, name, source, overview: OVERVIEW, diagram: DIAGRAM, ...extra });
  const create = (playbook, type, name, source, extra = {}) => call('create_definition', saveArgs(playbook, type, name, source, extra));
  const update = (playbook, type, name, source, extra = {}) => call('update_definition', saveArgs(playbook, type, name, source, extra));
  const get = (playbook, type, name) => ok('get_definition', { playbook, type, name });
  /** A read without what get_definition alone answers: its page's runs and standing. */
  const saved = ({ runs: _r, standing: _s, ...definition }) => definition;

  before(async () => {
    client = new Client({ name: 'e2e-definitions-lifecycle', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${runtimeUrl()}/mcp`)));
  });
  after(async () => { await client?.close(); });

  test('versions: the same save changes nothing, each change is the next version, get answers the current', async () => {
    const playbook = await newPlaybook('versions');
    const v1 = withoutStudio(assertToolSuccess(await create(playbook, 'computation', 'add-vat', computation())), '/playbooks/');
    assert.deepEqual(Object.keys(v1).sort(), READ_KEYS);
    assert.equal(v1.version, 1);

    const same = await update(playbook, 'computation', 'add-vat', computation());
    assert.deepEqual(withoutStudio(assertToolSuccess(same)), v1, 'a repeated save answers the definition as it stood');
    assert.match(same.content[0].text, /^The computation function “add-vat” already reads as given, at version 1; nothing changed\./);

    const v2Result = await update(playbook, 'computation', 'add-vat', computation('0.21'));
    const v2 = assertToolSuccess(v2Result);
    assert.deepEqual([v2.version, v2.document, v2.created_at], [2, computation('0.21'), v1.created_at]);
    assert.ok(v2.updated_at >= v1.updated_at, 'updated_at moves on');
    assert.match(v2Result.content[0].text, /^Saved version 2 of the computation function “add-vat”\. What it does: Adds VAT to a net amount\./);
    const overview = `${OVERVIEW} It rounds nothing.`;
    const v3 = assertToolSuccess(await update(playbook, 'computation', 'add-vat', computation('0.21'), { overview }));
    assert.deepEqual([v3.version, v3.overview], [3, overview], 'a changed overview alone is a new version');
    const diagram = `${DIAGRAM}\n  C --> D[Done]`;
    const v4 = assertToolSuccess(await update(playbook, 'computation', 'add-vat', computation('0.21'), { overview, diagram }));
    assert.deepEqual([v4.version, v4.diagram], [4, diagram], 'a changed diagram alone is a new version');

    const read = await call('get_definition', { playbook, type: 'computation', name: 'add-vat' });
    assert.deepEqual(saved(assertToolSuccess(read)), withoutStudio(v4));
    assert.deepEqual([v4.document, v4.overview, v4.diagram, v4.used_by, v4.status], [computation('0.21'), overview, diagram, [], 'active']);
    assert.match(read.content[0].text, /^The computation function “add-vat”, version 4, is active\. What it does: .*No other definition uses it\.$/);

    const refusals = [[{ overview: 'Short.' }, '/overview'], [{ overview: `${OVERVIEW} It is <b>exact</b>.` }, '/overview'],
      [{ diagram: 'sequenceDiagram\n  A->>B: net' }, '/diagram'], [{ diagram: 'flowchart TD' }, '/diagram']];
    for (const [extra, pointer] of refusals) {
      const refused = await update(playbook, 'computation', 'add-vat', computation('0.21'), { overview, diagram, ...extra });
      assert.deepEqual(pointers(assertToolFailure(refused, 'invalid_input')), [pointer], JSON.stringify(extra));
    }
    assert.equal((await get(playbook, 'computation', 'add-vat')).version, 4, 'a refused save keeps the version');
    const missing = assertToolFailure(await update(playbook, 'computation', 'no-such-one', computation()), 'not_found');
    assert.deepEqual(pointers(missing), ['/name']);
    const noDiagram = assertToolFailure(await update(playbook, 'computation', 'add-vat', computation(), { diagram: undefined }), 'invalid_input');
    assert.deepEqual(pointers(noDiagram), ['/diagram'], 'every save of a function takes its diagram');

    await ok('pause_definition', { playbook, type: 'computation', name: 'add-vat' });
    const v5 = assertToolSuccess(await update(playbook, 'computation', 'add-vat', computation('0.19')));
    assert.deepEqual([v5.version, v5.status], [5, 'paused'], 'an update keeps the status');
  });

  test('used_by lists the lookups that read a definition, active or paused, and not retired ones', async () => {
    const playbook = await newPlaybook('used-by');
    assertToolSuccess(await create(playbook, 'computation', 'add-vat', computation()));
    assertToolSuccess(await create(playbook, 'computation', 'add-gst', computation('0.1')));
    assertToolSuccess(await create(playbook, 'lookup', 'recent-vat', lookupOf('computation/add-vat')));
    assertToolSuccess(await create(playbook, 'lookup', 'all-vat', lookupOf('computation/add-vat')));

    const read = await call('get_definition', { playbook, type: 'computation', name: 'add-vat' });
    assert.deepEqual(assertToolSuccess(read).used_by, [{ type: 'lookup', name: 'all-vat' }, { type: 'lookup', name: 'recent-vat' }]);
    assert.match(read.content[0].text, /2 definitions use it: “lookup\/all-vat” and “lookup\/recent-vat”\./);
    assert.deepEqual((await get(playbook, 'lookup', 'recent-vat')).used_by, [], 'the lookup itself is used by nothing');

    await ok('pause_definition', { playbook, type: 'lookup', name: 'recent-vat' });
    assert.equal((await get(playbook, 'computation', 'add-vat')).used_by.length, 2, 'a paused user still counts');
    const retired = await ok('retire_definition', { playbook, type: 'lookup', name: 'recent-vat' });
    assert.deepEqual(retired.used_by, []);
    assert.deepEqual((await get(playbook, 'computation', 'add-vat')).used_by, [{ type: 'lookup', name: 'all-vat' }],
      'a retired lookup drops out of used_by');
    await ok('restore_definition', { playbook, type: 'lookup', name: 'recent-vat' });
    assert.equal((await get(playbook, 'computation', 'add-vat')).used_by.length, 2, 'restored, it counts again (paused)');

    assertToolSuccess(await update(playbook, 'lookup', 'all-vat', lookupOf('computation/add-gst')));
    assert.deepEqual((await get(playbook, 'computation', 'add-vat')).used_by, [{ type: 'lookup', name: 'recent-vat' }]);
    assert.deepEqual((await get(playbook, 'computation', 'add-gst')).used_by, [{ type: 'lookup', name: 'all-vat' }],
      'changing runs.of moves the lookup to the other used_by');

    for (const of of ['computation/no-such-one', 'reasoning/add-vat', 'lookup/reads-itself']) {
      const problem = assertToolFailure(await create(playbook, 'lookup', 'reads-itself', lookupOf(of)), 'invalid_input');
      const at = problem.errors.find((e) => e.pointer === '/runs/of');
      assert.ok(at, `${of}: refused at /runs/of: ${JSON.stringify(problem)}`);
      assert.equal(at.in, 'source', `${of}: runs.of is inside the document`);
      if (!of.startsWith('lookup/')) assert.equal(problem.kind, 'unknown_definition', of);
    }
    await ok('retire_definition', { playbook, type: 'computation', name: 'add-gst' });
    const reRead = assertToolFailure(await update(playbook, 'lookup', 'all-vat', `${lookupOf('computation/add-gst')}\n`), 'invalid_input');
    assert.ok(pointers(reRead).includes('/runs/of'), 'a lookup of a retired definition cannot be saved again');
  });

  test('pause, resume, retire and restore: each idempotent, retired ones refuse changes, restore comes back paused', async () => {
    const playbook = await newPlaybook('lifecycle');
    const id = { playbook, type: 'computation', name: 'add-vat' };
    const created = assertToolSuccess(await create(playbook, 'computation', 'add-vat', computation()));

    const pause = await call('pause_definition', { ...id, reason: 'month-end freeze' });
    const paused = assertToolSuccess(pause);
    assert.deepEqual([paused.status, paused.reason, paused.version], ['paused', 'month-end freeze', 1]);
    assert.equal(typeof paused.paused_at, 'string');
    assert.match(pause.content[0].text, /^Paused the computation function “add-vat”/);
    for (const again of [{}, { reason: 'month-end freeze' }]) {
      const result = await call('pause_definition', { ...id, ...again });
      assert.deepEqual(assertToolSuccess(result), paused, 'pausing again changes nothing, the reason kept');
      assert.match(result.content[0].text, /paused already; nothing changed/);
    }
    const readPaused = await call('get_definition', id);
    assert.deepEqual(saved(assertToolSuccess(readPaused)), paused);
    assert.match(readPaused.content[0].text, /is paused \(month-end freeze\)/);

    const resumed = await ok('resume_definition', id);
    assert.equal(resumed.status, 'active');
    assert.deepEqual([resumed.paused_at, resumed.reason], [undefined, undefined]);
    const resumeAgain = await call('resume_definition', id);
    assert.deepEqual(assertToolSuccess(resumeAgain), resumed);
    assert.match(resumeAgain.content[0].text, /active already; nothing changed/);

    const retired = await ok('retire_definition', id);
    assert.deepEqual([retired.status, typeof retired.retired_at, retired.document], ['retired', 'string', created.document]);
    const retireAgain = await call('retire_definition', id);
    assert.deepEqual(assertToolSuccess(retireAgain), retired, 'retiring again changes nothing');
    assert.match(retireAgain.content[0].text, /retired already; nothing changed/);
    assert.deepEqual(saved(await get(playbook, 'computation', 'add-vat')), retired, 'a retired definition stays readable');
    for (const tool of ['pause_definition', 'resume_definition']) assertToolFailure(await call(tool, id), 'conflict');
    assertToolFailure(await update(playbook, 'computation', 'add-vat', computation('0.3')), 'conflict');
    const takenRetired = await create(playbook, 'computation', 'add-vat', computation('0.3'));
    assert.deepEqual(pointers(assertToolFailure(takenRetired, 'conflict')), ['/name']);
    assert.match(takenRetired.content[0].text, /restore_definition/, 'the words say how to bring it back');

    const restore = await call('restore_definition', id);
    const restored = assertToolSuccess(restore);
    assert.deepEqual([restored.status, restored.reason, restored.retired_at, restored.version], ['paused', undefined, undefined, 1]);
    assert.match(restore.content[0].text, /paused until resume_definition/);
    const restoreAgain = await call('restore_definition', id);
    assert.deepEqual(assertToolSuccess(restoreAgain), restored);
    assert.match(restoreAgain.content[0].text, /not retired; nothing changed/);
    const taken = await create(playbook, 'computation', 'add-vat', computation('0.3'));
    assert.deepEqual(pointers(assertToolFailure(taken, 'conflict')), ['/name']);
    assert.match(taken.content[0].text, /update_definition/);

    for (const tool of ['get_definition', 'pause_definition', 'resume_definition', 'retire_definition', 'restore_definition']) {
      const problem = assertToolFailure(await call(tool, { ...id, name: 'no-such-one' }), 'not_found');
      assert.deepEqual(pointers(problem), ['/name'], tool);
      assert.deepEqual(pointers(assertToolFailure(await call(tool, { ...id, name: 'Add_VAT' }), 'invalid_input')), ['/name'], tool);
    }
    const long = assertToolFailure(await call('pause_definition', { ...id, reason: 'r'.repeat(501) }), 'invalid_input');
    assert.deepEqual(pointers(long), ['/reason']);
  });

  test('list_definitions: by name, without overview, diagram and used_by, retired only on request, in pages', async () => {
    const playbook = await newPlaybook('list');
    for (const name of ['fee-c', 'fee-a', 'fee-e', 'fee-b', 'fee-d']) {
      assertToolSuccess(await create(playbook, 'computation', name, computation()));
    }
    await ok('retire_definition', { playbook, type: 'computation', name: 'fee-c' });
    const full = await get(playbook, 'computation', 'fee-a');

    const listed = await ok('list_definitions', { playbook, type: 'computation' });
    assert.deepEqual(listed.definitions.map((d) => d.name), ['fee-a', 'fee-b', 'fee-d', 'fee-e'], 'retired ones are left out');
    assert.equal(listed.next_cursor, null);
    const { document: _d, overview: _o, diagram: _g, used_by: _u, ...row } = saved(full);
    assert.deepEqual(listed.definitions[0], row, 'a listed definition is the definition without document, overview, diagram, used_by');

    const all = await ok('list_definitions', { playbook, type: 'computation', include_retired: true });
    assert.deepEqual(all.definitions.map((d) => [d.name, d.status]),
      [['fee-a', 'active'], ['fee-b', 'active'], ['fee-c', 'retired'], ['fee-d', 'active'], ['fee-e', 'active']]);

    const pages = [];
    let cursor;
    do {
      const result = await call('list_definitions', { playbook, type: 'computation', include_retired: true, limit: 2, cursor });
      const page = assertToolSuccess(result);
      pages.push(page.definitions.map((d) => d.name));
      if (page.next_cursor) assert.match(result.content[0].text, /next_cursor/, 'the summary says more follow');
      cursor = page.next_cursor ?? undefined;
      assert.ok(pages.length <= 3, 'paging ends');
    } while (cursor);
    assert.deepEqual(pages, [['fee-a', 'fee-b'], ['fee-c', 'fee-d'], ['fee-e']]);

    const none = await call('list_definitions', { playbook, type: 'reasoning' });
    assert.deepEqual(assertToolSuccess(none).definitions, []);
    assert.match(none.content[0].text, /create_definition/);
    for (const limit of [0, 101]) {
      assert.deepEqual(pointers(assertToolFailure(await call('list_definitions', { playbook, type: 'computation', limit }),
        'invalid_input')), ['/limit'], `limit ${limit}`);
    }
  });

  test('a retired playbook refuses changes to its definitions and still reads them; an unknown one is not_found', async () => {
    const playbook = await newPlaybook('retired-pb');
    const id = { playbook, type: 'computation', name: 'add-vat' };
    const created = withoutStudio(assertToolSuccess(await create(playbook, 'computation', 'add-vat', computation())));
    await ok('retire_playbook', { playbook });
    const refused = await create(playbook, 'computation', 'add-gst', computation('0.1'));
    assertToolFailure(refused, 'conflict');
    assert.match(refused.content[0].text, /restore_playbook/, 'the words say how to change it again');
    assertToolFailure(await update(playbook, 'computation', 'add-vat', computation('0.3')), 'conflict');
    for (const tool of ['pause_definition', 'retire_definition']) assertToolFailure(await call(tool, id), 'conflict');
    assert.deepEqual(saved(await get(playbook, 'computation', 'add-vat')), created, 'its definitions stay readable');
    assert.equal((await ok('list_definitions', { playbook, type: 'computation' })).definitions.length, 1);
    await ok('restore_playbook', { playbook });
    assert.equal(assertToolSuccess(await create(playbook, 'computation', 'add-gst', computation('0.1'))).version, 1);

    for (const unknown of ['pb_aaaaaaaaaaaaaaaa', 'not-a-playbook-id']) {
      const calls = [
        ['create_definition', saveArgs(unknown, 'computation', 'add-vat', computation())],
        ['list_definitions', { playbook: unknown, type: 'computation' }],
        ['get_definition', { playbook: unknown, type: 'computation', name: 'add-vat' }],
      ];
      for (const [tool, args] of calls) {
        assert.deepEqual(pointers(assertToolFailure(await call(tool, args), 'not_found')), ['/playbook'], `${tool} ${unknown}`);
      }
    }
  });
});
