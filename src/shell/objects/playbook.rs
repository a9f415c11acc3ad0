//! The Playbook Durable Object: one per playbook, the record of truth for it. Its org's directory
//! saves it; everyone else reads it. Each call to its tables goes to `ops::playbook::Tables` over
//! this object's SQLite; the alarm starts what its triggers owe.

use std::cell::{Cell, RefCell};

use serde::de::DeserializeOwned;
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::assets::{self, SqlAssets};
use super::comments::{self, SqlComments};
use super::definitions::{self, Definitions};
use super::events::{self, Events};
use super::migrate;
use super::requests::{self, Requests};
use super::runs_index::{self, RunsIndex};
use super::sql::storage;
use super::triggers::{self, Triggers};
use crate::core::asset::{unknown_asset, GetAsset, KeepAsset};
use crate::core::comment::{Among, ListComments, WriteComment};
use crate::core::definition::store::{GetDefinition, ListDefinitions, ListOffered, WriteDefinition};
use crate::core::directory::{unknown_playbook, GetPlaybook, Save};
use crate::core::event::{GetEvent, ListEvents, ReadEvents, WriteEvents};
use crate::core::json;
use crate::core::migration::Step;
use crate::core::playbook::Playbook;
use crate::core::run::store::{ListRequests, ListRuns, ReadRuns, WriteIndex, WriteRequests};
use crate::core::Problem;
use crate::ops::playbook::Tables;
use crate::shell::backend::Objects;
use crate::shell::calls::ToPlaybook;
use crate::shell::do_rpc::{self, serve, Call};

/// How long the alarm waits before it tries again to start what a trigger owes, after a failure.
const RETRY_MILLIS: i64 = 10_000;

/// The playbook's tables, one step at a time: append only, since a step's place is its version.
/// The record is one JSON row; the tables of its definitions, runs, events, open requests and
/// triggers sit beside it, and the steps after the first six add what later releases needed:
/// its comments, then its assets' records, then the index of events kept before families.
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
    requests::EXPIRES,
    comments::TABLE,
    assets::TABLE,
    events::BEFORE_FAMILIES_INDEX,
    runs_index::RERUN_OF,
    runs_index::REHEARSAL,
];

/// How many of `STEPS` a new object makes at once: the table of its record. The tables of what a
/// playbook holds are made with the first call that reaches them (`open`), so that making a
/// playbook makes one table, not fifteen with their indexes (a third of `create_playbook`'s time,
/// docs/performance.md).
const FIRST_STEPS: usize = 1;

#[durable_object]
pub struct PlaybookObject {
    state: State,
    sql: SqlStorage,
    env: Env,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    migrated: Result<(), Problem>,
    /// The playbook's record, which every call checks the playbook it names against.
    record: KeptRecord<Playbook>,
    /// Whether every table is made: a new object makes the rest at its first call beyond its record.
    whole: Cell<bool>,
    /// What it has read of its definitions, and of its triggers and waiting runs.
    definitions: definitions::Known,
    triggers: triggers::Known,
}

