//! The run's store over its Durable Object's SQLite: the run, its outbox, a workflow run's plan,
//! state and actions to take, and a step's deferred model call, each a table.
//!
//! Every run is a new object, and each table a new object makes costs its run time (SQLite writes
//! its schema again for each): a new object makes the run and its outbox, and the tables only
//! workflows and calls use when it first needs them, so a computation's run makes two, not five
//! (docs/performance.md). Objects made before that have all five already. Only the object writes its
//! tables, so what it reads of them it keeps in mind while it is loaded.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use worker::{Delay, SqlStorage, SqlStorageValue};

use crate::core::definition::reasoning::Prepared;
use crate::core::json;
use crate::core::migration::Step;
use crate::core::run::store::Report;
use crate::core::run::Run;
use crate::core::workflow::{Action, Flow, Plan};
use crate::core::Problem;
use crate::ops::run::RunStore;
use crate::shell::objects::playbook::KeptRecord;
use crate::shell::objects::sql::storage;

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
    /// The outbox as it stands, once read (or new): only this object writes it, and each report
    /// would otherwise read it twice, for what waits and to find nothing more waits.
    outbox: RefCell<Option<Vec<(i64, Report)>>>,
    /// The last report the playbook has taken, since the object was loaded: reports go in order,
    /// so what follows it still waits, whether or not its removal is written yet.
    sent_through: Cell<i64>,
    /// A workflow run's plan and state, and its actions to take, once read (or new): a workflow's
    /// every step reads them again, and only this object writes them.
    flow: RefCell<Option<Option<(Plan, Flow)>>>,
    todo: RefCell<Option<Vec<(i64, Action)>>>,
    /// The reports pushed in the batch under way, written as it ends.
    pushing: RefCell<Option<Vec<Report>>>,
}

#[derive(Deserialize)]
struct Placed {
    seq: i64,
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
    /// The store of an object whose tables were made just now (`new_object`) or were kept.
    pub fn new(sql: SqlStorage, new_object: bool) -> Self {
        SqlRun {
            sql,
            later: Cell::new(false),
            kept: KeptRecord::new("run", "run", new_object),
            outbox: RefCell::new(new_object.then(Vec::new)),
            sent_through: Cell::new(0),
            flow: RefCell::new(new_object.then_some(None)),
            todo: RefCell::new(new_object.then(Vec::new)),
            pushing: RefCell::new(None),
        }
    }

    /// Makes the tables of workflows and deferred calls, once per load of the object.
    fn later(&self) -> Result<(), Problem> {
        if !self.later.get() {
            self.sql.exec(LATER, None).map_err(storage)?;
            self.later.set(true);
        }
        Ok(())
    }

