//! The state of one workflow run: where it stands, and where each of its steps stands, each
//! status carrying what only it has.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::filter::Filter;
use super::plan::{Action, Plan, Wait};
use crate::core::run::RunError;

/// Events sent to the run that no step waited for yet; the oldest go first past this many.
pub const INBOX_MAX: usize = 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    pub run_id: String,
    pub input: Value,
    #[serde(flatten)]
    pub status: FlowStatus,
    /// One per step of the plan, in the plan's order.
    pub steps: Vec<StepState>,
    /// Step ids in the order each first started, for the step view.
    pub started: Vec<String>,
    pub inbox: Vec<Arrived>,
    /// For a run again from a step: the run each earlier step's function ran as, in the run its
    /// output was taken from, so the step view links to it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kept_runs: BTreeMap<String, String>,
    /// A rehearsal's: the times its steps wait for pass at once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rehearsal: bool,
}

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum FlowStatus as "status" {
        NotStarted,
        Running,
        Succeeded { output: Value },
        Failed { error: RunError },
        Cancelled,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arrived {
    pub name: String,
    pub data: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepState {
    pub id: String,
    #[serde(flatten)]
    pub status: StepStatus,
}

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum StepStatus as "status" {
        Pending,
        /// A function it called is running, as the child run `run_id`.
        Running {
            run_id: String,
            attempt: u32,
            started_at: DateTime<Utc>,
        },
        /// Waiting for an event or a time.
        Waiting {
            on: Awaiting,
            started_at: DateTime<Utc>,
        },
        /// The call failed; the next attempt starts at `retry_at`.
        Retrying {
            attempt: u32,
            retry_at: DateTime<Utc>,
            error: RunError,
            started_at: DateTime<Utc>,
        },
        Succeeded {
            output: Value,
            attempt: u32,
            started_at: DateTime<Utc>,
            finished_at: DateTime<Utc>,
        },
        Failed {
            error: RunError,
            attempt: u32,
            started_at: DateTime<Utc>,
            finished_at: DateTime<Utc>,
        },
        Skipped {
            reason: String,
            at: DateTime<Utc>,
        },
        Cancelled {
            attempt: u32,
            started_at: DateTime<Utc>,
            finished_at: DateTime<Utc>,
        },
    }
}

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Awaiting as "for" {
        Event { filter: Filter, deadline: Option<DateTime<Utc>> },
        Time { at: DateTime<Utc> },
    }
}

impl StepStatus {
    pub fn word(&self) -> &'static str {
        match self {
            StepStatus::Pending => "pending",
            StepStatus::Running { .. } => "running",
            StepStatus::Waiting { .. } => "waiting",
            StepStatus::Retrying { .. } => "retrying",
            StepStatus::Succeeded { .. } => "succeeded",
            StepStatus::Failed { .. } => "failed",
            StepStatus::Skipped { .. } => "skipped",
            StepStatus::Cancelled { .. } => "cancelled",
        }
    }

    /// Whether the step has ended and nothing moves it again.
    pub fn ended(&self) -> bool {
        matches!(
            self,
            StepStatus::Succeeded { .. }
                | StepStatus::Failed { .. }
                | StepStatus::Skipped { .. }
                | StepStatus::Cancelled { .. }
        )
    }

    /// When the step is next due to move by itself, if it waits for a time.
    pub fn due(&self) -> Option<DateTime<Utc>> {
        match self {
            StepStatus::Waiting { on: Awaiting::Time { at }, .. } => Some(*at),
            StepStatus::Waiting { on: Awaiting::Event { deadline, .. }, .. } => *deadline,
            StepStatus::Retrying { retry_at, .. } => Some(*retry_at),
            _ => None,
        }
    }

    pub fn attempt(&self) -> Option<u32> {
        match self {
            StepStatus::Running { attempt, .. }
            | StepStatus::Retrying { attempt, .. }
            | StepStatus::Succeeded { attempt, .. }
            | StepStatus::Failed { attempt, .. }
            | StepStatus::Cancelled { attempt, .. } => Some(*attempt),
            StepStatus::Waiting { .. } => Some(1),
            StepStatus::Pending | StepStatus::Skipped { .. } => None,
        }
    }

    pub fn started_at(&self) -> Option<DateTime<Utc>> {
        match self {
            StepStatus::Running { started_at, .. }
            | StepStatus::Waiting { started_at, .. }
            | StepStatus::Retrying { started_at, .. }
            | StepStatus::Succeeded { started_at, .. }
            | StepStatus::Failed { started_at, .. }
            | StepStatus::Cancelled { started_at, .. } => Some(*started_at),
            StepStatus::Pending | StepStatus::Skipped { .. } => None,
        }
    }
}

