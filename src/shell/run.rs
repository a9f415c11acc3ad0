//! The Run Durable Object: one per run, named by its org, playbook and run id. It keeps the run;
//! a start under an id it already holds answers that run and runs nothing.
//!
//! The run's events wait in its outbox until the playbook has kept them with the run's state, so
//! nothing a run recorded is lost when the playbook cannot be reached for a moment: every later
//! call to the run reports what is still waiting, before it answers.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::backend::playbook as playbook_object;
use super::do_rpc::{self, PLAYBOOK_EVENTS, PLAYBOOK_RUNS, RUN_GET, RUN_START};
use super::playbook::storage;
use crate::core::event::{EventCommand, NewEvent};
use crate::core::run::store::{IndexCommand, RunEntry, StartRun};
use crate::core::run::{compute, decide_start, Run, RunStatus, Start};
use crate::core::text::quote;
use crate::core::Problem;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL);
";

#[durable_object]
pub struct RunObject {
    sql: SqlStorage,
    env: Env,
}

#[derive(Deserialize)]
struct Record {
    record: String,
}

#[derive(Deserialize)]
struct Outboxed {
    seq: i64,
    event: String,
}

#[derive(Deserialize)]
struct Get {
    run_id: String,
}

impl DurableObject for RunObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(e) = sql.exec(SCHEMA, None) {
            worker::console_error!("run schema: {e}");
        }
        RunObject { sql, env }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let result = match req.path().as_str() {
            RUN_START => match do_rpc::read_body::<StartRun>(&mut req).await {
                Ok(start) => self.start(start),
                Err(p) => Err(p),
            },
            RUN_GET => match do_rpc::read_body::<Get>(&mut req).await {
                Ok(g) => self
                    .load()
                    .and_then(|r| r.ok_or_else(|| unknown_run(&g.run_id))),
                Err(p) => Err(p),
            },
            other => Err(Problem::internal(format!("no endpoint {other}"))),
        };
        let result = match result {
            Ok(run) => self.report(&run).await.map(|()| run),
            Err(p) => Err(p),
        };
        do_rpc::reply(result)
    }
}

pub fn unknown_run(run_id: &str) -> Problem {
    Problem::not_found(format!(
        "This playbook has no run {run_id}. list_runs lists its runs, newest first."
    ))
    .with_field("/run_id", "names no run of this playbook")
}

impl RunObject {
    fn load(&self) -> Result<Option<Run>, Problem> {
        let rows: Vec<Record> = self
            .sql
            .exec("SELECT record FROM run LIMIT 1", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        rows.first()
            .map(|r| serde_json::from_str(&r.record))
            .transpose()
            .map_err(|e| Problem::internal(format!("a stored run could not be read: {e}")))
    }

    fn save(&self, run: &Run) -> Result<(), Problem> {
        let text = serde_json::to_string(run)
            .map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO run (id, record) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
                vec![run.run_id.clone().into(), text.into()],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn record(
        &self,
        run: &Run,
        kind: &str,
        at: &str,
        summary: String,
        data: Value,
    ) -> Result<(), Problem> {
        let event = NewEvent {
            kind: kind.into(),
            at: at.into(),
            summary,
            run_id: Some(run.run_id.clone()),
            data,
        };
        let text = serde_json::to_string(&event)
            .map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec("INSERT INTO outbox (event) VALUES (?)", vec![text.into()])
            .map_err(storage)?;
        Ok(())
    }

    /// Hands the playbook the run's waiting events and its state, then empties the outbox.
    async fn report(&self, run: &Run) -> Result<(), Problem> {
        let rows: Vec<Outboxed> = self
            .sql
            .exec("SELECT seq, event FROM outbox ORDER BY seq", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let Some(last) = rows.last().map(|r| r.seq) else {
            return Ok(());
        };
        let events: Vec<NewEvent> = rows
            .iter()
            .filter_map(|r| serde_json::from_str(&r.event).ok())
            .collect();
        let stub = playbook_object(&self.env, &run.org, &run.playbook)?;
        let append =
            json!({ "playbook": run.playbook, "command": EventCommand::Append { events } });
        let _: Value = do_rpc::call(&stub, PLAYBOOK_EVENTS, &append).await?;
        let update =
            json!({ "playbook": run.playbook, "command": IndexCommand::Update(RunEntry::of(run)) });
        let _: Option<Value> = do_rpc::call(&stub, PLAYBOOK_RUNS, &update).await?;
        self.sql
            .exec("DELETE FROM outbox WHERE seq <= ?", vec![last.into()])
            .map_err(storage)?;
        Ok(())
    }

    /// Everything here is synchronous: no other request reaches this object between reading
    /// the id and keeping the run, so concurrent duplicates start exactly one run.
    fn start(&self, start: StartRun) -> Result<Run, Problem> {
        let StartRun { mut run, source } = start;
        let existing = self.load()?;
        match decide_start(existing.as_ref(), &run.definition, &run.input)? {
            Start::Existing(run) => return Ok(run),
            Start::New => {}
        }
        let noun = format!(
            "the {} {}",
            run.definition.kind.noun(),
            quote(&run.definition.name)
        );
        self.save(&run)?;
        let started = run.started_at.clone();
        self.record(
            &run,
            "run_started",
            &started,
            format!("A run of {noun} started."),
            json!({ "input": run.input }),
        )?;
        let now = super::env::now();
        run.status = match compute::evaluate(&source, &run.input) {
            Ok(output) => RunStatus::Succeeded {
                output,
                finished_at: now.clone(),
            },
            Err(error) => RunStatus::Failed {
                error,
                finished_at: now.clone(),
            },
        };
        self.save(&run)?;
        match &run.status {
            RunStatus::Succeeded { output, .. } => self.record(
                &run,
                "run_succeeded",
                &now,
                "A run finished.".into(),
                json!({ "output": output }),
            )?,
            RunStatus::Failed { error, .. } => self.record(
                &run,
                "run_failed",
                &now,
                format!("A run of {noun} failed: {}", error.detail),
                json!({ "error": error }),
            )?,
            _ => {}
        }
        Ok(run)
    }
}
