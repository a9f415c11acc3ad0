//! The comments of one object in memory, for host tests, which can be told to fail.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use super::CommentStore;
use crate::core::comment::{Comment, CommentQuery};
use crate::core::Problem;

#[derive(Default)]
pub struct MemComments {
    pub rows: RefCell<BTreeMap<String, Comment>>,
    /// How many of the next writes fail, as storage that did not answer.
    pub down: Cell<u32>,
}

impl CommentStore for MemComments {
    fn get(&self, id: &str) -> Result<Option<Comment>, Problem> {
        Ok(self.rows.borrow().get(id).cloned())
    }

    fn count(&self) -> Result<usize, Problem> {
        Ok(self.rows.borrow().len())
    }

    fn put(&self, comment: &Comment) -> Result<(), Problem> {
        if self.down.get() > 0 {
            self.down.set(self.down.get() - 1);
            return Err(Problem::unavailable("Storage did not answer just now, so nothing was changed; try again."));
        }
        self.rows.borrow_mut().insert(comment.id.clone(), comment.clone());
        Ok(())
    }

    fn page(&self, query: &CommentQuery, take: usize) -> Result<Vec<Comment>, Problem> {
        let mut rows: Vec<Comment> =
            self.rows.borrow().values().filter(|c| query.shows(c) && query.follows(c)).cloned().collect();
        rows.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
        rows.truncate(take);
        Ok(rows)
    }
}
