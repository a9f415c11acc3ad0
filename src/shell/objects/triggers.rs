//! A playbook's trigger tables in its Durable Object's SQL storage: each active workflow's
//! triggers with the next time each is due, the runs that wait for events, and the runs and
//! events owed. `ops::triggers` decides what goes in and out; this only keeps it.

use std::cell::RefCell;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::json;
use crate::core::workflow::owed::{Armed, Delivery, Owed, Waiter};
use crate::core::workflow::Declared;
use crate::core::Problem;
use crate::ops::triggers::{TriggerStore, PAID_PER_RING};

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS triggers (
  workflow TEXT NOT NULL, idx INTEGER NOT NULL, org TEXT NOT NULL, declared TEXT NOT NULL, next_at INTEGER,
  PRIMARY KEY (workflow, idx)
);
CREATE TABLE IF NOT EXISTS waiters (
  run_id TEXT NOT NULL, kind TEXT NOT NULL, org TEXT NOT NULL, PRIMARY KEY (run_id, kind)
);
CREATE TABLE IF NOT EXISTS deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, kind TEXT NOT NULL, org TEXT NOT NULL, data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS fired (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, workflow TEXT NOT NULL, idx INTEGER NOT NULL, org TEXT NOT NULL,
  run_id TEXT NOT NULL, input TEXT, refused TEXT
);
";

#[derive(Deserialize)]
struct TriggerRow {
    workflow: String,
    idx: i64,
    org: String,
    declared: String,
    next_at: Option<i64>,
}

#[derive(Deserialize)]
struct FiredRow {
    seq: i64,
    workflow: String,
    idx: i64,
    org: String,
    run_id: String,
    input: Option<String>,
    refused: Option<String>,
}

#[derive(Deserialize)]
struct WaiterRow {
    run_id: String,
    kind: String,
    org: String,
}

#[derive(Deserialize)]
struct DeliveryRow {
    seq: i64,
    run_id: String,
    kind: String,
    org: String,
    data: String,
}

pub struct Triggers<'s> {
    pub sql: &'s SqlStorage,
    pub known: &'s Known,
}

/// The armed triggers and the waiting runs, once read: every report of events asks for both, to
/// find what they start or wake, and only the playbook's object changes them, through `Triggers`.
#[derive(Default)]
pub struct Known {
    armed: RefCell<Option<Vec<Armed>>>,
    waiters: RefCell<Option<Vec<Waiter>>>,
}

/// A table's rows as last read, or read now and kept.
fn kept<T: Clone>(
    known: &RefCell<Option<Vec<T>>>,
    read: impl FnOnce() -> Result<Vec<T>, Problem>,
) -> Result<Vec<T>, Problem> {
    if let Some(rows) = known.borrow().as_ref() {
        return Ok(rows.clone());
    }
    let rows = read()?;
    known.replace(Some(rows.clone()));
    Ok(rows)
}

impl Triggers<'_> {
    fn rows<T: DeserializeOwned>(&self, query: &str, args: Vec<worker::SqlStorageValue>) -> Result<Vec<T>, Problem> {
        self.sql.exec(query, args).and_then(|c| c.to_array()).map_err(storage)
    }

    fn write(&self, query: &str, args: Vec<worker::SqlStorageValue>) -> Result<(), Problem> {
        self.sql.exec(query, args).map(|_| ()).map_err(storage)
    }
}

/// Times are kept as milliseconds since the epoch, which SQL compares and orders.
fn millis(at: Option<DateTime<Utc>>) -> Option<i64> {
    at.map(|t| t.timestamp_millis())
}

