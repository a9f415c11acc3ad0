//! An interaction function: asks a person and waits for an answer of a declared shape, or sends
//! a notification through one tool and does not wait. The body is what the person reads.

mod check;
mod run;

pub(super) use check::check;
pub use run::{ask, check_answer};

use serde_json::Value;

pub const EXPIRES_MAX_HOURS: i64 = 24 * 30;

/// An interaction function as its runs follow it; only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct InteractionSpec {
    input_schema: Value,
    reach: Reach,
    /// The template of what the person reads.
    body: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Reach {
    /// Asks the agent, which answers in the shape of `answer_schema`.
    Ask { answer_schema: Value },
    /// Sends through a tool: this runtime reaches no tool server, so its runs fail, and it needs nothing.
    Notify,
}

impl InteractionSpec {
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }
}
