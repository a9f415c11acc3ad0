//! A playbook's tables in memory, for host tests: the same rows the object's SQLite keeps, read
//! in the same orders. Its `faults` make a call of a store method fail, as storage that
//! refuses; what was written before stays.

use std::cell::{RefCell, RefMut};
use std::collections::BTreeMap;

use super::store::{DefinitionStore, EventStore, IndexStore, RequestStore};
use crate::core::definition::record::{Definition, DefinitionStatus, Version};
use crate::core::definition::store::DefinitionQuery;
use crate::core::definition::{Kind, Ref};
use crate::core::event::{event_id, Event, EventQuery, NewEvent};
use crate::core::run::store::{OpenRequest, RunEntry, RunQuery};
use crate::core::run::Run;
use crate::core::Problem;
use crate::ops::faults::Faults;

#[derive(Default)]
struct Rows {
    definitions: BTreeMap<(Kind, String), Definition>,
    versions: BTreeMap<(Kind, String, u32), Version>,
    /// What each definition's current version uses.
    uses: BTreeMap<(Kind, String), Vec<Ref>>,
    /// Each event by its position, with its family and key as the table keeps them.
    events: BTreeMap<i64, NewEvent>,
    runs: BTreeMap<i64, RunEntry>,
    whole: BTreeMap<String, String>,
    requests: BTreeMap<i64, OpenRequest>,
    /// The last position each table gave out; never reused, as SQL's AUTOINCREMENT.
    last: [i64; 3],
}

const EVENTS: usize = 0;
const RUNS: usize = 1;
const REQUESTS: usize = 2;

#[derive(Default)]
pub struct MemPlaybook {
    rows: RefCell<Rows>,
    pub faults: Faults,
}

