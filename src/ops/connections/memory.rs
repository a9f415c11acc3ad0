//! The table of connections in memory, for host tests, which can be told to fail.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::ConnectionTable;
use crate::core::connection::store::{ConnectionPage, Cursor, ListConnections};
use crate::core::connection::{Connection, Status};
use crate::core::page::split;
use crate::core::Problem;
use crate::ops::faults::Faults;

#[derive(Default)]
pub struct MemConnections {
    pub rows: RefCell<BTreeMap<String, Connection>>,
    pub faults: Faults,
}

impl ConnectionTable for MemConnections {
    fn by_id(&self, id: &str) -> Result<Option<Connection>, Problem> {
        Ok(self.rows.borrow().get(id).cloned())
    }

    fn by_link(&self, digest: &str) -> Result<Option<Connection>, Problem> {
        let rows = self.rows.borrow();
        let found = rows
            .values()
            .find(|c| c.link.as_ref().is_some_and(|l| l.digest == digest) || c.replaced.iter().any(|d| d == digest));
        Ok(found.cloned())
    }

    fn live_named(&self, name: &str) -> Result<Option<Connection>, Problem> {
        Ok(self.rows.borrow().values().find(|c| c.name == name && c.status != Status::Removed).cloned())
    }

    fn put(&self, connection: &Connection) -> Result<(), Problem> {
        self.faults.write("put")?;
        self.rows.borrow_mut().insert(connection.id.clone(), connection.clone());
        Ok(())
    }

    fn page(&self, query: &ListConnections) -> Result<ConnectionPage, Problem> {
        let mut rows: Vec<Connection> = self
            .rows
            .borrow()
            .values()
            .filter(|c| !query.live || c.status != Status::Removed)
            .filter(|c| {
                query
                    .after
                    .as_ref()
                    .is_none_or(|a| (c.created_at.as_str(), c.id.as_str()) < (a.created_at.as_str(), a.id.as_str()))
            })
            .cloned()
            .collect();
        rows.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
        rows.truncate(query.limit + 1);
        let (connections, next_cursor) =
            split(rows, query.limit, |c| Cursor { created_at: c.created_at.clone(), id: c.id.clone() }.encode());
        Ok(ConnectionPage { connections, next_cursor })
    }
}

/// A sealer for host tests: it binds the associated data and hides nothing, so tests can read
/// what was kept, and it refuses a seal opened under other data.
pub struct Plain;

impl super::Sealer for Plain {
    fn seal(&self, aad: &str, plaintext: &[u8]) -> Result<String, Problem> {
        use base64::Engine;
        Ok(format!("plain.{}.{}", aad, base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(plaintext)))
    }

    fn open(&self, aad: &str, sealed: &str) -> Result<Vec<u8>, Problem> {
        use base64::Engine;
        let body = sealed
            .strip_prefix(&format!("plain.{aad}."))
            .ok_or_else(|| Problem::unavailable("the credential was sealed for another connection"))?;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| Problem::unavailable("the credential does not open"))
    }
}
