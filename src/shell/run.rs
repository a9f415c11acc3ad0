//! The Run Durable Object: one per run, named by its org, playbook and run id. It keeps the run;
//! a start under an id it already holds answers that run and runs nothing.
//!
//! What a run records (its events, the requests it opens and closes) waits in its outbox until
//! the playbook has kept it with the run's state, so nothing is lost when the playbook cannot be
//! reached for a moment: every later call to the run reports what still waits, before it answers.

use std::cell::Cell;

use serde_json::{json, Value};
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::do_rpc::{self, Call};
use super::playbook::{kept_record, storage};
use crate::core::definition::reasoning::{prepare, Prepared};
use crate::core::definition::{computation, interaction, lookup, prediction, spec, Kind, Spec};
use crate::core::run::record::Record;
use crate::core::run::store::{
    AnswerRun, CancelRun, ChildEnded, GetRun, OpenRequest, Report, RequestCommand, SentEvent, StartRun,
};
use crate::core::run::words::FINISHED_EVENT;
use crate::core::run::{decide_start, Run, RunError, RunStatus, Start};
use crate::core::text::{capitalized, quote};
use crate::core::workflow::Outcome;
use crate::core::Problem;

mod flow;
mod outbox;
mod reasoning;

const SCHEMA: &[crate::core::migration::Step] = &[crate::core::migration::Step::Sql(
    "
CREATE TABLE IF NOT EXISTS run (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY AUTOINCREMENT, report TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS flow (id INTEGER PRIMARY KEY CHECK (id = 1), plan TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS todo (seq INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deferred (id INTEGER PRIMARY KEY CHECK (id = 1), call TEXT NOT NULL, asked INTEGER NOT NULL);
",
)];

/// How long a run whose report failed waits before its alarm tries again.
const REPORT_RETRY_MILLIS: i64 = 5_000;

#[durable_object]
pub struct RunObject {
    state: State,
    sql: SqlStorage,
    env: Env,
    /// Whether an alarm is carrying out the workflow's actions; another waits for it to finish.
    driving: Cell<bool>,
    /// One report of the outbox to the playbook at a time.
    reporting: futures::lock::Mutex<()>,
    /// The status the playbook's index last heard from this object, since it was loaded.
    indexed: Cell<Option<&'static str>>,
}

/// How a start left the run: answered, waiting for its model, or carried on by the alarm.
enum Begun {
    Answered(Run),
    Reasoning(Run, Prepared),
    Later(Run),
}

impl DurableObject for RunObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        if let Err(e) = super::migrate::migrate(&sql, SCHEMA) {
            worker::console_error!("run schema: {e}");
        }
        RunObject {
            state,
            sql,
            env,
            driving: Cell::new(false),
            reporting: futures::lock::Mutex::new(()),
            indexed: Cell::new(None),
        }
    }

    /// The alarm carries a run on: a workflow's next actions, times and heartbeat, or a step's
    /// model call; and it fails a model call a restart cut off.
    async fn alarm(&self) -> worker::Result<Response> {
        let result = match self.load() {
            Ok(Some(run)) => match run.definition.kind {
                Kind::Workflow => self.drive().await,
                Kind::Reasoning => self.reasoning_alarm(run).await,
                _ => self.report(&run).await,
            },
            Ok(None) => Ok(()),
            Err(p) => Err(p),
        };
        if let Err(p) = result {
            worker::console_error!("run alarm: {}", p.detail);
        }
        Response::empty()
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        let result = match req.path().as_str() {
            StartRun::PATH => match do_rpc::read::<StartRun>(&mut req).await {
                Ok(start) => self.begin(start).await,
                Err(p) => Err(p),
            },
            GetRun::PATH => match do_rpc::read::<GetRun>(&mut req).await {
                Ok(n) => self.existing(&n.run_id),
                Err(p) => Err(p),
            },
            AnswerRun::PATH => match do_rpc::read::<AnswerRun>(&mut req).await {
                Ok(a) => self.answer(a),
                Err(p) => Err(p),
            },
            CancelRun::PATH => match do_rpc::read::<CancelRun>(&mut req).await {
                Ok(n) => self.cancel(&n.run_id),
                Err(p) => Err(p),
            },
            ChildEnded::PATH => match do_rpc::read::<ChildEnded>(&mut req).await {
                Ok(c) => self.child_ended(c),
                Err(p) => Err(p),
            },
            SentEvent::PATH => match do_rpc::read::<SentEvent>(&mut req).await {
                Ok(e) => self.event_sent(e),
                Err(p) => Err(p),
            },
            other => Err(Problem::internal(format!("no endpoint {other}"))),
        };
        // A workflow's alarm is set before anything else is awaited: a restart in the middle of
        // the report must not leave a kept state with nothing to move it on. A read sets one too,
        // if it is missing, and never moves one later.
        if let Ok(run) = &result {
            if run.definition.kind == Kind::Workflow {
                if let Err(p) = self.schedule(false).await {
                    worker::console_error!("run alarm: {}", p.detail);
                }
            }
        }
        let result = match result {
            Ok(run) => match self.report(&run).await {
                Ok(()) => Ok(run),
                Err(p) => {
                    // Kept, but not yet with the playbook: the alarm hands it over later, even if
                    // the caller never asks again. (A model call under way has its own alarm.)
                    let asking =
                        run.definition.kind == Kind::Reasoning && matches!(run.status, RunStatus::Started { .. });
                    if !asking {
                        self.wake(worker::Date::now().as_millis() as i64 + REPORT_RETRY_MILLIS).await;
                    }
                    Err(p)
                }
            },
            Err(p) => Err(p),
        };
        let result = match result {
            Ok(run) if run.definition.kind == Kind::Workflow => Ok(self.shown(run)),
            other => other,
        };
        do_rpc::reply(result)
    }
}

/// How a run that answers at once ended, keeping its record.
fn ended(run: &mut Run, (result, record): (Result<Value, RunError>, Record), now: &str) -> RunStatus {
    run.record = Some(record);
    match result {
        Ok(output) => RunStatus::Succeeded { output, finished_at: now.to_string() },
        Err(error) => RunStatus::Failed { error, finished_at: now.to_string() },
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
        kept_record(&self.sql, "run", "run")
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

    async fn begin(&self, start: StartRun) -> Result<Run, Problem> {
        match self.start(start)? {
            Begun::Answered(run) => Ok(run),
            Begun::Later(run) => {
                self.wake(worker::Date::now().as_millis() as i64).await;
                Ok(run)
            }
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
            crate::core::run::words::started_event(&run.definition),
            json!({ "input": run.input }),
        )?;
        let now = super::env::now();
        if run.definition.kind == Kind::Workflow {
            self.start_flow(&mut run, &source)?;
            return Ok(Begun::Answered(run));
        }
        // The document is checked again here, the only way to the spec the run follows.
        run.status = match spec(run.definition.kind, &source) {
            Err(p) => {
                run.record = Record::unchecked(run.definition.kind, material.len(), events.len());
                RunStatus::Failed {
                    error: RunError { reason: "document".into(), detail: p.detail },
                    finished_at: now.clone(),
                }
            }
            // A step's model call is made by the alarm, so that the workflow is not held up by it.
            Ok(Spec::Reasoning(s)) if run.within.is_some() => match prepare(&s, &run.input) {
                Ok(prepared) => {
                    self.defer(&prepared)?;
                    return Ok(Begun::Later(run));
                }
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            Ok(Spec::Reasoning(s)) => match prepare(&s, &run.input) {
                Ok(prepared) => return Ok(Begun::Reasoning(run, prepared)),
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            Ok(Spec::Interaction(s)) => match interaction::ask(&s, &run.input, &now) {
                Ok(request) => RunStatus::Started { waiting: Some(request) },
                Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
            },
            Ok(Spec::Prediction(s)) => {
                let evaluated = prediction::evaluate(&s, &run.input, &events);
                ended(&mut run, evaluated, &now)
            }
            Ok(Spec::Lookup(s)) => {
                let evaluated = lookup::evaluate(&s, &run.input, &material);
                ended(&mut run, evaluated, &now)
            }
            Ok(Spec::Computation(s)) => {
                let evaluated = computation::evaluate(&s, &run.input);
                ended(&mut run, evaluated, &now)
            }
            Ok(Spec::Workflow(_)) => {
                self.start_flow(&mut run, &source)?;
                return Ok(Begun::Answered(run));
            }
        };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        Ok(Begun::Answered(run))
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
                self.record(run, "run_succeeded", now, FINISHED_EVENT.into(), json!({ "output": output }))
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
            json!({ "answer": a.answer, "answered_by": a.by }),
        )?;
        run.answered_by = Some(a.by);
        self.outbox(&Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }))?;
        run.status = RunStatus::Succeeded { output: a.answer, finished_at: now.clone() };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        self.ended_later(&run)?;
        Ok(run)
    }

    /// Stops a run that is still going; a run that ended stays as it ended.
    fn cancel(&self, run_id: &str) -> Result<Run, Problem> {
        let mut run = self.existing(run_id)?;
        if !matches!(run.status, RunStatus::Started { .. }) {
            return Ok(run);
        }
        if run.definition.kind == Kind::Workflow {
            self.cancel_flow(&mut run)?;
        }
        let now = super::env::now();
        run.status = RunStatus::Cancelled { finished_at: now.clone() };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        self.ended_later(&run)?;
        Ok(run)
    }

    /// A run a workflow's step started, ended after its start answered: the workflow hears of
    /// it through the outbox, so a workflow that cannot be reached at once hears later.
    fn ended_later(&self, run: &Run) -> Result<(), Problem> {
        let Some(within) = run.within.clone() else {
            return Ok(());
        };
        let Some(outcome) = Outcome::of(run) else {
            return Ok(());
        };
        self.outbox(&Report::Parent { within, child: run.run_id.clone(), outcome })
    }
}
