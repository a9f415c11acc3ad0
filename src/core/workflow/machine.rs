//! The machine decides, the Durable Object acts: `decide` takes a run's state and one input, and
//! answers the next state with the actions to take, in order. It reads no clock and starts
//! nothing; the same state and input always give the same answer, so a replay repeats it exactly.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

pub use super::io::{Action, Command, Decision, Outcome};

use super::eval;
use super::plan::{Action as Do, OnFailure, Plan, Wait};
use super::state::{child_run_id, Arrived, Awaiting, Flow, FlowStatus, StepStatus, INBOX_MAX};
use super::words;
use crate::core::run::RunError;

/// The next state of `flow` after `command`, and the actions that carry it out.
pub fn decide(plan: &Plan, flow: &Flow, command: Command, now: DateTime<Utc>) -> Decision {
    let same_steps =
        plan.steps.len() == flow.steps.len() && plan.steps.iter().zip(&flow.steps).all(|(p, s)| p.id == s.id);
    if !same_steps && !flow.ended() {
        // The run keeps the version it started with; a state of another version cannot be read.
        let error = RunError {
            reason: crate::core::ErrorCode::Plan,
            detail: "The run's state does not match its workflow's steps.".into(),
        };
        let mut failed = flow.clone();
        failed.status = FlowStatus::Failed { error: error.clone() };
        return Decision { flow: failed, actions: vec![Action::Fail { error }] };
    }
    let mut m = Machine { plan, flow: flow.clone(), now, moved: Vec::new(), records: Vec::new(), tail: Vec::new() };
    let cause = match m.take(command) {
        Some(cause) => cause,
        // Nothing to do: a repeat, or an input for a run that has ended.
        None => return Decision { flow: flow.clone(), actions: Vec::new() },
    };
    if matches!(m.flow.status, FlowStatus::Running) {
        m.advance();
    }
    m.finish(&cause)
}

struct Machine<'p> {
    plan: &'p Plan,
    flow: Flow,
    now: DateTime<Utc>,
    /// Indexes of the steps that moved, each once, in the order they first moved.
    moved: Vec<usize>,
    records: Vec<Action>,
    /// Actions that follow the records: children to start or cancel, the end.
    tail: Vec<Action>,
}

/// Whether a step can start: the steps it follows decide.
enum Ready {
    Wait,
    Go,
    Skip(&'static str),
}

impl Machine<'_> {
    /// Applies the input itself; `None` when it changes nothing and records nothing.
    fn take(&mut self, command: Command) -> Option<String> {
        if self.flow.ended() {
            return None;
        }
        match command {
            Command::Start { input } => {
                if self.flow.status != FlowStatus::NotStarted {
                    return None;
                }
                self.flow.input = input;
                self.flow.status = FlowStatus::Running;
                // A run again from a step starts with the steps before it ended as the old run
                // ended them: said once each, so the history shows where their outputs came from.
                let reused: Vec<String> =
                    self.flow.steps.iter().filter(|s| s.status.ended()).map(|s| s.id.clone()).collect();
                for id in reused {
                    self.record("step_reused", words::reused(&id), json!({ "step": id }));
                }
                Some(words::STARTED.into())
            }
            _ if self.flow.status == FlowStatus::NotStarted => None,
            Command::ChildFinished { step, run_id, outcome } => {
                let i = self.flow.steps.iter().position(|s| {
                    s.id == step && matches!(&s.status, StepStatus::Running { run_id: r, .. } if *r == run_id)
                })?;
                let StepStatus::Running { attempt, started_at, .. } = self.flow.steps[i].status.clone() else {
                    return None;
                };
                match outcome {
                    Outcome::Succeeded { output } => self.succeed(i, output, attempt, started_at),
                    Outcome::Failed { error } => self.fail(i, error, attempt, started_at),
                }
                Some(words::ANSWERED.into())
            }
            Command::EventArrived { name, data } => {
                let waiting: Vec<usize> = (0..self.flow.steps.len())
                    .filter(|&i| matches!(&self.flow.steps[i].status, StepStatus::Waiting { on: Awaiting::Event { filter, .. }, .. } if filter.matches(&name, &data)))
                    .collect();
                for &i in &waiting {
                    if let Some(started_at) = self.flow.steps[i].status.started_at() {
                        self.succeed(i, data.clone(), 1, started_at);
                    }
                }
                if waiting.is_empty() {
                    if self.flow.inbox.len() >= INBOX_MAX {
                        self.flow.inbox.remove(0);
                    }
                    self.flow.inbox.push(Arrived { name: name.clone(), data });
                }
                Some(words::event_came(&name))
            }
            Command::TimerFired => {
                for i in 0..self.flow.steps.len() {
                    if self.flow.steps[i].status.due().is_none_or(|due| due > self.now) {
                        continue;
                    }
                    match self.flow.steps[i].status.clone() {
                        StepStatus::Waiting { on: Awaiting::Time { at }, started_at } => {
                            self.succeed(i, json!({ "at": words::time(at) }), 1, started_at)
                        }
                        StepStatus::Waiting { on: Awaiting::Event { filter, .. }, started_at } => {
                            let detail = format!("no event {} came in time", filter.kind);
                            self.fail(i, RunError { reason: crate::core::ErrorCode::Timeout, detail }, 1, started_at)
                        }
                        StepStatus::Retrying { attempt, started_at, .. } => self.start(i, attempt + 1, started_at),
                        _ => {}
                    }
                }
                (!self.moved.is_empty()).then(|| words::TIME_CAME.into())
            }
            Command::Cancel => {
                let run_ids = self.flow.running_children();
                for i in 0..self.flow.steps.len() {
                    let status = &self.flow.steps[i].status;
                    if let (false, Some(started_at)) = (status.ended(), status.started_at()) {
                        let attempt = status.attempt().unwrap_or(1);
                        let finished_at = self.now;
                        self.set(i, StepStatus::Cancelled { attempt, started_at, finished_at });
                        let id = self.flow.steps[i].id.clone();
                        self.record("step_cancelled", words::cancelled(&id), json!({ "step": id }));
                    }
                }
                if !run_ids.is_empty() {
                    self.tail.push(Action::CancelChildren { run_ids });
                }
                self.flow.status = FlowStatus::Cancelled;
                Some(words::CANCELLED.into())
            }
        }
    }

