//! A workflow as its runs read it: the steps, what each runs or waits for, how it follows the
//! others, what happens when it fails, and the output. The checker builds it from the document.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::filter::Filter;
use crate::core::definition::Ref;

/// Named expressions, in the order written: an input to build, or an output.
pub type Fields = Vec<(String, String)>;

crate::core::json::tagged::tagged! {
    /// When a trigger starts a run; each kind carries what only it needs.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Trigger as "kind" {
        /// A five-field cron pattern, read in an IANA time zone.
        Schedule { cron: String, time_zone: String },
        /// Every so often, counted from the last time it was due (or from when it was saved).
        Every { seconds: i64 },
        /// Set instants; each starts one run.
        At { times: Vec<DateTime<Utc>> },
        /// A playbook event that matches the filter.
        Event { filter: Filter },
    }
}

/// A trigger as the workflow declares it, with the expressions that build the run's input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Declared {
    pub trigger: Trigger,
    /// `None`: an event trigger passes the event's data as the input, a time trigger `{}`.
    pub input: Option<Fields>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub output: Output,
    pub triggers: Vec<Declared>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Lowercase letters, digits and `_`, as `review_brief`; summaries read it with spaces.
    pub id: String,
    /// The steps it follows, with the defaults applied: the step written before it, unless it
    /// says `after`; none for the first step and for a fallback.
    pub after: Vec<String>,
    /// An expression; when it is false the step is skipped.
    pub when: Option<String>,
    pub action: Action,
    pub retry: Retry,
    pub on_failure: OnFailure,
    /// The step this one stands in for when that one fails, if it is a fallback.
    pub fallback_for: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Runs a function of the playbook with an input built from expressions.
    Call {
        function: Ref,
        input: Fields,
    },
    Wait(Wait),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wait {
    /// An event sent to the run with `send_run_event`, or a playbook event, matching the filter.
    Event { filter: Filter, timeout_seconds: Option<i64> },
    /// A duration from when the step starts.
    Seconds(i64),
    /// An expression that gives a time, as `input.launch_at`.
    Until(String),
}

/// How often a failed call is tried again, and how long it waits before each try: `delay`
/// seconds, multiplied by `backoff` after each failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retry {
    pub attempts: u32,
    pub delay_seconds: i64,
    pub backoff: i64,
}

pub const RETRY_ATTEMPTS_MAX: i64 = 10;
pub const RETRY_DELAY_MAX: i64 = 86_400;
pub const BACKOFF_MAX: i64 = 10;
/// No wait between tries is longer than a week, whatever the backoff.
pub const RETRY_WAIT_CAP: i64 = 7 * 86_400;

impl Default for Retry {
    fn default() -> Self {
        Retry { attempts: 1, delay_seconds: 30, backoff: 2 }
    }
}

impl Retry {
    /// Seconds to wait after the `failed`-th attempt failed, before the next.
    pub fn delay_after(&self, failed: u32) -> i64 {
        let mut wait = self.delay_seconds.max(1);
        for _ in 1..failed {
            wait = wait.saturating_mul(self.backoff.max(1)).min(RETRY_WAIT_CAP);
        }
        wait.min(RETRY_WAIT_CAP)
    }
}

/// What a step's failure does, once its tries are spent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// The workflow fails.
    Fail,
    /// The workflow goes on; the steps after it run.
    Continue,
    /// The named step runs in its place; the steps after it wait for that one.
    Fallback(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Output {
    /// Each step's output by its id, for the steps that succeeded.
    Steps,
    Fields(Fields),
    Expression(String),
}

impl Plan {
    pub fn step(&self, id: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.id == id)
    }

    /// How many of the steps `started` before `step` run the function it runs.
    pub fn runs_before(&self, started: &[String], step: &str) -> usize {
        let function = |id: &str| match self.step(id).map(|s| &s.action) {
            Some(Action::Call { function, .. }) => Some(function),
            _ => None,
        };
        let Some(own) = function(step) else { return 0 };
        started.iter().take_while(|id| *id != step).filter(|id| function(id) == Some(own)).count()
    }

    /// The definitions the steps run, each once, for `used_by`.
    pub fn uses(&self) -> Vec<Ref> {
        let mut uses: Vec<Ref> = Vec::new();
        for step in &self.steps {
            if let Action::Call { function, .. } = &step.action {
                if !uses.contains(function) {
                    uses.push(function.clone());
                }
            }
        }
        uses
    }
}

/// `review_brief` reads as “review brief”.
pub fn title(id: &str) -> String {
    id.replace('_', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_multiplies_and_is_capped() {
        let r = Retry { attempts: 4, delay_seconds: 30, backoff: 2 };
        assert_eq!([r.delay_after(1), r.delay_after(2), r.delay_after(3)], [30, 60, 120]);
        let big = Retry { attempts: 10, delay_seconds: 86_400, backoff: 10 };
        assert_eq!(big.delay_after(9), RETRY_WAIT_CAP);
        assert_eq!(title("ask_for_approval"), "ask for approval");
    }
}
