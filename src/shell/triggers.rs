//! A playbook's triggers, in its Durable Object: each active workflow's triggers with the next
//! time each is due, and the runs event triggers owe. The playbook's single alarm rings at the
//! soonest; it starts what is due under ids made from the trigger and the time or event, so a
//! ring repeated after a restart starts nothing twice.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use worker::SqlStorage;

use super::playbook::storage;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::store::DefinitionView;
use crate::core::definition::workflow::plan;
use crate::core::definition::{Kind, Ref};
use crate::core::event::{EventCommand, NewEvent};
use crate::core::model::ModelSettings;
use crate::core::text::{cap, quote, SUMMARY_MAX};
use crate::core::workflow::{next_due, Declared, Fired};
use crate::core::Problem;
use crate::ops::run_start::{start, Asked};
use crate::ops::Backend;

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
struct Row {
    workflow: String,
    idx: i64,
    org: String,
    declared: String,
    next_at: Option<i64>,
}

#[derive(Deserialize)]
pub struct Owed {
    pub seq: i64,
    pub workflow: String,
    pub idx: i64,
    pub org: String,
    pub run_id: String,
    pub input: Option<String>,
    pub refused: Option<String>,
}

/// A run a trigger starts now.
pub struct Due {
    pub workflow: String,
    pub idx: i64,
    pub org: String,
    pub run_id: String,
    /// The input, or why the trigger gives none.
    pub input: Result<Value, String>,
}

#[derive(Deserialize)]
struct Waiter {
    run_id: String,
    kind: String,
    org: String,
}

/// A playbook event owed to a workflow run that waits for its kind.
#[derive(Deserialize)]
pub struct Delivery {
    pub seq: i64,
    pub run_id: String,
    pub kind: String,
    pub org: String,
    pub data: String,
}

#[derive(Deserialize)]
struct Soonest {
    at: Option<i64>,
}

/// The start of the ids of the runs a workflow's triggers start: `t` and 8 hex digits of its name.
fn prefix(workflow: &str) -> String {
    let hash = workflow.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    format!("t{hash:08x}")
}

pub struct Triggers<'s> {
    pub sql: &'s SqlStorage,
}

