//! A workflow run in its object. Each input goes to the machine and its decision is kept (the
//! state, the records, the actions still to take) before any await, so inputs never interleave
//! and a restart finds every action it has not taken. The alarm takes them in order, rings at the
//! times steps wait for, and every 5 seconds while a step's function runs, asks it how it stands.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::backend::Objects;
use super::super::models;
use super::super::playbook::storage;
use super::{noun, RunObject};
use crate::core::definition::store::DefinitionView;
use crate::core::definition::workflow::plan as plan_of;
use crate::core::definition::Ref;
use crate::core::run::store::{ChildEnded, Report, SentEvent};
use crate::core::run::{Run, RunError, RunStatus, Within};
use crate::core::text::quote;
use crate::core::workflow::state::event_waits;
use crate::core::workflow::{decide, view, words, Action, Command, Flow, Outcome, Plan, StepStatus};
use crate::core::Problem;
use crate::ops::run_start::{self, start_viewed, Asked};
use crate::ops::Backend;

/// How often a running step's function is asked how it stands, in case its report was lost.
const HEARTBEAT_MILLIS: i64 = 5_000;
/// How often a round of actions hands its history to the playbook while steps keep starting.
const REPORT_EVERY_MILLIS: u64 = 250;

#[derive(Deserialize)]
struct Kept {
    plan: String,
    state: String,
}

#[derive(Deserialize)]
struct Todo {
    seq: i64,
    action: String,
}

fn clock() -> (DateTime<Utc>, String) {
    let now = super::super::env::instant();
    (now, super::super::env::stamp(now))
}

fn encode(value: &impl Serialize) -> Result<String, Problem> {
    serde_json::to_string(value).map_err(|e| Problem::internal(format!("could not encode: {e}")))
}