impl DurableObject for PlaybookObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let migrated = migrate::ready_first(&sql, "playbook", STEPS, FIRST_STEPS);
        let new = migrated.as_ref().is_ok_and(|new| *new);
        let record = KeptRecord::new("playbook", "playbook", new);
        PlaybookObject {
            state,
            sql,
            env,
            migrated: migrated.map(drop),
            record,
            whole: Cell::new(!new),
            definitions: definitions::Known::default(),
            triggers: triggers::Known::default(),
        }
    }

    /// Starts the runs the workflows' triggers owe, then sets the alarm to the next due.
    async fn alarm(&self) -> worker::Result<Response> {
        if self.migrated.is_err() {
            return Response::empty();
        }
        if let Err(p) = self.whole_tables() {
            worker::console_error!("playbook alarm: {}", p.detail);
            return Response::empty();
        }
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
        if let Err(p) = &self.migrated {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        let req = &mut req;
        let now = crate::shell::env::instant;
        match req.path().as_str() {
            GetPlaybook::PATH => serve(req, async |g: GetPlaybook| self.load(&g.id)).await,
            Save::PATH => serve(req, async |save: Save| self.save(save)).await,
            WriteDefinition::PATH => {
                self.serve_kept(req, async |playbook, w: WriteDefinition| {
                    let (view, rearmed) = self.tables(|t| t.write_definition(&playbook, &w.org, w.command, now()))?;
                    if rearmed {
                        self.reschedule().await;
                    }
                    Ok(view)
                })
                .await
            }
            GetDefinition::PATH => {
                self.serve_kept(req, async |_, g: GetDefinition| {
                    self.tables(|t| t.get_definition(&g.definition, g.version))
                })
                .await
            }
            ListDefinitions::PATH => {
                self.serve_kept(req, async |_, l: ListDefinitions| self.tables(|t| t.list_definitions(l.query))).await
            }
            ListOffered::PATH => {
                self.serve_kept(req, async |_, _: ListOffered| self.tables(|t| t.offered_tools())).await
            }
            WriteEvents::PATH => {
                self.serve_kept(req, async |_, w: WriteEvents| {
                    let (kept, owed) = self.tables(|t| t.write_events(w.command))?;
                    if owed {
                        self.reschedule().await;
                    }
                    Ok(kept)
                })
                .await
            }
            ListEvents::PATH => {
                self.serve_kept(req, async |_, l: ListEvents| self.tables(|t| t.list_events(l.query))).await
            }
            GetEvent::PATH => {
                self.serve_kept(req, async |_, g: GetEvent| self.tables(|t| t.get_event(&g.event_id))).await
            }
            ReadEvents::PATH => {
                self.serve_kept(req, async |_, r: ReadEvents| self.tables(|t| t.read_events(&r.kind, r.limit))).await
            }
            WriteIndex::PATH => {
                self.serve_kept(req, async |_, w: WriteIndex| self.tables(|t| t.write_index(w.command))).await
            }
            ListRuns::PATH => self.serve_kept(req, async |_, l: ListRuns| self.tables(|t| t.list_runs(l.query))).await,
            ReadRuns::PATH => {
                self.serve_kept(req, async |_, r: ReadRuns| self.tables(|t| t.read_runs(&r.definition, r.limit))).await
            }
            WriteRequests::PATH => {
                self.serve_kept(req, async |_, w: WriteRequests| self.tables(|t| t.write_requests(w.command))).await
            }
            ListRequests::PATH => {
                self.serve_kept(req, async |_, l: ListRequests| self.tables(|t| t.list_requests(l.limit, l.before)))
                    .await
            }
            KeepAsset::PATH => {
                self.serve_kept(req, async |_, k: KeepAsset| {
                    crate::ops::assets::record(&SqlAssets { sql: &self.sql }, k.asset)
                })
                .await
            }
            GetAsset::PATH => {
                self.serve_kept(req, async |_, g: GetAsset| {
                    use crate::ops::assets::AssetStore;
                    SqlAssets { sql: &self.sql }.get(&g.asset_id)?.ok_or_else(|| unknown_asset(&g.asset_id))
                })
                .await
            }
            WriteComment::PATH => {
                serve(req, async |w: WriteComment| {
                    let playbook = self.open(w.playbook.as_deref().unwrap_or_default())?;
                    let among = Among::Playbook { name: playbook.name.clone(), retired: playbook.is_retired() };
                    crate::ops::comments::write(&SqlComments { sql: &self.sql }, w.command, &among)
                })
                .await
            }
            ListComments::PATH => {
                serve(req, async |l: ListComments| {
                    self.open(l.playbook.as_deref().unwrap_or_default())?;
                    crate::ops::comments::list(&SqlComments { sql: &self.sql }, l.query)
                })
                .await
            }
            other => do_rpc::reply::<()>(Err(Problem::internal(format!("no endpoint {other}")))),
        }
    }
}

impl PlaybookObject {
    /// Serves a request to the playbook's tables, which the object answers only when it keeps
    /// the playbook the request names; `handle` is given that playbook.
    async fn serve_kept<C: ToPlaybook>(
        &self,
        req: &mut Request,
        handle: impl AsyncFnOnce(Playbook, C) -> Result<C::Reply, Problem>,
    ) -> worker::Result<Response> {
        serve(req, async |request: C| {
            let playbook = self.open(request.playbook())?;
            handle(playbook, request).await
        })
        .await
    }

