//! A playbook's events in its Durable Object: appended by its runs and by publish_event, read
//! newest first a page at a time, or one run's oldest first.

use serde::Deserialize;
use serde_json::Value;
use worker::SqlStorage;

use super::playbook::storage;
use crate::core::event::{
    encode_cursor, event_id, position, Event, EventCommand, EventPage, EventQuery, NewEvent, LIST_LIMIT_MAX,
};
use crate::core::migration::Step;
use crate::core::page::split;
use crate::core::Problem;

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, at TEXT NOT NULL,
  run_id TEXT, summary TEXT NOT NULL, data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_of_run ON events (run_id, position);
";

/// Added after the first release: the run whose history an event belongs to, with the runs its
/// steps started, read through its index.
pub const FAMILY: Step = Step::AddColumn { table: "events", column: "family", declared: "TEXT" };
pub const FAMILY_INDEX: Step = Step::Sql("CREATE INDEX IF NOT EXISTS events_of_family ON events (family, position)");

/// Added after the first release: the key that keeps an event handed over twice from being kept
/// twice, which its unique index enforces.
pub const KEY: Step = Step::AddColumn { table: "events", column: "key", declared: "TEXT" };
pub const KEY_INDEX: Step = Step::Sql("CREATE UNIQUE INDEX IF NOT EXISTS events_by_key ON events (key)");

#[derive(Deserialize)]
struct Row {
    position: i64,
    kind: String,
    at: String,
    run_id: Option<String>,
    summary: String,
    data: String,
}

impl Row {
    fn event(self) -> Event {
        Event {
            event_id: event_id(self.position),
            event: NewEvent {
                kind: self.kind,
                at: self.at,
                summary: self.summary,
                run_id: self.run_id,
                data: serde_json::from_str(&self.data).unwrap_or(Value::Null),
                family: None,
                key: None,
            },
        }
    }
}

pub struct Events<'s> {
    pub sql: &'s SqlStorage,
}

impl Events<'_> {
    /// Appends, lists or reads; an append answers the events as numbered.
    pub fn run(&self, command: EventCommand) -> Result<Value, Problem> {
        match command {
            EventCommand::Append { events, .. } => {
                let kept: Vec<Event> = self.append_all(events)?.into_iter().map(|(e, _)| e).collect();
                Ok(serde_json::to_value(kept).unwrap_or_default())
            }
            EventCommand::List(q) => Ok(serde_json::to_value(self.list(q)?).unwrap_or_default()),
            // The playbook's object keeps who waits; see `triggers`.
            EventCommand::Await { .. } => Ok(Value::Null),
            EventCommand::Read { kind, limit } => {
                let rows: Vec<Row> = self
                    .sql
                    .exec(
                        "SELECT * FROM events WHERE kind = ? ORDER BY position DESC LIMIT ?",
                        vec![kind.into(), (limit as i64).into()],
                    )
                    .and_then(|c| c.to_array())
                    .map_err(storage)?;
                let events: Vec<Event> = rows.into_iter().map(Row::event).collect();
                Ok(serde_json::to_value(events).unwrap_or_default())
            }
            EventCommand::Get { event_id } => {
                let event = self.get(&event_id)?;
                Ok(serde_json::to_value(event).unwrap_or_default())
            }
        }
    }

    /// Keeps each event, numbered in order, and says which are new: one with a key kept before is
    /// answered as it was kept.
    pub fn append_all(&self, events: Vec<NewEvent>) -> Result<Vec<(Event, bool)>, Problem> {
        events.into_iter().map(|e| self.append(e)).collect()
    }

    fn append(&self, e: NewEvent) -> Result<(Event, bool), Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec(
                "INSERT INTO events (kind, at, run_id, family, key, summary, data) VALUES (?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT(key) DO NOTHING RETURNING *",
                vec![
                    e.kind.clone().into(),
                    e.at.clone().into(),
                    e.run_id.clone().into(),
                    e.family.clone().or_else(|| e.run_id.clone()).into(),
                    e.key.clone().into(),
                    e.summary.clone().into(),
                    e.data.to_string().into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        if let Some(row) = rows.into_iter().next() {
            return Ok((row.event(), true));
        }
        let kept: Vec<Row> = self
            .sql
            .exec("SELECT * FROM events WHERE key = ?", vec![e.key.clone().into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        kept.into_iter().next().map(|r| (r.event(), false)).ok_or_else(|| Problem::internal("an event was not kept"))
    }

    fn get(&self, id: &str) -> Result<Event, Problem> {
        let unknown = || {
            Problem::not_found(format!("This playbook has no event {id}. list_playbook_events lists its events."))
                .with_field("/event_id", "names no event of this playbook")
        };
        let at = position(id).ok_or_else(unknown)?;
        let rows: Vec<Row> = self
            .sql
            .exec("SELECT * FROM events WHERE position = ?", vec![at.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        rows.into_iter().next().map(Row::event).ok_or_else(unknown)
    }

    fn list(&self, q: EventQuery) -> Result<EventPage, Problem> {
        let limit = q.limit.clamp(1, LIST_LIMIT_MAX);
        let kind = q.kind.clone().unwrap_or_default();
        let rows: Vec<Row> = match &q.run_id {
            // One run's history reads as it happened, with the runs its steps started.
            Some(run_id) => self.sql.exec(
                "SELECT * FROM events WHERE (family = ? OR (family IS NULL AND run_id = ?)) AND position > ? AND (? = '' OR kind = ?) ORDER BY position LIMIT ?",
                vec![
                    run_id.clone().into(),
                    run_id.clone().into(),
                    q.after.unwrap_or(0).into(),
                    kind.clone().into(),
                    kind.into(),
                    ((limit + 1) as i64).into(),
                ],
            ),
            None => self.sql.exec(
                "SELECT * FROM events WHERE position < ? AND (? = '' OR kind = ?) ORDER BY position DESC LIMIT ?",
                vec![
                    q.after.unwrap_or(i64::MAX).into(),
                    kind.clone().into(),
                    kind.into(),
                    ((limit + 1) as i64).into(),
                ],
            ),
        }
        .and_then(|c| c.to_array())
        .map_err(storage)?;
        let (rows, next_cursor) = split(rows, limit, |r| encode_cursor(r.position));
        let events = rows.into_iter().map(|r| r.event().listed()).collect();
        Ok(EventPage { events, next_cursor })
    }
}