impl Triggers<'_> {
    /// Keeps a workflow's triggers as its latest save and state say: an active workflow's, each
    /// next due after `now` (so a resume has no backlog); none for a paused or retired one.
    pub fn sync(&self, org: &str, view: &DefinitionView, now: DateTime<Utc>) -> Result<(), Problem> {
        let name = &view.definition.name;
        self.sql.exec("DELETE FROM triggers WHERE workflow = ?", vec![name.clone().into()]).map_err(storage)?;
        if view.definition.kind != Kind::Workflow || view.definition.status != DefinitionStatus::Active {
            return Ok(());
        }
        let Ok(plan) = plan(&view.document) else { return Ok(()) };
        for (i, declared) in plan.triggers.iter().enumerate() {
            let text =
                serde_json::to_string(declared).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
            let next = next_due(&declared.trigger, now).map(|t| t.timestamp_millis());
            self.sql
                .exec(
                    "INSERT INTO triggers (workflow, idx, org, declared, next_at) VALUES (?, ?, ?, ?, ?)",
                    vec![name.clone().into(), (i as i64).into(), org.into(), text.into(), next.into()],
                )
                .map_err(storage)?;
        }
        Ok(())
    }

    /// Owes a run to each time trigger due by `now`, and moves it on to its next time after `now`,
    /// in one go: a restart finds the run owed, never a time passed with no run. A trigger whose
    /// times passed while the runtime was down owes one run, not one per missed time.
    pub fn take_due(&self, now: DateTime<Utc>) -> Result<(), Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec(
                "SELECT * FROM triggers WHERE next_at IS NOT NULL AND next_at <= ?",
                vec![now.timestamp_millis().into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        for row in rows {
            let Ok(declared) = serde_json::from_str::<Declared>(&row.declared) else { continue };
            let at = row.next_at.and_then(DateTime::from_timestamp_millis).unwrap_or(now);
            let next = next_due(&declared.trigger, now).map(|t| t.timestamp_millis());
            self.sql
                .exec(
                    "UPDATE triggers SET next_at = ? WHERE workflow = ? AND idx = ?",
                    vec![next.into(), row.workflow.clone().into(), row.idx.into()],
                )
                .map_err(storage)?;
            let run_id = format!("{}-{}-{}", prefix(&row.workflow), row.idx, at.timestamp());
            self.owe(&row, run_id, declared.input(Fired::Time(at)))?;
        }
        Ok(())
    }

    fn owe(&self, row: &Row, run_id: String, input: Result<Value, String>) -> Result<(), Problem> {
        let (input, refused) = match input {
            Ok(v) => (Some(v.to_string()), None),
            Err(why) => (None, Some(why)),
        };
        self.sql
            .exec(
                "INSERT INTO fired (workflow, idx, org, run_id, input, refused) VALUES (?, ?, ?, ?, ?, ?)",
                vec![
                    row.workflow.clone().into(),
                    row.idx.into(),
                    row.org.clone().into(),
                    run_id.into(),
                    input.into(),
                    refused.into(),
                ],
            )
            .map_err(storage)?;
        Ok(())
    }

    /// Owes a run to each event trigger the kept events match; the alarm starts them. An event
    /// recorded by a run a workflow's own trigger started never starts that workflow again.
    pub fn take_events(&self, events: &[(i64, NewEvent)]) -> Result<bool, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec("SELECT * FROM triggers WHERE next_at IS NULL", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let mut owed = false;
        for row in rows {
            let Ok(declared) = serde_json::from_str::<Declared>(&row.declared) else { continue };
            let own = prefix(&row.workflow);
            for (position, e) in events {
                let family = e.family.as_deref().or(e.run_id.as_deref()).unwrap_or_default();
                if !declared.takes(&e.kind, &e.data) || family.starts_with(&own) {
                    continue;
                }
                let run_id = format!("{own}-e{position}-{}", row.idx);
                self.owe(&row, run_id, declared.input(Fired::Event { kind: &e.kind, data: &e.data }))?;
                owed = true;
            }
        }
        Ok(owed)
    }

    /// Keeps that a workflow run waits for events of `kind`, until a delivery is refused.
    pub fn wait(&self, org: &str, run_id: &str, kind: &str) -> Result<(), Problem> {
        self.sql
            .exec(
                "INSERT OR IGNORE INTO waiters (run_id, kind, org) VALUES (?, ?, ?)",
                vec![run_id.into(), kind.into(), org.into()],
            )
            .map_err(storage)?;
        Ok(())
    }

    /// Owes each waiting run the kept events of the kind it waits for, but its own.
    pub fn take_waits(&self, events: &[NewEvent]) -> Result<bool, Problem> {
        let waiters: Vec<Waiter> =
            self.sql.exec("SELECT * FROM waiters", None).and_then(|c| c.to_array()).map_err(storage)?;
        let mut owed = false;
        for w in &waiters {
            for e in events.iter().filter(|e| e.kind == w.kind) {
                if e.family.as_deref().or(e.run_id.as_deref()) == Some(w.run_id.as_str()) {
                    continue;
                }
                self.sql
                    .exec(
                        "INSERT INTO deliveries (run_id, kind, org, data) VALUES (?, ?, ?, ?)",
                        vec![
                            w.run_id.clone().into(),
                            w.kind.clone().into(),
                            w.org.clone().into(),
                            e.data.to_string().into(),
                        ],
                    )
                    .map_err(storage)?;
                owed = true;
            }
        }
        Ok(owed)
    }

    pub fn deliveries(&self) -> Result<Vec<Delivery>, Problem> {
        self.sql
            .exec("SELECT * FROM deliveries ORDER BY seq LIMIT 50", None)
            .and_then(|c| c.to_array())
            .map_err(storage)
    }

    /// A delivery made, or refused; a refused one also ends the wait, since nothing waits now.
    pub fn delivered(&self, d: &Delivery, refused: bool) -> Result<(), Problem> {
        self.sql.exec("DELETE FROM deliveries WHERE seq = ?", vec![d.seq.into()]).map_err(storage)?;
        if refused {
            self.sql
                .exec(
                    "DELETE FROM waiters WHERE run_id = ? AND kind = ?",
                    vec![d.run_id.clone().into(), d.kind.clone().into()],
                )
                .map_err(storage)?;
        }
        Ok(())
    }

    pub fn owed(&self) -> Result<Vec<Owed>, Problem> {
        self.sql.exec("SELECT * FROM fired ORDER BY seq LIMIT 50", None).and_then(|c| c.to_array()).map_err(storage)
    }

    pub fn paid(&self, seq: i64) -> Result<(), Problem> {
        self.sql.exec("DELETE FROM fired WHERE seq = ?", vec![seq.into()]).map_err(storage)?;
        Ok(())
    }

    /// When the alarm should ring next: now while runs are owed, else the soonest trigger.
    pub fn soonest(&self, now: DateTime<Utc>) -> Result<Option<i64>, Problem> {
        if !self.owed()?.is_empty() || !self.deliveries()?.is_empty() {
            return Ok(Some(now.timestamp_millis()));
        }
        let rows: Vec<Soonest> = self
            .sql
            .exec("SELECT MIN(next_at) AS at FROM triggers", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.first().and_then(|r| r.at))
    }
}

