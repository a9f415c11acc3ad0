//! Why an operation was refused, in the words of the problem document's `reason`: one HTTP
//! status each. `code::ErrorCode` says the same more finely, so it is built on this.

use serde::{Deserialize, Serialize};

/// Why an operation was refused. Each reason maps to one HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    InvalidInput,
    Unauthorized,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    NotAcceptable,
    Conflict,
    PayloadTooLarge,
    UnsupportedMediaType,
    /// A client address past the rate limit of a route anyone may call.
    TooManyRequests,
    Unavailable,
    Internal,
}

impl Reason {
    pub fn status(self) -> u16 {
        match self {
            Reason::InvalidInput => 400,
            Reason::Unauthorized => 401,
            Reason::Forbidden => 403,
            Reason::NotFound => 404,
            Reason::MethodNotAllowed => 405,
            Reason::NotAcceptable => 406,
            Reason::Conflict => 409,
            Reason::PayloadTooLarge => 413,
            Reason::UnsupportedMediaType => 415,
            Reason::TooManyRequests => 429,
            Reason::Unavailable => 503,
            Reason::Internal => 500,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InvalidInput => "invalid_input",
            Reason::Unauthorized => "unauthorized",
            Reason::Forbidden => "forbidden",
            Reason::NotFound => "not_found",
            Reason::MethodNotAllowed => "method_not_allowed",
            Reason::NotAcceptable => "not_acceptable",
            Reason::Conflict => "conflict",
            Reason::PayloadTooLarge => "payload_too_large",
            Reason::UnsupportedMediaType => "unsupported_media_type",
            Reason::TooManyRequests => "too_many_requests",
            Reason::Unavailable => "unavailable",
            Reason::Internal => "internal",
        }
    }

    pub(super) fn title(self) -> &'static str {
        match self {
            Reason::InvalidInput => "Invalid input",
            Reason::Unauthorized => "Unauthorized",
            Reason::Forbidden => "Forbidden",
            Reason::NotFound => "Not found",
            Reason::MethodNotAllowed => "Method not allowed",
            Reason::NotAcceptable => "Not acceptable",
            Reason::Conflict => "Conflict",
            Reason::PayloadTooLarge => "Payload too large",
            Reason::UnsupportedMediaType => "Unsupported media type",
            Reason::TooManyRequests => "Too many requests",
            Reason::Unavailable => "Unavailable",
            Reason::Internal => "Internal error",
        }
    }
}
