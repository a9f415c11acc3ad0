//! The org's API keys, in the Access object.

use serde_json::{json, Value};

use super::{encode, AccessObject};
use crate::core::access::key::{KeyCommand, KeyRecord};
use crate::core::access::oauth::secret::same;
use crate::core::Problem;

const BY_DIGEST: &str = "SELECT record FROM keys WHERE digest = ?";

impl AccessObject {
    pub(super) fn keys(&self, command: KeyCommand) -> Result<Value, Problem> {
        match command {
            KeyCommand::Make { record } => {
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
                )?;
                Ok(json!({ "key": record.view() }))
            }
            KeyCommand::List { org } => {
                let keys: Vec<KeyRecord> = self.records(
                    "SELECT record FROM keys WHERE org = ? AND revoked_at IS NULL ORDER BY rowid DESC",
                    &[&org],
                )?;
                let keys: Vec<Value> = keys.iter().map(KeyRecord::view).collect();
                Ok(json!({ "keys": keys }))
            }
            KeyCommand::Revoke { org, id, now } => {
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
                Ok(json!({ "key": record.view() }))
            }
            KeyCommand::Verify { digest, now } => {
                let Some(mut record) = self.record::<KeyRecord>(BY_DIGEST, &[&digest])? else {
                    return Ok(Value::Null);
                };
                if !same(&record.digest, &digest) || record.caller(&now).is_none() {
                    return Ok(Value::Null);
                }
                if record.touch_due(&now) {
                    // To the minute: a key's use is not a write on every request.
                    record.last_used_at = Some(format!("{}:00.000Z", now.get(..16).unwrap_or(&now)));
                    self.run(
                        "UPDATE keys SET record = ? WHERE digest = ?",
                        vec![encode(&record)?.into(), digest.into()],
                    )?;
                }
                serde_json::to_value(&record).map_err(|e| Problem::internal(format!("a key could not be written: {e}")))
            }
        }
    }
}
