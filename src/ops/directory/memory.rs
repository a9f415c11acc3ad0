//! One org's directory in memory, for host tests: its rows, the playbooks' objects it reaches,
//! and its claims, each store failing where its `faults` say. The playbooks' objects can be told
//! to take a while, so that changes in flight overlap as they do across real round trips.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use futures::future::LocalBoxFuture;

use super::{Claim, Directory, DirectoryStore, Playbooks};
use crate::core::directory::{unknown_playbook, ListQuery, Save};
use crate::core::playbook::{name_key, Playbook};
use crate::core::Problem;
use crate::ops::claims::Claims;
use crate::ops::faults::Faults;
use crate::ops::faults::Later;

/// The directory's rows in memory, by id, each without its page.
#[derive(Default)]
pub struct MemDirectory {
    pub rows: RefCell<BTreeMap<String, Playbook>>,
    pub faults: Faults,
}

impl DirectoryStore for MemDirectory {
    fn row(&self, id: &str) -> Result<Option<Playbook>, Problem> {
        self.faults.read("row")?;
        Ok(self.rows.borrow().get(id).cloned())
    }

    fn holder(&self, key: &str) -> Result<Option<String>, Problem> {
        self.faults.read("holder")?;
        let rows = self.rows.borrow();
        Ok(rows.values().find(|p| !p.is_retired() && name_key(&p.name) == key).map(|p| p.id.clone()))
    }

    fn put(&self, playbook: &Playbook) -> Result<(), Problem> {
        self.faults.write("put")?;
        let row = Playbook { page: String::new(), ..playbook.clone() };
        self.rows.borrow_mut().insert(row.id.clone(), row);
        Ok(())
    }

    fn page(&self, q: &ListQuery, take: usize) -> Result<Vec<Playbook>, Problem> {
        self.faults.read("page")?;
        let rows = self.rows.borrow();
        let mut found: Vec<&Playbook> = rows
            .values()
            .filter(|p| q.include_retired || !p.is_retired())
            .filter(|p| q.only.as_ref().is_none_or(|only| only.contains(&p.id)))
            .filter(|p| q.after.as_ref().is_none_or(|c| (&p.created_at, &p.id) < (&c.created_at, &c.id)))
            .collect();
        found.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
        Ok(found.into_iter().take(take).cloned().collect())
    }

    fn any(&self) -> Result<bool, Problem> {
        self.faults.read("any")?;
        Ok(!self.rows.borrow().is_empty())
    }
}

/// The playbooks' objects in memory: each one's record, page and all.
#[derive(Default)]
pub struct MemPlaybooks {
    pub records: RefCell<BTreeMap<String, Playbook>>,
    pub faults: Faults,
    /// Whether each call waits a turn before it answers, as a round trip does.
    pub slow: Cell<bool>,
}

impl MemPlaybooks {
    /// The record a playbook's object holds, as its object checks the playbook a call names.
    pub fn record(&self, id: &str) -> Result<Playbook, Problem> {
        self.faults.read("get")?;
        self.records.borrow().get(id).cloned().ok_or_else(|| unknown_playbook(id))
    }

    fn keep(&self, save: &Save) -> Result<Playbook, Problem> {
        self.faults.write("save")?;
        let stored = self.records.borrow().get(&save.record.id).cloned();
        let record = save.clone().over(stored);
        self.records.borrow_mut().insert(record.id.clone(), record.clone());
        Ok(record)
    }
}

impl Playbooks for MemPlaybooks {
    fn save<'a>(&'a self, save: &'a Save) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        let slow = self.slow.get();
        Box::pin(async move {
            if slow {
                Later(false).await;
            }
            self.keep(save)
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        let slow = self.slow.get();
        Box::pin(async move {
            if slow {
                Later(false).await;
            }
            self.record(id)
        })
    }
}

/// One org's object in memory: its directory, and the playbooks' objects it reaches.
#[derive(Default)]
pub struct MemOrganization {
    pub rows: MemDirectory,
    pub playbooks: MemPlaybooks,
    claims: Claims<Claim>,
}

impl MemOrganization {
    pub fn directory(&self) -> Directory<'_> {
        Directory { rows: &self.rows, playbooks: &self.playbooks, claims: &self.claims }
    }
}
