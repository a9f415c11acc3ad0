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

use crate::core::migration::{plan, Plan, Step};
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

/// Applies the steps the database has not had, then records the version the last one applied
/// reached.
///
/// # Errors
/// The first step that fails, which is left unrecorded, so the next start of the object tries it
/// again; the steps before it stay applied and recorded.
pub fn migrate(sql: &SqlStorage, steps: &[Step]) -> Result<(), Failed> {
    let failed = |step: u32| move |e: worker::Error| Failed { step, why: e.to_string() };
    sql.exec(VERSION_TABLE, None).map_err(failed(0))?;
    let rows: Vec<Version> = sql
        .exec("SELECT version FROM schema_version WHERE id = 1", None)
        .and_then(|c| c.to_array())
        .map_err(failed(0))?;
    let recorded = rows.first().map_or(0, |r| u32::try_from(r.version).unwrap_or(0));
    let pending = match plan(recorded, steps) {
        Plan::Apply(pending) => pending,
        Plan::Ahead { recorded, known } => {
            worker::console_warn!(
                "the tables are at version {recorded}, newer than the {known} steps this release knows"
            );
            return Ok(());
        }
    };
    let mut reached = recorded;
    let mut outcome = Ok(());
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
        sql.exec(
            "INSERT INTO schema_version (id, version) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET version = excluded.version",
            vec![i64::from(reached).into()],
        )
        .map_err(failed(reached))?;
    }
    outcome
}

/// Migrates an object that answers with the outcome: a failure is logged once here, and is the
/// internal problem each of the object's calls answers until a later start of it succeeds.
pub fn ready(sql: &SqlStorage, object: &str, steps: &[Step]) -> Result<(), Problem> {
    migrate(sql, steps).map_err(|failed| {
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
