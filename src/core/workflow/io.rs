//! What goes into a workflow run's machine, and what comes out: one input at a time, and the
//! actions the shell takes, in order, once it has kept the new state.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::state::Flow;
use crate::core::definition::Ref;
use crate::core::run::{Run, RunError, RunStatus};

crate::core::json::tagged::tagged! {
    /// One input to a workflow run.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Command as "command" {
        Start {
            input: Value,
        },
        /// A child run a step started has ended.
        ChildFinished {
            step: String,
            run_id: String,
            outcome: Outcome,
        },
        /// An event sent with `send_run_event`, or a playbook event, delivered to the run.
        EventArrived {
            name: String,
            data: Value,
        },
        /// The alarm the run asked for has rung; every time due by `now` is taken.
        TimerFired,
        Cancel,
    }
}

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Outcome as "status" {
        Succeeded { output: Value },
        Failed { error: RunError },
    }
}

impl Outcome {
    /// How a step's run ended, as its workflow reads it: `None` while it is still going. A
    /// cancelled run is a failure of the step, which its failure handling answers.
    pub fn of(run: &Run) -> Option<Outcome> {
        match &run.status {
            RunStatus::Started { .. } => None,
            RunStatus::Succeeded { output, .. } => Some(Outcome::Succeeded { output: output.clone() }),
            RunStatus::Failed { error, .. } => Some(Outcome::Failed { error: error.clone() }),
            RunStatus::Cancelled { .. } => Some(Outcome::Failed {
                error: RunError {
                    reason: crate::core::ErrorCode::Cancelled,
                    detail: format!("The run {} was cancelled.", run.run_id),
                },
            }),
        }
    }
}

crate::core::json::tagged::tagged! {
    /// What the shell does, in order, once it has kept the new state.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Action as "action" {
        /// Records an event of the run, with its summary.
        Record {
            kind: String,
            summary: String,
            data: Value,
        },
        /// Starts a run of a function as a step of this one, under the given id (a start under an id
        /// that exists already runs nothing, so a repeated action is harmless).
        StartChild {
            step: String,
            definition: Ref,
            input: Value,
            run_id: String,
        },
        CancelChildren {
            run_ids: Vec<String>,
        },
        /// Sets the run's alarm; the shell answers it with `TimerFired`.
        SetTimer {
            at: DateTime<Utc>,
        },
        Finish {
            output: Value,
        },
        Fail {
            error: RunError,
        },
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub flow: Flow,
    pub actions: Vec<Action>,
}
