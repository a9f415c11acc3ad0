//! A playbook's tables, as the platform-free code its Durable Object runs: definitions saved and
//! changed (and a workflow's triggers with them), events appended (owing the runs their triggers
//! start), the index of runs and the open requests, each read a page at a time. The object reads
//! a request, calls one of these with its stores, and answers; host tests call them over stores
//! in memory.

mod definitions;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
mod store;

use chrono::{DateTime, Utc};

pub use store::{DefinitionStore, EventStore, IndexStore, RequestStore};

use super::triggers::{self, TriggerStore};
use crate::core::definition::store::{
    DefinitionPage, DefinitionQuery, DefinitionView, LIST_LIMIT_MAX as DEFINITIONS_MAX,
};
use crate::core::definition::{Kind, Ref};
use crate::core::directory::retired_playbook;
use crate::core::event::{self, position, Event, EventCommand, EventPage, EventQuery, NewEvent};
use crate::core::page::split;
use crate::core::playbook::Playbook;
use crate::core::run::store::{self as runs, IndexCommand, RequestCommand, RequestPage, RunEntry, RunPage, RunQuery};
use crate::core::run::Run;
use crate::core::Problem;

/// The largest run the index keeps whole for lookups to read; a larger one is read from its
/// run's object. (A lookup reads up to 100 runs, and a Durable Object answer stays well under
/// its 32 MiB limit at 64 KiB each.)
const RECORD_MAX_BYTES: usize = 65_536;

/// The stores of one playbook.
pub struct Tables<'a> {
    pub definitions: &'a dyn DefinitionStore,
    pub events: &'a dyn EventStore,
    pub index: &'a dyn IndexStore,
    pub requests: &'a dyn RequestStore,
    pub triggers: &'a dyn TriggerStore,
}

/// Keyset pagination: the rows of one page, and the cursor of the next when there is a row more.
fn page<T>(rows: Vec<(i64, T)>, limit: usize, cursor: fn(i64) -> String) -> (Vec<T>, Option<String>) {
    let (rows, next) = split(rows, limit, |(position, _)| cursor(*position));
    (rows.into_iter().map(|(_, row)| row).collect(), next)
}

