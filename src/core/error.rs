//! The problem document: the one shape every refusal takes, over HTTP and inside MCP tool results.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::code::ErrorCode;
pub use super::reason::Reason;

/// One bad field, named by a JSON pointer into the input the caller sent, or into a document's
/// front matter; a problem in a document's body names its line and column instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub pointer: String,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The argument a document problem is inside, such as `source`: the pointer is then into
    /// that document's front matter, and the line and column are the document's.
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
}

impl FieldError {
    pub fn new(pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        FieldError { pointer: pointer.into(), detail: detail.into(), line: None, column: None, within: None }
    }

    /// Places the problem at a line and column of the document (both from 1).
    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    /// Says the problem is inside the document given as the argument `field`.
    pub fn within(mut self, field: &str) -> Self {
        self.within = Some(field.to_string());
        self
    }

    fn place(&self) -> String {
        let place = match (self.line, self.column) {
            (Some(l), Some(c)) => format!("line {l}, column {c}"),
            (Some(l), None) => format!("line {l}"),
            _ if self.pointer.is_empty() => "The input".to_string(),
            _ => format!("`{}`", self.pointer),
        };
        match &self.within {
            Some(field) => format!("{place} of {field}"),
            None => place,
        }
    }
}

/// A refusal: what failed, in words an agent can act on, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Problem {
    pub reason: Reason,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// A finer kind within the reason, such as `input_schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ErrorCode>,
    /// The scope a refused caller lacks, which an OAuth client asks for again (kind
    /// `insufficient_scope`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl Problem {
    pub fn new(reason: Reason, detail: impl Into<String>) -> Self {
        Problem { reason, detail: detail.into(), errors: Vec::new(), kind: None, scope: None }
    }

    pub fn invalid(pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        let detail = detail.into();
        let pointer = pointer.into();
        let whole = if pointer.is_empty() { detail.clone() } else { format!("{pointer}: {detail}") };
        Problem::new(Reason::InvalidInput, whole).with_field(pointer, detail)
    }

    /// Many bad fields at once; the detail lists them all so that words alone suffice.
    pub fn invalid_fields(errors: Vec<FieldError>) -> Self {
        let detail = match errors.as_slice() {
            [] => "The input is not valid.".to_string(),
            [one] => format!("{} is not valid: {}", one.place(), sentence(&one.detail)),
            many => {
                let parts: Vec<String> = many.iter().map(|e| format!("{}: {}", e.place(), e.detail)).collect();
                format!("{} fields are not valid. {}", many.len(), sentence(&parts.join("; ")))
            }
        };
        Problem { reason: Reason::InvalidInput, detail, errors, kind: None, scope: None }
    }

    pub fn not_found(detail: impl Into<String>) -> Self {
        Problem::new(Reason::NotFound, detail)
    }

    pub fn conflict(detail: impl Into<String>) -> Self {
        Problem::new(Reason::Conflict, detail)
    }

    pub fn forbidden(detail: impl Into<String>) -> Self {
        Problem::new(Reason::Forbidden, detail)
    }

    pub fn unavailable(detail: impl Into<String>) -> Self {
        Problem::new(Reason::Unavailable, detail)
    }

    /// The runtime stopped while it handled the request (an object was reset or cut off mid-call),
    /// so the request may or may not have taken effect.
    pub fn stopped() -> Self {
        Problem::unavailable(STOPPED).with_kind(ErrorCode::Stopped)
    }

    /// Whether this is the answer of a request the runtime stopped while it handled it.
    pub fn is_stopped(&self) -> bool {
        self.reason == Reason::Unavailable && self.kind == Some(ErrorCode::Stopped)
    }

    /// A failure inside the runtime. Its detail is for the log: a client reads `INTERNAL`.
    pub fn internal(detail: impl Into<String>) -> Self {
        Problem::new(Reason::Internal, detail)
    }

    pub fn with_field(mut self, pointer: impl Into<String>, detail: impl Into<String>) -> Self {
        self.errors.push(FieldError::new(pointer.into(), detail.into()));
        self
    }

    /// A refusal for want of a scope, which it names.
    pub fn needs(mut self, scope: &str) -> Self {
        self.kind = Some(ErrorCode::InsufficientScope);
        self.scope = Some(scope.to_string());
        self
    }

    pub fn with_kind(mut self, kind: ErrorCode) -> Self {
        self.kind = Some(kind);
        self
    }

    pub fn status(&self) -> u16 {
        self.reason.status()
    }

    /// The RFC 9457 problem document, with `reason` and the field pointers as extensions.
    pub fn document(&self) -> Value {
        let mut doc = json!({
            "type": "about:blank",
            "title": self.reason.title(),
            "status": self.status(),
            "reason": self.reason.as_str(),
            "detail": self.shown_detail(),
        });
        if let Some(kind) = &self.kind {
            doc["kind"] = json!(kind);
        }
        if let Some(scope) = &self.scope {
            doc["scope"] = json!(scope);
        }
        if !self.errors.is_empty() {
            doc["errors"] = json!(self.errors);
        }
        doc
    }

    /// The words an agent reads first: what failed and what to change.
    pub fn words(&self) -> String {
        match self.reason {
            Reason::InvalidInput if !self.errors.is_empty() => {
                format!("{} Correct the field{} named and call again.", self.detail, plural(self.errors.len()))
            }
            _ => self.shown_detail().to_string(),
        }
    }

    /// The detail a client is shown: an internal failure's own words (a storage or decoding
    /// error) stay in the log, and the client reads a fixed sentence.
    fn shown_detail(&self) -> &str {
        match self.reason {
            Reason::Internal => INTERNAL,
            _ => &self.detail,
        }
    }
}

