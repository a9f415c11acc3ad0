//! Brings a Durable Object's SQL tables up to date when the object is made: the steps its
//! database has not had yet (`core::migration::plan`), each applied once, in order, and recorded.
//!
//! The version sits in a one-row table, `schema_version`, because Durable Object SQLite refuses
//! `PRAGMA user_version`, to read or to write (`not authorized: SQLITE_AUTH` in workerd). A column
//! is looked up with the `pragma_table_info` table function, which workerd allows. These version
//! numbers are the tables' own; the `[[migrations]]` tags of `wrangler.toml` only declare classes.
//!
//! A step and its record are not one transaction: workerd refuses `BEGIN` and points to
//! `transactionSync`, which the `worker` crate does not offer. So a step cut off halfway is applied
//! again on the next start, which every step allows. For the same reason the version is written
//! once, after the last step that was applied: a new object's steps are not each followed by a
//! write that SQLite, its schema just changed, prepares again.

use std::fmt;

use serde::Deserialize;
use worker::SqlStorage;

use crate::core::migration::{fresh, plan, Plan, Step};
use crate::core::Problem;

const VERSION_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)";

/// Why the tables could not be brought up to date: the step that failed, and SQLite's words.
#[derive(Debug)]
pub struct Failed {
    step: u32,
    why: String,
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            0 => write!(f, "the version of the tables could not be read: {}", self.why),
            n => write!(f, "step {n} of the tables failed: {}", self.why),
        }
    }
}

impl From<Failed> for Problem {
    fn from(failed: Failed) -> Problem {
        Problem::internal(format!("the object's tables are not up to date: {failed}"))
    }
}

#[derive(Deserialize)]
struct Version {
    version: i64,
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

/// Whether the object's database was new: made just now, with nothing kept in it yet.
pub type New = bool;

/// Applies the steps the database has not had, then records the version the last one applied
/// reached. A kept object answers this with two reads (its schema, its version); a new one has its
/// tables made and its version recorded in one batch (`core::migration::fresh`), but only those of
/// the steps before `first`: an object that needs the others only once it holds something makes
/// them then, by calling this again with every step.
///
/// # Errors
/// The first step that fails, which is left unrecorded, so the next start of the object tries it
/// again; the steps before it stay applied and recorded.
pub fn migrate(sql: &SqlStorage, steps: &[Step], first: usize) -> Result<New, Failed> {
    let failed = |step: u32| move |e: worker::Error| Failed { step, why: e.to_string() };
    // One look at the schema says whether the object is new; a kept one then reads its version.
    // (Reading the version first would fail for a new object, and a failure from SQLite costs a
    // thrown error with its stack: as much as the look.)
    let seen = schema(sql).map_err(failed(0))?;
    let recorded = if seen.tables == 0 {
        let first = first.min(steps.len());
        if let Some(batch) = fresh(&steps[..first]) {
            apply(sql, &format!("{VERSION_TABLE};\n{batch}"), first)?;
            return Ok(true);
        }
        worker::console_warn!(
            "a new object's tables are made step by step: a step adds a column its table's statement does not declare"
        );
        sql.exec(VERSION_TABLE, None).map_err(failed(0))?;
        0
    } else {
        if seen.versioned == 0 {
            // Made before versions were recorded: every step, each where it is needed.
            sql.exec(VERSION_TABLE, None).map_err(failed(0))?;
        }
        recorded(sql).map_err(failed(0))?
    };
    let pending = match plan(recorded, steps) {
        Plan::Apply(pending) => pending,
        Plan::Ahead { recorded, known } => {
            worker::console_warn!(
                "the tables are at version {recorded}, newer than the {known} steps this release knows"
            );
            return Ok(false);
        }
    };
    // The steps after a recorded version go in one batch when they make what they change: an
    // added column is then declared by the statement that makes its table, which a table made by
    // an earlier step cannot be. (Version 0 is a database made before versions were recorded,
    // whose tables may lack columns: it takes each step where it is needed.)
    let rest = &steps[(recorded as usize).min(steps.len())..];
    if recorded > 0 && !rest.is_empty() {
        if let Some(batch) = fresh(rest) {
            apply(sql, &batch, steps.len())?;
            return Ok(false);
        }
    }
    let mut reached = recorded;
    let mut outcome = Ok(false);
    for (version, step) in pending {
        let applied =
            needed(sql, step).and_then(|n| if n { sql.exec(&step.statement(), None).map(drop) } else { Ok(()) });
        if let Err(e) = applied {
            outcome = Err(failed(version)(e));
            break;
        }
        reached = version;
    }
    if reached > recorded {
        sql.exec(&record_version(reached as usize), None).map_err(failed(reached))?;
    }
    outcome
}

/// Runs `batch`, statements that bring the tables to `version`, and records that version with them.
fn apply(sql: &SqlStorage, batch: &str, version: usize) -> Result<(), Failed> {
    sql.exec(&format!("{batch};\n{}", record_version(version)), None)
        .map(drop)
        .map_err(|e| Failed { step: u32::try_from(version).unwrap_or(u32::MAX), why: e.to_string() })
}

/// The version the database recorded: none, 0.
fn recorded(sql: &SqlStorage) -> worker::Result<u32> {
    let rows: Vec<Version> = sql.exec("SELECT version FROM schema_version WHERE id = 1", None)?.to_array()?;
    Ok(rows.first().map_or(0, |r| u32::try_from(r.version).unwrap_or(0)))
}

/// The statement that records a version: a number of ours, written into it rather than bound, so
/// that it can end a batch.
fn record_version(version: usize) -> String {
    format!(
        "INSERT INTO schema_version (id, version) VALUES (1, {version}) ON CONFLICT(id) DO UPDATE SET version = excluded.version"
    )
}

#[derive(Deserialize)]
struct Schema {
    /// The tables of ours: the platform's own start with `_cf_`, SQLite's with `sqlite_`.
    tables: i64,
    versioned: i64,
}

fn schema(sql: &SqlStorage) -> worker::Result<Schema> {
    let rows: Vec<Schema> = sql
        .exec(
            "SELECT COUNT(*) AS tables, COUNT(CASE name WHEN 'schema_version' THEN 1 END) AS versioned FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
            None,
        )?
        .to_array()?;
    Ok(rows.into_iter().next().unwrap_or(Schema { tables: 0, versioned: 0 }))
}

/// Migrates an object that answers with the outcome: a failure is logged once here, and is the
/// internal problem each of the object's calls answers until a later start of it succeeds.
pub fn ready(sql: &SqlStorage, object: &str, steps: &[Step]) -> Result<New, Problem> {
    ready_first(sql, object, steps, steps.len())
}

/// `ready`, where a new object makes only the tables of the steps before `first`.
pub fn ready_first(sql: &SqlStorage, object: &str, steps: &[Step], first: usize) -> Result<New, Problem> {
    migrate(sql, steps, first).map_err(|failed| {
        worker::console_error!("{object} tables: {failed}");
        Problem::from(failed)
    })
}

/// Whether the step still has something to do: a column is added only when it is missing.
fn needed(sql: &SqlStorage, step: &Step) -> worker::Result<bool> {
    let Step::AddColumn { table, column, .. } = step else { return Ok(true) };
    let counts: Vec<Count> = sql
        .exec("SELECT COUNT(*) AS n FROM pragma_table_info(?) WHERE name = ?", vec![(*table).into(), (*column).into()])?
        .to_array()?;
    Ok(counts.first().is_none_or(|c| c.n == 0))
}
