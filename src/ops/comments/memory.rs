//! The comments of one object in memory, for host tests, which can be told to fail.

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::CommentStore;
use crate::core::comment::{Comment, CommentQuery};
use crate::core::Problem;
use crate::ops::faults::Faults;

#[derive(Default)]
pub struct MemComments {
    pub rows: RefCell<BTreeMap<String, Comment>>,
    pub faults: Faults,
}

impl CommentStore for MemComments {
    fn get(&self, id: &str) -> Result<Option<Comment>, Problem> {
        self.faults.read("get")?;
        Ok(self.rows.borrow().get(id).cloned())
    }

    fn count(&self) -> Result<usize, Problem> {
        Ok(self.rows.borrow().len())
    }

    fn put(&self, comment: &Comment) -> Result<(), Problem> {
        self.faults.write("put")?;
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
