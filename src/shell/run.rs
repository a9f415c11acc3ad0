//! The Run Durable Object: one per run, named by its org, playbook and run id. It keeps the run
//! and its events; a start under an id it already holds answers that run and runs nothing.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::do_rpc::{self, RUN_GET, RUN_START};
use super::playbook::storage;
use crate::core::run::store::StartRun;
use crate::core::run::{compute, decide_start, Run, RunStatus, Start};
use crate::core::text::quote;
use crate::core::Problem;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, at TEXT NOT NULL,
  summary TEXT NOT NULL, data TEXT NOT NULL
);
";

#[durable_object]
pub struct RunObject {
    sql: SqlStorage,
}

#[derive(Deserialize)]
struct Record {
    record: String,
}

#[derive(Deserialize)]
struct Get {
    run_id: String,
}

impl DurableObject for RunObject {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(e) = sql.exec(SCHEMA, None) {
            worker::console_error!("run schema: {e}");
        }
        RunObject { sql }
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

    fn record(&self, kind: &str, at: &str, summary: String, data: Value) -> Result<(), Problem> {
        self.sql
            .exec(
                "INSERT INTO events (kind, at, summary, data) VALUES (?, ?, ?, ?)",
                vec![
                    kind.into(),
                    at.into(),
                    summary.into(),
                    data.to_string().into(),
                ],
            )
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
        self.record(
            "run_started",
            &run.started_at,
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
                "run_succeeded",
                &now,
                "A run finished.".into(),
                json!({ "output": output }),
            )?,
            RunStatus::Failed { error, .. } => self.record(
                "run_failed",
                &now,
                format!("A run failed: {}", error.detail),
                json!({ "error": error }),
            )?,
            _ => {}
        }
        Ok(run)
    }
}
