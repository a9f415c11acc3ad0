//! The run's store over its Durable Object's SQLite: the run, its outbox, a workflow run's plan,
//! state and actions to take, and a step's deferred model call, each a table.
//!
//! Every run is a new object, and each table a new object makes costs its run time (SQLite writes
//! its schema again for each): a new object makes the run and its outbox, and the tables only
//! workflows and calls use when it first needs them, so a computation's run makes two, not five
//! (issue 18). Objects made before that have all five already.

use std::cell::Cell;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use worker::{SqlStorage, SqlStorageValue};

use super::super::playbook::{storage, KeptRecord};
use crate::core::definition::reasoning::Prepared;
use crate::core::json;
use crate::core::migration::Step;
use crate::core::run::store::Report;
use crate::core::run::Run;
use crate::core::workflow::{Action, Flow, Plan};
use crate::core::Problem;
use crate::ops::run::RunStore;

/// The outbox's `seq` never comes back (AUTOINCREMENT): an event's key in the playbook is the run's
/// id and its `seq`, and a key seen before is taken as that event sent again.
pub const STEPS: &[Step] = &[Step::Sql(
    "
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, report TEXT NOT NULL);
",
)];

/// What a workflow run and a run that defers its call keep, made when first needed.
const LATER: &str = "
CREATE TABLE IF NOT EXISTS flow (id INTEGER PRIMARY KEY CHECK (id = 1), plan TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS todo (seq INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deferred (id INTEGER PRIMARY KEY CHECK (id = 1), call TEXT NOT NULL, asked INTEGER NOT NULL);
";

pub struct SqlRun {
    pub sql: SqlStorage,
    /// Whether `LATER`'s tables are known to be made, since this object was loaded.
    later: Cell<bool>,
    /// The run, which a run's every step reads again.
    kept: KeptRecord<Run>,
}

#[derive(Deserialize)]
struct Queued {
    seq: i64,
    text: String,
}

#[derive(Deserialize)]
struct KeptFlow {
    plan: String,
    state: String,
}

#[derive(Deserialize)]
struct Deferred {
    call: String,
    asked: i64,
}

fn encode(value: &impl Serialize) -> Result<String, Problem> {
    serde_json::to_string(value).map_err(|e| Problem::internal(format!("could not encode: {e}")))
}

fn decode<T: DeserializeOwned>(text: &str, what: &str) -> Result<T, Problem> {
    json::from_str(text).map_err(|e| Problem::internal(format!("{what} could not be read: {e}")))
}

fn bound(bindings: Vec<SqlStorageValue>) -> Option<Vec<SqlStorageValue>> {
    (!bindings.is_empty()).then_some(bindings)
}

impl SqlRun {
    pub fn new(sql: SqlStorage) -> Self {
        SqlRun { sql, later: Cell::new(false), kept: KeptRecord::new("run", "run") }
    }

    /// Makes the tables of workflows and deferred calls, once per load of the object.
    fn later(&self) -> Result<(), Problem> {
        if !self.later.get() {
            self.sql.exec(LATER, None).map_err(storage)?;
            self.later.set(true);
        }
        Ok(())
    }

    fn exec(&self, query: &str, bindings: Vec<SqlStorageValue>) -> Result<(), Problem> {
        self.sql.exec(query, bound(bindings)).map_err(storage)?;
        Ok(())
    }

    fn rows<T: DeserializeOwned>(&self, query: &str, bindings: Vec<SqlStorageValue>) -> Result<Vec<T>, Problem> {
        self.sql.exec(query, bound(bindings)).and_then(|c| c.to_array()).map_err(storage)
    }

    fn queued<T: DeserializeOwned>(&self, query: &str, limit: usize, what: &str) -> Result<Vec<(i64, T)>, Problem> {
        let rows: Vec<Queued> = self.rows(query, vec![(limit as i64).into()])?;
        rows.iter().map(|row| Ok((row.seq, decode(&row.text, what)?))).collect()
    }
}

impl RunStore for SqlRun {
    /// The writes between two awaits are committed together, so a restart finds all or none of
    /// them. (A storage error in the middle is answered as unavailable; what came before stands.)
    fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem> {
        writes()
    }

    fn run(&self) -> Result<Option<Run>, Problem> {
        self.kept.read(&self.sql)
    }

    fn keep(&self, run: &Run) -> Result<(), Problem> {
        self.exec(
            "INSERT INTO run (id, record) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
            vec![run.run_id.clone().into(), encode(run)?.into()],
        )?;
        self.kept.wrote(run);
        Ok(())
    }

    fn push(&self, report: &Report) -> Result<(), Problem> {
        self.exec("INSERT INTO outbox (report) VALUES (?)", vec![encode(report)?.into()])
    }

    fn waiting(&self, limit: usize) -> Result<Vec<(i64, Report)>, Problem> {
        self.queued("SELECT seq, report AS text FROM outbox ORDER BY seq LIMIT ?", limit, "a waiting report")
    }

    fn sent(&self, first: i64, last: i64) -> Result<(), Problem> {
        self.exec("DELETE FROM outbox WHERE seq BETWEEN ? AND ?", vec![first.into(), last.into()])
    }

    fn flow(&self) -> Result<Option<(Plan, Flow)>, Problem> {
        self.later()?;
        let rows: Vec<KeptFlow> = self.rows("SELECT plan, state FROM flow WHERE id = 1", Vec::new())?;
        let what = "a workflow run's state";
        rows.first().map(|k| Ok((decode(&k.plan, what)?, decode(&k.state, what)?))).transpose()
    }

    fn keep_plan(&self, plan: &Plan, flow: &Flow) -> Result<(), Problem> {
        self.later()?;
        self.exec(
            "INSERT OR REPLACE INTO flow (id, plan, state) VALUES (1, ?, ?)",
            vec![encode(plan)?.into(), encode(flow)?.into()],
        )
    }

    fn keep_flow(&self, flow: &Flow) -> Result<(), Problem> {
        self.later()?;
        self.exec("UPDATE flow SET state = ? WHERE id = 1", vec![encode(flow)?.into()])
    }

    fn push_todo(&self, action: &Action) -> Result<(), Problem> {
        self.later()?;
        self.exec("INSERT INTO todo (action) VALUES (?)", vec![encode(action)?.into()])
    }

    fn next_todo(&self) -> Result<Option<(i64, Action)>, Problem> {
        self.later()?;
        let first =
            self.queued("SELECT seq, action AS text FROM todo ORDER BY seq LIMIT ?", 1, "a workflow's action")?;
        Ok(first.into_iter().next())
    }

    fn done_todo(&self, seq: i64) -> Result<(), Problem> {
        self.later()?;
        self.exec("DELETE FROM todo WHERE seq = ?", vec![seq.into()])
    }

    fn defer(&self, call: &Prepared) -> Result<(), Problem> {
        self.later()?;
        self.exec("INSERT OR REPLACE INTO deferred (id, call, asked) VALUES (1, ?, 0)", vec![encode(call)?.into()])
    }

    fn deferred(&self) -> Result<Option<(Prepared, bool)>, Problem> {
        self.later()?;
        let rows: Vec<Deferred> = self.rows("SELECT call, asked FROM deferred WHERE id = 1", Vec::new())?;
        rows.first().map(|d| Ok((decode(&d.call, "a kept model call")?, d.asked != 0))).transpose()
    }

    fn asked(&self) -> Result<(), Problem> {
        self.later()?;
        self.exec("UPDATE deferred SET asked = 1 WHERE id = 1", Vec::new())
    }
}