/// What a client reads of an internal failure.
pub const INTERNAL: &str = "Auto Runtime failed inside while it handled this request, so it may not have taken effect. What went wrong is in the Worker's log, for the operator; try again, and tell the operator if it fails again.";

/// What a client reads of a request the runtime stopped while it handled it, in the spec's words.
pub const STOPPED: &str = "Auto Runtime stopped while it handled this request, so it may or may not have taken effect";

/// Ends `text` with a full stop unless it already ends a sentence.
fn sentence(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with(['.', '!', '?']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A value as JSON for an answer. Encoding fails only on a bug (a map with keys that are not
/// text), and then the answer is an internal failure, never a silent `null`.
pub fn encoded<T: Serialize>(value: &T) -> Result<serde_json::Value, Problem> {
    serde_json::to_value(value).map_err(|e| Problem::internal(format!("an answer could not be encoded: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_internal_failure_keeps_its_words_for_the_log() {
        let p = Problem::internal("a waiting report could not be read: expected `,` at line 1");
        assert_eq!(p.document()["detail"], INTERNAL);
        assert_eq!(p.words(), INTERNAL);
        assert!(p.detail.contains("expected"), "the detail stays, for the log");
        let back: Problem = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
        assert_eq!(back.detail, p.detail, "and crosses between objects whole");
    }

    #[test]
    fn a_stopped_request_is_unavailable_in_the_spec_words() {
        let p = Problem::stopped();
        assert!(p.is_stopped());
        let doc = p.document();
        assert_eq!((doc["status"].clone(), doc["reason"].clone()), (json!(503), json!("unavailable")));
        assert_eq!((doc["kind"].clone(), doc["detail"].clone()), (json!("stopped"), json!(STOPPED)));
        let back: Problem = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
        assert!(back.is_stopped(), "and stays so between objects");
        assert!(!Problem::unavailable(STOPPED).is_stopped(), "the kind says it, not the words");
    }

    #[test]
    fn document_carries_reason_status_and_pointers() {
        let p = Problem::invalid("/name", "is longer than 80 characters");
        let doc = p.document();
        assert_eq!(doc["status"], 400);
        assert_eq!(doc["reason"], "invalid_input");
        assert_eq!(doc["errors"][0]["pointer"], "/name");
        assert!(p.words().contains("/name"));
    }

    #[test]
    fn many_fields_are_all_named_in_the_detail() {
        let p = Problem::invalid_fields(vec![
            FieldError::new("/name", "is required"),
            FieldError::new("/page", "must be a string"),
        ]);
        assert!(p.detail.contains("/name") && p.detail.contains("/page"));
        assert_eq!(p.status(), 400);
    }
}
