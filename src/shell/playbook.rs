//! The Playbook Durable Object: one per playbook, the record of truth for it. Its org's directory
//! saves it; everyone else reads it.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::backend::Objects;
use super::definitions::{self, Definitions};
use super::do_rpc::{
    self, PLAYBOOK_DEFINITIONS, PLAYBOOK_EVENTS, PLAYBOOK_GET, PLAYBOOK_REQUESTS, PLAYBOOK_RUNS, PLAYBOOK_SAVE,
};
use super::events::{self, Events};
use super::migrate;
use super::requests::{self, Requests};
use super::runs_index::{self, RunsIndex};
use super::triggers::{self, start_due, Due, Triggers};
use crate::core::definition::store::{DefinitionCommand, DefinitionPage, DefinitionView};
use crate::core::definition::Kind;
use crate::core::directory::{unknown_playbook, Save};
use crate::core::event::EventCommand;
use crate::core::event::{position, Event, NewEvent};
use crate::core::migration::Step;
use crate::core::playbook::Playbook;
use crate::core::run::store::IndexCommand;
use crate::core::run::store::RequestCommand;
use crate::core::Problem;
use crate::ops::Backend;
use serde_json::Value;

/// How long the alarm waits before it tries again to start what a trigger owes, after a failure.
const RETRY_MILLIS: i64 = 10_000;

/// The playbook's tables, one step at a time: append only, since a step's place is its version.
/// The record is one JSON row; the tables of its definitions, runs, events, open requests and
/// triggers sit beside it, and the steps after the first six add what later releases needed.
const STEPS: &[Step] = &[
    Step::Sql("CREATE TABLE IF NOT EXISTS playbook (id TEXT PRIMARY KEY, record TEXT NOT NULL);"),
    Step::Sql(definitions::SCHEMA),
    Step::Sql(runs_index::SCHEMA),
    Step::Sql(events::SCHEMA),
    Step::Sql(requests::SCHEMA),
    Step::Sql(triggers::SCHEMA),
    events::FAMILY,
    events::FAMILY_INDEX,
    events::KEY,
    events::KEY_INDEX,
    runs_index::WITHIN,
];

#[durable_object]
pub struct PlaybookObject {
    state: State,
    sql: SqlStorage,
    env: Env,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    tables: Result<(), Problem>,
}

#[derive(Deserialize)]
struct Get {
    id: String,
}

impl DurableObject for PlaybookObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let tables = migrate::ready(&sql, "playbook", STEPS);
        PlaybookObject { state, sql, env, tables }
    }

    /// Starts the runs the workflows' triggers owe, then sets the alarm to the next due.
    async fn alarm(&self) -> worker::Result<Response> {
        let retry = match self.fire().await {
            Ok(()) => 0,
            Err(p) => {
                worker::console_error!("playbook alarm: {}", p.detail);
                RETRY_MILLIS
            }
        };
        if let Err(p) = self.schedule(retry).await {
            worker::console_error!("playbook alarm: {}", p.detail);
        }
        Response::empty()
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        if let Err(p) = &self.tables {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        let path = req.path();
        let result = match path.as_str() {
            PLAYBOOK_GET => match do_rpc::read_body::<Get>(&mut req).await {
                Ok(g) => self.load(&g.id),
                Err(p) => Err(p),
            },
            PLAYBOOK_SAVE => match do_rpc::read_body::<Save>(&mut req).await {
                Ok(save) => self.save(save),
                Err(p) => Err(p),
            },
            PLAYBOOK_EVENTS => {
                return match do_rpc::read_body::<AddressedEvents>(&mut req).await {
                    Ok(a) => match self.load(&a.playbook) {
                        Ok(_) => {
                            let result = self.events(a.command);
                            if matches!(result, Ok((_, true))) {
                                if let Err(p) = self.schedule(0).await {
                                    worker::console_error!("playbook alarm: {}", p.detail);
                                }
                            }
                            do_rpc::reply(result.map(|(answer, _)| answer))
                        }
                        Err(p) => do_rpc::reply::<()>(Err(p)),
                    },
                    Err(p) => do_rpc::reply::<()>(Err(p)),
                };
            }
            PLAYBOOK_REQUESTS => {
                return match do_rpc::read_body::<AddressedRequests>(&mut req).await {
                    Ok(a) => match self.load(&a.playbook) {
                        Ok(_) => do_rpc::reply(Requests { sql: &self.sql }.run(a.command)),
                        Err(p) => do_rpc::reply::<()>(Err(p)),
                    },
                    Err(p) => do_rpc::reply::<()>(Err(p)),
                };
            }
            PLAYBOOK_RUNS => {
                return match do_rpc::read_body::<AddressedRuns>(&mut req).await {
                    Ok(a) => match self.load(&a.playbook) {
                        Ok(_) => do_rpc::reply(RunsIndex { sql: &self.sql }.run(a.command)),
                        Err(p) => do_rpc::reply::<()>(Err(p)),
                    },
                    Err(p) => do_rpc::reply::<()>(Err(p)),
                };
            }
            PLAYBOOK_DEFINITIONS => {
                return match do_rpc::read_body::<Addressed>(&mut req).await {
                    Ok(a) => {
                        let result = self.definitions(a);
                        if matches!(&result, Ok(v) if v.definition.kind == Kind::Workflow && v.changed) {
                            if let Err(p) = self.schedule(0).await {
                                worker::console_error!("playbook alarm: {}", p.detail);
                            }
                        }
                        match result {
                            Ok(view) => do_rpc::reply(Ok(view)),
                            Err(Answer::Page(page)) => do_rpc::reply(Ok(page)),
                            Err(Answer::Refused(p)) => do_rpc::reply::<()>(Err(p)),
                        }
                    }
                    Err(p) => do_rpc::reply::<()>(Err(p)),
                };
            }
            other => Err(Problem::internal(format!("no endpoint {other}"))),
        };
        do_rpc::reply(result)
    }
}

