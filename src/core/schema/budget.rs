//! What one check of a value may spend, shared by every walk it starts, so that no schema makes
//! exponential work and no check keeps unbounded sentences.

use std::cell::Cell;
use std::rc::Rc;

/// The steps one check of a value may take: a subschema applied costs one and one per keyword,
/// an `enum` one per option, a misfit's sentence one per 64 bytes, a match of a pattern its
/// program's size times the text's length. Without it a small schema makes exponential work: `$ref`s that fan out (two
/// to the next definition, thirty deep) or a pattern of many states over a long string.
pub(super) const MOST_STEPS: usize = 500_000;
/// The most bytes of sentences one check keeps: each may repeat the whole value.
pub(super) const MOST_KEPT_BYTES: usize = 1 << 20;

/// What a check has left, shared by every walk it starts; once spent, every walk stops.
#[derive(Default)]
pub(super) struct Budget {
    steps: Cell<usize>,
    kept: Cell<usize>,
    spent: Cell<bool>,
}

impl Budget {
    pub(super) fn full() -> Rc<Budget> {
        Rc::new(Budget { steps: Cell::new(MOST_STEPS), ..Budget::default() })
    }

    /// Whether the budget is spent: every walk stops.
    pub(super) fn spent(&self) -> bool {
        self.spent.get()
    }

    pub(super) fn spend(&self, steps: usize) -> bool {
        match self.steps.get().checked_sub(steps).filter(|_| !self.spent.get()) {
            Some(left) => self.steps.set(left),
            None => self.spent.set(true),
        }
        !self.spent.get()
    }

    pub(super) fn keep(&self, bytes: usize) -> bool {
        self.kept.set(self.kept.get().saturating_add(bytes));
        if self.kept.get() > MOST_KEPT_BYTES {
            self.spent.set(true);
        }
        !self.spent.get()
    }
}
