//! The Access object's rows in its SQLite, each kept as one JSON record beside the columns it
//! is found by: what `ops::access` reads and writes through `AccessStore`.

use chrono::{DateTime, Utc};
use worker::SqlStorage;

use crate::core::access::key::KeyRecord;
use crate::core::access::oauth::client::Client;
use crate::core::access::oauth::grant::Grant;
use crate::core::access::role::RoleAssignment;
use crate::core::access::session::Session;
use crate::core::Problem;
use crate::ops::access::AccessStore;
use crate::shell::objects::records::{self, encode, time};
use crate::shell::objects::sql::storage;

pub struct SqlAccess<'a>(pub &'a SqlStorage);

#[derive(serde::Deserialize)]
struct Count {
    n: i64,
}

impl SqlAccess<'_> {
    fn records<T: serde::de::DeserializeOwned>(&self, query: &str, args: &[&str]) -> Result<Vec<T>, Problem> {
        records::records(self.0, query, args)
    }

    fn record<T: serde::de::DeserializeOwned>(&self, query: &str, args: &[&str]) -> Result<Option<T>, Problem> {
        records::record(self.0, query, args)
    }

    fn run(&self, query: &str, args: Vec<worker::SqlStorageValue>) -> Result<(), Problem> {
        records::run(self.0, query, args)
    }
}

impl AccessStore for SqlAccess<'_> {
    /// The writes between two awaits are committed together, so a restart finds all or none of
    /// them. (A storage error in the middle is answered as unavailable; what came before stands.)
    fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem> {
        writes()
    }

    fn key(&self, digest: &str) -> Result<Option<KeyRecord>, Problem> {
        self.record("SELECT record FROM keys WHERE digest = ?", &[digest])
    }

    fn key_of(&self, org: &str, id: &str) -> Result<Option<KeyRecord>, Problem> {
        self.record("SELECT record FROM keys WHERE org = ? AND id = ?", &[org, id])
    }

    fn live_key_named(&self, org: &str, name: &str) -> Result<Option<KeyRecord>, Problem> {
        self.record("SELECT record FROM keys WHERE org = ? AND name = ? AND revoked_at IS NULL", &[org, name])
    }

    fn live_keys(&self, org: &str) -> Result<Vec<KeyRecord>, Problem> {
        self.records("SELECT record FROM keys WHERE org = ? AND revoked_at IS NULL ORDER BY rowid DESC", &[org])
    }

    fn add_key(&self, record: &KeyRecord) -> Result<(), Problem> {
        self.run(
            "INSERT INTO keys (digest, id, org, name, record) VALUES (?, ?, ?, ?, ?)",
            vec![
                record.digest.clone().into(),
                record.id.clone().into(),
                record.org.clone().into(),
                record.name.clone().into(),
                encode(record)?.into(),
            ],
        )
    }

    fn revoke_key(&self, record: &KeyRecord) -> Result<(), Problem> {
        self.run(
            "UPDATE keys SET revoked_at = ?, record = ? WHERE id = ?",
            vec![record.revoked_at.clone().into(), encode(record)?.into(), record.id.clone().into()],
        )
    }

    fn touch_key(&self, record: &KeyRecord) -> Result<(), Problem> {
        self.run(
            "UPDATE keys SET record = ? WHERE digest = ?",
            vec![encode(record)?.into(), record.digest.clone().into()],
        )
    }

    fn roles(&self, org: &str) -> Result<Vec<RoleAssignment>, Problem> {
        self.records("SELECT record FROM roles WHERE org = ? ORDER BY person", &[org])
    }

    fn role(&self, org: &str, person: &str) -> Result<Option<RoleAssignment>, Problem> {
        self.record("SELECT record FROM roles WHERE org = ? AND person = ?", &[org, person])
    }

    fn roles_held(&self, person: &str) -> Result<Vec<RoleAssignment>, Problem> {
        self.records("SELECT record FROM roles WHERE person = ?", &[person])
    }

    fn put_role(&self, a: &RoleAssignment) -> Result<(), Problem> {
        self.run(
            "INSERT OR REPLACE INTO roles (org, person, record) VALUES (?, ?, ?)",
            vec![a.org.clone().into(), a.person.clone().into(), encode(a)?.into()],
        )
    }

    fn remove_role(&self, org: &str, person: &str) -> Result<(), Problem> {
        self.run("DELETE FROM roles WHERE org = ? AND person = ?", vec![org.into(), person.into()])
    }

    fn grant(&self, digest: &str) -> Result<Option<Grant>, Problem> {
        self.record(
            "SELECT g.record FROM grants g JOIN grant_digests d ON d.grant_id = g.id WHERE d.digest = ?",
            &[digest],
        )
    }

    fn put_grant(&self, grant: &Grant) -> Result<(), Problem> {
        self.run(
            "INSERT OR REPLACE INTO grants (id, record, useless_after) VALUES (?, ?, ?)",
            vec![grant.id.clone().into(), encode(grant)?.into(), time(grant.useless_after()).into()],
        )?;
        self.run("DELETE FROM grant_digests WHERE grant_id = ?", vec![grant.id.clone().into()])?;
        for digest in grant.digests() {
            self.run(
                "INSERT OR REPLACE INTO grant_digests (digest, grant_id) VALUES (?, ?)",
                vec![digest.to_string().into(), grant.id.clone().into()],
            )?;
        }
        Ok(())
    }

    fn sweep_grants(&self, now: DateTime<Utc>) -> Result<(), Problem> {
        let now = time(now);
        self.run(
            "DELETE FROM grant_digests WHERE grant_id IN (SELECT id FROM grants WHERE useless_after < ?)",
            vec![now.clone().into()],
        )?;
        self.run("DELETE FROM grants WHERE useless_after < ?", vec![now.into()])
    }

    fn old_client(&self, client_id: &str) -> Result<Option<Client>, Problem> {
        self.record("SELECT record FROM clients WHERE client_id = ?", &[client_id])
    }

    fn session(&self, digest: &str) -> Result<Option<Session>, Problem> {
        self.record("SELECT record FROM sessions WHERE digest = ?", &[digest])
    }

    fn put_session(&self, digest: &str, session: &Session) -> Result<(), Problem> {
        self.run(
            "INSERT OR REPLACE INTO sessions (digest, person, record, expires_at) VALUES (?, ?, ?, ?)",
            vec![digest.into(), session.person.id().into(), encode(session)?.into(), time(session.expires_at).into()],
        )
    }

    fn sweep_sessions(&self, now: DateTime<Utc>) -> Result<(), Problem> {
        self.run("DELETE FROM sessions WHERE expires_at < ?", vec![time(now).into()])
    }

    fn end_session(&self, digest: &str) -> Result<(), Problem> {
        self.run("DELETE FROM sessions WHERE digest = ?", vec![digest.into()])
    }

    fn end_sessions_of(&self, person: &str) -> Result<u32, Problem> {
        let counted: Vec<Count> = self
            .0
            .exec("SELECT COUNT(*) AS n FROM sessions WHERE person = ?", vec![person.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        self.run("DELETE FROM sessions WHERE person = ?", vec![person.into()])?;
        Ok(counted.first().map_or(0, |c| u32::try_from(c.n).unwrap_or(0)))
    }
}
