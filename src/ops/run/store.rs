//! What a run's object keeps: the run, its outbox of reports, and for a workflow run its plan,
//! its state and the actions still to take; for a step's model call, the call to make. The
//! object's SQLite implements it; `Mem` keeps it in memory and fails on demand, for tests.

use crate::core::definition::reasoning::Prepared;
use crate::core::run::store::Report;
use crate::core::run::Run;
use crate::core::workflow::{Action, Flow, Plan};
use crate::core::Problem;

/// Each call is synchronous. What one input keeps, it keeps in one `batch` before any await, so no
/// other input comes between; and since a Durable Object commits the writes between two awaits
/// together, a restart finds a batch made whole or not at all.
pub trait RunStore {
    /// Makes the writes of `writes` as one: all of them, or (should the runtime stop) none.
    fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem>;

    fn run(&self) -> Result<Option<Run>, Problem>;
    fn keep(&self, run: &Run) -> Result<(), Problem>;

    /// Adds a report to the end of the outbox.
    fn push(&self, report: &Report) -> Result<(), Problem>;
    /// The oldest reports waiting, at most `limit`, each with its place in the outbox.
    fn waiting(&self, limit: usize) -> Result<Vec<(i64, Report)>, Problem>;
    /// Drops the reports from `first` to `last`, which the playbook has taken.
    fn sent(&self, first: i64, last: i64) -> Result<(), Problem>;

    /// A workflow run's plan and state.
    fn flow(&self) -> Result<Option<(Plan, Flow)>, Problem>;
    fn keep_plan(&self, plan: &Plan, flow: &Flow) -> Result<(), Problem>;
    fn keep_flow(&self, flow: &Flow) -> Result<(), Problem>;
    fn push_todo(&self, action: &Action) -> Result<(), Problem>;
    fn next_todo(&self) -> Result<Option<(i64, Action)>, Problem>;
    fn done_todo(&self, seq: i64) -> Result<(), Problem>;

    /// Keeps a step's model call for the alarm to make.
    fn defer(&self, call: &Prepared) -> Result<(), Problem>;
    /// The deferred call, and whether it was asked already.
    fn deferred(&self) -> Result<Option<(Prepared, bool)>, Problem>;
    fn asked(&self) -> Result<(), Problem>;
}

#[cfg(not(target_arch = "wasm32"))]
pub use mem::Mem;

#[cfg(not(target_arch = "wasm32"))]
mod mem {
    use std::cell::{Cell, RefCell};

    use super::*;
    use crate::ops::faults::Faults;

    #[derive(Clone, Default)]
    struct Kept {
        run: Option<Run>,
        outbox: Vec<(i64, Report)>,
        seq: i64,
        flow: Option<(Plan, Flow)>,
        todo: Vec<(i64, Action)>,
        deferred: Option<(Prepared, bool)>,
    }

    /// A run's store in memory. Its `faults` fail its writes on demand; where the runtime stops
    /// (`Faults::stop_at`), the batch the failed write is part of is undone, every batch before
    /// it stands, and every write after it fails too, until `Faults::restart`.
    #[derive(Default)]
    pub struct Mem {
        kept: RefCell<Kept>,
        in_batch: Cell<bool>,
        pub faults: Faults,
    }

    impl Mem {
        pub fn reports(&self) -> Vec<Report> {
            self.kept.borrow().outbox.iter().map(|(_, r)| r.clone()).collect()
        }

        fn write(&self, what: &'static str, change: impl FnOnce(&mut Kept)) -> Result<(), Problem> {
            self.faults.write(what)?;
            change(&mut self.kept.borrow_mut());
            Ok(())
        }

        fn queued<T>(kept: &mut Kept, pick: impl FnOnce(&mut Kept) -> &mut Vec<(i64, T)>, item: T) {
            kept.seq += 1;
            let seq = kept.seq;
            pick(kept).push((seq, item));
        }
    }

    impl RunStore for Mem {
        fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem> {
            if self.in_batch.replace(true) {
                let result = writes();
                self.in_batch.set(true);
                return result;
            }
            let before = self.kept.borrow().clone();
            let result = writes();
            self.in_batch.set(false);
            if result.is_err() && self.faults.stopped() {
                *self.kept.borrow_mut() = before;
            }
            result
        }
        fn run(&self) -> Result<Option<Run>, Problem> {
            Ok(self.kept.borrow().run.clone())
        }
        fn keep(&self, run: &Run) -> Result<(), Problem> {
            self.write("keep", |k| k.run = Some(run.clone()))
        }
        fn push(&self, report: &Report) -> Result<(), Problem> {
            self.write("push", |k| Self::queued(k, |k| &mut k.outbox, report.clone()))
        }
        fn waiting(&self, limit: usize) -> Result<Vec<(i64, Report)>, Problem> {
            Ok(self.kept.borrow().outbox.iter().take(limit).cloned().collect())
        }
        fn sent(&self, first: i64, last: i64) -> Result<(), Problem> {
            self.write("sent", |k| k.outbox.retain(|(seq, _)| *seq < first || *seq > last))
        }
        fn flow(&self) -> Result<Option<(Plan, Flow)>, Problem> {
            Ok(self.kept.borrow().flow.clone())
        }
        fn keep_plan(&self, plan: &Plan, flow: &Flow) -> Result<(), Problem> {
            self.write("keep_plan", |k| k.flow = Some((plan.clone(), flow.clone())))
        }
        fn keep_flow(&self, flow: &Flow) -> Result<(), Problem> {
            self.write("keep_flow", |k| {
                if let Some((_, kept)) = k.flow.as_mut() {
                    *kept = flow.clone();
                }
            })
        }
        fn push_todo(&self, action: &Action) -> Result<(), Problem> {
            self.write("push_todo", |k| Self::queued(k, |k| &mut k.todo, action.clone()))
        }
        fn next_todo(&self) -> Result<Option<(i64, Action)>, Problem> {
            Ok(self.kept.borrow().todo.first().cloned())
        }
        fn done_todo(&self, seq: i64) -> Result<(), Problem> {
            self.write("done_todo", |k| k.todo.retain(|(s, _)| *s != seq))
        }
        fn defer(&self, call: &Prepared) -> Result<(), Problem> {
            self.write("defer", |k| k.deferred = Some((call.clone(), false)))
        }
        fn deferred(&self) -> Result<Option<(Prepared, bool)>, Problem> {
            Ok(self.kept.borrow().deferred.clone())
        }
        fn asked(&self) -> Result<(), Problem> {
            self.write("asked", |k| {
                if let Some((_, asked)) = k.deferred.as_mut() {
                    *asked = true;
                }
            })
        }
    }
}
