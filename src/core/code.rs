//! The stable codes of failures: a run's `error.reason` and a problem's `kind`. Each serializes
//! to the snake_case word clients already read, and says in one line what it means.

use serde::{Deserialize, Serialize};

use super::reason::Reason;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    // What a problem refuses with, beside its reason.
    /// The input does not fit the function's input schema.
    InputSchema,
    /// A person's answer does not fit the request's answer schema.
    AnswerSchema,
    /// The model names a provider the operator has not set up, or no one model of it.
    ModelNotConfigured,
    /// The model is not on the operator's allow list.
    ModelNotAllowed,
    /// A step or a lookup names a definition the playbook does not hold.
    UnknownDefinition,
    /// A function type this runtime does not serve yet.
    TypeNotServed,
    /// A tool the function names is offered by no tool server, or its server cannot be used.
    ToolUnavailable,
    /// A call that may only read names a tool not marked `reads`.
    ToolNotReadOnly,
    /// A tool's arguments do not fit its input schema.
    ToolArguments,
    /// The caller lacks the scope the operation needs, which the problem names.
    InsufficientScope,
    /// The runtime stopped while it handled the request, which may or may not have taken effect.
    Stopped,

    // Why a run failed.
    /// The stored document fails its check, so nothing ran.
    Document,
    /// A template of the document has no value for this input.
    Template,
    /// An expression of the document has no value for this input.
    Expression,
    /// The output does not fit the function's output schema.
    OutputSchema,
    /// The model stopped at its token limit before its answer was whole.
    MaxTokens,
    /// The model refused to answer.
    ModelRefused,
    /// The provider answered with an error, which the detail quotes.
    ProviderError,
    /// The provider gave no answer within its deadline.
    ProviderTimeout,
    /// The provider could not be reached.
    ProviderUnreachable,
    /// A prediction has too few events to forecast from.
    NotEnoughHistory,
    /// The runtime stopped while the model answered, so the answer was lost.
    Interrupted,
    /// The run a workflow's step started was not found.
    Lost,
    /// The run a workflow's step started was cancelled.
    Cancelled,
    /// A workflow run's state does not match its workflow's steps.
    Plan,
    /// A workflow's step ran out of time.
    Timeout,
    /// A workflow's output has no value.
    Output,
    /// A workflow step's input or time has no value.
    Input,
    /// A workflow step's condition has no value.
    Condition,
    /// A workflow's step failed, and so did the workflow.
    StepFailed,
    /// The document asks for something this runtime does not do yet (a delivery, a source).
    NotServed,
    /// The model asked for tool calls beyond the run's limits.
    ToolLimit,
    /// A tool server gave no answer to a call, so whether the call acted is unknown.
    ToolFailed,
    /// The tool a lookup or a notification calls answered that it failed.
    ToolError,
    /// A person's request was not answered before it expired.
    Expired,
    /// A rehearsal's call, model or person had no stand-in to answer it.
    NoStandIn,

    // A step's start refused by a problem of no finer kind: the problem's reason.
    /// The start was refused as invalid input.
    InvalidInput,
    /// The caller is not signed in.
    Unauthorized,
    /// The caller may not start it.
    Forbidden,
    /// What the start names does not exist.
    NotFound,
    /// The start conflicts with how things stand (a paused function, a used run id).
    Conflict,
    /// Something it needs is not available just now.
    Unavailable,
    /// The runtime failed.
    Internal,
}

impl ErrorCode {
    /// The code of a refusal: its finer kind, else its reason.
    pub fn of(reason: Reason, kind: Option<ErrorCode>) -> ErrorCode {
        kind.unwrap_or(match reason {
            Reason::InvalidInput | Reason::PayloadTooLarge | Reason::UnsupportedMediaType => ErrorCode::InvalidInput,
            Reason::Unauthorized => ErrorCode::Unauthorized,
            Reason::Forbidden => ErrorCode::Forbidden,
            Reason::NotFound | Reason::MethodNotAllowed => ErrorCode::NotFound,
            Reason::NotAcceptable | Reason::Conflict => ErrorCode::Conflict,
            Reason::Unavailable | Reason::TooManyRequests => ErrorCode::Unavailable,
            Reason::Internal => ErrorCode::Internal,
        })
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The word is the one serde writes, so the two can never disagree.
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(word)) => f.write_str(&word),
            _ => Err(std::fmt::Error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_as_the_words_clients_know() {
        assert_eq!(ErrorCode::ProviderTimeout.to_string(), "provider_timeout");
        assert_eq!(serde_json::to_value(ErrorCode::InputSchema).unwrap(), "input_schema");
        assert_eq!(serde_json::from_str::<ErrorCode>("\"not_enough_history\"").unwrap(), ErrorCode::NotEnoughHistory);
        assert_eq!(ErrorCode::of(Reason::Conflict, None), ErrorCode::Conflict);
        assert_eq!(ErrorCode::of(Reason::Unavailable, Some(ErrorCode::ModelNotAllowed)), ErrorCode::ModelNotAllowed);
    }
}
