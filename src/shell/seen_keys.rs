//! The keys this isolate verified lately, so that a key's every request does not ask the Access
//! object. The isolate that revokes a key forgets it at once; the others trust it a few seconds.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::core::Caller;

/// How long an isolate trusts a key it verified before asking again: the longest a revoked key
/// may still work in another isolate.
const FRESH_MS: f64 = 5_000.0;
/// Bounds the memory of keys seen: past it, the isolate forgets them all and asks again.
const SEEN_MAX: usize = 4_096;

/// A key this isolate verified: its caller, when it was verified, and when the key expires.
struct Seen {
    caller: Caller,
    at_ms: f64,
    expires_ms: Option<f64>,
}

thread_local! {
    static SEEN: RefCell<HashMap<String, Seen>> = RefCell::new(HashMap::new());
}

/// The caller of the key with this digest, while it is fresh and never past the key's expiry.
pub fn fresh(digest: &str, now_ms: f64) -> Option<Caller> {
    SEEN.with(|seen| {
        seen.borrow()
            .get(digest)
            .filter(|s| now_ms - s.at_ms < FRESH_MS && s.expires_ms.is_none_or(|e| now_ms < e))
            .map(|s| s.caller.clone())
    })
}

/// Keeps a key just verified.
pub fn keep(digest: &str, caller: &Caller, now_ms: f64, expires_ms: Option<f64>) {
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        if seen.len() >= SEEN_MAX {
            seen.clear();
        }
        seen.insert(digest.to_string(), Seen { caller: caller.clone(), at_ms: now_ms, expires_ms });
    });
}

/// Forgets a key the Access object no longer knows.
pub fn drop(digest: &str) {
    SEEN.with(|seen| seen.borrow_mut().remove(digest));
}

/// Forgets a revoked key in this isolate at once.
pub fn forget(key_id: &str) {
    SEEN.with(|seen| seen.borrow_mut().retain(|_, s| s.caller.id != key_id));
}
