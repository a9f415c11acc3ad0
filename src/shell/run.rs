//! The Run Durable Object: one per run, named by its org, playbook and run id. It keeps the run;
//! a start under an id it already holds answers that run and runs nothing.
//!
//! What a run records (its events, the requests it opens and closes) waits in its outbox until
//! the playbook has kept it with the run's state, so nothing is lost when the playbook cannot be
//! reached for a moment: every later call to the run reports what still waits, before it answers.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::backend::playbook as playbook_object;
use super::do_rpc::{
    self, PLAYBOOK_EVENTS, PLAYBOOK_REQUESTS, PLAYBOOK_RUNS, RUN_ANSWER, RUN_CANCEL, RUN_GET, RUN_START,
};
use super::models::{self, Unanswered};
use super::playbook::storage;
use crate::core::definition::Kind;
use crate::core::event::{EventCommand, NewEvent};
use crate::core::model::{resolve, wire};
use crate::core::run::reason::{self, Prepared};
use crate::core::run::store::{AnswerRun, IndexCommand, OpenRequest, Report, RequestCommand, StartRun};
use crate::core::run::{compute, decide_start, forecast, interaction, lookup, Run, RunError, RunStatus, Start};
use crate::core::text::{capitalized, quote};
use crate::core::Problem;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, report TEXT NOT NULL);
";

#[durable_object]
pub struct RunObject {
    state: State,
    sql: SqlStorage,
    env: Env,
}

/// How a start left the run: answered, or waiting for its model.
enum Begun {
    Answered(Run),
    Reasoning(Run, Prepared),
}

#[derive(Deserialize)]
struct Record {
    record: String,
}

#[derive(Deserialize)]
struct Outboxed {
    seq: i64,
    report: String,
}

#[derive(Deserialize)]
struct Named {
    run_id: String,
}