    /// The playbook's stores over this object's SQLite, for one call.
    fn tables<T>(&self, f: impl FnOnce(&Tables<'_>) -> T) -> T {
        let sql = &self.sql;
        f(&Tables {
            definitions: &Definitions { sql, known: &self.definitions },
            events: &Events { sql },
            index: &RunsIndex { sql },
            requests: &Requests { sql },
            triggers: &Triggers { sql, known: &self.triggers },
        })
    }

    /// Starts what the triggers owe now: the time triggers due, then the runs events owe.
    async fn fire(&self) -> Result<(), Problem> {
        let Some(playbook) = self.kept()? else { return Ok(()) };
        let backend = Objects { env: &self.env };
        let models = crate::shell::models::settings(&self.env);
        let triggers = Triggers { sql: &self.sql, known: &self.triggers };
        crate::ops::triggers::fire(&triggers, &backend, &models, &playbook.id, crate::shell::env::instant()).await
    }

    /// Sets the alarm again after a write that may have changed what the triggers owe.
    async fn reschedule(&self) {
        if let Err(p) = self.schedule(0).await {
            worker::console_error!("playbook alarm: {}", p.detail);
        }
    }

    /// Sets the alarm to the soonest trigger, and no sooner than `delay` milliseconds from now.
    async fn schedule(&self, delay: i64) -> Result<(), Problem> {
        let now = crate::shell::env::instant();
        let Some(at) = crate::ops::triggers::alarm_at(&Triggers { sql: &self.sql, known: &self.triggers }, now, delay)?
        else {
            return Ok(());
        };
        self.state.storage().set_alarm(at).await.map_err(|e| Problem::internal(format!("the playbook's alarm: {e}")))
    }

    fn load(&self, id: &str) -> Result<Playbook, Problem> {
        self.kept()?.filter(|p| p.id == id).ok_or_else(|| unknown_playbook(id))
    }

    /// The playbook the request names, with every table made: what it holds is in them.
    fn open(&self, id: &str) -> Result<Playbook, Problem> {
        let playbook = self.load(id)?;
        self.whole_tables()?;
        Ok(playbook)
    }

    /// Makes the tables a new object left for later, once.
    fn whole_tables(&self) -> Result<(), Problem> {
        if !self.whole.get() {
            migrate::ready(&self.sql, "playbook", STEPS)?;
            self.whole.set(true);
        }
        Ok(())
    }

    /// The playbook this object keeps, if it was saved: one object holds one playbook.
    fn kept(&self) -> Result<Option<Playbook>, Problem> {
        self.record.read(&self.sql)
    }

    fn save(&self, save: Save) -> Result<Playbook, Problem> {
        let stored = self.load(&save.record.id).ok();
        let record = save.over(stored);
        let text = serde_json::to_string(&record).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO playbook (id, record) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
                vec![record.id.clone().into(), text.into()],
            )
            .map_err(storage)?;
        self.record.wrote(&record);
        Ok(record)
    }
}

/// The one record an object keeps as JSON in the `record` column of `table`, if it was saved: a
/// playbook's object holds one playbook, a run's object one run. Only the object writes it and
/// every call reads it, so it is read from SQLite once per load of the object and kept as written
/// (docs/performance.md).
pub struct KeptRecord<T> {
    table: &'static str,
    noun: &'static str,
    /// What the object knows of it: `None` until it is read; `Some(None)` when there is none.
    known: RefCell<Option<Option<T>>>,
}

impl<T: Clone + DeserializeOwned> KeptRecord<T> {
    /// The record of an object: a new one (its tables made just now) has none to read.
    pub fn new(table: &'static str, noun: &'static str, new_object: bool) -> Self {
        KeptRecord { table, noun, known: RefCell::new(new_object.then_some(None)) }
    }

    pub fn read(&self, sql: &SqlStorage) -> Result<Option<T>, Problem> {
        if let Some(known) = self.known.borrow().as_ref() {
            return Ok(known.clone());
        }
        #[derive(Deserialize)]
        struct Kept {
            record: String,
        }
        let rows: Vec<Kept> = sql
            .exec(&format!("SELECT record FROM {} LIMIT 1", self.table), None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let record: Option<T> = rows
            .first()
            .map(|row| json::from_str(&row.record))
            .transpose()
            .map_err(|e| Problem::internal(format!("a stored {} could not be read: {e}", self.noun)))?;
        self.known.replace(Some(record.clone()));
        Ok(record)
    }

    /// What the object has just written.
    pub fn wrote(&self, record: &T) {
        self.known.replace(Some(Some(record.clone())));
    }
}
