//! The playbook's index of its runs, in its Durable Object: `list_runs` pages through it newest
//! first, so listing never asks each run's object.

use serde::Deserialize;
use worker::SqlStorage;

use super::playbook::storage;
use crate::core::definition::{Kind, Ref};
use crate::core::run::store::{
    encode_cursor, IndexCommand, RunEntry, RunPage, RunQuery, LIST_LIMIT_MAX,
};
use crate::core::Problem;

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
  position INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,
  started_at TEXT NOT NULL, finished_at TEXT
);
CREATE INDEX IF NOT EXISTS runs_of ON runs (kind, name, position);
";

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
}

pub struct RunsIndex<'s> {
    pub sql: &'s SqlStorage,
}

impl RunsIndex<'_> {
    pub fn run(&self, command: IndexCommand) -> Result<Option<RunPage>, Problem> {
        match command {
            IndexCommand::Add(e) => self.put(&e, "INSERT OR IGNORE").map(|_| None),
            IndexCommand::Update(e) => self.update(&e).map(|_| None),
            IndexCommand::List(q) => self.list(q).map(Some),
        }
    }

    fn put(&self, e: &RunEntry, verb: &str) -> Result<(), Problem> {
        self.sql
            .exec(
                &format!("{verb} INTO runs (run_id, kind, name, version, status, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
                vec![
                    e.run_id.clone().into(),
                    e.definition.kind.as_str().into(),
                    e.definition.name.clone().into(),
                    i64::from(e.version).into(),
                    e.status.clone().into(),
                    e.started_at.clone().into(),
                    e.finished_at.clone().into(),
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
                vec![
                    e.status.clone().into(),
                    e.finished_at.clone().into(),
                    e.run_id.clone().into(),
                ],
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
                 ORDER BY position DESC LIMIT ?",
                vec![
                    q.before.unwrap_or(i64::MAX).into(),
                    kind.clone().into(),
                    kind.into(),
                    name.into(),
                    q.status.clone().unwrap_or_default().into(),
                    q.status.unwrap_or_default().into(),
                    ((limit + 1) as i64).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let more = rows.len() > limit;
        let next_cursor = if more {
            rows.get(limit - 1).map(|r| encode_cursor(r.position))
        } else {
            None
        };
        let runs = rows
            .into_iter()
            .take(limit)
            .filter_map(|r| {
                Some(RunEntry {
                    run_id: r.run_id,
                    definition: Ref {
                        kind: Kind::parse(&r.kind)?,
                        name: r.name,
                    },
                    version: u32::try_from(r.version).ok()?,
                    status: r.status,
                    started_at: r.started_at,
                    finished_at: r.finished_at,
                })
            })
            .collect();
        Ok(RunPage { runs, next_cursor })
    }
}
