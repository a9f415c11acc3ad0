//! The org's API keys, in the Access object.

use super::AccessObject;
use crate::core::access::key::{KeyRecord, KeyView, RevokeKey, VerifyKey};
use crate::core::access::oauth::secret::same;
use crate::core::access::role::RoleAssignment;
use crate::core::Problem;
use crate::shell::objects::records::encode;

const BY_DIGEST: &str = "SELECT record FROM keys WHERE digest = ?";

impl AccessObject {
    pub(super) fn make_key(&self, record: KeyRecord) -> Result<(), Problem> {
        if self
            .record::<KeyRecord>(
                "SELECT record FROM keys WHERE org = ? AND name = ? AND revoked_at IS NULL",
                &[&record.org, &record.name],
            )?
            .is_some()
        {
            return Err(Problem::conflict(format!(
                "A live key of the org {} is already named {}; revoke it first, or give this one another name.",
                record.org, record.name
            )));
        }
        self.run(
            "INSERT INTO keys (digest, id, org, name, record) VALUES (?, ?, ?, ?, ?)",
            vec![
                record.digest.clone().into(),
                record.id.clone().into(),
                record.org.clone().into(),
                record.name.clone().into(),
                encode(&record)?.into(),
            ],
        )
    }

    pub(super) fn list_keys(&self, org: &str) -> Result<Vec<KeyView>, Problem> {
        let keys: Vec<KeyRecord> =
            self.records("SELECT record FROM keys WHERE org = ? AND revoked_at IS NULL ORDER BY rowid DESC", &[org])?;
        Ok(keys.iter().map(KeyRecord::view).collect())
    }

    pub(super) fn revoke_key(&self, revoke: RevokeKey) -> Result<KeyView, Problem> {
        let RevokeKey { org, id, now } = revoke;
        let Some(mut record) =
            self.record::<KeyRecord>("SELECT record FROM keys WHERE org = ? AND id = ?", &[&org, &id])?
        else {
            return Err(Problem::not_found(format!(
                "The org {org} has no key {id}; list_keys gives the id of each live key."
            )));
        };
        if record.revoked_at.is_none() {
            record.revoked_at = Some(now.clone());
            self.run(
                "UPDATE keys SET revoked_at = ?, record = ? WHERE id = ?",
                vec![now.into(), encode(&record)?.into(), id.into()],
            )?;
        }
        Ok(record.view())
    }

    pub(super) fn verify_key(&self, verify: VerifyKey) -> Result<Option<KeyRecord>, Problem> {
        let VerifyKey { digest, now } = verify;
        let Some(mut record) = self.record::<KeyRecord>(BY_DIGEST, &[&digest])? else {
            return Ok(None);
        };
        if !same(&record.digest, &digest) || record.caller(&now).is_none() {
            return Ok(None);
        }
        // A person's key works while its maker's role still manages the org's access.
        if let Some(person) = record.made_by_person() {
            let held: Option<RoleAssignment> =
                self.record("SELECT record FROM roles WHERE org = ? AND person = ?", &[&record.org, person])?;
            if !held.is_some_and(|h| h.role.manages_access()) {
                return Ok(None);
            }
        }
        if record.touch_due(&now) {
            // To the minute: a key's use is not a write on every request.
            record.last_used_at = Some(format!("{}:00.000Z", now.get(..16).unwrap_or(&now)));
            self.run("UPDATE keys SET record = ? WHERE digest = ?", vec![encode(&record)?.into(), digest.into()])?;
        }
        Ok(Some(record))
    }
}
