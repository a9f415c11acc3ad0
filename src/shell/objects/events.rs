//! A playbook's events in its Durable Object's SQLite: appended by its runs and by publish_event,
//! read newest first a page at a time, or one run's family oldest first.

use serde::Deserialize;
use serde_json::Value;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::event::{event_id, Event, EventQuery, NewEvent};
use crate::core::migration::Step;
use crate::core::Problem;
use crate::ops::playbook::EventStore;

/// Declares the columns added since (`FAMILY`, `KEY`), so a new object needs no `ALTER TABLE`.
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, at TEXT NOT NULL,
  run_id TEXT, summary TEXT NOT NULL, data TEXT NOT NULL, family TEXT, key TEXT
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
/// Added later: a run's history reads the events kept before families by their run, and only
/// those. Without it that half walked every event of the run, families or not, before the page's
/// first row, so a page cost more the longer the history.
pub const BEFORE_FAMILIES_INDEX: Step =
    Step::Sql("CREATE INDEX IF NOT EXISTS events_before_families ON events (run_id, position) WHERE family IS NULL");

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

/// The most a position is bound as: a JavaScript number holds integers exactly up to 2^53.
const LAST: i64 = (1 << 53) - 1;

impl Events<'_> {
    fn rows(&self, query: &str, bindings: Vec<worker::SqlStorageValue>) -> Result<Vec<Row>, Problem> {
        self.sql.exec(query, bindings).and_then(|c| c.to_array()).map_err(storage)
    }
}

/// The most events one statement appends: a Durable Object's SQL binds at most 100 values, and
/// each event binds seven.
const APPEND_ROWS: usize = 14;

#[derive(Deserialize)]
struct Placed {
    position: i64,
    key: Option<String>,
}

impl Events<'_> {
    /// One statement's appends: the events it kept new, each from what was sent and its
    /// position, and those whose key was kept before as they were kept.
    fn append_some(&self, events: &[NewEvent]) -> Result<Vec<(Event, bool)>, Problem> {
        let mut bindings = Vec::with_capacity(events.len() * 7);
        for e in events {
            bindings.extend([
                e.kind.clone().into(),
                e.at.clone().into(),
                e.run_id.clone().into(),
                e.family.clone().or_else(|| e.run_id.clone()).into(),
                e.key.clone().into(),
                e.summary.clone().into(),
                e.data.to_string().into(),
            ]);
        }
        let places = vec!["(?, ?, ?, ?, ?, ?, ?)"; events.len()].join(", ");
        let placed: Vec<Placed> = self
            .sql
            .exec(
                &format!(
                    "INSERT INTO events (kind, at, run_id, family, key, summary, data) VALUES {places}
                     ON CONFLICT(key) DO NOTHING RETURNING position, key"
                ),
                bindings,
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        // RETURNING gives its rows in no promised order: a keyed event is found by its key, and
        // the events without one took their positions in the order they were written.
        let mut unkeyed: Vec<i64> = placed.iter().filter(|p| p.key.is_none()).map(|p| p.position).collect();
        unkeyed.sort_unstable();
        let mut unkeyed = unkeyed.into_iter();
        let mut out = Vec::with_capacity(events.len());
        for (i, e) in events.iter().enumerate() {
            let position = match &e.key {
                None => unkeyed.next(),
                // A key given twice in one statement is kept once, for its first event.
                Some(key) if events[..i].iter().all(|earlier| earlier.key.as_ref() != Some(key)) => {
                    placed.iter().find(|p| p.key.as_ref() == Some(key)).map(|p| p.position)
                }
                Some(_) => None,
            };
            out.push(match position {
                Some(position) => (sent(position, e), true),
                None => (self.kept(e)?, false),
            });
        }
        Ok(out)
    }

    /// The event kept before under `e`'s key.
    fn kept(&self, e: &NewEvent) -> Result<Event, Problem> {
        let kept = self.rows("SELECT * FROM events WHERE key = ?", vec![e.key.clone().into()])?;
        kept.into_iter().next().map(Row::event).ok_or_else(|| Problem::internal("an event was not kept"))
    }
}

/// An event as it was sent, kept at `position`: what reading its row back would give.
fn sent(position: i64, e: &NewEvent) -> Event {
    Event { event_id: event_id(position), event: NewEvent { family: None, key: None, ..e.clone() } }
}

impl EventStore for Events<'_> {
    fn newest(&self, kind: &str, limit: usize) -> Result<Vec<Event>, Problem> {
        let rows = self.rows(
            "SELECT * FROM events WHERE kind = ? ORDER BY position DESC LIMIT ?",
            vec![kind.into(), (limit as i64).into()],
        )?;
        Ok(rows.into_iter().map(Row::event).collect())
    }

    fn append(&self, e: &NewEvent) -> Result<(Event, bool), Problem> {
        self.append_some(std::slice::from_ref(e))?.pop().ok_or_else(|| Problem::internal("an event was not kept"))
    }

    fn append_all(&self, events: &[NewEvent]) -> Result<Vec<(Event, bool)>, Problem> {
        let mut out = Vec::with_capacity(events.len());
        for some in events.chunks(APPEND_ROWS) {
            out.extend(self.append_some(some)?);
        }
        Ok(out)
    }

    fn at(&self, position: i64) -> Result<Option<Event>, Problem> {
        Ok(self
            .rows("SELECT * FROM events WHERE position = ?", vec![position.into()])?
            .into_iter()
            .next()
            .map(Row::event))
    }

    fn page(&self, q: &EventQuery, take: usize) -> Result<Vec<(i64, Event)>, Problem> {
        let kind = q.kind.clone().unwrap_or_default();
        let rows = match &q.run_id {
            // One run's history reads as it happened, with the runs its steps started. Each half
            // walks its own index in order (events_of_family, events_before_families) and SQLite
            // merges them, reading one page's rows: as one `OR` it gathered the run's whole
            // history and sorted it, so a page cost more the longer the history (scripts/bench's
            // growth rows showed it).
            Some(run_id) => {
                let after = q.after.unwrap_or(0);
                self.rows(
                    "SELECT * FROM events WHERE family = ? AND position > ? AND (? = '' OR kind = ?) \
                     UNION ALL \
                     SELECT * FROM events WHERE family IS NULL AND run_id = ? AND position > ? AND (? = '' OR kind = ?) \
                     ORDER BY position LIMIT ?",
                    vec![
                        run_id.clone().into(),
                        after.into(),
                        kind.clone().into(),
                        kind.clone().into(),
                        run_id.clone().into(),
                        after.into(),
                        kind.clone().into(),
                        kind.into(),
                        (take as i64).into(),
                    ],
                )?
            }
            None => self.rows(
                "SELECT * FROM events WHERE position < ? AND (? = '' OR kind = ?) ORDER BY position DESC LIMIT ?",
                vec![q.after.unwrap_or(LAST).into(), kind.clone().into(), kind.into(), (take as i64).into()],
            )?,
        };
        Ok(rows.into_iter().map(|r| (r.position, r.event())).collect())
    }
}
