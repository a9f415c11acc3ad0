//! What an isolate keeps of work it did before: a Worker isolate is single-threaded and lives
//! across requests, so a value made once from the same text (a compiled schema, the check of a
//! document) is answered again without making it anew. Bounded: past its size it starts over.

use std::cell::RefCell;
use std::collections::HashMap;

pub struct Memo<V> {
    kept: RefCell<HashMap<String, V>>,
    most: usize,
}

impl<V: Clone> Memo<V> {
    pub fn new(most: usize) -> Self {
        Memo { kept: RefCell::new(HashMap::new()), most }
    }

    /// The value kept for `key`, or the one `make` makes, kept if it was made; a failure is not.
    pub fn get_or_try<E>(&self, key: &str, make: impl FnOnce() -> Result<V, E>) -> Result<V, E> {
        if let Some(value) = self.kept.borrow().get(key) {
            return Ok(value.clone());
        }
        let value = make()?;
        let mut kept = self.kept.borrow_mut();
        if kept.len() >= self.most {
            kept.clear();
        }
        kept.insert(key.to_string(), value.clone());
        Ok(value)
    }

    /// Forgets everything kept: what it was made from has changed.
    pub fn forget(&self) {
        self.kept.borrow_mut().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_failures_not_kept_and_bounded() {
        let memo: Memo<usize> = Memo::new(2);
        let mut made = 0;
        for _ in 0..3 {
            let v = memo.get_or_try::<()>("a", || {
                made += 1;
                Ok(7)
            });
            assert_eq!(v, Ok(7));
        }
        assert_eq!(made, 1);
        assert_eq!(memo.get_or_try("b", || Err("no")), Err("no"));
        assert_eq!(memo.get_or_try::<()>("b", || Ok(8)), Ok(8), "a failure is tried again");
        memo.get_or_try::<()>("c", || Ok(9)).unwrap();
        assert_eq!(memo.kept.borrow().len(), 1, "past its size it starts over");
        memo.forget();
        assert!(memo.kept.borrow().is_empty());
    }
}
