//! Storage that fails when a test says, said one way for every fake store: a fake asks `read`
//! or `write` with its method's name before it touches its rows, and a test plans one failure
//! with `fail_on`, `fail_after` or `stop_at`. What was written before a failure stays, as in
//! SQL storage, so the next call plays the object after a restart.

use std::cell::Cell;

use crate::core::Problem;

/// One fake's plan of failure, and the writes it let through.
pub struct Faults {
    /// Who fails, as the refusal names it: "Storage", "The asset bucket".
    what: &'static str,
    plan: Cell<Plan>,
    stopped: Cell<bool>,
    writes: Cell<usize>,
}

#[derive(Clone, Copy)]
enum Plan {
    None,
    /// The next call of this method fails.
    On(&'static str),
    /// This many writes succeed, then one fails.
    After(usize),
    /// This many writes succeed, then the runtime stops.
    StopAfter(usize),
}

impl Default for Faults {
    fn default() -> Self {
        Faults::named("Storage")
    }
}

impl Faults {
    /// Faults of something other than storage, named as its refusal names it.
    pub fn named(what: &'static str) -> Faults {
        Faults { what, plan: Cell::new(Plan::None), stopped: Cell::new(false), writes: Cell::new(0) }
    }

    /// The next call of the method `op`, a read or a write, fails, once.
    pub fn fail_on(&self, op: &'static str) {
        self.plan.set(Plan::On(op));
    }

    /// `n` more writes succeed, then the next one fails, once.
    pub fn fail_after(&self, n: usize) {
        self.plan.set(Plan::After(n));
    }

    /// The runtime stops just before the `n`-th write from now (1 is the next one): that write
    /// and every one after it fail, until `restart`.
    pub fn stop_at(&self, n: usize) {
        self.plan.set(Plan::StopAfter(n.saturating_sub(1)));
    }

    /// The runtime comes back: writes work again.
    pub fn restart(&self) {
        self.plan.set(Plan::None);
        self.stopped.set(false);
    }

    /// Whether the runtime stopped, as a fake that undoes a batch cut short asks.
    pub fn stopped(&self) -> bool {
        self.stopped.get()
    }

    /// The writes that succeeded so far.
    pub fn writes(&self) -> usize {
        self.writes.get()
    }

    /// Refuses a read of `op` when the plan says so.
    ///
    /// # Errors
    /// Unavailable, once, where `fail_on` named `op`.
    pub fn read(&self, op: &'static str) -> Result<(), Problem> {
        match self.plan.get() {
            Plan::On(name) if name == op => self.fail(op),
            _ => Ok(()),
        }
    }

    /// Counts a write of `op`, or refuses it when the plan says so.
    ///
    /// # Errors
    /// Unavailable where the plan fails this write, and every write while stopped.
    pub fn write(&self, op: &'static str) -> Result<(), Problem> {
        if self.stopped.get() {
            return Err(self.stop(op));
        }
        match self.plan.get() {
            Plan::On(name) if name == op => return self.fail(op),
            Plan::After(0) => return self.fail(op),
            Plan::After(n) => self.plan.set(Plan::After(n - 1)),
            Plan::StopAfter(0) => {
                self.stopped.set(true);
                return Err(self.stop(op));
            }
            Plan::StopAfter(n) => self.plan.set(Plan::StopAfter(n - 1)),
            Plan::On(_) | Plan::None => {}
        }
        self.writes.set(self.writes.get() + 1);
        Ok(())
    }

    fn fail(&self, op: &'static str) -> Result<(), Problem> {
        self.plan.set(Plan::None);
        Err(Problem::unavailable(format!("{} did not answer on {op}, as the test asked; try again.", self.what)))
    }

    fn stop(&self, op: &'static str) -> Problem {
        Problem::unavailable(format!("The runtime stopped before {op}."))
    }
}

/// Ready at its second look: whatever waits beside it is looked at first.
pub struct Later(pub bool);

impl std::future::Future for Later {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::Faults;

    #[test]
    fn fail_on_fails_the_named_call_once_read_or_write() {
        let f = Faults::default();
        f.fail_on("put");
        assert!(f.read("get").is_ok() && f.write("arm").is_ok());
        assert!(f.read("put").is_err(), "a read of that name fails");
        assert!(f.write("put").is_ok(), "once");
        f.fail_on("put");
        assert!(f.write("put").is_err());
        assert_eq!(f.writes(), 2, "the refused write is not counted");
    }

    #[test]
    fn fail_after_lets_writes_through_then_fails_one() {
        let f = Faults::default();
        f.fail_after(2);
        assert!(f.write("a").is_ok() && f.read("r").is_ok() && f.write("b").is_ok());
        let refused = f.write("c").unwrap_err();
        assert!(refused.detail.starts_with("Storage did not answer on c"), "{}", refused.detail);
        assert!(f.write("d").is_ok() && !f.stopped());
        let bucket = Faults::named("The asset bucket");
        bucket.fail_after(0);
        assert!(bucket.write("put").unwrap_err().detail.starts_with("The asset bucket did not answer"));
    }

    #[test]
    fn stop_at_stops_every_write_until_restart() {
        let f = Faults::default();
        f.stop_at(2);
        assert!(f.write("a").is_ok());
        assert!(f.write("b").is_err() && f.stopped());
        assert!(f.write("c").is_err() && f.read("c").is_ok(), "writes stay stopped; reads go on");
        f.restart();
        assert!(f.write("d").is_ok() && !f.stopped());
        assert_eq!(f.writes(), 2);
    }
}
