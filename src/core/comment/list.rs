//! Which comments a list shows: those on one address or under it, open ones alone unless asked,
//! newest first, a page at a time.

use serde::{Deserialize, Serialize};

use super::address::is_under;
use super::record::{is_comment_id, Comment};
use crate::core::Problem;

pub const LIMIT_MAX: usize = 100;
pub const LIMIT_DEFAULT: usize = 25;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommentQuery {
    /// Only the comments on this address.
    pub address: Option<String>,
    /// Only those on this address or under it, at a `/` boundary.
    pub under: Option<String>,
    /// Only the open ones.
    pub open: bool,
    pub limit: usize,
    /// The creation time and id of the last comment of the page before.
    pub after: Option<(String, String)>,
}

impl CommentQuery {
    /// Whether the list shows `c`, the page's place aside.
    pub fn shows(&self, c: &Comment) -> bool {
        self.address.as_ref().is_none_or(|a| &c.address == a)
            && self.under.as_ref().is_none_or(|u| is_under(&c.address, u))
            && (!self.open || c.is_open())
    }

    /// Whether `c` comes after the page before, newest first.
    pub fn follows(&self, c: &Comment) -> bool {
        self.after.as_ref().is_none_or(|(at, id)| (c.created_at.as_str(), c.id.as_str()) < (at.as_str(), id.as_str()))
    }
}

/// The cursor a list gave, read back.
pub fn read_cursor(token: &str) -> Result<(String, String), Problem> {
    crate::core::page::read_after(token, is_comment_id)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommentPage {
    pub comments: Vec<Comment>,
    pub next_cursor: Option<String>,
}

/// The page of `rows` (read newest first, one more than the limit): the cursor names its last.
pub fn page(rows: Vec<Comment>, limit: usize) -> CommentPage {
    let (comments, next_cursor) =
        crate::core::page::split(rows, limit, |c| crate::core::page::after(&c.created_at, &c.id));
    CommentPage { comments, next_cursor }
}
