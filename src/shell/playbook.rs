//! The Playbook Durable Object: one per playbook, the record of truth for it. Its org's directory
//! saves it; everyone else reads it.

use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::definitions::{self, Definitions};
use super::do_rpc::{
    self, PLAYBOOK_DEFINITIONS, PLAYBOOK_EVENTS, PLAYBOOK_GET, PLAYBOOK_REQUESTS, PLAYBOOK_RUNS, PLAYBOOK_SAVE,
};
use super::events::{self, Events};
use super::requests::{self, Requests};
use super::runs_index::{self, RunsIndex};
use crate::core::definition::store::DefinitionCommand;
use crate::core::directory::{unknown_playbook, Save};
use crate::core::event::EventCommand;
use crate::core::playbook::Playbook;
use crate::core::run::store::IndexCommand;
use crate::core::run::store::RequestCommand;
use crate::core::Problem;

#[durable_object]
pub struct PlaybookObject {
    sql: SqlStorage,
}

#[derive(Deserialize)]
struct Get {
    id: String,
}

impl DurableObject for PlaybookObject {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        // The record is one JSON row; later tables (definitions, runs) sit beside it.
        let schema = format!(
            "CREATE TABLE IF NOT EXISTS playbook (id TEXT PRIMARY KEY, record TEXT NOT NULL);{}{}{}{}",
            definitions::SCHEMA,
            runs_index::SCHEMA,
            events::SCHEMA,
            requests::SCHEMA
        );
        if let Err(e) = sql.exec(&schema, None) {
            worker::console_error!("playbook schema: {e}");
        }
        // These columns exist already in every playbook but the oldest: their refusal is expected.
        let _ = sql.exec(events::FAMILY[0], None);
        let _ = sql.exec(runs_index::WITHIN, None);
        if let Err(e) = sql.exec(events::FAMILY[1], None) {
            worker::console_error!("playbook schema: {e}");
        }
        PlaybookObject { sql }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
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
                        Ok(_) => do_rpc::reply(Events { sql: &self.sql }.run(a.command)),
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
                    Ok(a) => self.definitions(a),
                    Err(p) => do_rpc::reply::<()>(Err(p)),
                };
            }
            other => Err(Problem::internal(format!("no endpoint {other}"))),
        };
        do_rpc::reply(result)
    }
}

/// A definition command, with the id of the playbook it is for.
#[derive(Deserialize)]
struct Addressed {
    playbook: String,
    command: DefinitionCommand,
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

#[derive(Deserialize)]
struct Row {
    record: String,
}

impl PlaybookObject {
    fn definitions(&self, a: Addressed) -> worker::Result<Response> {
        let playbook = match self.load(&a.playbook) {
            Ok(p) => p,
            Err(p) => return do_rpc::reply::<()>(Err(p)),
        };
        let writable = if playbook.is_retired() {
            Err(Problem::conflict(format!(
                "The playbook {} is retired, and nothing in a retired playbook changes. Restore it with restore_playbook first.",
                crate::core::text::quote(&playbook.name)
            )))
        } else {
            Ok(())
        };
        let store = Definitions { sql: &self.sql };
        match a.command {
            DefinitionCommand::List(q) => do_rpc::reply(store.list(q)),
            command => do_rpc::reply(store.run(command, writable)),
        }
    }

    fn load(&self, id: &str) -> Result<Playbook, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec("SELECT record FROM playbook WHERE id = ?", vec![id.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let row = rows.into_iter().next().ok_or_else(|| unknown_playbook(id))?;
        serde_json::from_str(&row.record)
            .map_err(|e| Problem::internal(format!("a stored playbook could not be read: {e}")))
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

pub fn storage(e: worker::Error) -> Problem {
    worker::console_error!("storage: {e}");
    Problem::unavailable("Storage failed just now, so nothing was changed; try again.")
}
