//! What a playbook's object keeps beside its record: its definitions with every version, its
//! events, its index of runs and its open requests (its triggers are `ops::triggers`). Each is a
//! small trait the object's SQLite implements and `memory` keeps in memory for tests. Pages are
//! read as rows with their place; `page` turns one row too many into the next cursor.

use crate::core::definition::record::{Definition, Version};
use crate::core::definition::store::DefinitionQuery;
use crate::core::definition::{Kind, Ref};
use crate::core::event::{Event, EventQuery, NewEvent};
use crate::core::run::store::{OpenRequest, RunEntry, RunQuery};
use crate::core::run::Run;
use crate::core::Problem;

pub trait DefinitionStore {
    /// The current state of a definition, retired or not.
    fn definition(&self, kind: Kind, name: &str) -> Result<Option<Definition>, Problem>;
    fn version(&self, kind: Kind, name: &str, version: u32) -> Result<Option<Version>, Problem>;
    fn put(&self, definition: &Definition) -> Result<(), Problem>;
    /// Keeps a new version, and that the definition now uses what the version names.
    fn put_version(&self, definition: &Definition, version: &Version) -> Result<(), Problem>;
    /// The definitions, not retired, whose current version uses `target`, by type then name.
    fn users(&self, target: &Ref) -> Result<Vec<Ref>, Problem>;
    /// Up to `take` definitions of the query's type after its `after` name, by name.
    fn page(&self, query: &DefinitionQuery, take: usize) -> Result<Vec<Definition>, Problem>;
}

pub trait EventStore {
    /// Keeps an event under the next position, unless one with its key is kept already: then it
    /// answers that one, and false.
    fn append(&self, event: &NewEvent) -> Result<(Event, bool), Problem>;
    /// `append` of each event in order, as one write where the store can make it one.
    fn append_all(&self, events: &[NewEvent]) -> Result<Vec<(Event, bool)>, Problem> {
        events.iter().map(|e| self.append(e)).collect()
    }
    fn at(&self, position: i64) -> Result<Option<Event>, Problem>;
    /// The newest events of a kind whole, newest first.
    fn newest(&self, kind: &str, limit: usize) -> Result<Vec<Event>, Problem>;
    /// Up to `take` events the query selects after its position: one run's family oldest first,
    /// else the playbook's newest first.
    fn page(&self, query: &EventQuery, take: usize) -> Result<Vec<(i64, Event)>, Problem>;
}

pub trait IndexStore {
    /// Lists a run, or records how a listed one stands; `whole` is kept for lookups to read.
    fn record(&self, entry: &RunEntry, whole: Option<&str>) -> Result<(), Problem>;
    /// The newest runs of a definition kept whole, newest first.
    fn newest(&self, definition: &Ref, limit: usize) -> Result<Vec<Run>, Problem>;
    /// Up to `take` runs the query selects before its position, newest first.
    fn page(&self, query: &RunQuery, take: usize) -> Result<Vec<(i64, RunEntry)>, Problem>;
}

pub trait RequestStore {
    /// Opens a request, once per run.
    fn open(&self, request: &OpenRequest) -> Result<(), Problem>;
    fn close(&self, run_id: &str) -> Result<(), Problem>;
    /// Up to `take` open requests before the position `before`, newest first.
    fn page(&self, before: Option<i64>, take: usize) -> Result<Vec<(i64, OpenRequest)>, Problem>;
}
