//! The playbook's index of its runs, in its Durable Object: `list_runs` pages through it newest
//! first, so listing never asks each run's object.

use serde::Deserialize;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::definition::{Kind, Ref};
use crate::core::json;
use crate::core::migration::Step;
use crate::core::run::store::{RunEntry, RunQuery};
use crate::core::run::Run;
use crate::core::Problem;
use crate::ops::playbook::IndexStore;

/// Declares the column added since (`WITHIN`), so a new object needs no `ALTER TABLE`.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
  position INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT, within TEXT
);
CREATE INDEX IF NOT EXISTS runs_of ON runs (kind, name, position);
CREATE TABLE IF NOT EXISTS run_records (run_id TEXT PRIMARY KEY, record TEXT NOT NULL);
";

/// Added after the first release: the workflow run and step that started a run, as JSON.
pub const WITHIN: Step = Step::AddColumn { table: "runs", column: "within", declared: "TEXT" };

/// Added later: the run a run was started again from with `rerun_run`, by its id.
pub const RERUN_OF: Step = Step::AddColumn { table: "runs", column: "rerun_of", declared: "TEXT" };

/// Added later: 1 for a rehearsal, which lists and reads leave apart.
pub const REHEARSAL: Step = Step::AddColumn { table: "runs", column: "rehearsal", declared: "INTEGER" };

#[derive(Deserialize)]
struct Kept {
    record: String,
}

#[derive(Deserialize)]
struct Row {
    position: i64,
    run_id: String,
    kind: String,
    name: String,
    version: i64,
    status: String,
    started_at: String,
    finished_at: Option<String>,
    #[serde(default)]
    within: Option<String>,
    #[serde(default)]
    rerun_of: Option<String>,
    #[serde(default)]
    rehearsal: Option<i64>,
}

pub struct RunsIndex<'s> {
    pub sql: &'s SqlStorage,
}

/// The most a position is bound as: a JavaScript number holds integers exactly up to 2^53.
const LAST: i64 = (1 << 53) - 1;

impl IndexStore for RunsIndex<'_> {
    fn record(&self, e: &RunEntry, whole: Option<&str>) -> Result<(), Problem> {
        let within = match &e.within {
            Some(w) => Some(serde_json::to_string(w).map_err(|e| Problem::internal(format!("could not encode: {e}")))?),
            None => None,
        };
        // One statement, not an insert then an update: the status and end move on, the rest of
        // an entry stays as its first report gave it.
        self.sql
            .exec(
                "INSERT INTO runs (run_id, kind, name, version, status, started_at, finished_at, within, rerun_of, rehearsal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET status = excluded.status, finished_at = excluded.finished_at",
                vec![
                    e.run_id.clone().into(),
                    e.definition.kind.as_str().into(),
                    e.definition.name.clone().into(),
                    i64::from(e.version).into(),
                    e.status.clone().into(),
                    e.started_at.clone().into(),
                    e.finished_at.clone().into(),
                    within.into(),
                    e.rerun_of.clone().into(),
                    i64::from(e.rehearsal).into(),
                ],
            )
            .map_err(storage)?;
        if let Some(text) = whole {
            self.sql
                .exec(
                    "INSERT INTO run_records (run_id, record) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET record = excluded.record",
                    vec![e.run_id.clone().into(), text.into()],
                )
                .map_err(storage)?;
        }
        Ok(())
    }

    fn newest(&self, definition: &Ref, limit: usize) -> Result<Vec<Run>, Problem> {
        let rows: Vec<Kept> = self
            .sql
            .exec(
                "SELECT k.record AS record FROM runs r JOIN run_records k ON k.run_id = r.run_id
                 WHERE r.kind = ? AND r.name = ? AND COALESCE(r.rehearsal, 0) = 0 ORDER BY r.position DESC LIMIT ?",
                vec![definition.kind.as_str().into(), definition.name.clone().into(), (limit as i64).into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.iter().filter_map(|r| json::from_str(&r.record).ok()).collect())
    }

    fn page(&self, q: &RunQuery, take: usize) -> Result<Vec<(i64, RunEntry)>, Problem> {
        let (kind, name) = match &q.definition {
            Some(r) => (r.kind.as_str().to_string(), r.name.clone()),
            None => (String::new(), String::new()),
        };
        let status = q.status.clone().unwrap_or_default();
        // Start times are stamped alike (`text::stamp`), so they compare as text, as `spans` does.
        let after = q.started_after.clone().unwrap_or_default();
        let before = q.started_before.clone().unwrap_or_default();
        let rerun_of = q.rerun_of.clone().unwrap_or_default();
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT * FROM runs WHERE position < ? AND (? = '' OR (kind = ? AND name = ?)) AND (? = '' OR status = ?)
                 AND (? = 1 OR within IS NULL) AND (? = '' OR started_at >= ?) AND (? = '' OR started_at < ?)
                 AND (? = '' OR rerun_of = ?) AND COALESCE(rehearsal, 0) = ? ORDER BY position DESC LIMIT ?",
                vec![
                    q.before.unwrap_or(LAST).into(),
                    kind.clone().into(),
                    kind.into(),
                    name.into(),
                    status.clone().into(),
                    status.into(),
                    i64::from(q.steps).into(),
                    after.clone().into(),
                    after.into(),
                    before.clone().into(),
                    before.into(),
                    rerun_of.clone().into(),
                    rerun_of.into(),
                    i64::from(q.rehearsal).into(),
                    (take as i64).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let entry = RunEntry {
                    run_id: r.run_id,
                    definition: Ref { kind: Kind::parse(&r.kind)?, name: r.name },
                    version: u32::try_from(r.version).ok()?,
                    status: r.status,
                    started_at: r.started_at,
                    finished_at: r.finished_at,
                    within: r.within.and_then(|w| json::from_str(&w).ok()),
                    rerun_of: r.rerun_of,
                    rehearsal: r.rehearsal.unwrap_or(0) == 1,
                };
                Some((r.position, entry))
            })
            .collect())
    }
}