impl MemPlaybook {
    fn rows(&self, call: &'static str) -> Result<RefMut<'_, Rows>, Problem> {
        self.faults.read(call)?;
        Ok(self.rows.borrow_mut())
    }

    fn write(&self, call: &'static str) -> Result<RefMut<'_, Rows>, Problem> {
        self.faults.write(call)?;
        Ok(self.rows.borrow_mut())
    }
}

impl Rows {
    fn next(&mut self, table: usize) -> i64 {
        self.last[table] += 1;
        self.last[table]
    }
}

/// An event as a read answers it: its family and key are kept, not shown.
fn shown(position: i64, e: &NewEvent) -> Event {
    Event { event_id: event_id(position), event: NewEvent { family: None, key: None, ..e.clone() } }
}

impl DefinitionStore for MemPlaybook {
    fn definition(&self, kind: Kind, name: &str) -> Result<Option<Definition>, Problem> {
        Ok(self.rows("definition")?.definitions.get(&(kind, name.to_string())).cloned())
    }

    fn version(&self, kind: Kind, name: &str, version: u32) -> Result<Option<Version>, Problem> {
        Ok(self.rows("version")?.versions.get(&(kind, name.to_string(), version)).cloned())
    }

    fn put(&self, definition: &Definition) -> Result<(), Problem> {
        let key = (definition.kind, definition.name.clone());
        self.write("put")?.definitions.insert(key, definition.clone());
        Ok(())
    }

    fn put_version(&self, definition: &Definition, version: &Version) -> Result<(), Problem> {
        let mut rows = self.write("put_version")?;
        let key = (definition.kind, definition.name.clone(), version.version);
        if rows.versions.contains_key(&key) {
            return Err(Problem::internal("UNIQUE constraint failed: definition_versions"));
        }
        rows.versions.insert(key, version.clone());
        rows.uses.insert((definition.kind, definition.name.clone()), version.uses.clone());
        Ok(())
    }

    fn users(&self, target: &Ref) -> Result<Vec<Ref>, Problem> {
        let rows = self.rows("users")?;
        Ok(rows
            .uses
            .iter()
            .filter(|(_, uses)| uses.contains(target))
            .filter(|(key, _)| {
                rows.definitions.get(key).is_some_and(|d| !matches!(d.status, DefinitionStatus::Retired { .. }))
            })
            .map(|((kind, name), _)| Ref { kind: *kind, name: name.clone() })
            .collect())
    }

    fn page(&self, q: &DefinitionQuery, take: usize) -> Result<Vec<Definition>, Problem> {
        let after = q.after.clone().unwrap_or_default();
        let rows = self.rows("page")?;
        let mut found: Vec<Definition> = rows
            .definitions
            .values()
            .filter(|d| d.kind == q.kind && d.name > after)
            .filter(|d| q.include_retired || !matches!(d.status, DefinitionStatus::Retired { .. }))
            .cloned()
            .collect();
        found.sort_by(|a, b| a.name.cmp(&b.name));
        found.truncate(take);
        Ok(found)
    }
}

impl EventStore for MemPlaybook {
    fn append(&self, e: &NewEvent) -> Result<(Event, bool), Problem> {
        let mut rows = self.write("append")?;
        if e.key.is_some() {
            if let Some((at, kept)) = rows.events.iter().find(|(_, k)| k.key == e.key) {
                return Ok((shown(*at, kept), false));
            }
        }
        let at = rows.next(EVENTS);
        let kept = NewEvent { family: e.family.clone().or_else(|| e.run_id.clone()), ..e.clone() };
        rows.events.insert(at, kept.clone());
        Ok((shown(at, &kept), true))
    }

    fn at(&self, position: i64) -> Result<Option<Event>, Problem> {
        Ok(self.rows("at")?.events.get(&position).map(|e| shown(position, e)))
    }

    fn newest(&self, kind: &str, limit: usize) -> Result<Vec<Event>, Problem> {
        let rows = self.rows("newest")?;
        Ok(rows.events.iter().rev().filter(|(_, e)| e.kind == kind).take(limit).map(|(at, e)| shown(*at, e)).collect())
    }

    fn page(&self, q: &EventQuery, take: usize) -> Result<Vec<(i64, Event)>, Problem> {
        let rows = self.rows("page")?;
        let kind = |e: &NewEvent| q.kind.as_ref().is_none_or(|k| *k == e.kind);
        let found: Vec<(i64, Event)> = match &q.run_id {
            Some(run_id) => rows
                .events
                .range(q.after.unwrap_or(0) + 1..)
                .filter(|(_, e)| e.family.as_deref() == Some(run_id) && kind(e))
                .take(take)
                .map(|(at, e)| (*at, shown(*at, e)))
                .collect(),
            None => rows
                .events
                .range(..q.after.unwrap_or(i64::MAX))
                .rev()
                .filter(|(_, e)| kind(e))
                .take(take)
                .map(|(at, e)| (*at, shown(*at, e)))
                .collect(),
        };
        Ok(found)
    }
}

impl IndexStore for MemPlaybook {
    fn record(&self, entry: &RunEntry, whole: Option<&str>) -> Result<(), Problem> {
        let mut rows = self.write("record")?;
        match rows.runs.iter_mut().find(|(_, r)| r.run_id == entry.run_id) {
            Some((_, listed)) => {
                listed.status = entry.status.clone();
                listed.finished_at = entry.finished_at.clone();
            }
            None => {
                let at = rows.next(RUNS);
                rows.runs.insert(at, entry.clone());
            }
        }
        if let Some(text) = whole {
            rows.whole.insert(entry.run_id.clone(), text.to_string());
        }
        Ok(())
    }

    fn newest(&self, definition: &Ref, limit: usize) -> Result<Vec<Run>, Problem> {
        let rows = self.rows("newest")?;
        Ok(rows
            .runs
            .values()
            .rev()
            .filter(|r| r.definition == *definition && !r.rehearsal)
            .filter_map(|r| serde_json::from_str(rows.whole.get(&r.run_id)?).ok())
            .take(limit)
            .collect())
    }

    fn page(&self, q: &RunQuery, take: usize) -> Result<Vec<(i64, RunEntry)>, Problem> {
        let rows = self.rows("page")?;
        Ok(rows
            .runs
            .range(..q.before.unwrap_or(i64::MAX))
            .rev()
            .filter(|(_, r)| q.definition.as_ref().is_none_or(|d| *d == r.definition))
            .filter(|(_, r)| q.status.as_ref().is_none_or(|s| *s == r.status))
            .filter(|(_, r)| q.steps || r.within.is_none())
            .filter(|(_, r)| q.spans(&r.started_at))
            .filter(|(_, r)| q.rerun_of.is_none() || q.rerun_of == r.rerun_of)
            .filter(|(_, r)| q.rehearsal == r.rehearsal)
            .take(take)
            .map(|(at, r)| (*at, r.clone()))
            .collect())
    }
}

impl RequestStore for MemPlaybook {
    fn open(&self, request: &OpenRequest) -> Result<(), Problem> {
        let mut rows = self.write("open")?;
        if !rows.requests.values().any(|r| r.run_id == request.run_id) {
            let at = rows.next(REQUESTS);
            rows.requests.insert(at, request.clone());
        }
        Ok(())
    }

    fn close(&self, run_id: &str) -> Result<(), Problem> {
        self.write("close")?.requests.retain(|_, r| r.run_id != run_id);
        Ok(())
    }

    fn page(&self, before: Option<i64>, take: usize) -> Result<Vec<(i64, OpenRequest)>, Problem> {
        let rows = self.rows("page")?;
        Ok(rows.requests.range(..before.unwrap_or(i64::MAX)).rev().take(take).map(|(at, r)| (*at, r.clone())).collect())
    }
}
