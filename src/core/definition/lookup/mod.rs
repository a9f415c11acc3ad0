//! A lookup function: a read with no model. Either the runs of another definition of the
//! playbook, filtered and limited, or one call of a tool marked as reading, with templated arguments.

mod check;
mod run;

pub(super) use check::check;
pub use run::{evaluate, run_view};

use serde_json::Value;

use super::tool_call::ToolCallSpec;
use super::Ref;

pub const STATUSES: &[&str] = &["succeeded", "failed", "any"];
pub const RUNS_LIMIT_MAX: i64 = 100;
pub const LIMIT_DEFAULT: usize = 20;
pub const STATUS_DEFAULT: &str = "succeeded";
/// How many of the newest runs a lookup reads before it filters them.
pub const READ_MAX: usize = 500;

/// A lookup function as its runs follow it; only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct LookupSpec {
    input_schema: Option<Value>,
    read: Read,
}

/// What a lookup reads.
#[derive(Debug, Clone, PartialEq)]
enum Read {
    Runs(RunsQuery),
    /// One call of a tool that reads, its arguments templates over the input.
    Tool(ToolCallSpec),
}

#[derive(Debug, Clone, PartialEq)]
struct RunsQuery {
    of: Ref,
    /// How the runs kept ended; `None` keeps them all (`any`).
    status: Option<&'static str>,
    condition: Option<String>,
    /// 1 to `RUNS_LIMIT_MAX`.
    limit: usize,
    /// The query as the record shows it: as written, with the defaults it ran with.
    said: Value,
}

impl LookupSpec {
    pub fn input_schema(&self) -> Option<&Value> {
        self.input_schema.as_ref()
    }

    /// The definition whose runs the lookup reads, if it reads runs.
    pub fn runs_of(&self) -> Option<&Ref> {
        match &self.read {
            Read::Runs(q) => Some(&q.of),
            Read::Tool(_) => None,
        }
    }

    /// The tool the lookup reads through, if it reads through one.
    pub fn tool_call(&self) -> Option<&ToolCallSpec> {
        match &self.read {
            Read::Tool(call) => Some(call),
            Read::Runs(_) => None,
        }
    }
}
