//! One run's object, as the platform-free loop it runs: load the run, let `core::run::life` (or,
//! for a workflow, `core::workflow`) decide, keep the new state and its reports before any
//! await, then act: hand the reports to the playbook, ask a model, start a step. The Run
//! Durable Object only reads requests into `Asked` and hands this its store and its host.
//!
//! What a run records waits in its outbox until the playbook has kept it with the run's state,
//! so nothing is lost when the playbook cannot be reached for a moment: every later call to the
//! run reports what still waits, before it answers.

mod call;
mod flow;
mod generation;
mod host;
mod model;
mod outbox;
mod store;

use std::cell::Cell;

pub use host::RunHost;
#[cfg(not(target_arch = "wasm32"))]
pub use store::Mem;
pub use store::RunStore;

use crate::core::definition::Kind;
use crate::core::run::life::{self, Decision, Input, Then};
use crate::core::run::store::{AnswerRun, ChildEnded, SentEvent, StartRun, Stepped};
use crate::core::run::{Run, RunStatus};
use crate::core::Problem;

/// How long past a model's or a call's deadline the run's alarm waits before it takes the work
/// as lost, cut off by a restart.
const LOST_AFTER_MILLIS: i64 = 30_000;

/// How long a model's answer or a tool's call goes before the run reports what it recorded
/// before it, rather than with its end.
const SHOW_AFTER_MILLIS: u64 = 1_000;

/// How long a run whose report failed waits before its alarm tries again.
const REPORT_RETRY_MILLIS: i64 = 5_000;

/// What a run's object is asked.
#[derive(Debug)]
pub enum Asked {
    Start(Box<StartRun>),
    Get {
        run_id: String,
    },
    Answer(AnswerRun),
    Cancel {
        run_id: String,
    },
    /// A step's run ended after its start answered.
    Child(ChildEnded),
    /// An event sent to a workflow run with `send_run_event`.
    Event(SentEvent),
}

/// What the object remembers while it is loaded, beside what it keeps.
#[derive(Default)]
pub struct Memory {
    /// Whether an alarm is carrying out a workflow's actions; another waits for it to finish.
    driving: Cell<bool>,
    /// One report of the outbox to the playbook at a time.
    reporting: futures::lock::Mutex<()>,
    /// The status the playbook's index last heard from this object, since it was loaded.
    indexed: Cell<Option<&'static str>>,
    /// Whether a reasoning run's dialogue with its model is going in this object now.
    asking: Cell<bool>,
}

pub struct Runner<'a> {
    pub store: &'a dyn RunStore,
    pub host: &'a dyn RunHost,
    pub memory: &'a Memory,
}

pub fn unknown_run(run_id: &str) -> Problem {
    Problem::not_found(format!("This playbook has no run {run_id}. list_runs lists its runs, newest first."))
        .with_field("/run_id", "names no run of this playbook")
}

