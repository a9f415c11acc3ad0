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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::comment::record::{By, Status};

    fn at(id: &str, address: &str, created_at: &str, status: Status) -> Comment {
        Comment {
            id: id.into(),
            playbook: None,
            address: address.into(),
            anchor: None,
            body: "b".into(),
            version: None,
            by: By { id: "p".into(), name: "P".into() },
            created_at: created_at.into(),
            status,
            resolved_at: None,
            resolved_by: None,
            how: None,
            reopened_at: None,
            reopened_by: None,
        }
    }

    fn query() -> CommentQuery {
        CommentQuery { address: None, under: None, open: true, limit: 25, after: None }
    }

    #[test]
    fn a_query_keeps_its_address_its_prefix_and_open_ones() {
        let step = at("cm_a", "definitions/workflow/w/steps/s", "t1", Status::Open);
        let run = at("cm_b", "runs/run_10", "t2", Status::Resolved);
        assert!(query().shows(&step) && !query().shows(&run), "open ones alone by default");
        let all = CommentQuery { open: false, ..query() };
        assert!(all.shows(&run));
        let under = CommentQuery { under: Some("definitions/workflow/w".into()), ..all.clone() };
        assert!(under.shows(&step) && !under.shows(&run));
        let not_a_prefix = CommentQuery { under: Some("runs/run_1".into()), ..all.clone() };
        assert!(!not_a_prefix.shows(&run));
        let exact = CommentQuery { address: Some("runs/run_10".into()), ..all };
        assert!(exact.shows(&run) && !exact.shows(&step));
    }

    #[test]
    fn pages_come_newest_first_and_the_cursor_reads_back() {
        let id = crate::core::comment::record::comment_id([1; 16]);
        let rows = vec![at(&id, "ledger", "t3", Status::Open), at("cm_b", "ledger", "t2", Status::Open)];
        let first = page(rows, 1);
        assert_eq!(first.comments.len(), 1);
        let cursor = first.next_cursor.expect("another page");
        let q = CommentQuery { after: Some(read_cursor(&cursor).expect("a cursor")), ..query() };
        assert_eq!(q.after, Some(("t3".to_string(), id)));
        assert!(q.follows(&at("cm_x", "ledger", "t2", Status::Open)));
        assert!(!q.follows(&at("cm_x", "ledger", "t4", Status::Open)));
        assert_eq!(read_cursor("zz").map_err(|p| p.errors[0].pointer.clone()), Err("/cursor".into()));
    }
}