impl TriggerStore for Triggers<'_> {
    fn armed(&self) -> Result<Vec<Armed>, Problem> {
        kept(&self.known.armed, || {
            let rows: Vec<TriggerRow> = self.rows("SELECT * FROM triggers ORDER BY workflow, idx", vec![])?;
            // A trigger kept by an older release that this one cannot read is left unarmed.
            Ok(rows
                .into_iter()
                .filter_map(|r| {
                    let declared = json::from_str::<Declared>(&r.declared).ok()?;
                    let next_at = r.next_at.and_then(DateTime::from_timestamp_millis);
                    Some(Armed { workflow: r.workflow, idx: r.idx, org: r.org, declared, next_at })
                })
                .collect())
        })
    }

    fn disarm(&self, workflow: &str) -> Result<(), Problem> {
        self.known.armed.take();
        self.write("DELETE FROM triggers WHERE workflow = ?", vec![workflow.into()])
    }

    fn arm(&self, a: &Armed) -> Result<(), Problem> {
        let text =
            serde_json::to_string(&a.declared).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.known.armed.take();
        self.write(
            "INSERT INTO triggers (workflow, idx, org, declared, next_at) VALUES (?, ?, ?, ?, ?)",
            vec![a.workflow.clone().into(), a.idx.into(), a.org.clone().into(), text.into(), millis(a.next_at).into()],
        )
    }

    fn move_on(&self, workflow: &str, idx: i64, next_at: Option<DateTime<Utc>>) -> Result<(), Problem> {
        self.known.armed.take();
        self.write(
            "UPDATE triggers SET next_at = ? WHERE workflow = ? AND idx = ?",
            vec![millis(next_at).into(), workflow.into(), idx.into()],
        )
    }

    fn owe(&self, o: &Owed) -> Result<(), Problem> {
        let (input, refused) = match &o.input {
            Ok(v) => (Some(v.to_string()), None),
            Err(why) => (None, Some(why.clone())),
        };
        self.write(
            "INSERT INTO fired (workflow, idx, org, run_id, input, refused) VALUES (?, ?, ?, ?, ?, ?)",
            vec![
                o.workflow.clone().into(),
                o.idx.into(),
                o.org.clone().into(),
                o.run_id.clone().into(),
                input.into(),
                refused.into(),
            ],
        )
    }

    fn owed(&self) -> Result<Vec<(i64, Owed)>, Problem> {
        let rows: Vec<FiredRow> =
            self.rows("SELECT * FROM fired ORDER BY seq LIMIT ?", vec![(PAID_PER_RING as i64).into()])?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let input = match (r.input, r.refused) {
                    (_, Some(why)) => Err(why),
                    (Some(text), None) => serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()),
                    (None, None) => Ok(Value::Object(Default::default())),
                };
                (r.seq, Owed { workflow: r.workflow, idx: r.idx, org: r.org, run_id: r.run_id, input })
            })
            .collect())
    }

    fn paid(&self, seq: i64) -> Result<(), Problem> {
        self.write("DELETE FROM fired WHERE seq = ?", vec![seq.into()])
    }

    fn wait(&self, w: &Waiter) -> Result<(), Problem> {
        self.known.waiters.take();
        self.write(
            "INSERT OR IGNORE INTO waiters (run_id, kind, org) VALUES (?, ?, ?)",
            vec![w.run_id.clone().into(), w.kind.clone().into(), w.org.clone().into()],
        )
    }

    fn waiters(&self) -> Result<Vec<Waiter>, Problem> {
        kept(&self.known.waiters, || {
            let rows: Vec<WaiterRow> = self.rows("SELECT * FROM waiters", vec![])?;
            Ok(rows.into_iter().map(|r| Waiter { run_id: r.run_id, kind: r.kind, org: r.org }).collect())
        })
    }

    fn unwait(&self, run_id: &str, kind: &str) -> Result<(), Problem> {
        self.known.waiters.take();
        self.write("DELETE FROM waiters WHERE run_id = ? AND kind = ?", vec![run_id.into(), kind.into()])
    }

    fn deliver(&self, d: &Delivery) -> Result<(), Problem> {
        self.write(
            "INSERT INTO deliveries (run_id, kind, org, data) VALUES (?, ?, ?, ?)",
            vec![d.run_id.clone().into(), d.kind.clone().into(), d.org.clone().into(), d.data.to_string().into()],
        )
    }

    fn deliveries(&self) -> Result<Vec<(i64, Delivery)>, Problem> {
        let rows: Vec<DeliveryRow> =
            self.rows("SELECT * FROM deliveries ORDER BY seq LIMIT ?", vec![(PAID_PER_RING as i64).into()])?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let data = serde_json::from_str(&r.data).unwrap_or(Value::Null);
                (r.seq, Delivery { run_id: r.run_id, kind: r.kind, org: r.org, data })
            })
            .collect())
    }

    fn delivered(&self, seq: i64) -> Result<(), Problem> {
        self.write("DELETE FROM deliveries WHERE seq = ?", vec![seq.into()])
    }
}
