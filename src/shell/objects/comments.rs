//! Comments in an object's SQLite: a playbook's in its playbook's object, the organization's own
//! in the organization's, one table of the same shape in each. A comment is kept whole as JSON,
//! beside the columns a list filters and orders by.

use serde::Deserialize;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::comment::{Comment, CommentQuery};
use crate::core::json;
use crate::core::migration::Step;
use crate::core::Problem;
use crate::ops::comments::CommentStore;

/// The step that adds the table, to each object that keeps comments.
pub const TABLE: Step = Step::Sql(
    "CREATE TABLE IF NOT EXISTS comments (
  id TEXT PRIMARY KEY, created_at TEXT NOT NULL, address TEXT NOT NULL, status TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS comments_newest ON comments (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS comments_address ON comments (address, created_at DESC, id DESC);",
);

#[derive(Deserialize)]
struct Row {
    record: String,
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

pub struct SqlComments<'s> {
    pub sql: &'s SqlStorage,
}

fn read(rows: Vec<Row>) -> Result<Vec<Comment>, Problem> {
    rows.iter()
        .map(|r| json::from_str(&r.record))
        .collect::<Result<_, _>>()
        .map_err(|e| Problem::internal(format!("a stored comment could not be read: {e}")))
}

impl CommentStore for SqlComments<'_> {
    fn get(&self, id: &str) -> Result<Option<Comment>, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec("SELECT record FROM comments WHERE id = ?", vec![id.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(read(rows)?.into_iter().next())
    }

    fn count(&self) -> Result<usize, Problem> {
        let rows: Vec<Count> =
            self.sql.exec("SELECT COUNT(*) AS n FROM comments", None).and_then(|c| c.to_array()).map_err(storage)?;
        Ok(rows.first().map_or(0, |c| usize::try_from(c.n).unwrap_or(0)))
    }

    fn put(&self, c: &Comment) -> Result<(), Problem> {
        let record = serde_json::to_string(c).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO comments (id, created_at, address, status, record) VALUES (?, ?, ?, ?, ?)
                 ON CONFLICT(id) DO UPDATE SET status = excluded.status, record = excluded.record",
                vec![
                    c.id.clone().into(),
                    c.created_at.clone().into(),
                    c.address.clone().into(),
                    c.status.as_str().into(),
                    record.into(),
                ],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn page(&self, query: &CommentQuery, take: usize) -> Result<Vec<Comment>, Problem> {
        let (after_time, after_id) = match &query.after {
            Some((at, id)) => (at.clone(), id.clone()),
            None => ("\u{10ffff}".to_string(), String::new()),
        };
        let under = query.under.clone().unwrap_or_default();
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT record FROM comments
                 WHERE (? = '' OR address = ?)
                   AND (? = '' OR address = ? OR substr(address, 1, length(?) + 1) = ? || '/')
                   AND (? = 0 OR status = 'open')
                   AND (created_at < ? OR (created_at = ? AND id < ?))
                 ORDER BY created_at DESC, id DESC LIMIT ?",
                vec![
                    query.address.clone().unwrap_or_default().into(),
                    query.address.clone().unwrap_or_default().into(),
                    under.clone().into(),
                    under.clone().into(),
                    under.clone().into(),
                    under.into(),
                    i64::from(query.open).into(),
                    after_time.clone().into(),
                    after_time.into(),
                    after_id.into(),
                    (take as i64).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        read(rows)
    }
}
