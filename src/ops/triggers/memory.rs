//! The trigger tables in memory, for host tests, with storage that fails where a test says: on
//! the first call of a name, or on the write after so many. What was written before the failure
//! stays, as in SQL storage, so the next call plays the object after a restart.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::{TriggerStore, PAID_PER_RING};
use crate::core::workflow::owed::{Armed, Delivery, Owed, Waiter};
use crate::core::Problem;

#[derive(Clone, Copy)]
enum Fault {
    None,
    /// The first call of this method fails.
    On(&'static str),
    /// This many writes succeed, then one fails.
    AfterWrites(usize),
}

#[derive(Default)]
struct Tables {
    triggers: BTreeMap<(String, i64), Armed>,
    waiters: BTreeMap<(String, String), Waiter>,
    fired: BTreeMap<i64, Owed>,
    deliveries: BTreeMap<i64, Delivery>,
    /// The last number given to a queued debt; never reused, as SQL's AUTOINCREMENT.
    seq: i64,
}

pub struct MemTriggers {
    tables: RefCell<Tables>,
    fault: Cell<Fault>,
    writes: Cell<usize>,
}

impl Default for MemTriggers {
    fn default() -> Self {
        MemTriggers { tables: RefCell::default(), fault: Cell::new(Fault::None), writes: Cell::new(0) }
    }
}

impl MemTriggers {
    pub fn failing_on(call: &'static str) -> Self {
        let store = MemTriggers::default();
        store.fail_on(call);
        store
    }

    /// The next call of the method `call` fails, once.
    pub fn fail_on(&self, call: &'static str) {
        self.fault.set(Fault::On(call));
    }

    /// After `writes` more writes, the next one fails, once.
    pub fn fail_after(&self, writes: usize) {
        self.fault.set(Fault::AfterWrites(writes));
    }

    /// The writes that succeeded so far.
    pub fn writes(&self) -> usize {
        self.writes.get()
    }

    fn read(&self, call: &'static str) -> Result<std::cell::Ref<'_, Tables>, Problem> {
        self.check(call, false)?;
        Ok(self.tables.borrow())
    }

    fn write(&self, call: &'static str) -> Result<std::cell::RefMut<'_, Tables>, Problem> {
        self.check(call, true)?;
        self.writes.set(self.writes.get() + 1);
        Ok(self.tables.borrow_mut())
    }

    fn check(&self, call: &'static str, write: bool) -> Result<(), Problem> {
        let fails = match self.fault.get() {
            Fault::None => false,
            Fault::On(name) => name == call,
            Fault::AfterWrites(0) => write,
            Fault::AfterWrites(n) => {
                if write {
                    self.fault.set(Fault::AfterWrites(n - 1));
                }
                false
            }
        };
        if !fails {
            return Ok(());
        }
        self.fault.set(Fault::None);
        Err(Problem::unavailable(format!("Storage failed on {call}, as the test asked.")))
    }
}

/// The first `PAID_PER_RING` of a queue, oldest first.
fn first<T: Clone>(queue: &BTreeMap<i64, T>) -> Vec<(i64, T)> {
    queue.iter().take(PAID_PER_RING).map(|(seq, t)| (*seq, t.clone())).collect()
}

impl TriggerStore for MemTriggers {
    fn armed(&self) -> Result<Vec<Armed>, Problem> {
        Ok(self.read("armed")?.triggers.values().cloned().collect())
    }

    fn disarm(&self, workflow: &str) -> Result<(), Problem> {
        self.write("disarm")?.triggers.retain(|(w, _), _| w != workflow);
        Ok(())
    }

    fn arm(&self, armed: &Armed) -> Result<(), Problem> {
        let mut t = self.write("arm")?;
        let key = (armed.workflow.clone(), armed.idx);
        if t.triggers.contains_key(&key) {
            return Err(Problem::internal("UNIQUE constraint failed: triggers.workflow, triggers.idx"));
        }
        t.triggers.insert(key, armed.clone());
        Ok(())
    }

    fn move_on(&self, workflow: &str, idx: i64, next_at: Option<DateTime<Utc>>) -> Result<(), Problem> {
        if let Some(armed) = self.write("move_on")?.triggers.get_mut(&(workflow.to_string(), idx)) {
            armed.next_at = next_at;
        }
        Ok(())
    }

    fn owe(&self, owed: &Owed) -> Result<(), Problem> {
        let mut t = self.write("owe")?;
        t.seq += 1;
        let seq = t.seq;
        t.fired.insert(seq, owed.clone());
        Ok(())
    }

    fn owed(&self) -> Result<Vec<(i64, Owed)>, Problem> {
        Ok(first(&self.read("owed")?.fired))
    }

    fn paid(&self, seq: i64) -> Result<(), Problem> {
        self.write("paid")?.fired.remove(&seq);
        Ok(())
    }

    fn wait(&self, waiter: &Waiter) -> Result<(), Problem> {
        let key = (waiter.run_id.clone(), waiter.kind.clone());
        self.write("wait")?.waiters.entry(key).or_insert_with(|| waiter.clone());
        Ok(())
    }

    fn waiters(&self) -> Result<Vec<Waiter>, Problem> {
        Ok(self.read("waiters")?.waiters.values().cloned().collect())
    }

    fn unwait(&self, run_id: &str, kind: &str) -> Result<(), Problem> {
        self.write("unwait")?.waiters.remove(&(run_id.to_string(), kind.to_string()));
        Ok(())
    }

    fn deliver(&self, delivery: &Delivery) -> Result<(), Problem> {
        let mut t = self.write("deliver")?;
        t.seq += 1;
        let seq = t.seq;
        t.deliveries.insert(seq, delivery.clone());
        Ok(())
    }

    fn deliveries(&self) -> Result<Vec<(i64, Delivery)>, Problem> {
        Ok(first(&self.read("deliveries")?.deliveries))
    }

    fn delivered(&self, seq: i64) -> Result<(), Problem> {
        self.write("delivered")?.deliveries.remove(&seq);
        Ok(())
    }
}
