//! The org's API keys: made under a name no live key of the org holds, listed without their
//! digests, revoked once, and verified by digest at a given time.

use super::AccessStore;
use crate::core::access::key::{KeyRecord, KeyView, RevokeKey, VerifyKey};
use crate::core::access::oauth::secret::same;
use crate::core::Problem;

/// Keeps a new key.
///
/// # Errors
/// Conflict where a live key of the org holds its name; a failed read or write.
pub fn make_key(store: &dyn AccessStore, record: &KeyRecord) -> Result<(), Problem> {
    if store.live_key_named(&record.org, &record.name)?.is_some() {
        return Err(Problem::conflict(format!(
            "A live key of the org {} is already named {}; revoke it first, or give this one another name.",
            record.org, record.name
        )));
    }
    store.add_key(record)
}

/// The org's live keys as a listing shows them, newest first.
///
/// # Errors
/// A failed read.
pub fn list_keys(store: &dyn AccessStore, org: &str) -> Result<Vec<KeyView>, Problem> {
    Ok(store.live_keys(org)?.iter().map(KeyRecord::view).collect())
}

/// Revokes a key of the org; a key revoked already stays as it was.
///
/// # Errors
/// Not found where the org has no such key; a failed read or write.
pub fn revoke_key(store: &dyn AccessStore, revoke: RevokeKey) -> Result<KeyView, Problem> {
    let RevokeKey { org, id, now } = revoke;
    let Some(mut record) = store.key_of(&org, &id)? else {
        return Err(Problem::not_found(format!(
            "The org {org} has no key {id}; list_keys gives the id of each live key."
        )));
    };
    if record.revoked_at.is_none() {
        record.revoked_at = Some(now);
        store.revoke_key(&record)?;
    }
    Ok(record.view())
}

/// The live key with this digest at `now`, its use written when due; none for a key unknown,
/// revoked, expired, or made by a person who no longer manages the org's access.
///
/// # Errors
/// A failed read or write.
pub fn verify_key(store: &dyn AccessStore, verify: VerifyKey) -> Result<Option<KeyRecord>, Problem> {
    let VerifyKey { digest, now } = verify;
    let Some(mut record) = store.key(&digest)? else {
        return Ok(None);
    };
    if !same(&record.digest, &digest) || record.caller(&now).is_none() {
        return Ok(None);
    }
    // A person's key works while its maker's role still manages the org's access.
    if let Some(person) = record.made_by_person() {
        if !store.role(&record.org, person)?.is_some_and(|held| held.role.manages_access()) {
            return Ok(None);
        }
    }
    if record.touch_due(&now) {
        // To the minute: a key's use is not a write on every request.
        record.last_used_at = Some(format!("{}:00.000Z", now.get(..16).unwrap_or(&now)));
        store.touch_key(&record)?;
    }
    Ok(Some(record))
}
