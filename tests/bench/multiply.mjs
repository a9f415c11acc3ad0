// Stored rows by the hundred thousand in the time a bench has. Through the API the runtime stores
// about fifty runs a second on this machine, so 100,000 would take half an hour; instead, rows the
// runtime stored itself through the API are copied inside the playbook's own SQLite store while the
// runtime is stopped, each copy under new ids. The reads measured afterwards are the runtime's own,
// over rows of the runtime's own shape; only how they came to be stored differs.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** Text columns that must stay unique, so each copy gets its own value of them. */
const UNIQUE = { runs: ['run_id'], run_records: ['run_id'], events: ['key'], connections: ['id', 'name'] };
/** Number columns that are part of a key: each copy moves them past the originals' largest. */
const NUMBERED = { definition_versions: ['version'] };

/** The SQLite file of the Durable Object of `className` whose store answers `probe` with a row. */
function storeWhere(stateDir, className, probe, args, what) {
  const dir = join(stateDir, 'v3', 'do', `playbook-runtime-${className}`);
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.sqlite') || name === 'metadata.sqlite') continue;
    const db = new DatabaseSync(join(dir, name), { readOnly: true });
    try {
      const row = db.prepare(probe).get(...args);
      if (row) return join(dir, name);
    } catch {
      // Not such a store, or one without its tables yet.
    } finally {
      db.close();
    }
  }
  throw new Error(`no store of ${what} under ${dir}`);
}

/** The SQLite file of one playbook's Durable Object under a `wrangler dev --persist-to` directory. */
export function playbookStore(stateDir, playbookId) {
  return storeWhere(stateDir, 'PlaybookObject', 'SELECT id FROM playbook WHERE id = ?', [playbookId], `the playbook ${playbookId}`);
}

/** The SQLite file of the organization's object that holds the connection named `name`. */
export function orgStoreWithConnection(stateDir, name) {
  return storeWhere(stateDir, 'OrganizationObject', 'SELECT id FROM connections WHERE name = ?', [name], `the connection ${name}`);
}

/**
 * Makes `table` (and the tables named with it) hold `times` times the rows it holds, in one
 * transaction. Copies are appended after the originals, copy by copy in the originals' order, so
 * positions (and the ids made of them) are new and increase as the runtime's own would.
 * Answers the rows of `table` afterwards.
 */
export function multiplyRows(file, tables, times) {
  const db = new DatabaseSync(file);
  try {
    db.exec('BEGIN');
    for (const table of tables) {
      const all = db.prepare(`PRAGMA table_info(${table})`).all().map((c) => c.name);
      const columns = all.filter((c) => c !== 'position');
      const unique = UNIQUE[table] ?? [];
      const numbered = NUMBERED[table] ?? [];
      const past = Object.fromEntries(numbered.map((c) => [c, db.prepare(`SELECT max(${c}) AS n FROM ${table}`).get().n ?? 0]));
      // In SQL a null joined to a text stays null, as a unique column without a value must.
      // A second multiplying of the same rows must not make the names the first one made.
      const salt = Date.now().toString(36);
      const values = columns.map((c) => (unique.includes(c) ? `t.${c} || '~${salt}.' || copy.k`
        : numbered.includes(c) ? `t.${c} + copy.k * ${past[c]}` : `t.${c}`));
      const order = all.includes('position') ? 't.position' : 't.rowid';
      db.prepare(
        `WITH RECURSIVE copy(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM copy WHERE k < ?)
         INSERT INTO ${table} (${columns.join(', ')})
         SELECT ${values.join(', ')} FROM copy, ${table} t ORDER BY copy.k, ${order}`,
      ).run(times - 1);
    }
    db.exec('COMMIT');
    return db.prepare(`SELECT count(*) AS n FROM ${tables[0]}`).get().n;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  } finally {
    db.close();
  }
}