impl DurableObject for RunObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(e) = sql.exec(SCHEMA, None) {
            worker::console_error!("run schema: {e}");
        }
        RunObject { state, sql, env }
    }

    /// A run still waiting for its model when the deadline has long passed lost its call with a
    /// restart of the runtime: it fails, with words that say so, rather than hang.
    async fn alarm(&self) -> worker::Result<Response> {
        let result = match self.load() {
            Ok(Some(mut run))
                if run.definition.kind == Kind::Reasoning && run.status == RunStatus::Started { waiting: None } =>
            {
                let now = super::env::now();
                run.status = RunStatus::Failed {
                    error: RunError {
                        reason: "interrupted".into(),
                        detail: "The runtime stopped while the model was answering, so its answer was lost. Start a new run; this run id is never run again.".into(),
                    },
                    finished_at: now.clone(),
                };
                match self.save(&run).and_then(|()| self.record_outcome(&run, &now)) {
                    Ok(()) => self.report(&run).await,
                    Err(p) => Err(p),
                }
            }
            Ok(_) => Ok(()),
            Err(p) => Err(p),
        };
        if let Err(p) = result {
            worker::console_error!("run alarm: {}", p.detail);
        }
        Response::empty()
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let result = match req.path().as_str() {
            RUN_START => match do_rpc::read_body::<StartRun>(&mut req).await {
                Ok(start) => self.begin(start).await,
                Err(p) => Err(p),
            },
            RUN_GET => match do_rpc::read_body::<Named>(&mut req).await {
                Ok(n) => self.existing(&n.run_id),
                Err(p) => Err(p),
            },
            RUN_ANSWER => match do_rpc::read_body::<AnswerRun>(&mut req).await {
                Ok(a) => self.answer(a),
                Err(p) => Err(p),
            },
            RUN_CANCEL => match do_rpc::read_body::<Named>(&mut req).await {
                Ok(n) => self.cancel(&n.run_id),
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
    Problem::not_found(format!("This playbook has no run {run_id}. list_runs lists its runs, newest first."))
        .with_field("/run_id", "names no run of this playbook")
}

fn noun(run: &Run) -> String {
    format!("the {} {}", run.definition.kind.noun(), quote(&run.definition.name))
}

impl RunObject {
    fn load(&self) -> Result<Option<Run>, Problem> {
        let rows: Vec<Record> =
            self.sql.exec("SELECT record FROM run LIMIT 1", None).and_then(|c| c.to_array()).map_err(storage)?;
        rows.first()
            .map(|r| serde_json::from_str(&r.record))
            .transpose()
            .map_err(|e| Problem::internal(format!("a stored run could not be read: {e}")))
    }

    fn existing(&self, run_id: &str) -> Result<Run, Problem> {
        self.load()?.ok_or_else(|| unknown_run(run_id))
    }

    fn save(&self, run: &Run) -> Result<(), Problem> {
        let text = serde_json::to_string(run).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO run (id, record) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET record = excluded.record",
                vec![run.run_id.clone().into(), text.into()],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn outbox(&self, report: &Report) -> Result<(), Problem> {
        let text = serde_json::to_string(report).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql.exec("INSERT INTO outbox (report) VALUES (?)", vec![text.into()]).map_err(storage)?;
        Ok(())
    }

    fn record(&self, run: &Run, kind: &str, at: &str, summary: String, data: Value) -> Result<(), Problem> {
        let event = NewEvent { kind: kind.into(), at: at.into(), summary, run_id: Some(run.run_id.clone()), data };
        self.outbox(&Report::Event(event))
    }

    /// Hands the playbook what waits in the outbox, in order, then the run's state.
    async fn report(&self, run: &Run) -> Result<(), Problem> {
        let rows: Vec<Outboxed> = self
            .sql
            .exec("SELECT seq, report FROM outbox ORDER BY seq", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        if rows.is_empty() {
            return Ok(());
        }
        let stub = playbook_object(&self.env, &run.org, &run.playbook)?;
        for row in rows {
            let report: Report = serde_json::from_str(&row.report)
                .map_err(|e| Problem::internal(format!("a waiting report could not be read: {e}")))?;
            match report {
                Report::Event(event) => {
                    let body =
                        json!({ "playbook": run.playbook, "command": EventCommand::Append { events: vec![event] } });
                    let _: Value = do_rpc::call(&stub, PLAYBOOK_EVENTS, &body).await?;
                }
                Report::Request(command) => {
                    let body = json!({ "playbook": run.playbook, "command": command });
                    let _: Option<Value> = do_rpc::call(&stub, PLAYBOOK_REQUESTS, &body).await?;
                }
            }
            self.sql.exec("DELETE FROM outbox WHERE seq = ?", vec![row.seq.into()]).map_err(storage)?;
        }
        let update = json!({ "playbook": run.playbook, "command": IndexCommand::Record(run.clone()) });
        let _: Option<Value> = do_rpc::call(&stub, PLAYBOOK_RUNS, &update).await?;
        Ok(())
    }

    async fn begin(&self, start: StartRun) -> Result<Run, Problem> {
        match self.start(start)? {
            Begun::Answered(run) => Ok(run),
            Begun::Reasoning(run, prepared) => {
                // The start is kept and reported first: while the model answers, the run is
                // listed as started and its history shows it.
                self.report(&run).await?;
                self.reason(run, prepared).await
            }
        }
    }

    /// Everything here is synchronous: no other request reaches this object between reading
    /// the id and keeping the run, so concurrent duplicates start exactly one run.
    fn start(&self, start: StartRun) -> Result<Begun, Problem> {
        let StartRun { mut run, source, material, events } = start;
        let existing = self.load()?;
        match decide_start(existing.as_ref(), &run.definition, &run.input)? {
            Start::Existing(run) => return Ok(Begun::Answered(run)),
            Start::New => {}
        }
        self.save(&run)?;
        let started = run.started_at.clone();
        self.record(
            &run,
            "run_started",
            &started,
            format!("A run of {} started.", noun(&run)),
            json!({ "input": run.input }),
        )?;
        let now = super::env::now();
        run.status = match run.definition.kind {
            Kind::Reasoning => match reason::prepare(&source, &run.input) {
                Ok(prepared) => return Ok(Begun::Reasoning(run, prepared)),
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            Kind::Interaction => match interaction::ask(&source, &run.input, &now) {
                Ok(request) => RunStatus::Started { waiting: Some(request) },
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            Kind::Prediction => match forecast::evaluate(&source, &run.input, &events) {
                Ok(output) => RunStatus::Succeeded { output, finished_at: now.clone() },
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            Kind::Lookup => match lookup::evaluate(&source, &run.input, &material) {
                Ok(output) => RunStatus::Succeeded { output, finished_at: now.clone() },
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            _ => match compute::evaluate(&source, &run.input) {
                Ok(output) => RunStatus::Succeeded { output, finished_at: now.clone() },
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
        };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        Ok(Begun::Answered(run))
    }

    /// Asks the model and keeps how the run ended. An alarm past the deadline catches a call
    /// that a restart of the runtime cut off.
    async fn reason(&self, mut run: Run, prepared: Prepared) -> Result<Run, Problem> {
        let settings = models::settings(&self.env);
        let outcome = match resolve(&settings, &prepared.model) {
            Err(p) => {
                Err(RunError { reason: p.kind.unwrap_or_else(|| "model_not_configured".into()), detail: p.detail })
            }
            Ok(target) => {
                let deadline = target.provider.timeout_seconds;
                let wake = worker::Date::now().as_millis() as i64 + (deadline as i64 + 30) * 1000;
                if let Err(e) = self.state.storage().set_alarm(wake).await {
                    worker::console_error!("run alarm could not be set: {e}");
                }
                let began = worker::Date::now().as_millis();
                let out = wire::request(&target, &prepared.call);
                let prefix = &target.provider.prefix;
                match models::send(&out, deadline).await {
                    Err(Unanswered::Timeout) => Err(RunError {
                        reason: "provider_timeout".into(),
                        detail: format!("The provider {prefix} gave no answer within {deadline} seconds."),
                    }),
                    Err(Unanswered::Unreachable(why)) => Err(RunError {
                        reason: "provider_unreachable".into(),
                        detail: format!("The provider {prefix} could not be reached: {why}."),
                    }),
                    Ok((status, body)) => match wire::answer(&target.provider, status, &body) {
                        Err(error) => Err(error),
                        Ok(answer) => {
                            let now = super::env::now();
                            let data = json!({
                                "model": prepared.model,
                                "resolved_to": target.resolved,
                                "stop": format!("{:?}", answer.stop).to_lowercase(),
                                "input_tokens": answer.input_tokens,
                                "output_tokens": answer.output_tokens,
                                "duration_ms": worker::Date::now().as_millis().saturating_sub(began),
                            });
                            let words = format!("The model {} answered.", quote(&prepared.model));
                            self.record(&run, "model_answered", &now, words, data)?;
                            reason::finish(&answer, &prepared.call)
                        }
                    },
                }
            }
        };
        let now = super::env::now();
        // A cancel that came while the model answered stands: the answer is dropped.
        if let Some(current) = self.load()? {
            if !matches!(current.status, RunStatus::Started { .. }) {
                return Ok(current);
            }
        }
        run.status = match outcome {
            Ok(output) => RunStatus::Succeeded { output, finished_at: now.clone() },
            Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
        };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        Ok(run)
    }

    fn record_outcome(&self, run: &Run, now: &str) -> Result<(), Problem> {
        match &run.status {
            RunStatus::Started { waiting: Some(request) } => {
                self.outbox(&Report::Request(RequestCommand::Open(OpenRequest {
                    run_id: run.run_id.clone(),
                    definition: run.definition.clone(),
                    question: request.question.clone(),
                    answer_schema: request.answer_schema.clone(),
                    asked_at: request.asked_at.clone(),
                })))?;
                self.record(
                    run,
                    "interaction_requested",
                    now,
                    format!("{} asks a person and waits for the answer.", capitalized(noun(run))),
                    json!({ "question": request.question, "answer_schema": request.answer_schema }),
                )
            }
            RunStatus::Started { waiting: None } => Ok(()),
            RunStatus::Succeeded { output, .. } => {
                self.record(run, "run_succeeded", now, "A run finished.".into(), json!({ "output": output }))
            }
            RunStatus::Failed { error, .. } => self.record(
                run,
                "run_failed",
                now,
                format!("A run of {} failed: {}", noun(run), error.detail),
                json!({ "error": error }),
            ),
            RunStatus::Cancelled { .. } => {
                self.outbox(&Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }))?;
                self.record(run, "run_cancelled", now, format!("A run of {} was cancelled.", noun(run)), json!({}))
            }
        }
    }

    /// The waiting run takes the answer at once, once it fits the request's schema.
    fn answer(&self, a: AnswerRun) -> Result<Run, Problem> {
        let mut run = self.existing(&a.run_id)?;
        let RunStatus::Started { waiting: Some(request) } = &run.status else {
            return Err(Problem::conflict(format!(
                "The run {} is {} and waits for no answer; list_interactions lists the requests still open.",
                run.run_id,
                run.status.word()
            ))
            .with_field("/run_id", "names a run that waits for no answer"));
        };
        interaction::check_answer(request, &a.answer)?;
        let now = super::env::now();
        self.record(
            &run,
            "interaction_answered",
            &now,
            "A person answered the request.".into(),
            json!({ "answer": a.answer }),
        )?;
        self.outbox(&Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }))?;
        run.status = RunStatus::Succeeded { output: a.answer, finished_at: now.clone() };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        Ok(run)
    }

    /// Stops a run that is still going; a run that ended stays as it ended.
    fn cancel(&self, run_id: &str) -> Result<Run, Problem> {
        let mut run = self.existing(run_id)?;
        if !matches!(run.status, RunStatus::Started { .. }) {
            return Ok(run);
        }
        let now = super::env::now();
        run.status = RunStatus::Cancelled { finished_at: now.clone() };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        Ok(run)
    }
}
