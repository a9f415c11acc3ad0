//! The Catalog Durable Object: one for the runtime, keeping each provider's list of models for
//! `list_models`. A list is read the first time it is needed and kept five minutes; calls that
//! arrive while it is read wait for that read; a list that cannot be read again leaves the last
//! one, and the provider is not asked again for a minute. Why a read failed goes to the log only.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use futures::future::{FutureExt, LocalBoxFuture, Shared};
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::migrate;
use super::sql::storage;
use crate::core::json;
use crate::core::migration::Step;
use crate::core::model::catalog::{due, Kept, ReadLists};
use crate::core::model::wire::{models as read_models, models_request};
use crate::core::model::Provider;
use crate::core::Problem;
use crate::shell::do_rpc::{self, serve, Call};
use crate::shell::models::{self, Unanswered};

/// The object's tables, one step at a time: append only, since a step's place is its version.
const STEPS: &[Step] = &[Step::Sql("CREATE TABLE IF NOT EXISTS kept (prefix TEXT PRIMARY KEY, kept TEXT NOT NULL);")];
/// The most a provider's list may take to arrive.
const LIST_TIMEOUT_SECONDS: u64 = 15;

type Reading = Shared<LocalBoxFuture<'static, Kept>>;

#[durable_object]
pub struct CatalogObject {
    sql: SqlStorage,
    env: Env,
    reading: RefCell<HashMap<String, Reading>>,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    migrated: Result<(), Problem>,
}

#[derive(Deserialize)]
struct Row {
    kept: String,
}

impl DurableObject for CatalogObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let migrated = migrate::ready(&sql, "catalog", STEPS).map(drop);
        CatalogObject { sql, env, reading: RefCell::new(HashMap::new()), migrated }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        if let Err(p) = &self.migrated {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        match req.path().as_str() {
            ReadLists::PATH => serve(&mut req, async |read: ReadLists| self.lists(read.providers).await).await,
            other => do_rpc::reply::<()>(Err(Problem::internal(format!("the catalog has no endpoint {other}")))),
        }
    }
}

/// Reads one provider's list, keeping the last one when the read fails.
async fn read(provider: Provider, last: Option<Kept>, now_ms: i64) -> Kept {
    let failed = |why: String| {
        worker::console_warn!("the model list of {} could not be read: {why}", provider.prefix);
        Kept {
            models: last.as_ref().and_then(|k| k.models.clone()),
            listed_at: last.as_ref().map_or(now_ms, |k| k.listed_at),
            failed_at: Some(now_ms),
        }
    };
    match models::send(&models_request(&provider), LIST_TIMEOUT_SECONDS).await {
        Ok((status, body)) if (200..300).contains(&status) => match read_models(provider.api, &body) {
            Ok(models) => Kept { models: Some(models), listed_at: now_ms, failed_at: None },
            Err(why) => failed(why),
        },
        Ok((status, _)) => failed(format!("it answered {status}")),
        Err(Unanswered::Timeout) => failed(format!("no answer within {LIST_TIMEOUT_SECONDS} seconds")),
        Err(Unanswered::Unreachable(why)) => failed(why),
        Err(Unanswered::TooLarge(max)) => failed(format!("its list is over {max} bytes")),
    }
}

impl CatalogObject {
    fn kept(&self, prefix: &str) -> Result<Option<Kept>, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec("SELECT kept FROM kept WHERE prefix = ?", vec![prefix.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.first().and_then(|r| json::from_str(&r.kept).ok()))
    }

    fn keep(&self, prefix: &str, kept: &Kept) -> Result<(), Problem> {
        let text = serde_json::to_string(kept).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO kept (prefix, kept) VALUES (?, ?) ON CONFLICT(prefix) DO UPDATE SET kept = excluded.kept",
                vec![prefix.into(), text.into()],
            )
            .map_err(storage)?;
        Ok(())
    }

    async fn lists(&self, asked: Vec<String>) -> Result<BTreeMap<String, Kept>, Problem> {
        let settings = models::settings(&self.env);
        let now_ms = worker::Date::now().as_millis() as i64;
        let mut pending = Vec::new();
        let mut out = BTreeMap::new();
        for prefix in asked {
            let Some(provider) = settings.providers.get(&prefix) else { continue };
            let last = self.kept(&prefix)?;
            if !due(last.as_ref(), now_ms) {
                if let Some(k) = last {
                    out.insert(prefix, k);
                }
                continue;
            }
            let reading = self
                .reading
                .borrow_mut()
                .entry(prefix.clone())
                .or_insert_with(|| read(provider.clone(), last, now_ms).boxed_local().shared())
                .clone();
            pending.push((prefix, reading));
        }
        // Every provider is asked at once; each answer is kept as it comes.
        let answers = futures::future::join_all(pending.into_iter().map(|(prefix, reading)| async move {
            let kept = reading.await;
            (prefix, kept)
        }))
        .await;
        for (prefix, kept) in answers {
            self.reading.borrow_mut().remove(&prefix);
            self.keep(&prefix, &kept)?;
            out.insert(prefix, kept);
        }
        Ok(out)
    }
}
