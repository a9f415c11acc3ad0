//! The step view: each step of a run in the order it started, then those that never did, with
//! its status, timing, attempt, child run and error.

use super::plan::{title, Action, Plan};
use super::state::{Awaiting, Flow, StepStatus};
pub use super::step_view::StepView;
use super::words;

pub fn steps(plan: &Plan, flow: &Flow) -> Vec<StepView> {
    let started = flow.started.iter().filter_map(|id| flow.steps.iter().find(|s| &s.id == id));
    let never = flow.steps.iter().filter(|s| !flow.started.contains(&s.id));
    started
        .chain(never)
        .map(|s| {
            let calls = plan.step(&s.id).is_some_and(|p| matches!(p.action, Action::Call { .. }));
            view(flow, &s.id, &s.status, calls)
        })
        .collect()
}

fn view(flow: &Flow, id: &str, status: &StepStatus, calls: bool) -> StepView {
    let mut v = StepView {
        step: id.to_string(),
        title: title(id),
        status: status.word().to_string(),
        attempt: status.attempt(),
        started_at: status.started_at(),
        finished_at: None,
        run_id: None,
        waiting_for: None,
        error: None,
        skipped_because: None,
    };
    match status {
        StepStatus::Running { run_id, .. } => v.run_id = Some(run_id.clone()),
        StepStatus::Waiting { on: Awaiting::Event { filter, .. }, .. } => {
            v.waiting_for = Some(format!("the event {}", filter.kind))
        }
        StepStatus::Waiting { on: Awaiting::Time { at }, .. } => v.waiting_for = Some(words::time(*at)),
        StepStatus::Retrying { retry_at, error, .. } => {
            v.waiting_for = Some(format!("attempt {} at {}", v.attempt.unwrap_or(1) + 1, words::time(*retry_at)));
            v.error = Some(error.clone());
        }
        StepStatus::Succeeded { finished_at, .. } | StepStatus::Cancelled { finished_at, .. } => {
            v.finished_at = Some(*finished_at)
        }
        StepStatus::Failed { finished_at, error, .. } => {
            v.finished_at = Some(*finished_at);
            v.error = Some(error.clone());
        }
        StepStatus::Skipped { reason, at } => {
            v.finished_at = Some(*at);
            v.skipped_because = Some(reason.clone());
        }
        StepStatus::Pending => {}
    }
    // A step that called a function keeps its child's id after it ends; one whose input had no
    // value called nothing.
    if let Some(kept) = flow.kept_runs.get(id) {
        v.run_id = Some(kept.clone());
    }
    let called = !matches!(status, StepStatus::Failed { error, .. } if matches!(error.reason, crate::core::ErrorCode::Input | crate::core::ErrorCode::Condition));
    if let (true, true, None, Some(attempt)) = (calls, called, &v.run_id, status.attempt()) {
        if status.started_at().is_some() {
            v.run_id = Some(super::state::child_run_id(&flow.run_id, id, attempt));
        }
    }
    v
}