/// A definition command, with the id of the playbook it is for, and its org, which the runs its
/// workflows' triggers start belong to.
#[derive(Deserialize)]
struct Addressed {
    playbook: String,
    #[serde(default)]
    org: String,
    command: DefinitionCommand,
}

/// What a definition command answers other than one definition.
enum Answer {
    Page(DefinitionPage),
    Refused(Problem),
}

/// A command of the playbook's events, with the id of the playbook it is for.
#[derive(Deserialize)]
struct AddressedEvents {
    playbook: String,
    command: EventCommand,
}

/// A command of the open requests, with the id of the playbook it is for.
#[derive(Deserialize)]
struct AddressedRequests {
    playbook: String,
    command: RequestCommand,
}

/// A command of the runs index, with the id of the playbook it is for.
#[derive(Deserialize)]
struct AddressedRuns {
    playbook: String,
    command: IndexCommand,
}

impl PlaybookObject {
    fn definitions(&self, a: Addressed) -> Result<DefinitionView, Answer> {
        let playbook = self.load(&a.playbook).map_err(Answer::Refused)?;
        let writable = if playbook.is_retired() {
            Err(Problem::conflict(format!(
                "The playbook {} is retired, and nothing in a retired playbook changes. Restore it with restore_playbook first.",
                crate::core::text::quote(&playbook.name)
            )))
        } else {
            Ok(())
        };
        let store = Definitions { sql: &self.sql };
        let view = match a.command {
            DefinitionCommand::List(q) => return Err(store.list(q).map_or_else(Answer::Refused, Answer::Page)),
            command => store.run(command, writable).map_err(Answer::Refused)?,
        };
        if view.definition.kind == Kind::Workflow && view.changed {
            let triggers = Triggers { sql: &self.sql };
            triggers.sync(&a.org, &view, super::env::instant()).map_err(Answer::Refused)?;
        }
        Ok(view)
    }

