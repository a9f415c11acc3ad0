//! The open requests of a playbook's interactions, in its Durable Object: opened and closed by
//! the runs that ask, listed newest first by `list_interactions`.

use serde::Deserialize;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::definition::{Kind, Ref};
use crate::core::run::store::OpenRequest;
use crate::core::Problem;
use crate::ops::playbook::RequestStore;

/// Declares the column added since (`EXPIRES`), so a new object needs no `ALTER TABLE`.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS requests (
  position INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
  name TEXT NOT NULL, question TEXT NOT NULL, answer_schema TEXT NOT NULL, asked_at TEXT NOT NULL,
  expires_at TEXT
);
";

/// Added with requests that expire: when each does.
pub const EXPIRES: crate::core::migration::Step =
    crate::core::migration::Step::AddColumn { table: "requests", column: "expires_at", declared: "TEXT" };

#[derive(Deserialize)]
struct Row {
    position: i64,
    run_id: String,
    kind: String,
    name: String,
    question: String,
    answer_schema: String,
    asked_at: String,
    #[serde(default)]
    expires_at: Option<String>,
}

pub struct Requests<'s> {
    pub sql: &'s SqlStorage,
}

/// The most a position is bound as: a JavaScript number holds integers exactly up to 2^53.
const LAST: i64 = (1 << 53) - 1;

impl RequestStore for Requests<'_> {
    fn open(&self, r: &OpenRequest) -> Result<(), Problem> {
        self.sql
            .exec(
                "INSERT OR IGNORE INTO requests (run_id, kind, name, question, answer_schema, asked_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                vec![
                    r.run_id.clone().into(),
                    r.definition.kind.as_str().into(),
                    r.definition.name.clone().into(),
                    r.question.clone().into(),
                    r.answer_schema.to_string().into(),
                    r.asked_at.clone().into(),
                    r.expires_at.clone().into(),
                ],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn close(&self, run_id: &str) -> Result<(), Problem> {
        self.sql.exec("DELETE FROM requests WHERE run_id = ?", vec![run_id.into()]).map_err(storage)?;
        Ok(())
    }

    fn page(&self, before: Option<i64>, take: usize) -> Result<Vec<(i64, OpenRequest)>, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT * FROM requests WHERE position < ? ORDER BY position DESC LIMIT ?",
                vec![before.unwrap_or(LAST).into(), (take as i64).into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let request = OpenRequest {
                    run_id: r.run_id,
                    definition: Ref { kind: Kind::parse(&r.kind)?, name: r.name },
                    question: r.question,
                    answer_schema: serde_json::from_str(&r.answer_schema).ok()?,
                    asked_at: r.asked_at,
                    expires_at: r.expires_at,
                };
                Some((r.position, request))
            })
            .collect())
    }
}
