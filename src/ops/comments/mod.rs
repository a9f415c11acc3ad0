//! The comments an object keeps: a playbook's in the playbook's object, the organization's own
//! in the organization's. Each change loads the comment, has `core::comment::decide` say what it
//! does, keeps that, then answers; a list reads one row more than its page. The objects'
//! SQLite and `memory` implement the one small store.

#[cfg(not(target_arch = "wasm32"))]
pub mod memory;

use crate::core::comment::list::{self, LIMIT_MAX};
use crate::core::comment::{decide, Among, Comment, CommentCommand, CommentPage, CommentQuery, Decision};
use crate::core::Problem;

pub trait CommentStore {
    fn get(&self, id: &str) -> Result<Option<Comment>, Problem>;
    /// How many comments are kept, resolved ones among them.
    fn count(&self) -> Result<usize, Problem>;
    /// Keeps a comment whole, new or changed, in one write.
    fn put(&self, comment: &Comment) -> Result<(), Problem>;
    /// Up to `take` comments the query shows after its place, newest first.
    fn page(&self, query: &CommentQuery, take: usize) -> Result<Vec<Comment>, Problem>;
}

/// Makes, resolves or reopens one comment among `among`; answers it as it stands after.
pub fn write(store: &dyn CommentStore, command: CommentCommand, among: &Among) -> Result<Comment, Problem> {
    let current = store.get(command.id())?;
    let kept = match (&command, &current) {
        (CommentCommand::Make { .. }, None) => store.count()?,
        _ => 0,
    };
    match decide(command, current.as_ref(), kept, among)? {
        Decision::Unchanged(comment) => Ok(comment),
        Decision::Keep(comment) => {
            store.put(&comment)?;
            Ok(comment)
        }
    }
}

pub fn list(store: &dyn CommentStore, query: CommentQuery) -> Result<CommentPage, Problem> {
    let limit = query.limit.clamp(1, LIMIT_MAX);
    let rows = store.page(&query, limit + 1)?;
    Ok(list::page(rows, limit))
}
