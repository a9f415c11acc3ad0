//! What travels between the Worker and the org's object for connections: a change (which
//! connection, and the command), a list's query and page, and how an add that was made already
//! is told from a new one.

use serde::{Deserialize, Serialize};

use super::machine::Command;
use super::{is_connection_id, Connection};
use crate::core::Problem;

pub const LIST_LIMIT_DEFAULT: usize = 50;
pub const LIST_LIMIT_MAX: usize = 100;

/// Which connection a change is for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Find {
    /// A new one, which `Command::Add` carries.
    New,
    Id(String),
    /// The connection whose link, or a link it replaced, has this digest.
    Link(String),
}

/// One command to one connection of an org, at `now` (RFC 3339).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeConnection {
    pub org: String,
    pub find: Find,
    pub command: Command,
    pub now: String,
}

/// A read of one connection, removed ones among them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetConnection {
    pub org: String,
    pub find: Find,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListConnections {
    pub org: String,
    pub limit: usize,
    pub after: Option<Cursor>,
    /// Leaves out the removed ones.
    pub live: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectionPage {
    pub connections: Vec<Connection>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    pub created_at: String,
    pub id: String,
}

impl Cursor {
    pub fn encode(&self) -> String {
        crate::core::page::after(&self.created_at, &self.id)
    }

    pub fn decode(token: &str) -> Result<Cursor, Problem> {
        let (created_at, id) = crate::core::page::read_after(token, is_connection_id)?;
        Ok(Cursor { created_at, id })
    }
}

/// What an add finds already kept under its name: nothing, the same call made before by the same
/// caller (a retry, answered as it stands), or another connection of that name.
pub fn settle_add(new: &Connection, holder: Option<Connection>) -> Result<Option<Connection>, Problem> {
    match holder {
        None => Ok(None),
        Some(kept) if kept.fingerprint == new.fingerprint && kept.added_by.id == new.added_by.id => Ok(Some(kept)),
        Some(kept) => Err(Problem::conflict(format!(
            "The org has a connection named {} already ({}); give another name, or reconnect that one with reconnect_connection.",
            kept.name, kept.id
        ))
        .with_field("/name", "is the name of a connection the org has")),
    }
}