    /// Appends, lists or reads events; events kept owe runs to the triggers they match, and the
    /// answer says whether they do.
    fn events(&self, command: EventCommand) -> Result<(Value, bool), Problem> {
        let (events, run) = match command {
            EventCommand::Append { events, run } => (events, run),
            EventCommand::Await { org, run_id, kind } => {
                Triggers { sql: &self.sql }.wait(&org, &run_id, &kind)?;
                return Ok((Value::Null, false));
            }
            other => return Ok((Events { sql: &self.sql }.run(other)?, false)),
        };
        if let Some(run) = run {
            RunsIndex { sql: &self.sql }.run(IndexCommand::Record(run))?;
        }
        let kept = Events { sql: &self.sql }.append_all(events.clone())?;
        // Only events kept now start triggers and reach waiting runs; one handed over again does not.
        let fresh: Vec<(i64, NewEvent)> = kept
            .iter()
            .zip(events)
            .filter(|((_, new), _)| *new)
            .filter_map(|((k, _), e)| Some((position(&k.event_id)?, e)))
            .collect();
        let triggers = Triggers { sql: &self.sql };
        let started = triggers.take_events(&fresh)?;
        let delivered = triggers.take_waits(&fresh.into_iter().map(|(_, e)| e).collect::<Vec<_>>())?;
        let answer: Vec<Event> = kept.into_iter().map(|(e, _)| e).collect();
        Ok((serde_json::to_value(answer).unwrap_or_default(), started || delivered))
    }

    /// Starts what the triggers owe now: the time triggers due, then the runs events owe.
    async fn fire(&self) -> Result<(), Problem> {
        let Some(playbook) = self.kept()? else { return Ok(()) };
        let backend = Objects { env: &self.env };
        let models = super::models::settings(&self.env);
        let triggers = Triggers { sql: &self.sql };
        triggers.take_due(super::env::instant())?;
        for owed in triggers.owed()? {
            let seq = owed.seq;
            start_due(&backend, &models, &playbook.id, Due::of(owed)).await?;
            triggers.paid(seq)?;
        }
        for d in triggers.deliveries()? {
            let data = serde_json::from_str(&d.data).unwrap_or(Value::Null);
            match backend.send_run_event(&d.org, &playbook.id, &d.run_id, &d.kind, data).await {
                Ok(_) => triggers.delivered(&d, false)?,
                Err(p) if p.status() < 500 => triggers.delivered(&d, true)?,
                Err(p) => return Err(p),
            }
        }
        Ok(())
    }

    /// Sets the alarm to the soonest trigger, and no sooner than `delay` milliseconds from now.
    async fn schedule(&self, delay: i64) -> Result<(), Problem> {
        let now = super::env::instant();
        let Some(at) = (Triggers { sql: &self.sql }).soonest(now)? else { return Ok(()) };
        let at = chrono::DateTime::from_timestamp_millis(at.max(now.timestamp_millis() + delay)).unwrap_or(now);
        self.state.storage().set_alarm(at).await.map_err(|e| Problem::internal(format!("the playbook's alarm: {e}")))
    }

    fn load(&self, id: &str) -> Result<Playbook, Problem> {
        self.kept()?.filter(|p| p.id == id).ok_or_else(|| unknown_playbook(id))
    }

    /// The playbook this object keeps, if it was saved: one object holds one playbook.
    fn kept(&self) -> Result<Option<Playbook>, Problem> {
        kept_record(&self.sql, "playbook", "playbook")
    }

    fn save(&self, save: Save) -> Result<Playbook, Problem> {
        let stored = self.load(&save.record.id).ok();
        let mut record = save.record;
        if save.keep_page {
            record.page = stored.as_ref().map(|p| p.page.clone()).unwrap_or_default();
        }
        let record = Playbook::settle(stored, record);
        let text = serde_json::to_string(&record).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO playbook (id, record) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
                vec![record.id.clone().into(), text.into()],
            )
            .map_err(storage)?;
        Ok(record)
    }
}

/// The one record an object keeps as JSON in the `record` column of `table`, if it was saved:
/// a playbook's object holds one playbook, a run's object one run.
pub fn kept_record<T: DeserializeOwned>(sql: &SqlStorage, table: &str, noun: &str) -> Result<Option<T>, Problem> {
    #[derive(Deserialize)]
    struct Kept {
        record: String,
    }
    let rows: Vec<Kept> =
        sql.exec(&format!("SELECT record FROM {table} LIMIT 1"), None).and_then(|c| c.to_array()).map_err(storage)?;
    rows.first()
        .map(|row| serde_json::from_str(&row.record))
        .transpose()
        .map_err(|e| Problem::internal(format!("a stored {noun} could not be read: {e}")))
}

pub fn storage(e: worker::Error) -> Problem {
    worker::console_error!("storage: {e}");
    Problem::unavailable("Storage failed just now, so nothing was changed; try again.")
}