    /// Starts every step that can start, and skips every one that never will, until none moves.
    fn advance(&mut self) {
        loop {
            let mut changed = false;
            for i in 0..self.plan.steps.len().min(self.flow.steps.len()) {
                if self.flow.status != FlowStatus::Running || self.flow.steps[i].status != StepStatus::Pending {
                    continue;
                }
                match self.ready(i) {
                    Ready::Wait => continue,
                    Ready::Skip(why) => self.skip(i, why),
                    Ready::Go => match self.plan.steps[i].when.clone() {
                        Some(when) => match eval::holds(&when, &eval::scope(&self.flow)) {
                            Ok(true) => self.start(i, 1, self.now),
                            Ok(false) => self.skip(i, "its condition was false"),
                            Err(e) => self.fail_at_once(
                                i,
                                crate::core::ErrorCode::Condition,
                                format!("its condition has no value: {e}"),
                            ),
                        },
                        None => self.start(i, 1, self.now),
                    },
                }
                changed = true;
            }
            if !changed {
                break;
            }
        }
        if self.flow.status == FlowStatus::Running && self.flow.steps.iter().all(|s| s.status.ended()) {
            match eval::output(self.plan, &self.flow) {
                Ok(output) => {
                    self.flow.status = FlowStatus::Succeeded { output: output.clone() };
                    self.tail.push(Action::Finish { output });
                }
                Err(e) => {
                    let error = RunError {
                        reason: crate::core::ErrorCode::Output,
                        detail: format!("The output has no value: {e}"),
                    };
                    self.flow.status = FlowStatus::Failed { error: error.clone() };
                    self.tail.push(Action::Fail { error });
                }
            }
        }
    }

    fn ready(&self, i: usize) -> Ready {
        let step = &self.plan.steps[i];
        if let Some(primary) = &step.fallback_for {
            return match self.status_of(primary) {
                Some(StepStatus::Failed { .. }) => Ready::Go,
                Some(s) if s.ended() => Ready::Skip("the step it stands in for did not fail"),
                _ => Ready::Wait,
            };
        }
        let mut skipped = 0;
        for dep in &step.after {
            match self.resolved(dep, self.plan.steps.len()) {
                None => return Ready::Wait,
                Some(false) => skipped += 1,
                Some(true) => {}
            }
        }
        if !step.after.is_empty() && skipped == step.after.len() {
            return Ready::Skip("every step it follows was skipped");
        }
        Ready::Go
    }