impl Tables<'_> {
    /// Keeps a save or a change of a definition, which a retired playbook refuses; a workflow's
    /// change changes its triggers. Answers whether the triggers changed, for the alarm.
    pub fn write_definition(
        &self,
        playbook: &Playbook,
        org: &str,
        command: crate::core::definition::store::DefinitionCommand,
        now: DateTime<Utc>,
    ) -> Result<(DefinitionView, bool), Problem> {
        if playbook.is_retired() {
            return Err(retired_playbook(&playbook.name));
        }
        let checked = matches!(command, crate::core::definition::store::DefinitionCommand::Check(_));
        let view = definitions::write(self.definitions, command)?;
        let rearmed = view.definition.kind == Kind::Workflow && view.changed && !checked;
        if rearmed {
            triggers::sync(self.triggers, org, &view, now)?;
        }
        Ok((view, rearmed))
    }

    /// A definition as it stands, or as it stood at `version`.
    pub fn get_definition(&self, definition: &Ref, version: Option<u32>) -> Result<DefinitionView, Problem> {
        match version {
            None => definitions::view(self.definitions, definition.kind, &definition.name, false),
            Some(n) => definitions::at_version(self.definitions, definition.kind, &definition.name, n),
        }
    }

    /// The workflows a run-mode endpoint offers as tools.
    pub fn offered_tools(&self) -> Result<Vec<crate::core::definition::workflow_tool::Offered>, Problem> {
        definitions::offered(self.definitions)
    }

    pub fn list_definitions(&self, query: DefinitionQuery) -> Result<DefinitionPage, Problem> {
        let limit = query.limit.clamp(1, DEFINITIONS_MAX);
        let rows = self.definitions.page(&query, limit + 1)?;
        let (definitions, next_cursor) = split(rows, limit, |d| d.name.clone());
        Ok(DefinitionPage { definitions, next_cursor })
    }

    /// Appends events, or keeps a run's wait for them. Events kept now (not one handed over
    /// again) owe runs to the triggers they match and reach the runs that wait; the answer says
    /// whether any is owed.
    pub fn write_events(&self, command: EventCommand) -> Result<(Vec<Event>, bool), Problem> {
        let (events, runs) = match command {
            EventCommand::Append { events, run, steps } => (events, steps.into_iter().map(Box::new).chain(run)),
            EventCommand::Await { org, run_id, kind } => {
                triggers::wait(self.triggers, &org, &run_id, &kind)?;
                return Ok((Vec::new(), false));
            }
        };
        for run in runs {
            self.write_index(IndexCommand::Record(run))?;
        }
        let appended = self.events.append_all(&events)?;
        let mut kept = Vec::with_capacity(events.len());
        let mut fresh: Vec<(i64, NewEvent)> = Vec::new();
        for (e, (event, new)) in events.into_iter().zip(appended) {
            // A rehearsal's events are kept with its run, and reach no trigger and no other run.
            if new && !rehearsed(&e) {
                fresh.extend(position(&event.event_id).map(|at| (at, e)));
            }
            kept.push(event);
        }
        let owed = triggers::take_events(self.triggers, &fresh)?;
        Ok((kept, owed))
    }

    pub fn list_events(&self, query: EventQuery) -> Result<EventPage, Problem> {
        let limit = query.limit.clamp(1, event::LIST_LIMIT_MAX);
        let rows = self.events.page(&query, limit + 1)?;
        let (events, next_cursor) = page(rows, limit, event::encode_cursor);
        let events = events.into_iter().map(Event::listed).collect::<Result<_, _>>()?;
        Ok(EventPage { events, next_cursor })
    }

    pub fn get_event(&self, id: &str) -> Result<Event, Problem> {
        let unknown = || {
            Problem::not_found(format!("This playbook has no event {id}. list_playbook_events lists its events."))
                .with_field("/event_id", "names no event of this playbook")
        };
        let at = position(id).ok_or_else(unknown)?;
        self.events.at(at)?.ok_or_else(unknown)
    }

    pub fn read_events(&self, kind: &str, limit: usize) -> Result<Vec<Event>, Problem> {
        self.events.newest(kind, limit)
    }

    /// Records how a run stands, whole for lookups when it is small enough to read back.
    pub fn write_index(&self, command: IndexCommand) -> Result<(), Problem> {
        let IndexCommand::Record(run) = command;
        let whole =
            serde_json::to_string(&run).map_err(|e| Problem::internal(format!("could not encode a run: {e}")))?;
        self.index.record(&RunEntry::of(&run), (whole.len() <= RECORD_MAX_BYTES).then_some(whole.as_str()))
    }

    pub fn list_runs(&self, query: RunQuery) -> Result<RunPage, Problem> {
        let limit = query.limit.clamp(1, runs::LIST_LIMIT_MAX);
        let rows = self.index.page(&query, limit + 1)?;
        let (runs, next_cursor) = page(rows, limit, runs::encode_cursor);
        Ok(RunPage { runs, next_cursor })
    }

    pub fn read_runs(&self, definition: &Ref, limit: usize) -> Result<Vec<Run>, Problem> {
        self.index.newest(definition, limit)
    }

    pub fn write_requests(&self, command: RequestCommand) -> Result<(), Problem> {
        match command {
            RequestCommand::Open(request) => self.requests.open(&request),
            RequestCommand::Close { run_id } => self.requests.close(&run_id),
        }
    }

    pub fn list_requests(&self, limit: usize, before: Option<i64>) -> Result<RequestPage, Problem> {
        let limit = limit.clamp(1, runs::LIST_LIMIT_MAX);
        let rows = self.requests.page(before, limit + 1)?;
        let (requests, next_cursor) = page(rows, limit, runs::encode_cursor);
        Ok(RequestPage { requests, next_cursor })
    }
}

/// Whether an event is a rehearsal's: one its run recorded, marked so (`run::store::event`).
fn rehearsed(e: &NewEvent) -> bool {
    e.run_id.is_some() && e.data.get("rehearsal") == Some(&serde_json::Value::Bool(true))
}
