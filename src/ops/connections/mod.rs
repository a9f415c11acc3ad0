//! The connections of an org, as the platform-free code its Durable Object runs over its table:
//! find the connection a change names, decide in core, keep, then answer. Host tests run the same
//! code over a table in memory.

pub mod consent;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
pub mod renew;
pub mod serve;
mod settings;

pub use renew::Using;
pub use settings::{aad, NotSent, Opened, Sealer, Settings};

use chrono::{DateTime, Utc};

use crate::core::connection::machine::{decide, not_found, Command};
use crate::core::connection::store::{
    settle_add, ChangeConnection, ConnectionPage, Find, ListConnections, LIST_LIMIT_MAX,
};
use crate::core::connection::Connection;
use crate::core::Problem;

/// The table of an org's connections.
pub trait ConnectionTable {
    fn by_id(&self, id: &str) -> Result<Option<Connection>, Problem>;
    /// The connection whose link, or one of the links it replaced, has this digest.
    fn by_link(&self, digest: &str) -> Result<Option<Connection>, Problem>;
    /// The live connection of this name, if any.
    fn live_named(&self, name: &str) -> Result<Option<Connection>, Problem>;
    /// Keeps the connection whole, with the digests of its links to find it by.
    fn put(&self, connection: &Connection) -> Result<(), Problem>;
    /// A page, newest first, and whether another follows.
    fn page(&self, query: &ListConnections) -> Result<ConnectionPage, Problem>;
}

fn instant(now: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(now).map(|t| t.to_utc()).unwrap_or_default()
}

/// Finds the connection a read names; a link's digest finds a removed one too, so the page can
/// say what became of it.
pub fn find(table: &dyn ConnectionTable, find: &Find) -> Result<Connection, Problem> {
    let found = match find {
        Find::New => None,
        Find::Id(id) => table.by_id(id)?,
        Find::Link(digest) => table.by_link(digest)?,
    };
    found.ok_or_else(|| match find {
        Find::Id(id) => not_found(id),
        _ => Problem::not_found("No connection has this link: it may be mistyped, or cut short when it was copied."),
    })
}

/// Applies one change and answers the connection as kept. An add whose name a live connection
/// holds is refused, unless it is the same call made again by the same caller, which answers the
/// kept connection and adds nothing.
pub fn change(table: &dyn ConnectionTable, change: ChangeConnection) -> Result<Connection, Problem> {
    let now = instant(&change.now);
    let current = match (&change.find, &change.command) {
        (Find::New, Command::Add { connection }) => {
            if let Some(kept) = settle_add(connection, table.live_named(&connection.name)?)? {
                return Ok(kept);
            }
            None
        }
        (Find::New, _) => return Err(Problem::internal("a change to no connection")),
        (which, _) => Some(find(table, which)?),
    };
    let decided = decide(change.command, current, now)?;
    table.put(&decided)?;
    Ok(decided)
}

/// A page of the org's connections, newest first.
pub fn list(table: &dyn ConnectionTable, mut query: ListConnections) -> Result<ConnectionPage, Problem> {
    query.limit = query.limit.clamp(1, LIST_LIMIT_MAX);
    table.page(&query)
}

#[cfg(test)]
mod tests;

/// The most connections one org's servers are read from.
pub const SERVED_MAX: usize = 500;

/// The org's live connections as tool servers, for an operation that reaches tool servers; their
/// tokens renewed first where they have ended, and their credentials opened now, for this request
/// alone. A read that fails leaves them out, and says so in the log: the servers of the settings
/// still work.
pub async fn servers(using: &Using<'_>) -> Vec<crate::core::tool_server::settings::Server> {
    let (backend, org) = (using.backend, using.org);
    let mut out = Vec::new();
    let mut after = None;
    while out.len() < SERVED_MAX {
        let query = ListConnections { org: org.to_string(), limit: LIST_LIMIT_MAX, after, live: true };
        let page = match backend.list_connections(query).await {
            Ok(page) => page,
            Err(p) => {
                backend.log(&format!("the connections of {org} could not be read: {}", p.detail));
                break;
            }
        };
        for c in page.connections {
            out.extend(renew::server(using, c, false).await);
        }
        after = match page.next_cursor.as_deref().map(crate::core::connection::store::Cursor::decode) {
            Some(Ok(cursor)) => Some(cursor),
            _ => break,
        };
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}
