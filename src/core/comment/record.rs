//! A comment as it is kept: what a person said about one address, and how it stands.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::Problem;

/// The longest body, in characters.
pub const BODY_MAX: usize = 4_000;
/// The largest anchor, as JSON bytes.
pub const ANCHOR_MAX: usize = 1_024;

/// `cm_` and 16 base32 characters.
pub fn comment_id(random: [u8; crate::core::ids::RANDOM_CHARS]) -> String {
    crate::core::ids::playbook_id(random).replacen("pb_", "cm_", 1)
}

/// Whether `s` has the shape of a comment's id; anything else names no comment.
pub fn is_comment_id(s: &str) -> bool {
    s.strip_prefix("cm_").is_some_and(|rest| crate::core::ids::is_playbook_id(&format!("pb_{rest}")))
}

/// Who made, resolved or reopened a comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct By {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Resolved,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Resolved => "resolved",
        }
    }
}

/// How a comment was resolved: what it asked was done, or the person said to drop it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum How {
    Acted,
    Dismissed,
}

impl How {
    pub fn as_str(self) -> &'static str {
        match self {
            How::Acted => "acted",
            How::Dismissed => "dismissed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comment {
    pub id: String,
    /// The playbook whose comment it is; none for the organization's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playbook: Option<String>,
    pub address: String,
    /// Where Studio draws the comment's pin: a small JSON object only Studio reads.
    #[serde(default)]
    pub anchor: Option<Value>,
    /// Markdown, as the person wrote it.
    pub body: String,
    /// The definition's version the person read, when the address is a definition's.
    #[serde(default)]
    pub version: Option<u32>,
    pub by: By,
    pub created_at: String,
    pub status: Status,
    #[serde(default)]
    pub resolved_at: Option<String>,
    #[serde(default)]
    pub resolved_by: Option<By>,
    #[serde(default)]
    pub how: Option<How>,
    #[serde(default)]
    pub reopened_at: Option<String>,
    #[serde(default)]
    pub reopened_by: Option<By>,
}

impl Comment {
    pub fn is_open(&self) -> bool {
        self.status == Status::Open
    }
}

/// A body as kept: 1 to 4,000 characters, not only white space.
pub fn check_body(body: &str) -> Result<(), Problem> {
    let chars = body.chars().count();
    if body.trim().is_empty() || chars > BODY_MAX {
        return Err(Problem::invalid(
            "/body",
            format!("must say something, in 1 to {BODY_MAX} characters of Markdown; this is {chars}"),
        ));
    }
    Ok(())
}

/// An anchor as kept: a JSON object of at most 1 KiB, which only Studio reads.
pub fn check_anchor(anchor: &Value) -> Result<(), Problem> {
    let bytes = anchor.to_string().len();
    if !anchor.is_object() || bytes > ANCHOR_MAX {
        return Err(Problem::invalid(
            "/anchor",
            format!("must be a JSON object of at most {ANCHOR_MAX} bytes, where Studio draws the pin; this is {bytes}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_minted_and_recognised() {
        let id = comment_id([7; 16]);
        assert!(id.starts_with("cm_") && is_comment_id(&id), "{id}");
        assert!(!is_comment_id("cm_short") && !is_comment_id("pb_hhhhhhhhhhhhhhhh"));
    }

    #[test]
    fn a_body_and_an_anchor_keep_their_bounds() {
        assert!(check_body("Make the brief shorter.").is_ok());
        assert!(check_body(&"é".repeat(BODY_MAX)).is_ok(), "characters, not bytes");
        for bad in ["", "  \n", &"a".repeat(BODY_MAX + 1)] {
            assert_eq!(check_body(bad).map_err(|p| p.errors[0].pointer.clone()), Err("/body".into()));
        }
        assert!(check_anchor(&json!({"x": 0.4, "y": 0.2})).is_ok());
        assert!(check_anchor(&json!([1])).is_err());
        assert!(check_anchor(&json!({"pad": "a".repeat(ANCHOR_MAX)})).is_err());
    }
}
