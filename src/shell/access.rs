//! The Access Durable Object: one for the runtime, keeping every org's API keys by digest. A key
//! names no org, so the one object that can find any key by its digest is the runtime's own; it
//! is asked only when an isolate has not seen a key in the last few seconds.

use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::do_rpc;
use super::playbook::storage;
use crate::core::access::key::{same_digest, KeyCommand, KeyRecord};
use crate::core::Problem;
use serde_json::{json, Value};

/// The name of the one object.
pub const NAME: &str = "access";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS keys (
  digest TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, org TEXT NOT NULL, name TEXT NOT NULL,
  record TEXT NOT NULL, revoked_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS keys_live_name ON keys (org, name) WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS keys_org ON keys (org, revoked_at);
";

#[durable_object]
pub struct AccessObject {
    sql: SqlStorage,
}

#[derive(Deserialize)]
struct Row {
    record: String,
}

impl DurableObject for AccessObject {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(e) = sql.exec(SCHEMA, None) {
            worker::console_error!("access schema: {e}");
        }
        AccessObject { sql }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let result = match do_rpc::read_body::<KeyCommand>(&mut req).await {
            Ok(command) => self.keys(command),
            Err(p) => Err(p),
        };
        do_rpc::reply(result)
    }
}

impl AccessObject {
    fn keys(&self, command: KeyCommand) -> Result<Value, Problem> {
        match command {
            KeyCommand::Make { record } => {
                if self
                    .one(
                        "SELECT record FROM keys WHERE org = ? AND name = ? AND revoked_at IS NULL",
                        &[&record.org, &record.name],
                    )?
                    .is_some()
                {
                    return Err(Problem::conflict(format!(
                        "A live key of the org {} is already named {}; revoke it first, or give this one another name.",
                        record.org, record.name
                    )));
                }
                self.sql
                    .exec(
                        "INSERT INTO keys (digest, id, org, name, record) VALUES (?, ?, ?, ?, ?)",
                        vec![
                            record.digest.clone().into(),
                            record.id.clone().into(),
                            record.org.clone().into(),
                            record.name.clone().into(),
                            encode(&record)?.into(),
                        ],
                    )
                    .map_err(storage)?;
                Ok(json!({ "key": record.view() }))
            }
            KeyCommand::List { org } => {
                let rows: Vec<Row> = self
                    .sql
                    .exec(
                        "SELECT record FROM keys WHERE org = ? AND revoked_at IS NULL ORDER BY rowid DESC",
                        vec![org.into()],
                    )
                    .and_then(|c| c.to_array())
                    .map_err(storage)?;
                let keys: Vec<Value> = rows.iter().filter_map(|r| decode(&r.record)).map(|k| k.view()).collect();
                Ok(json!({ "keys": keys }))
            }
            KeyCommand::Revoke { org, id, now } => {
                let Some(mut record) = self.one("SELECT record FROM keys WHERE org = ? AND id = ?", &[&org, &id])?
                else {
                    return Err(Problem::not_found(format!(
                        "The org {org} has no key {id}; list_keys gives the id of each live key."
                    )));
                };
                if record.revoked_at.is_none() {
                    record.revoked_at = Some(now.clone());
                    self.sql
                        .exec(
                            "UPDATE keys SET revoked_at = ?, record = ? WHERE id = ?",
                            vec![now.into(), encode(&record)?.into(), id.into()],
                        )
                        .map_err(storage)?;
                }
                Ok(json!({ "key": record.view() }))
            }
            KeyCommand::Verify { digest, now } => {
                let Some(mut record) = self.one("SELECT record FROM keys WHERE digest = ?", &[&digest])? else {
                    return Ok(Value::Null);
                };
                if !same_digest(&record.digest, &digest) || record.caller(&now).is_none() {
                    return Ok(Value::Null);
                }
                if record.touch_due(&now) {
                    // To the minute: a key's use is not a write on every request.
                    record.last_used_at = Some(format!("{}:00.000Z", now.get(..16).unwrap_or(&now)));
                    self.sql
                        .exec(
                            "UPDATE keys SET record = ? WHERE digest = ?",
                            vec![encode(&record)?.into(), digest.into()],
                        )
                        .map_err(storage)?;
                }
                serde_json::to_value(&record).map_err(|e| Problem::internal(format!("a key could not be written: {e}")))
            }
        }
    }

    fn one(&self, query: &str, args: &[&str]) -> Result<Option<KeyRecord>, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec(query, args.iter().map(|a| a.to_string().into()).collect::<Vec<_>>())
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.first().and_then(|r| decode(&r.record)))
    }
}

fn encode(record: &KeyRecord) -> Result<String, Problem> {
    serde_json::to_string(record).map_err(|e| Problem::internal(format!("a key could not be written: {e}")))
}

fn decode(text: &str) -> Option<KeyRecord> {
    serde_json::from_str(text).ok()
}