impl Flow {
    /// A run of `plan` that has not started: every step pending.
    pub fn new(run_id: &str, plan: &Plan) -> Flow {
        Flow {
            run_id: run_id.to_string(),
            input: Value::Null,
            status: FlowStatus::NotStarted,
            steps: plan.steps.iter().map(|s| StepState { id: s.id.clone(), status: StepStatus::Pending }).collect(),
            started: Vec::new(),
            inbox: Vec::new(),
            kept_runs: BTreeMap::new(),
            rehearsal: false,
        }
    }

    pub fn ended(&self) -> bool {
        !matches!(self.status, FlowStatus::NotStarted | FlowStatus::Running)
    }

    /// The earliest time a step waits for, which the shell sets its alarm to.
    pub fn next_due(&self) -> Option<DateTime<Utc>> {
        self.steps.iter().filter_map(|s| s.status.due()).min()
    }

    /// The event kinds its steps wait for now.
    pub fn events_waited(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter_map(|s| match &s.status {
                StepStatus::Waiting { on: Awaiting::Event { filter, .. }, .. } => Some(filter.kind.clone()),
                _ => None,
            })
            .collect()
    }

    /// The child runs still going, which a cancel stops.
    pub fn running_children(&self) -> Vec<String> {
        self.steps
            .iter()
            .filter_map(|s| match &s.status {
                StepStatus::Running { run_id, .. } => Some(run_id.clone()),
                _ => None,
            })
            .collect()
    }
}

/// Each step that waits for an event now, or will once it starts: its id and its filter. An event
/// of a kind none of them names is one the run never takes.
pub fn event_waits<'p>(plan: &'p Plan, flow: &Flow) -> Vec<(&'p str, &'p Filter)> {
    plan.steps
        .iter()
        .zip(&flow.steps)
        .filter_map(|(p, s)| match (&p.action, &s.status) {
            (Action::Wait(Wait::Event { filter, .. }), StepStatus::Pending | StepStatus::Waiting { .. }) => {
                Some((p.id.as_str(), filter))
            }
            _ => None,
        })
        .collect()
}

/// The id of the child run a step's attempt starts, derived from the workflow run's id so that a
/// replay names the same run and never starts it twice. Step ids hold no `-`, so the id reads back
/// one way; one too long for a run id keeps its start and a hash of the whole.
pub fn child_run_id(run_id: &str, step: &str, attempt: u32) -> String {
    let whole = format!("{run_id}-{step}-{attempt}");
    if whole.len() <= crate::core::run::RUN_ID_MAX {
        return whole;
    }
    let head: String = whole.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').take(40).collect();
    format!("{head}-{:016x}", fnv1a(whole.as_bytes()))
}

/// FNV-1a, 64 bits: small, stable across builds and platforms.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_ids_are_stable_and_fit() {
        assert_eq!(child_run_id("run_abc", "review_brief", 2), "run_abc-review_brief-2");
        let long = child_run_id(&"r".repeat(60), "review_brief", 1);
        assert!(long.len() <= 64 && long.starts_with("rrrr"), "{long}");
        assert_eq!(long, child_run_id(&"r".repeat(60), "review_brief", 1));
        assert_ne!(long, child_run_id(&"r".repeat(60), "review_brief", 2));
        assert!(crate::core::run::check_run_id(&long).is_ok());
    }
}
