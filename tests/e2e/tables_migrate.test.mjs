// Old databases migrate: a runtime keeps a playbook with a run and its events, and is stopped; its
// Durable Objects' SQLite files are then rewritten, while nothing runs, into the shapes older releases
// left behind, and a runtime started on them must read and write them as before and record the version
// it brought them to. The shapes: today's before versions were recorded (no schema_version table, every
// column there), and the first release's (no schema_version, and no events.family, events.key,
// runs.within or playbooks.makers, nor their indexes). A step that is not applied, or applied twice,
// fails a read or a write below, or the version check.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, describe, test } from 'node:test';
import { panicLines, startRuntime } from './harness.mjs';
import { assertToolSuccess, withClient } from './helpers.mjs';
import { ADD_VAT, ADD_VAT_DIAGRAM, ADD_VAT_OVERVIEW } from './fixtures.mjs';

/** The one database of a Durable Object class under the state directory (each class here keeps one). */
function database(stateDir, className) {
  const dir = join(stateDir, 'v3', 'do', `playbook-runtime-${className}`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  assert.equal(files.length, 1, `one ${className} database: ${files.join(', ')}`);
  return join(dir, files[0]);
}

/** Opens a stopped runtime's database, runs `fn` on it and closes it. */
function withDatabase(path, fn) {
  const db = new DatabaseSync(path);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const columns = (db, table) => db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all().map((r) => r.name);
const recorded = (db) => db.prepare('SELECT version FROM schema_version').all().map((r) => r.version);

describe('old tables migrate', { timeout: 300_000 }, () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'runtime-migrate-'));
  const runtimes = [];
  after(async () => {
    for (const runtime of runtimes) await runtime.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  let playbook;
  let firstRun;
  const versions = {};

  /** Starts a runtime on the state directory; checks what the first one kept, then writes, then stops. */
  async function startAndUse(label) {
    const runtime = await startRuntime({ stateDir });
    runtimes.push(runtime);
    await withClient(runtime.url, async (call) => {
      const listed = assertToolSuccess(await call('list_playbooks'));
      assert.deepEqual(listed.playbooks.map((p) => p.id), [playbook], `${label}: the directory lists the playbook`);
      const runs = assertToolSuccess(await call('list_runs', { playbook, type: 'computation', name: 'add-vat' }));
      assert.ok(runs.runs.some((r) => r.run_id === firstRun), `${label}: the run kept before is listed`);
      const again = assertToolSuccess(await call('run_definition', { playbook, type: 'computation', name: 'add-vat', input: { net: 10 } }));
      assert.equal(again.status, 'succeeded', `${label}: a new run is kept`);
      for (const run of [firstRun, again.run_id]) {
        const history = assertToolSuccess(await call('list_playbook_events', { playbook, run_id: run }));
        assert.deepEqual(history.events.map((e) => e.kind), ['run_started', 'run_succeeded'], `${label}: the events of ${run}`);
      }
    });
    await runtime.stop();
    assert.deepEqual(panicLines(runtime.logs()), [], `${label}: no panic`);
    assert.doesNotMatch(runtime.logs(), /tables: step|tables are not up to date/, `${label}: no step failed`);
  }

  test('a runtime keeps a playbook with a run and its events', async () => {
    const runtime = await startRuntime({ stateDir });
    runtimes.push(runtime);
    await withClient(runtime.url, async (call) => {
      playbook = assertToolSuccess(await call('create_playbook', { name: 'Kept across releases' })).id;
      assertToolSuccess(await call('create_definition', {
        playbook, type: 'computation', name: 'add-vat', source: ADD_VAT, overview: ADD_VAT_OVERVIEW, diagram: ADD_VAT_DIAGRAM,
      }));
      const run = assertToolSuccess(await call('run_definition', { playbook, type: 'computation', name: 'add-vat', input: { net: 100 } }));
      assert.equal(run.status, 'succeeded');
      firstRun = run.run_id;
    });
    await runtime.stop();
    for (const cls of ['PlaybookObject', 'OrganizationObject']) {
      versions[cls] = withDatabase(database(stateDir, cls), recorded);
      assert.equal(versions[cls].length, 1, `${cls} records one version`);
      assert.ok(versions[cls][0] > 0, `${cls} is past version 0`);
    }
  });

  test("today's tables, before versions were recorded, take every step and keep their data", async () => {
    for (const cls of ['PlaybookObject', 'OrganizationObject']) {
      withDatabase(database(stateDir, cls), (db) => db.exec('DROP TABLE schema_version'));
    }
    await startAndUse("today's shape");
    for (const cls of ['PlaybookObject', 'OrganizationObject']) {
      assert.deepEqual(withDatabase(database(stateDir, cls), recorded), versions[cls], `${cls}: the latest version again`);
    }
  });

  test("the first release's tables gain the later columns and keep their data", async () => {
    withDatabase(database(stateDir, 'PlaybookObject'), (db) => {
      db.exec(`DROP TABLE schema_version;
        DROP INDEX events_of_family; DROP INDEX events_by_key; DROP INDEX events_before_families;
        ALTER TABLE events DROP COLUMN family; ALTER TABLE events DROP COLUMN key;
        ALTER TABLE runs DROP COLUMN within;`);
      assert.ok(!columns(db, 'events').includes('family') && !columns(db, 'runs').includes('within'), 'the old shape');
    });
    withDatabase(database(stateDir, 'OrganizationObject'), (db) => {
      db.exec('DROP TABLE schema_version; ALTER TABLE playbooks DROP COLUMN makers;');
    });
    await startAndUse("the first release's shape");
    withDatabase(database(stateDir, 'PlaybookObject'), (db) => {
      assert.deepEqual(recorded(db), versions.PlaybookObject);
      assert.ok(columns(db, 'events').includes('family') && columns(db, 'events').includes('key'), 'events gained its columns');
      assert.ok(columns(db, 'runs').includes('within'), 'runs gained within');
      const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'").all().map((r) => r.name);
      assert.ok(['events_of_family', 'events_by_key', 'events_before_families'].every((i) => indexes.includes(i)), `the indexes: ${indexes.join(', ')}`);
    });
    withDatabase(database(stateDir, 'OrganizationObject'), (db) => {
      assert.deepEqual(recorded(db), versions.OrganizationObject);
      assert.ok(columns(db, 'playbooks').includes('makers'), 'playbooks gained makers');
    });
  });
});