    /// Whether a step the next one follows has ended: `Some(true)` when it ran (or failed and the
    /// workflow goes on), `Some(false)` when it was skipped, `None` while it has not ended. A step
    /// that failed over to a fallback has ended when the fallback has.
    fn resolved(&self, id: &str, depth: usize) -> Option<bool> {
        let step = self.plan.step(id)?;
        match self.status_of(id)? {
            StepStatus::Succeeded { .. } => Some(true),
            StepStatus::Skipped { .. } => Some(false),
            StepStatus::Failed { .. } => match &step.on_failure {
                OnFailure::Continue => Some(true),
                OnFailure::Fallback(next) if depth > 0 => self.resolved(next, depth - 1),
                _ => None,
            },
            _ => None,
        }
    }

    /// The time a step waits until: in a rehearsal, now, so that its waits pass at once.
    fn passing(&self, at: DateTime<Utc>) -> DateTime<Utc> {
        if self.flow.rehearsal {
            self.now.min(at)
        } else {
            at
        }
    }

    fn status_of(&self, id: &str) -> Option<&StepStatus> {
        self.flow.steps.iter().find(|s| s.id == id).map(|s| &s.status)
    }

    /// Starts attempt `attempt` of step `i`: calls its function, or begins its wait.
    fn start(&mut self, i: usize, attempt: u32, started_at: DateTime<Utc>) {
        let step = &self.plan.steps[i];
        let id = step.id.clone();
        if !self.flow.started.contains(&id) {
            self.flow.started.push(id.clone());
        }
        let scope = eval::scope(&self.flow);
        match step.action.clone() {
            Do::Call { function, input } => match eval::object(&input, &scope) {
                Ok(input) => {
                    let run_id = child_run_id(&self.flow.run_id, &id, attempt);
                    self.set(i, StepStatus::Running { run_id: run_id.clone(), attempt, started_at });
                    let data = json!({ "step": id, "attempt": attempt, "run_id": run_id });
                    self.record("step_waiting", words::waits_for_function(&id), data);
                    self.tail.push(Action::StartChild { step: id, definition: function, input, run_id });
                }
                Err(e) => self.fail_at_once(i, crate::core::ErrorCode::Input, format!("its input has no value: {e}")),
            },
            Do::Wait(Wait::Event { filter, timeout_seconds }) => {
                if let Some(k) = self.flow.inbox.iter().position(|a| filter.matches(&a.name, &a.data)) {
                    let arrived = self.flow.inbox.remove(k);
                    return self.succeed(i, arrived.data, 1, started_at);
                }
                let deadline = timeout_seconds.and_then(|s| self.now.checked_add_signed(Duration::try_seconds(s)?));
                let summary = words::waits_for_event(&id, &filter.kind);
                self.set(i, StepStatus::Waiting { on: Awaiting::Event { filter, deadline }, started_at });
                self.record("step_waiting", summary, json!({ "step": id }));
            }
            Do::Wait(Wait::Seconds(s)) => {
                let at = Duration::try_seconds(s).and_then(|d| self.now.checked_add_signed(d)).unwrap_or(self.now);
                self.wait_until(i, at, started_at);
            }
            Do::Wait(Wait::Until(expr)) => {
                let at = eval::value(&expr, &scope).and_then(|v| {
                    let text = v.as_str().ok_or("it is not text")?.to_string();
                    DateTime::parse_from_rfc3339(&text).map_err(|e| format!("{text} is not a time: {e}"))
                });
                match at {
                    Ok(at) if at.with_timezone(&Utc) <= self.now => {
                        self.succeed(i, json!({ "at": words::time(at.with_timezone(&Utc)) }), 1, started_at)
                    }
                    Ok(at) => self.wait_until(i, at.with_timezone(&Utc), started_at),
                    Err(e) => {
                        self.fail_at_once(i, crate::core::ErrorCode::Input, format!("its time has no value: {e}"))
                    }
                }
            }
        }
    }

    fn wait_until(&mut self, i: usize, at: DateTime<Utc>, started_at: DateTime<Utc>) {
        let at = self.passing(at);
        let id = self.flow.steps[i].id.clone();
        self.set(i, StepStatus::Waiting { on: Awaiting::Time { at }, started_at });
        self.record("step_waiting", words::waits_until(&id, at), json!({ "step": id, "until": words::time(at) }));
    }