impl RunObject {
    fn flow(&self) -> Result<Option<(Plan, Flow)>, Problem> {
        let rows: Vec<Kept> = self
            .sql
            .exec("SELECT plan, state FROM flow WHERE id = 1", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let unread = |e: serde_json::Error| Problem::internal(format!("a workflow run's state could not be read: {e}"));
        rows.first()
            .map(|k| {
                Ok((serde_json::from_str(&k.plan).map_err(unread)?, serde_json::from_str(&k.state).map_err(unread)?))
            })
            .transpose()
    }

    /// Keeps the plan the run started with, so a later version of the workflow never changes it.
    pub(super) fn start_flow(&self, run: &mut Run, source: &str) -> Result<(), Problem> {
        let plan = match plan_of(source) {
            Ok(plan) => plan,
            Err(p) => {
                let (_, now) = clock();
                let error = RunError { reason: "document".into(), detail: p.detail };
                run.status = RunStatus::Failed { error, finished_at: now.clone() };
                self.save(run)?;
                return self.record_outcome(run, &now);
            }
        };
        let flow = Flow::new(&run.run_id, &plan);
        self.sql
            .exec(
                "INSERT OR REPLACE INTO flow (id, plan, state) VALUES (1, ?, ?)",
                vec![encode(&plan)?.into(), encode(&flow)?.into()],
            )
            .map_err(storage)?;
        self.feed(run, &plan, &flow, Command::Start { input: run.input.clone() })
    }

    /// One input to the machine; what it decided is kept before anything is done about it.
    fn feed(&self, run: &mut Run, plan: &Plan, flow: &Flow, command: Command) -> Result<(), Problem> {
        let (now, at) = clock();
        let decision = decide(plan, flow, command, now);
        self.sql
            .exec("UPDATE flow SET state = ? WHERE id = 1", vec![encode(&decision.flow)?.into()])
            .map_err(storage)?;
        // The playbook delivers the events it records to the steps that wait for them.
        let before = flow.events_waited();
        for kind in decision.flow.events_waited().into_iter().filter(|k| !before.contains(k)) {
            self.outbox(&Report::Wait { kind })?;
        }
        let mut ended = None;
        for action in decision.actions {
            match action {
                Action::Record { kind, summary, data } => self.record(run, &kind, &at, summary, data)?,
                Action::StartChild { .. } | Action::CancelChildren { .. } => {
                    self.sql
                        .exec("INSERT INTO todo (action) VALUES (?)", vec![encode(&action)?.into()])
                        .map_err(storage)?;
                }
                // The alarm is set from the state once the input is kept; see `schedule`.
                Action::SetTimer { .. } => {}
                Action::Finish { output } => ended = Some(RunStatus::Succeeded { output, finished_at: at.clone() }),
                Action::Fail { error } => ended = Some(RunStatus::Failed { error, finished_at: at.clone() }),
            }
        }
        if let Some(status) = ended {
            if matches!(run.status, RunStatus::Started { .. }) {
                run.status = status;
                self.save(run)?;
                self.record_outcome(run, &at)?;
            }
        }
        Ok(())
    }

    /// Loads the run and its state, and gives the machine one input.
    fn command(&self, command: Command) -> Result<Run, Problem> {
        let mut run = self.load()?.ok_or_else(|| Problem::internal("a workflow run's record is missing"))?;
        if let Some((plan, flow)) = self.flow()? {
            self.feed(&mut run, &plan, &flow, command)?;
        }
        Ok(run)
    }

    pub(super) fn cancel_flow(&self, run: &mut Run) -> Result<(), Problem> {
        if let Some((plan, flow)) = self.flow()? {
            self.feed(run, &plan, &flow, Command::Cancel)?;
        }
        Ok(())
    }

    pub(super) fn child_ended(&self, c: ChildEnded) -> Result<Run, Problem> {
        let run = self.existing(&c.run_id)?;
        if run.definition.kind != crate::core::definition::Kind::Workflow {
            return Ok(run);
        }
        self.command(Command::ChildFinished { step: c.step, run_id: c.child, outcome: c.outcome })
    }

    /// Takes an event for a step that waits for it, or will; refuses one nothing waits for.
    pub(super) fn event_sent(&self, e: SentEvent) -> Result<Run, Problem> {
        let run = self.existing(&e.run_id)?;
        if run.definition.kind != crate::core::definition::Kind::Workflow {
            return Err(Problem::conflict(format!(
                "The run {} is a run of {}; only a workflow's run takes events.",
                run.run_id,
                noun(&run)
            ))
            .with_field("/run_id", "names a run that is not a workflow's"));
        }
        if !matches!(run.status, RunStatus::Started { .. }) {
            return Err(Problem::conflict(format!(
                "The run {} has {}, so no step of it waits for an event any more.",
                run.run_id,
                ended_words(&run.status)
            ))
            .with_field("/run_id", "names a run that has ended"));
        }
        let Some((plan, flow)) = self.flow()? else {
            return Err(Problem::internal("a workflow run's state is missing"));
        };
        if !event_waits(&plan, &flow).iter().any(|(_, filter)| filter.kind == e.name) {
            return Err(Problem::conflict(format!(
                "No step of the run {} waits for the event {}. {}",
                run.run_id,
                quote(&e.name),
                words::waits_on(&plan, &flow)
            ))
            .with_field("/name", "names an event no step of this run waits for"));
        }
        self.command(Command::EventArrived { name: e.name, data: e.data })
    }

    /// The run as an agent reads it: with its steps.
    pub(super) fn shown(&self, mut run: Run) -> Run {
        if let Ok(Some((plan, flow))) = self.flow() {
            run.steps = Some(view::steps(&plan, &flow));
        }
        run
    }

    /// Sets the alarm to the soonest thing the run waits for: actions still to take, a time a step
    /// waits for, or the heartbeat of a running step. Outside the alarm an earlier alarm stands,
    /// so that calls that come often never push the heartbeat away.
    pub(super) async fn schedule(&self, replace: bool) -> Result<(), Problem> {
        let now = worker::Date::now().as_millis() as i64;
        let todo: Vec<Todo> =
            self.sql.exec("SELECT seq, action FROM todo LIMIT 1", None).and_then(|c| c.to_array()).map_err(storage)?;
        let mut at: Option<i64> = (!todo.is_empty()).then_some(now);
        if let Some((_, flow)) = self.flow()? {
            if !flow.ended() {
                let due = flow.next_due().map(|d| d.timestamp_millis().max(now));
                let beat = (!flow.running_children().is_empty()).then_some(now + HEARTBEAT_MILLIS);
                at = [at, due, beat].into_iter().flatten().min();
            }
        }
        let Some(at) = at else { return Ok(()) };
        if !replace {
            if let Ok(Some(set)) = self.state.storage().get_alarm().await {
                if set <= at {
                    return Ok(());
                }
            }
        }
        self.wake(at).await;
        Ok(())
    }

    /// Sets the alarm to `at`, milliseconds since the epoch. (An `i64` handed to `set_alarm` is
    /// read as an offset from now, so the time goes as a date.)
    pub(super) async fn wake(&self, at: i64) {
        let at = DateTime::from_timestamp_millis(at).unwrap_or_default();
        if let Err(e) = self.state.storage().set_alarm(at).await {
            worker::console_error!("run alarm could not be set: {e}");
        }
    }

    /// The alarm's work for a workflow run; one at a time, and the one under way takes what
    /// comes in meanwhile.
    pub(super) async fn drive(&self) -> Result<(), Problem> {
        if self.driving.replace(true) {
            return Ok(());
        }
        // Should this alarm be cut short, the next one carries on.
        self.wake(worker::Date::now().as_millis() as i64 + HEARTBEAT_MILLIS).await;
        let result = self.take_actions().await;
        self.driving.set(false);
        let scheduled = self.schedule(true).await;
        result.and(scheduled)
    }

    async fn take_actions(&self) -> Result<(), Problem> {
        // Each function is read once per round, and the history goes to the playbook every so
        // often rather than after every step, so a long chain of quick steps stays quick.
        let mut read: HashMap<Ref, DefinitionView> = HashMap::new();
        let mut reported = worker::Date::now().as_millis();
        let (now, _) = clock();
        if let Some((_, flow)) = self.flow()? {
            if flow.next_due().is_some_and(|due| due <= now) {
                let run = self.command(Command::TimerFired)?;
                self.report(&run).await?;
            }
        }
        loop {
            let rows: Vec<Todo> = self
                .sql
                .exec("SELECT seq, action FROM todo ORDER BY seq LIMIT 1", None)
                .and_then(|c| c.to_array())
                .map_err(storage)?;
            let Some(row) = rows.into_iter().next() else { break };
            let action: Action = serde_json::from_str(&row.action)
                .map_err(|e| Problem::internal(format!("a workflow's action could not be read: {e}")))?;
            let run = self.load()?.ok_or_else(|| Problem::internal("a workflow run's record is missing"))?;
            let backend = Objects { env: &self.env };
            let ended = match action {
                Action::StartChild { step, definition, input, run_id } => self
                    .start_step(&backend, &mut read, &run, &step, definition, input, &run_id)
                    .await
                    .map(|o| (step, run_id, o)),
                Action::CancelChildren { run_ids } => {
                    for id in run_ids {
                        if let Err(p) = backend.cancel_run(&run.org, &run.playbook, &id).await {
                            worker::console_error!("a step's run {id} could not be cancelled: {}", p.detail);
                        }
                    }
                    None
                }
                _ => None,
            };
            self.sql.exec("DELETE FROM todo WHERE seq = ?", vec![row.seq.into()]).map_err(storage)?;
            let run = match ended {
                Some((step, run_id, outcome)) => self.command(Command::ChildFinished { step, run_id, outcome })?,
                None => run,
            };
            if worker::Date::now().as_millis() - reported >= REPORT_EVERY_MILLIS {
                self.report(&run).await?;
                reported = worker::Date::now().as_millis();
            }
        }
        self.heartbeat().await
    }

    /// Starts a step's function as a run of its own, under the id the machine gave it: a start
    /// that a restart cut short, taken again, answers the run it started and runs nothing.
    #[allow(clippy::too_many_arguments)] // one step's whole start, named where it is called
    async fn start_step(
        &self,
        backend: &Objects<'_>,
        read: &mut HashMap<Ref, DefinitionView>,
        run: &Run,
        step: &str,
        definition: Ref,
        input: Value,
        child: &str,
    ) -> Option<Outcome> {
        let (_, now) = clock();
        let asked = Asked {
            org: run.org.clone(),
            playbook: run.playbook.clone(),
            definition,
            input,
            run_id: child.to_string(),
            now,
            within: Some(Within { run_id: run.run_id.clone(), step: step.to_string() }),
            by: crate::core::actor::Actor::step(&run.run_id, step),
        };
        let view = match read.get(&asked.definition) {
            Some(view) => Ok(view.clone()),
            None => run_start::read(backend, &asked).await,
        };
        let started = match view {
            Ok(view) => {
                read.insert(asked.definition.clone(), view.clone());
                start_viewed(backend, &models::settings(&self.env), asked, &view).await
            }
            Err(p) => Err(p),
        };
        match started {
            Ok(child) => Outcome::of(&child),
            Err(p) => {
                if p.status() == 409 {
                    if let Ok(existing) = backend.get_run(&run.org, &run.playbook, child).await {
                        return Outcome::of(&existing);
                    }
                }
                let reason = p.kind.clone().unwrap_or_else(|| p.reason.as_str().to_string());
                Some(Outcome::Failed { error: RunError { reason, detail: p.detail } })
            }
        }
    }

    /// Asks each running step's run how it stands, and takes the end of one that ended.
    async fn heartbeat(&self) -> Result<(), Problem> {
        let Some((_, flow)) = self.flow()? else { return Ok(()) };
        let run = self.load()?.ok_or_else(|| Problem::internal("a workflow run's record is missing"))?;
        let backend = Objects { env: &self.env };
        for s in &flow.steps {
            let StepStatus::Running { run_id, .. } = &s.status else { continue };
            let outcome = match backend.get_run(&run.org, &run.playbook, run_id).await {
                Ok(child) => Outcome::of(&child),
                Err(p) if p.status() == 404 => Some(Outcome::Failed {
                    error: RunError {
                        reason: "lost".into(),
                        detail: format!("The run {run_id} this step started was not found."),
                    },
                }),
                Err(_) => None,
            };
            if let Some(outcome) = outcome {
                self.command(Command::ChildFinished { step: s.id.clone(), run_id: run_id.clone(), outcome })?;
            }
        }
        // The run as it stands now goes to the playbook's index with what it recorded.
        let run = self.load()?.unwrap_or(run);
        self.report(&run).await
    }
}

fn ended_words(status: &RunStatus) -> String {
    match status {
        RunStatus::Started { .. } => "not ended".into(),
        other => format!("ended {}", other.word()),
    }
}
