//! The Access object's rows in memory, for host tests. Its `faults` fail its calls on demand;
//! where the runtime stops (`Faults::stop_at`), the batch the failed write is part of is undone,
//! every batch before it stands, and every write after it fails too, until `Faults::restart`.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::AccessStore;
use crate::core::access::key::KeyRecord;
use crate::core::access::oauth::client::Client;
use crate::core::access::oauth::grant::Grant;
use crate::core::access::role::RoleAssignment;
use crate::core::access::session::Session;
use crate::core::Problem;
use crate::ops::faults::Faults;

#[derive(Clone, Default)]
pub struct Kept {
    /// In the order they were made.
    pub keys: Vec<KeyRecord>,
    /// By org, then person.
    pub roles: BTreeMap<(String, String), RoleAssignment>,
    pub grants: BTreeMap<String, Grant>,
    /// The grant each digest finds.
    pub digests: BTreeMap<String, String>,
    pub clients: BTreeMap<String, Client>,
    pub sessions: BTreeMap<String, Session>,
}

#[derive(Default)]
pub struct MemAccess {
    pub kept: RefCell<Kept>,
    in_batch: Cell<bool>,
    pub faults: Faults,
}

impl MemAccess {
    fn read<T>(&self, op: &'static str, look: impl FnOnce(&Kept) -> T) -> Result<T, Problem> {
        self.faults.read(op)?;
        Ok(look(&self.kept.borrow()))
    }

    fn write(&self, op: &'static str, change: impl FnOnce(&mut Kept)) -> Result<(), Problem> {
        self.faults.write(op)?;
        change(&mut self.kept.borrow_mut());
        Ok(())
    }

    fn keep_key(&self, op: &'static str, record: &KeyRecord, by: impl Fn(&KeyRecord) -> bool) -> Result<(), Problem> {
        self.write(op, |k| {
            if let Some(kept) = k.keys.iter_mut().find(|k| by(k)) {
                *kept = record.clone();
            }
        })
    }
}

impl AccessStore for MemAccess {
    fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem> {
        if self.in_batch.replace(true) {
            return writes();
        }
        let before = self.kept.borrow().clone();
        let result = writes();
        self.in_batch.set(false);
        if result.is_err() && self.faults.stopped() {
            *self.kept.borrow_mut() = before;
        }
        result
    }

    fn key(&self, digest: &str) -> Result<Option<KeyRecord>, Problem> {
        self.read("key", |k| k.keys.iter().find(|r| r.digest == digest).cloned())
    }

    fn key_of(&self, org: &str, id: &str) -> Result<Option<KeyRecord>, Problem> {
        self.read("key_of", |k| k.keys.iter().find(|r| r.org == org && r.id == id).cloned())
    }

    fn live_key_named(&self, org: &str, name: &str) -> Result<Option<KeyRecord>, Problem> {
        let live = |r: &&KeyRecord| r.org == org && r.name == name && r.revoked_at.is_none();
        self.read("live_key_named", |k| k.keys.iter().find(live).cloned())
    }

    fn live_keys(&self, org: &str) -> Result<Vec<KeyRecord>, Problem> {
        let live = |r: &&KeyRecord| r.org == org && r.revoked_at.is_none();
        self.read("live_keys", |k| k.keys.iter().rev().filter(live).cloned().collect())
    }

    fn add_key(&self, record: &KeyRecord) -> Result<(), Problem> {
        self.write("add_key", |k| k.keys.push(record.clone()))
    }

    fn revoke_key(&self, record: &KeyRecord) -> Result<(), Problem> {
        self.keep_key("revoke_key", record, |k| k.id == record.id)
    }

    fn touch_key(&self, record: &KeyRecord) -> Result<(), Problem> {
        self.keep_key("touch_key", record, |k| k.digest == record.digest)
    }

    fn roles(&self, org: &str) -> Result<Vec<RoleAssignment>, Problem> {
        self.read("roles", |k| k.roles.values().filter(|a| a.org == org).cloned().collect())
    }

    fn role(&self, org: &str, person: &str) -> Result<Option<RoleAssignment>, Problem> {
        self.read("role", |k| k.roles.get(&(org.to_string(), person.to_string())).cloned())
    }

    fn roles_held(&self, person: &str) -> Result<Vec<RoleAssignment>, Problem> {
        self.read("roles_held", |k| k.roles.values().filter(|a| a.person == person).cloned().collect())
    }

    fn put_role(&self, a: &RoleAssignment) -> Result<(), Problem> {
        self.write("put_role", |k| drop(k.roles.insert((a.org.clone(), a.person.clone()), a.clone())))
    }

    fn remove_role(&self, org: &str, person: &str) -> Result<(), Problem> {
        self.write("remove_role", |k| drop(k.roles.remove(&(org.to_string(), person.to_string()))))
    }

    fn grant(&self, digest: &str) -> Result<Option<Grant>, Problem> {
        self.read("grant", |k| k.digests.get(digest).and_then(|id| k.grants.get(id)).cloned())
    }

    /// Two writes, as the object makes them: the grant, then its digests.
    fn put_grant(&self, grant: &Grant) -> Result<(), Problem> {
        self.write("put_grant", |k| drop(k.grants.insert(grant.id.clone(), grant.clone())))?;
        self.write("grant_digests", |k| {
            k.digests.retain(|_, id| *id != grant.id);
            k.digests.extend(grant.digests().into_iter().map(|d| (d.to_string(), grant.id.clone())));
        })
    }

    fn sweep_grants(&self, now: DateTime<Utc>) -> Result<(), Problem> {
        self.write("sweep_grants", |k| {
            k.grants.retain(|_, g| g.useless_after() >= now);
            let Kept { grants, digests, .. } = k;
            digests.retain(|_, id| grants.contains_key(id));
        })
    }

    fn old_client(&self, client_id: &str) -> Result<Option<Client>, Problem> {
        self.read("old_client", |k| k.clients.get(client_id).cloned())
    }

    fn session(&self, digest: &str) -> Result<Option<Session>, Problem> {
        self.read("session", |k| k.sessions.get(digest).cloned())
    }

    fn put_session(&self, digest: &str, session: &Session) -> Result<(), Problem> {
        self.write("put_session", |k| drop(k.sessions.insert(digest.to_string(), session.clone())))
    }

    fn sweep_sessions(&self, now: DateTime<Utc>) -> Result<(), Problem> {
        self.write("sweep_sessions", |k| k.sessions.retain(|_, s| s.expires_at >= now))
    }

    fn end_session(&self, digest: &str) -> Result<(), Problem> {
        self.write("end_session", |k| drop(k.sessions.remove(digest)))
    }

    fn end_sessions_of(&self, person: &str) -> Result<u32, Problem> {
        let mut ended = 0;
        self.write("end_sessions_of", |k| {
            let before = k.sessions.len();
            k.sessions.retain(|_, s| s.person.id() != person);
            ended = u32::try_from(before - k.sessions.len()).unwrap_or(u32::MAX);
        })?;
        Ok(ended)
    }
}