    fn succeed(&mut self, i: usize, output: Value, attempt: u32, started_at: DateTime<Utc>) {
        let id = self.flow.steps[i].id.clone();
        self.set(i, StepStatus::Succeeded { output, attempt, started_at, finished_at: self.now });
        self.record("step_finished", words::finished(&id), json!({ "step": id, "attempt": attempt }));
    }

    fn skip(&mut self, i: usize, why: &'static str) {
        let id = self.flow.steps[i].id.clone();
        self.set(i, StepStatus::Skipped { reason: why.into(), at: self.now });
        self.record("step_skipped", words::skipped(&id, why), json!({ "step": id }));
    }

    /// A failure no retry mends: the step's input, time or condition has no value.
    fn fail_at_once(&mut self, i: usize, reason: crate::core::ErrorCode, detail: String) {
        let id = self.plan.steps[i].id.clone();
        if !self.flow.started.contains(&id) {
            self.flow.started.push(id);
        }
        self.settle_failure(i, RunError { reason, detail }, 1, self.now);
    }

    /// A call or a wait failed: try again while attempts remain, else the step fails.
    fn fail(&mut self, i: usize, error: RunError, attempt: u32, started_at: DateTime<Utc>) {
        let step = &self.plan.steps[i];
        if matches!(step.action, Do::Call { .. }) && attempt < step.retry.attempts {
            let wait = step.retry.delay_after(attempt);
            let retry_at = Duration::try_seconds(wait).and_then(|d| self.now.checked_add_signed(d)).unwrap_or(self.now);
            let retry_at = self.passing(retry_at);
            let (id, of) = (step.id.clone(), step.retry.attempts);
            self.set(i, StepStatus::Retrying { attempt, retry_at, error: error.clone(), started_at });
            let data = json!({ "step": id, "attempt": attempt, "error": error, "retry_at": words::time(retry_at) });
            self.record("step_retrying", words::retrying(&id, attempt + 1, of, retry_at), data);
            return;
        }
        self.settle_failure(i, error, attempt, started_at);
    }

    fn settle_failure(&mut self, i: usize, error: RunError, attempt: u32, started_at: DateTime<Utc>) {
        let id = self.plan.steps[i].id.clone();
        self.set(i, StepStatus::Failed { error: error.clone(), attempt, started_at, finished_at: self.now });
        let data = json!({ "step": id, "attempt": attempt, "error": error });
        self.record("step_failed", words::failed(&id, &error.detail), data);
        if self.plan.steps[i].on_failure == OnFailure::Fail {
            let error = RunError {
                reason: crate::core::ErrorCode::StepFailed,
                detail: words::step_failed_detail(&id, &error.detail),
            };
            self.flow.status = FlowStatus::Failed { error: error.clone() };
            let run_ids = self.flow.running_children();
            for j in 0..self.flow.steps.len() {
                let status = &self.flow.steps[j].status;
                if let (false, Some(started_at)) = (status.ended(), status.started_at()) {
                    let attempt = status.attempt().unwrap_or(1);
                    self.set(j, StepStatus::Cancelled { attempt, started_at, finished_at: self.now });
                }
            }
            if !run_ids.is_empty() {
                self.tail.push(Action::CancelChildren { run_ids });
            }
            self.tail.push(Action::Fail { error });
        }
    }

    fn set(&mut self, i: usize, status: StepStatus) {
        if let Some(s) = self.flow.steps.get_mut(i) {
            s.status = status;
        }
        if !self.moved.contains(&i) {
            self.moved.push(i);
        }
    }

    fn record(&mut self, kind: &str, summary: String, data: Value) {
        self.records.push(Action::Record { kind: kind.into(), summary, data });
    }

    /// The input's own record first, then each step's, then what the shell starts, stops or ends,
    /// and the alarm for the next time a step waits for.
    fn finish(mut self, cause: &str) -> Decision {
        let ended = self.flow.ended();
        let moved: Vec<&str> =
            self.moved.iter().filter_map(|&i| self.flow.steps.get(i)).map(|s| s.id.as_str()).collect();
        let applied = Action::Record {
            kind: "workflow_input_applied".into(),
            summary: words::applied(cause, moved.len(), ended),
            data: json!({ "moved": moved, "ended": ended }),
        };
        let mut actions = vec![applied];
        actions.append(&mut self.records);
        actions.append(&mut self.tail);
        if let (false, Some(at)) = (ended, self.flow.next_due()) {
            actions.push(Action::SetTimer { at });
        }
        Decision { flow: self.flow, actions }
    }
}