impl Due {
    pub fn of(owed: Owed) -> Due {
        let input = match (owed.input, owed.refused) {
            (_, Some(why)) => Err(why),
            (Some(text), None) => serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()),
            (None, None) => Ok(Value::Object(Default::default())),
        };
        Due { workflow: owed.workflow, idx: owed.idx, org: owed.org, run_id: owed.run_id, input }
    }

    pub fn definition(&self) -> Ref {
        Ref { kind: Kind::Workflow, name: self.workflow.clone() }
    }
}

/// Starts a run a trigger owes, as `run_definition` would; a refusal (an input the workflow's
/// schema refuses, a workflow paused meanwhile) is recorded in the playbook's history instead.
pub async fn start_due(backend: &dyn Backend, models: &ModelSettings, playbook: &str, due: Due) -> Result<(), Problem> {
    let now = super::env::now();
    let refusal = match due.input.clone() {
        Err(why) => Some(format!("its input has no value: {why}")),
        Ok(input) => {
            let asked = Asked {
                org: due.org.clone(),
                playbook: playbook.to_string(),
                definition: due.definition(),
                input,
                run_id: due.run_id.clone(),
                now: now.clone(),
                within: None,
                by: crate::core::actor::Actor::trigger(&due.workflow, due.idx),
            };
            match start(backend, models, asked).await {
                Ok(_) => None,
                Err(p) if p.status() >= 500 => return Err(p),
                Err(p) => Some(p.detail),
            }
        }
    };
    let Some(why) = refusal else { return Ok(()) };
    let summary = cap(
        &format!(
            "A trigger of the workflow {} did not start a run: {}",
            quote(&due.workflow),
            why.trim_end_matches('.')
        ),
        SUMMARY_MAX - 1,
    ) + ".";
    let event = NewEvent {
        kind: "trigger_refused".into(),
        at: now,
        summary,
        run_id: None,
        data: json!({ "workflow": due.workflow, "trigger": due.idx, "run_id": due.run_id, "detail": why }),
        family: None,
        key: None,
    };
    backend.events(&due.org, playbook, EventCommand::Append { events: vec![event], run: None }).await.map(|_| ())
}