    /// Adds reports to the end of the outbox in one statement. A statement's rows take their
    /// places in the order given, one after another; RETURNING gives them in no set order.
    fn put_reports(&self, reports: Vec<Report>) -> Result<(), Problem> {
        if reports.is_empty() {
            return Ok(());
        }
        let texts = reports.iter().map(|r| encode(r).map(SqlStorageValue::from)).collect::<Result<Vec<_>, _>>()?;
        let places = vec!["(?)"; reports.len()].join(", ");
        let placed: Vec<Placed> =
            self.rows(&format!("INSERT INTO outbox (report) VALUES {places} RETURNING seq"), texts)?;
        let mut seqs: Vec<i64> = placed.into_iter().map(|p| p.seq).collect();
        if seqs.len() != reports.len() {
            return Err(Problem::internal("the outbox gave fewer places than reports"));
        }
        seqs.sort_unstable();
        if let Some(outbox) = self.outbox.borrow_mut().as_mut() {
            outbox.extend(seqs.into_iter().zip(reports));
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

    fn queued<T: DeserializeOwned>(
        &self,
        query: &str,
        bindings: Vec<SqlStorageValue>,
        what: &str,
    ) -> Result<Vec<(i64, T)>, Problem> {
        let rows: Vec<Queued> = self.rows(query, bindings)?;
        rows.iter().map(|row| Ok((row.seq, decode(&row.text, what)?))).collect()
    }
}

impl RunStore for SqlRun {
    /// The writes between two awaits are committed together, so a restart finds all or none of
    /// them. (A storage error in the middle is answered as unavailable; what came before stands.)
    /// The reports a batch pushes go in as one statement at its end (a workflow's step pushes
    /// several); nothing reads the outbox within a batch.
    fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem> {
        if self.pushing.borrow().is_some() {
            return writes();
        }
        self.pushing.replace(Some(Vec::new()));
        let written = writes();
        let pushed = self.pushing.take().unwrap_or_default();
        let kept = self.put_reports(pushed);
        written.and(kept)
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
        if let Some(pushing) = self.pushing.borrow_mut().as_mut() {
            pushing.push(report.clone());
            return Ok(());
        }
        self.put_reports(vec![report.clone()])
    }

    fn waiting(&self, limit: usize) -> Result<Vec<(i64, Report)>, Problem> {
        if let Some(outbox) = self.outbox.borrow().as_ref() {
            return Ok(outbox.iter().take(limit).cloned().collect());
        }
        let waiting = self.queued(
            "SELECT seq, report AS text FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?",
            vec![self.sent_through.get().into(), (limit as i64).into()],
            "a waiting report",
        )?;
        if waiting.len() < limit {
            self.outbox.replace(Some(waiting.clone()));
        }
        Ok(waiting)
    }

    /// The reports leave the outbox at once in the object's mind, and in SQLite just after the
    /// answer: a write now would hold the answer for one more commit of the object's database (a
    /// sync to disk), and the playbook has them already. Should the object stop before the removal
    /// is written, its next report sends them again, which the playbook takes once (an event by
    /// its key), as it does a report sent again after any restart.
    fn sent(&self, first: i64, last: i64) -> Result<(), Problem> {
        if let Some(outbox) = self.outbox.borrow_mut().as_mut() {
            outbox.retain(|(seq, _)| *seq < first || *seq > last);
        }
        self.sent_through.set(self.sent_through.get().max(last));
        let sql = self.sql.clone();
        worker::wasm_bindgen_futures::spawn_local(async move {
            // A timer, not a microtask: it runs once the answer has left.
            Delay::from(Duration::ZERO).await;
            if let Err(e) = sql.exec("DELETE FROM outbox WHERE seq BETWEEN ? AND ?", vec![first.into(), last.into()]) {
                worker::console_warn!("the outbox keeps reports the playbook has taken: {e}");
            }
        });
        Ok(())
    }

    fn flow(&self) -> Result<Option<(Plan, Flow)>, Problem> {
        if let Some(known) = self.flow.borrow().as_ref() {
            return Ok(known.clone());
        }
        self.later()?;
        let rows: Vec<KeptFlow> = self.rows("SELECT plan, state FROM flow WHERE id = 1", Vec::new())?;
        let what = "a workflow run's state";
        let flow: Option<(Plan, Flow)> =
            rows.first().map(|k| Ok::<_, Problem>((decode(&k.plan, what)?, decode(&k.state, what)?))).transpose()?;
        self.flow.replace(Some(flow.clone()));
        Ok(flow)
    }

    fn keep_plan(&self, plan: &Plan, flow: &Flow) -> Result<(), Problem> {
        self.later()?;
        self.exec(
            "INSERT OR REPLACE INTO flow (id, plan, state) VALUES (1, ?, ?)",
            vec![encode(plan)?.into(), encode(flow)?.into()],
        )?;
        self.flow.replace(Some(Some((plan.clone(), flow.clone()))));
        Ok(())
    }

    fn keep_flow(&self, flow: &Flow) -> Result<(), Problem> {
        self.later()?;
        self.exec("UPDATE flow SET state = ? WHERE id = 1", vec![encode(flow)?.into()])?;
        if let Some(Some((_, kept))) = self.flow.borrow_mut().as_mut() {
            *kept = flow.clone();
        }
        Ok(())
    }

    fn push_todo(&self, action: &Action) -> Result<(), Problem> {
        self.later()?;
        let placed: Vec<Placed> =
            self.rows("INSERT INTO todo (action) VALUES (?) RETURNING seq", vec![encode(action)?.into()])?;
        let seq =
            placed.first().map(|p| p.seq).ok_or_else(|| Problem::internal("the actions to take gave no place"))?;
        if let Some(todo) = self.todo.borrow_mut().as_mut() {
            todo.push((seq, action.clone()));
        }
        Ok(())
    }

    fn next_todo(&self) -> Result<Option<(i64, Action)>, Problem> {
        if let Some(todo) = self.todo.borrow().as_ref() {
            return Ok(todo.first().cloned());
        }
        self.later()?;
        let first = self.queued(
            "SELECT seq, action AS text FROM todo ORDER BY seq LIMIT 1",
            Vec::new(),
            "a workflow's action",
        )?;
        if first.is_empty() {
            self.todo.replace(Some(Vec::new()));
        }
        Ok(first.into_iter().next())
    }

    fn done_todo(&self, seq: i64) -> Result<(), Problem> {
        self.later()?;
        self.exec("DELETE FROM todo WHERE seq = ?", vec![seq.into()])?;
        if let Some(todo) = self.todo.borrow_mut().as_mut() {
            todo.retain(|(s, _)| *s != seq);
        }
        Ok(())
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
