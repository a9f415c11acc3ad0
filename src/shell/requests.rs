//! The open requests of a playbook's interactions, in its Durable Object: opened and closed by
//! the runs that ask, listed newest first by `list_interactions`.

use serde::Deserialize;
use worker::SqlStorage;

use super::playbook::storage;
use crate::core::definition::{Kind, Ref};
use crate::core::page::split;
use crate::core::run::store::{encode_cursor, OpenRequest, RequestCommand, RequestPage, LIST_LIMIT_MAX};
use crate::core::Problem;

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS requests (
  position INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
  name TEXT NOT NULL, question TEXT NOT NULL, answer_schema TEXT NOT NULL, asked_at TEXT NOT NULL
);
";

#[derive(Deserialize)]
struct Row {
    position: i64,
    run_id: String,
    kind: String,
    name: String,
    question: String,
    answer_schema: String,
    asked_at: String,
}

pub struct Requests<'s> {
    pub sql: &'s SqlStorage,
}

impl Requests<'_> {
    pub fn run(&self, command: RequestCommand) -> Result<(), Problem> {
        match command {
            RequestCommand::Open(r) => {
                self.sql
                    .exec(
                        "INSERT OR IGNORE INTO requests (run_id, kind, name, question, answer_schema, asked_at) VALUES (?, ?, ?, ?, ?, ?)",
                        vec![
                            r.run_id.into(),
                            r.definition.kind.as_str().into(),
                            r.definition.name.into(),
                            r.question.into(),
                            r.answer_schema.to_string().into(),
                            r.asked_at.into(),
                        ],
                    )
                    .map_err(storage)?;
            }
            RequestCommand::Close { run_id } => {
                self.sql.exec("DELETE FROM requests WHERE run_id = ?", vec![run_id.into()]).map_err(storage)?;
            }
        }
        Ok(())
    }

    /// A page of the open requests, newest first, from before the position `before`.
    pub fn list(&self, limit: usize, before: Option<i64>) -> Result<RequestPage, Problem> {
        let limit = limit.clamp(1, LIST_LIMIT_MAX);
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT * FROM requests WHERE position < ? ORDER BY position DESC LIMIT ?",
                vec![before.unwrap_or(i64::MAX).into(), ((limit + 1) as i64).into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let (rows, next_cursor) = split(rows, limit, |r| encode_cursor(r.position));
        let requests = rows
            .into_iter()
            .filter_map(|r| {
                Some(OpenRequest {
                    run_id: r.run_id,
                    definition: Ref { kind: Kind::parse(&r.kind)?, name: r.name },
                    question: r.question,
                    answer_schema: serde_json::from_str(&r.answer_schema).ok()?,
                    asked_at: r.asked_at,
                })
            })
            .collect();
        Ok(RequestPage { requests, next_cursor })
    }
}
