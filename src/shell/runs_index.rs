//! The playbook's index of its runs, in its Durable Object: `list_runs` pages through it newest
//! first, so listing never asks each run's object.

use serde::Deserialize;
use worker::SqlStorage;

use super::playbook::storage;
use crate::core::definition::{Kind, Ref};
use crate::core::migration::Step;
use crate::core::page::split;
use crate::core::run::store::{encode_cursor, IndexCommand, RunEntry, RunPage, RunQuery, LIST_LIMIT_MAX};
use crate::core::run::Run;
use crate::core::Problem;
use serde_json::Value;

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
  position INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT
);
CREATE INDEX IF NOT EXISTS runs_of ON runs (kind, name, position);
CREATE TABLE IF NOT EXISTS run_records (run_id TEXT PRIMARY KEY, record TEXT NOT NULL);
";

/// Added after the first release: the workflow run and step that started a run, as JSON.
pub const WITHIN: Step = Step::AddColumn { table: "runs", column: "within", declared: "TEXT" };

/// The largest run record the index keeps whole for lookups; a larger one is read from its run.
const RECORD_MAX_BYTES: usize = 65_536;

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
}

pub struct RunsIndex<'s> {
    pub sql: &'s SqlStorage,
}

impl RunsIndex<'_> {
    pub fn run(&self, command: IndexCommand) -> Result<Value, Problem> {
        let none = |_| Value::Null;
        match command {
            IndexCommand::Add(e) => self.put(&e, "INSERT OR IGNORE").map(none),
            IndexCommand::Update(e) => self.update(&e).map(none),
            IndexCommand::Record(run) => self.record(&run).map(none),
            IndexCommand::List(q) => self.list(q).map(|p| serde_json::to_value(p).unwrap_or_default()),
            IndexCommand::Read { definition, limit } => {
                self.read(&definition, limit).map(|runs| serde_json::to_value(runs).unwrap_or_default())
            }
        }
    }

    fn record(&self, run: &Run) -> Result<(), Problem> {
        self.update(&RunEntry::of(run))?;
        let text = serde_json::to_string(run).unwrap_or_default();
        if text.len() <= RECORD_MAX_BYTES {
            self.sql
                .exec(
                    "INSERT INTO run_records (run_id, record) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET record = excluded.record",
                    vec![run.run_id.clone().into(), text.into()],
                )
                .map_err(storage)?;
        }
        Ok(())
    }

    /// The newest runs of a definition whole, newest first.
    fn read(&self, definition: &Ref, limit: usize) -> Result<Vec<Run>, Problem> {
        let rows: Vec<Kept> = self
            .sql
            .exec(
                "SELECT k.record AS record FROM runs r JOIN run_records k ON k.run_id = r.run_id
                 WHERE r.kind = ? AND r.name = ? ORDER BY r.position DESC LIMIT ?",
                vec![definition.kind.as_str().into(), definition.name.clone().into(), (limit as i64).into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.iter().filter_map(|r| serde_json::from_str(&r.record).ok()).collect())
    }

    fn put(&self, e: &RunEntry, verb: &str) -> Result<(), Problem> {
        self.sql
            .exec(
                &format!("{verb} INTO runs (run_id, kind, name, version, status, started_at, finished_at, within) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                vec![
                    e.run_id.clone().into(),
                    e.definition.kind.as_str().into(),
                    e.definition.name.clone().into(),
                    i64::from(e.version).into(),
                    e.status.clone().into(),
                    e.started_at.clone().into(),
                    e.finished_at.clone().into(),
                    e.within.as_ref().and_then(|w| serde_json::to_string(w).ok()).into(),
                ],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn update(&self, e: &RunEntry) -> Result<(), Problem> {
        self.put(e, "INSERT OR IGNORE")?;
        self.sql
            .exec(
                "UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?",
                vec![e.status.clone().into(), e.finished_at.clone().into(), e.run_id.clone().into()],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn list(&self, q: RunQuery) -> Result<RunPage, Problem> {
        let limit = q.limit.clamp(1, LIST_LIMIT_MAX);
        let (kind, name) = match &q.definition {
            Some(r) => (r.kind.as_str().to_string(), r.name.clone()),
            None => (String::new(), String::new()),
        };
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT * FROM runs WHERE position < ? AND (? = '' OR (kind = ? AND name = ?)) AND (? = '' OR status = ?)
                 AND (? = 1 OR within IS NULL) ORDER BY position DESC LIMIT ?",
                vec![
                    q.before.unwrap_or(i64::MAX).into(),
                    kind.clone().into(),
                    kind.into(),
                    name.into(),
                    q.status.clone().unwrap_or_default().into(),
                    q.status.unwrap_or_default().into(),
                    i64::from(q.steps).into(),
                    ((limit + 1) as i64).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let (rows, next_cursor) = split(rows, limit, |r| encode_cursor(r.position));
        let runs = rows
            .into_iter()
            .filter_map(|r| {
                Some(RunEntry {
                    run_id: r.run_id,
                    definition: Ref { kind: Kind::parse(&r.kind)?, name: r.name },
                    version: u32::try_from(r.version).ok()?,
                    status: r.status,
                    started_at: r.started_at,
                    finished_at: r.finished_at,
                    within: r.within.and_then(|w| serde_json::from_str(&w).ok()),
                })
            })
            .collect();
        Ok(RunPage { runs, next_cursor })
    }
}
