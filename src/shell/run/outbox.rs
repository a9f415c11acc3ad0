//! What a run hands its playbook: its events, the requests it opens and closes, the waits it
//! begins, a step's end for its workflow run, and its state for the index. Each waits in the
//! outbox, kept with the run's state, until the playbook (or the workflow run) has taken it.

use serde::Deserialize;
use serde_json::{json, Value};

use super::super::backend::{playbook as playbook_object, run as run_object};
use super::super::do_rpc::{self, PLAYBOOK_EVENTS, PLAYBOOK_REQUESTS, PLAYBOOK_RUNS};
use super::super::playbook::storage;
use super::RunObject;
use crate::core::event::{EventCommand, NewEvent};
use crate::core::run::store::{IndexCommand, Report};
use crate::core::run::Run;
use crate::core::Problem;

/// How many waiting reports one round reads.
const OUTBOX_PAGE: usize = 100;

#[derive(Deserialize)]
struct Outboxed {
    seq: i64,
    report: String,
}

impl RunObject {
    pub(super) fn outbox(&self, report: &Report) -> Result<(), Problem> {
        let text = serde_json::to_string(report).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql.exec("INSERT INTO outbox (report) VALUES (?)", vec![text.into()]).map_err(storage)?;
        Ok(())
    }

    pub(super) fn record(&self, run: &Run, kind: &str, at: &str, summary: String, data: Value) -> Result<(), Problem> {
        let event = NewEvent {
            kind: kind.into(),
            at: at.into(),
            summary,
            run_id: Some(run.run_id.clone()),
            data,
            family: Some(run.family().to_string()),
            key: None,
        };
        self.outbox(&Report::Event(event))
    }

    /// Hands the playbook what waits in the outbox, in order, then the run's state. One report at
    /// a time: a second waits for the first, so nothing is sent twice and a caller answers only
    /// once what it recorded has reached the playbook.
    pub(super) async fn report(&self, run: &Run) -> Result<(), Problem> {
        // Waiting for the lock, not for a while: when the report before ends, whatever it left
        // is sent by this one, so success is never answered for what was not sent.
        let _turn = self.reporting.lock().await;
        self.send_outbox(run).await
    }

    async fn send_outbox(&self, run: &Run) -> Result<(), Problem> {
        let stub = playbook_object(&self.env, &run.org, &run.playbook)?;
        let mut sent = false;
        loop {
            let rows: Vec<Outboxed> = self
                .sql
                .exec("SELECT seq, report FROM outbox ORDER BY seq LIMIT ?", vec![(OUTBOX_PAGE as i64).into()])
                .and_then(|c| c.to_array())
                .map_err(storage)?;
            if rows.is_empty() {
                break;
            }
            sent = true;
            let mut reports = Vec::with_capacity(rows.len());
            for row in &rows {
                let report: Report = serde_json::from_str(&row.report)
                    .map_err(|e| Problem::internal(format!("a waiting report could not be read: {e}")))?;
                reports.push((row.seq, report));
            }
            let mut i = 0;
            while i < reports.len() {
                // Events in a row go to the playbook in one call.
                let events: Vec<NewEvent> = reports[i..]
                    .iter()
                    .map_while(|(seq, r)| match r {
                        Report::Event(e) => Some(NewEvent { key: Some(format!("{}#{seq}", run.run_id)), ..e.clone() }),
                        _ => None,
                    })
                    .collect();
                let (first, last) = if events.is_empty() {
                    self.send_one(run, &stub, reports[i].1.clone()).await?;
                    (reports[i].0, reports[i].0)
                } else {
                    let n = events.len();
                    // The first events carry the run along when the index must hear: should a later
                    // report fail, the index already holds how the run stands.
                    let record = self.to_index()?;
                    let indexed = record.as_ref().map(|r| r.status.word());
                    let command = EventCommand::Append { events, run: record };
                    let body = json!({ "playbook": run.playbook, "command": command });
                    let _: Value = do_rpc::call(&stub, PLAYBOOK_EVENTS, &body).await?;
                    if indexed.is_some() {
                        self.indexed.set(indexed);
                    }
                    (reports[i].0, reports[i + n - 1].0)
                };
                self.sql
                    .exec("DELETE FROM outbox WHERE seq BETWEEN ? AND ?", vec![first.into(), last.into()])
                    .map_err(storage)?;
                i = reports.iter().position(|(seq, _)| *seq > last).unwrap_or(reports.len());
            }
        }
        if sent {
            if let Some(current) = self.to_index()? {
                let word = current.status.word();
                let update = json!({ "playbook": run.playbook, "command": IndexCommand::Record(current) });
                let _: Option<Value> = do_rpc::call(&stub, PLAYBOOK_RUNS, &update).await?;
                self.indexed.set(Some(word));
            }
        }
        Ok(())
    }

    /// The run as it stands now (it may have moved while reports went) when the playbook's index
    /// has not heard its status from this object yet.
    fn to_index(&self) -> Result<Option<Box<Run>>, Problem> {
        Ok(self.load()?.filter(|r| self.indexed.get() != Some(r.status.word())).map(Box::new))
    }

    async fn send_one(&self, run: &Run, stub: &worker::Stub, report: Report) -> Result<(), Problem> {
        match report {
            Report::Event(event) => {
                let body = json!({ "playbook": run.playbook, "command": EventCommand::Append { events: vec![event], run: None } });
                let _: Value = do_rpc::call(stub, PLAYBOOK_EVENTS, &body).await?;
            }
            Report::Request(command) => {
                let body = json!({ "playbook": run.playbook, "command": command });
                let _: Option<Value> = do_rpc::call(stub, PLAYBOOK_REQUESTS, &body).await?;
            }
            Report::Wait { kind } => {
                let command = EventCommand::Await { org: run.org.clone(), run_id: run.run_id.clone(), kind };
                let body = json!({ "playbook": run.playbook, "command": command });
                let _: Value = do_rpc::call(stub, PLAYBOOK_EVENTS, &body).await?;
            }
            Report::Parent { within, child, outcome } => {
                let parent = run_object(&self.env, &run.org, &run.playbook, &within.run_id)?;
                let ended = crate::core::run::store::ChildEnded {
                    run_id: within.run_id.clone(),
                    step: within.step,
                    child,
                    outcome,
                };
                match do_rpc::send(&parent, &ended).await {
                    Ok(_) => {}
                    // A refusal is not answered by asking again; the parent's heartbeat reads the
                    // child's end itself.
                    Err(p) if p.status() < 500 => {
                        worker::console_error!("the workflow run {} refused a step's end: {}", within.run_id, p.detail)
                    }
                    Err(p) => return Err(p),
                }
            }
        }
        Ok(())
    }
}
