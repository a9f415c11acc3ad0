//! The trigger tables in memory, for host tests, with storage that fails where its `faults`
//! say. What was written before the failure stays, as in SQL storage, so the next call plays the
//! object after a restart.

use std::cell::RefCell;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::{TriggerStore, PAID_PER_RING};
use crate::core::workflow::owed::{Armed, Delivery, Owed, Waiter};
use crate::core::Problem;
use crate::ops::faults::Faults;

#[derive(Default)]
struct Tables {
    triggers: BTreeMap<(String, i64), Armed>,
    waiters: BTreeMap<(String, String), Waiter>,
    fired: BTreeMap<i64, Owed>,
    deliveries: BTreeMap<i64, Delivery>,
    /// The last number given to a queued debt; never reused, as SQL's AUTOINCREMENT.
    seq: i64,
}

#[derive(Default)]
pub struct MemTriggers {
    tables: RefCell<Tables>,
    pub faults: Faults,
}

impl MemTriggers {
    fn read(&self, call: &'static str) -> Result<std::cell::Ref<'_, Tables>, Problem> {
        self.faults.read(call)?;
        Ok(self.tables.borrow())
    }

    fn write(&self, call: &'static str) -> Result<std::cell::RefMut<'_, Tables>, Problem> {
        self.faults.write(call)?;
        Ok(self.tables.borrow_mut())
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
