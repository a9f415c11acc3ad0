//! The org's connections in its object's SQLite: one row each, the record as JSON beside its
//! sealed material (opaque strings the sealing module made), and the digests of its links, the
//! current one and those it replaced, to find it by from its page.

use serde::Deserialize;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::connection::store::{ConnectionPage, Cursor, ListConnections};
use crate::core::connection::{Connection, Sealed};
use crate::core::json;
use crate::core::page::split;
use crate::core::Problem;
use crate::ops::connections::ConnectionTable;

/// The tables, added to the org's object as one step.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS connections (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  record TEXT NOT NULL,
  sealed TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS connections_newest ON connections (created_at DESC, id DESC);
CREATE UNIQUE INDEX IF NOT EXISTS connections_live_name ON connections (name) WHERE status != 'removed';
CREATE TABLE IF NOT EXISTS connection_links (
  digest TEXT PRIMARY KEY,
  connection TEXT NOT NULL
);
";

pub struct SqlConnections<'a>(pub &'a SqlStorage);

#[derive(Deserialize)]
struct Row {
    record: String,
    sealed: String,
}

fn encode<T: serde::Serialize>(v: &T) -> Result<String, Problem> {
    serde_json::to_string(v).map_err(|e| Problem::internal(format!("could not encode a connection: {e}")))
}

impl Row {
    fn into_connection(self) -> Result<Connection, Problem> {
        let mut c: Connection = json::from_str(&self.record)
            .map_err(|e| Problem::internal(format!("a kept connection does not read: {e}")))?;
        c.sealed = json::from_str(&self.sealed).unwrap_or_default();
        Ok(c)
    }
}

impl SqlConnections<'_> {
    fn one(&self, sql: &str, key: &str) -> Result<Option<Connection>, Problem> {
        let rows: Vec<Row> = self.0.exec(sql, vec![key.into()]).and_then(|c| c.to_array()).map_err(storage)?;
        rows.into_iter().next().map(Row::into_connection).transpose()
    }
}

impl ConnectionTable for SqlConnections<'_> {
    fn by_id(&self, id: &str) -> Result<Option<Connection>, Problem> {
        self.one("SELECT record, sealed FROM connections WHERE id = ?", id)
    }

    fn by_link(&self, digest: &str) -> Result<Option<Connection>, Problem> {
        self.one(
            "SELECT record, sealed FROM connections WHERE id = (SELECT connection FROM connection_links WHERE digest = ?)",
            digest,
        )
    }

    fn live_named(&self, name: &str) -> Result<Option<Connection>, Problem> {
        self.one("SELECT record, sealed FROM connections WHERE name = ? AND status != 'removed'", name)
    }

    fn put(&self, c: &Connection) -> Result<(), Problem> {
        let record = encode(&Connection { sealed: Sealed::default(), ..c.clone() })?;
        let sealed = encode(&c.sealed)?;
        self.0
            .exec(
                "INSERT INTO connections (id, name, status, created_at, record, sealed) VALUES (?, ?, ?, ?, ?, ?)
                 ON CONFLICT(id) DO UPDATE SET name = excluded.name, status = excluded.status,
                   record = excluded.record, sealed = excluded.sealed",
                vec![
                    c.id.clone().into(),
                    c.name.clone().into(),
                    c.status.as_str().into(),
                    c.created_at.clone().into(),
                    record.into(),
                    sealed.into(),
                ],
            )
            .map_err(storage)?;
        let digests = c.link.iter().map(|l| l.digest.clone()).chain(c.replaced.iter().cloned());
        for digest in digests {
            self.0
                .exec(
                    "INSERT OR IGNORE INTO connection_links (digest, connection) VALUES (?, ?)",
                    vec![digest.into(), c.id.clone().into()],
                )
                .map_err(storage)?;
        }
        Ok(())
    }

    fn page(&self, query: &ListConnections) -> Result<ConnectionPage, Problem> {
        let (after_time, after_id) = match &query.after {
            Some(c) => (c.created_at.clone(), c.id.clone()),
            None => ("\u{10ffff}".to_string(), String::new()),
        };
        let rows: Vec<Row> = self
            .0
            .exec(
                "SELECT record, sealed FROM connections
                 WHERE (? = 0 OR status != 'removed')
                   AND (created_at < ? OR (created_at = ? AND id < ?))
                 ORDER BY created_at DESC, id DESC LIMIT ?",
                vec![
                    i64::from(query.live).into(),
                    after_time.clone().into(),
                    after_time.into(),
                    after_id.into(),
                    ((query.limit + 1) as i64).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let rows = rows.into_iter().map(Row::into_connection).collect::<Result<Vec<_>, _>>()?;
        let (connections, next_cursor) =
            split(rows, query.limit, |c| Cursor { created_at: c.created_at.clone(), id: c.id.clone() }.encode());
        Ok(ConnectionPage { connections, next_cursor })
    }
}