impl Runner<'_> {
    /// Answers one request: decided and kept first, then reported to the playbook before the
    /// answer, so what a caller is told has happened is in the playbook's history too.
    pub async fn handle(&self, asked: Asked) -> Result<Run, Problem> {
        let result = match asked {
            Asked::Start(start) => self.begin(*start).await,
            Asked::Get { run_id } => self.read(&run_id),
            Asked::Answer(a) => self.input(&a.run_id, Input::Answer { answer: a.answer, by: a.by }),
            Asked::Cancel { run_id } => self.cancel(&run_id),
            Asked::Child(c) => self.child_ended(c),
            Asked::Event(e) => self.event_sent(e),
        };
        self.after(result?).await
    }

    /// Starts a workflow's step: a run that ended at its start answers what it recorded, for the
    /// workflow run to carry (`StartStep`); any other is reported as `handle` reports it.
    pub async fn start_step(&self, start: StartRun) -> Result<Stepped, Problem> {
        let run = self.begin(start).await?;
        if !matches!(run.status, RunStatus::Started { .. }) && run.definition.kind != Kind::Workflow {
            let carried = self.carried(&run)?;
            if !carried.is_empty() {
                return Ok(Stepped { run, carried });
            }
        }
        Ok(Stepped { run: self.after(run).await?, carried: Vec::new() })
    }

    /// What follows each decision before the answer: the alarms it needs, then its report.
    async fn after(&self, run: Run) -> Result<Run, Problem> {
        // A workflow's alarm is set before anything else is awaited: a restart in the middle of
        // the report must not leave a kept state with nothing to move it on. A read sets one too,
        // if it is missing, and never moves one later.
        if run.definition.kind == Kind::Workflow {
            if let Err(p) = self.schedule(false).await {
                self.host.log(&format!("run alarm: {}", p.detail));
            }
        }
        self.schedule_request(&run).await;
        if let Err(p) = self.report(&run).await {
            // Kept, but not yet with the playbook: the alarm hands it over later, even if the
            // caller never asks again. (A model call under way has its own alarm.)
            let asking = run.definition.kind == Kind::Reasoning && matches!(run.status, RunStatus::Started { .. });
            if !asking {
                self.host.wake(self.host.now().timestamp_millis() + REPORT_RETRY_MILLIS).await;
            }
            return Err(p);
        }
        Ok(if run.definition.kind == Kind::Workflow { self.shown(run) } else { run })
    }

    /// The alarm carries a run on: a workflow's next actions, times and heartbeat, or a step's
    /// model call; and it fails a model call a restart cut off.
    pub async fn alarm(&self) -> Result<(), Problem> {
        let Some(run) = self.store.run()? else { return Ok(()) };
        // Work this object is doing is not lost: the alarm looks again a while later.
        if self.memory.asking.get() && self.under_way(&run)? {
            self.host.wake(self.host.now().timestamp_millis() + LOST_AFTER_MILLIS).await;
            return Ok(());
        }
        match run.definition.kind {
            Kind::Workflow => self.drive().await,
            Kind::Reasoning => self.model_alarm(run).await,
            Kind::Interaction | Kind::Lookup | Kind::Generation => self.call_alarm(run).await,
            _ => self.report(&run).await,
        }
    }

    fn existing(&self, run_id: &str) -> Result<Run, Problem> {
        self.store.run()?.ok_or_else(|| unknown_run(run_id))
    }

    /// The run as it stands; one whose model or call a restart cut off ends as `interrupted` as
    /// it is read, rather than at its alarm.
    fn read(&self, run_id: &str) -> Result<Run, Problem> {
        let run = self.existing(run_id)?;
        if self.cut_off(&run)? {
            return self.input(run_id, Input::Interrupted);
        }
        Ok(run)
    }

    /// Says, while the guard lives, that this object is asking the run's model or calling its
    /// tool. Only one object of a run lives at a time, so work a run shows under way that its
    /// object is not doing was being done by one a restart ended.
    fn asking(&self) -> model::Asking<'_> {
        self.memory.asking.set(true);
        model::Asking(&self.memory.asking)
    }

    /// Whether the run shows a model's answer or a tool's call under way that no one is waiting
    /// for any more: its object was restarted while it waited.
    fn cut_off(&self, run: &Run) -> Result<bool, Problem> {
        Ok(!self.memory.asking.get() && self.under_way(run)?)
    }

    /// Sets the alarm to ring once work of `seconds` from now is past its deadline and its grace,
    /// to find it lost should a restart cut it off; answers now, in milliseconds.
    async fn watch(&self, seconds: u64) -> i64 {
        let began = self.host.now().timestamp_millis();
        let deadline = i64::try_from(seconds).unwrap_or(i64::MAX / 2_000) * 1000;
        self.host.wake(began + deadline + LOST_AFTER_MILLIS).await;
        began
    }

    /// Milliseconds since `began`.
    fn took(&self, began: i64) -> u64 {
        u64::try_from(self.host.now().timestamp_millis().saturating_sub(began)).unwrap_or(0)
    }

    /// Whether the run shows a model's answer or a tool's call under way.
    fn under_way(&self, run: &Run) -> Result<bool, Problem> {
        let RunStatus::Started { waiting } = &run.status else { return Ok(false) };
        Ok(match run.definition.kind {
            // A step's model call the alarm has not made yet is not under way.
            Kind::Reasoning => !matches!(self.store.deferred()?, Some((_, false))),
            Kind::Lookup | Kind::Generation => true,
            Kind::Interaction => match waiting {
                None => true,
                Some(request) => request.through.as_ref().is_some_and(|t| t.sent.is_none()),
            },
            _ => false,
        })
    }

    /// Keeps what the machine decided, the run and its reports, as one batch: the one place a
    /// decision is written.
    fn keep(&self, decision: &Decision) -> Result<(), Problem> {
        self.store.batch(&mut || {
            if decision.changed {
                self.store.keep(&decision.run)?;
            }
            decision.reports.iter().try_for_each(|report| self.store.push(report))
        })
    }

    /// One input to the run as it stands, kept.
    fn input(&self, run_id: &str, input: Input) -> Result<Run, Problem> {
        let run = self.existing(run_id)?;
        let decision = life::decide(run, input, &self.stamp())?;
        self.keep(&decision)?;
        Ok(decision.run)
    }

    async fn begin(&self, start: StartRun) -> Result<Run, Problem> {
        // Everything up to the first await is synchronous: no other request reaches this object
        // between reading the id and keeping the run, so concurrent duplicates start one run.
        let existing = self.store.run()?;
        let reused = start.reused.clone();
        let Decision { mut run, changed, reports, then } = life::start(existing.as_ref(), start, &self.stamp())?;
        self.store.batch(&mut || {
            self.keep(&Decision { run: run.clone(), changed, reports: reports.clone(), then: Then::Answer })?;
            match &then {
                Then::Flow(plan) => self.start_flow(&mut run, plan.clone(), reused.as_ref()),
                Then::Defer(prepared) => self.store.defer(prepared),
                Then::Answer | Then::Ask(_) | Then::Call(_) | Then::Generate(_) => Ok(()),
            }
        })?;
        match then {
            Then::Answer | Then::Flow(_) => Ok(run),
            Then::Defer(_) => {
                self.host.wake(self.host.now().timestamp_millis()).await;
                Ok(run)
            }
            Then::Ask(prepared) => {
                // Said before the first await, so that a read meanwhile finds the work going.
                let _asking = self.asking();
                // The start is reported once the model has taken a while (`meanwhile`). A report
                // that fails waits in the outbox for the next (one report goes at a time, in
                // order); the model is asked all the same, so the run does not hang.
                self.meanwhile(&run, self.ask_model(run.clone(), prepared)).await
            }
            Then::Call(planned) => {
                let _asking = self.asking();
                self.meanwhile(&run, self.make_call(run.clone(), *planned)).await
            }
            Then::Generate(prepared) => {
                let _asking = self.asking();
                self.report_now(&run).await;
                self.generate(run, *prepared).await
            }
        }
    }

    /// Stops a run that is still going; a run that ended stays as it ended.
    fn cancel(&self, run_id: &str) -> Result<Run, Problem> {
        let mut run = self.existing(run_id)?;
        let mut cancelled = None;
        self.store.batch(&mut || {
            if run.definition.kind == Kind::Workflow && matches!(run.status, RunStatus::Started { .. }) {
                self.cancel_flow(&mut run)?;
            }
            cancelled = Some(self.input(run_id, Input::Cancel)?);
            Ok(())
        })?;
        cancelled.ok_or_else(|| Problem::internal("a cancel kept nothing"))
    }

    /// Does `work` (a model's answer, a tool's call), and reports what the run recorded before it
    /// once the work has taken `SHOW_AFTER_MILLIS`: a slow model or call shows in the playbook's
    /// list and history while it goes, and a quick one costs the playbook's object one report,
    /// at the end, rather than one more before (docs/performance.md: that object takes every report of its
    /// playbook's runs in turn).
    async fn meanwhile<T>(&self, run: &Run, work: impl std::future::Future<Output = T>) -> T {
        let work = std::pin::pin!(work);
        match futures::future::select(work, self.host.backend().pause(SHOW_AFTER_MILLIS)).await {
            futures::future::Either::Left((done, _)) => done,
            futures::future::Either::Right(((), work)) => futures::join!(self.report_now(run), work).1,
        }
    }

    /// Reports what waits, where a failure only delays it: the outbox keeps it for the next report.
    async fn report_now(&self, run: &Run) {
        if let Err(p) = self.report(run).await {
            self.host.log(&format!("run {}: its history waits to be reported: {}", run.run_id, p.detail));
        }
    }

    fn stamp(&self) -> String {
        crate::core::text::stamp(self.host.now())
    }
}
