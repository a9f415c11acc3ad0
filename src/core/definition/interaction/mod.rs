//! An interaction function: asks a person and waits for an answer of a declared shape, or sends
//! a notification through one tool and does not wait. The body is what the person reads. A
//! request reaches the person through the agent, or is sent through one tool and its replies
//! read through another.

mod check;
mod run;

pub(super) use check::check;
pub use check::{DELIVER_REQUIRED, NOTIFY_TOOL_REQUIRED};
pub use run::{ask, check_answer, notification, reply, send, REPLIES_EVERY_DEFAULT};

use serde_json::Value;

use super::tool_call::ToolCallSpec;

pub const EXPIRES_MAX_HOURS: i64 = 24 * 30;
pub const EXPIRES_DEFAULT_HOURS: i64 = 72;

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
    /// Asks a person, who answers in the shape of `answer_schema` within `expires_in_hours`.
    Ask { answer_schema: Value, delivery: Delivery, expires_in_hours: i64 },
    /// Sends the body through one tool, and waits for nothing.
    Notify(ToolCallSpec),
}

/// How a request reaches the person.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // one per checked document, kept once per isolate
pub enum Delivery {
    /// The agent finds it with `list_interactions` and answers it with `answer_interaction`.
    Agent,
    /// Sent through one tool; the replies read through another, every so often, until one fits
    /// the answer's schema.
    Tools { send: ToolCallSpec, replies: ToolCallSpec, every_seconds: u64 },
}

impl InteractionSpec {
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The calls a run makes, in order: what sends a notification, or what sends a request and
    /// reads its replies.
    pub fn calls(&self) -> Vec<&ToolCallSpec> {
        match &self.reach {
            Reach::Notify(call) => vec![call],
            Reach::Ask { delivery: Delivery::Tools { send, replies, .. }, .. } => vec![send, replies],
            Reach::Ask { delivery: Delivery::Agent, .. } => Vec::new(),
        }
    }

    /// Whether it sends a notification, rather than asks.
    pub fn notifies(&self) -> bool {
        matches!(self.reach, Reach::Notify(_))
    }
}
