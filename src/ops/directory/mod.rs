//! The org's directory of playbooks, as the platform-free code its Durable Object runs. A change
//! loads the row it starts from and claims its playbook and the name it gives it, the pure
//! `core::directory::decide` says what it does, the playbook's own object keeps the record, and
//! then the directory's row follows: a listed playbook can always be read. The directory's rows
//! are a `DirectoryStore` (the object's SQLite, or `memory` for tests); the playbooks' objects
//! are reached through `Playbooks`.

#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
#[cfg(test)]
mod tests;

use futures::future::LocalBoxFuture;

use super::claims::Claims;
use crate::core::directory::{decide, Command, Cursor, Decision, ListPage, ListQuery, Save, LIST_LIMIT_MAX};
use crate::core::page::split;
use crate::core::playbook::{name_key, Playbook};
use crate::core::Problem;

/// The directory's rows: each playbook of the org as it was last kept, without its page.
pub trait DirectoryStore {
    /// The row of a playbook, its page left empty.
    fn row(&self, id: &str) -> Result<Option<Playbook>, Problem>;
    /// The id of the active playbook whose name has this key (`name_key`).
    fn holder(&self, key: &str) -> Result<Option<String>, Problem>;
    /// Keeps a playbook's row, all of it but its page.
    fn put(&self, playbook: &Playbook) -> Result<(), Problem>;
    /// Up to `take` playbooks the query selects after its cursor, newest first.
    fn page(&self, query: &ListQuery, take: usize) -> Result<Vec<Playbook>, Problem>;
    /// Whether the org holds any playbook at all, active or retired.
    fn any(&self) -> Result<bool, Problem>;
}

/// The playbooks' own objects, each the record of truth for its playbook.
pub trait Playbooks {
    /// Keeps a save in the playbook's object (`Save::over` what it holds), and answers the record.
    fn save<'a>(&'a self, save: &'a Save) -> LocalBoxFuture<'a, Result<Playbook, Problem>>;
    fn get<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>>;
}

/// A key a change holds while in flight. A name is held by its key, as the unique index
/// compares names.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Claim {
    Playbook(String),
    Name(String),
}

/// One org's directory: its rows, the playbooks' objects, and what the changes in flight hold.
pub struct Directory<'a> {
    pub rows: &'a dyn DirectoryStore,
    pub playbooks: &'a dyn Playbooks,
    pub claims: &'a Claims<Claim>,
}

impl Directory<'_> {
    /// Makes a change: load, decide, keep in the playbook's object, then write the row.
    ///
    /// # Errors
    /// What `decide` refuses, and a failure of either write; a failure of the row's write after
    /// the playbook kept its record leaves that record unlisted, and the same change again lists it.
    pub async fn change(&self, command: Command) -> Result<Playbook, Problem> {
        // Held to the end of the change, on every path: no other change of this playbook or of
        // the name it claims comes between the check below and the row's write. A change that
        // only frees a name (a retire, a rename away) claims nothing of it, so a change claiming
        // that name meanwhile may be refused, as though it came first.
        let (_held, current) = self.claims.claim(|| self.load(&command)).await?;
        let holder = match command.claimed_name(current.as_ref()) {
            Some(name) => self.rows.holder(&name_key(name))?,
            None => None,
        };
        match decide(&command, current.as_ref(), holder.as_deref())? {
            Decision::Unchanged => self.playbooks.get(command.id()).await,
            Decision::Save(save) => {
                let saved = self.playbooks.save(&save).await?;
                self.rows.put(&saved)?;
                Ok(saved)
            }
        }
    }

    /// The row a change starts from, and what the change claims: its playbook, and the name it
    /// would give it. Read and claimed with no await between, so the row is the one it claims.
    fn load(&self, command: &Command) -> Result<(Vec<Claim>, Option<Playbook>), Problem> {
        let current = self.rows.row(command.id())?;
        let mut keys = vec![Claim::Playbook(command.id().to_string())];
        keys.extend(command.claimed_name(current.as_ref()).map(|name| Claim::Name(name_key(name))));
        Ok((keys, current))
    }
}

/// A page of the org's playbooks, newest first; one row more than the page tells whether
/// another follows.
///
/// # Errors
/// A failed read.
pub fn list(rows: &dyn DirectoryStore, query: ListQuery) -> Result<ListPage, Problem> {
    let limit = query.limit.clamp(1, LIST_LIMIT_MAX);
    let page = rows.page(&query, limit + 1)?;
    let (page, next_cursor) =
        split(page, limit, |p| Cursor { created_at: p.created_at.clone(), id: p.id.clone() }.encode());
    let org_has_playbooks = !page.is_empty() || rows.any()?;
    let playbooks = page.iter().map(Playbook::listed).collect::<Result<_, _>>()?;
    Ok(ListPage { playbooks, next_cursor, org_has_playbooks })
}
