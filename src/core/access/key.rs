//! API keys: their format, their digest, the record kept of each, and the caller a live key is.
//!
//! A key reads `pbk_` + 43 characters of randomness (32 bytes, base62) + a 6-character checksum
//! (CRC-32 of the rest, base62). The prefix lets a secret scanner find a leaked key, and the
//! checksum refuses a mistyped one before any lookup. Only the SHA-256 digest is ever kept.

use serde::{Deserialize, Serialize};

use super::oauth::secret::digest;
use crate::core::actor::Actor;
use crate::core::caller::{Caller, Principal, Scope};
use crate::core::ids::is_playbook_id;
use crate::core::{FieldError, Problem};

pub const PREFIX: &str = "pbk_";
const BODY: usize = 43;
const CHECK: usize = 6;
pub const LENGTH: usize = PREFIX.len() + BODY + CHECK;
/// How much of a key its listing shows, so a person can tell one key from another.
const SHOWN: usize = PREFIX.len() + 6;
pub const NAME_MAX: usize = 64;
pub const PLAYBOOKS_MAX: usize = 100;
/// A key's last use is written at most once a minute, not on every request.
const TOUCH_EVERY_MS: i64 = 60_000;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A new key's secret from 32 random bytes.
pub fn mint(random: &[u8; 32]) -> String {
    let body = base62(random, BODY);
    let mut key = format!("{PREFIX}{body}");
    let check = base62(&crc32(key.as_bytes()).to_be_bytes(), CHECK);
    key.push_str(&check);
    key
}

/// Whether a bearer value has the shape and checksum of a key, checked without any lookup.
pub fn well_formed(key: &str) -> bool {
    if key.len() != LENGTH || !key.starts_with(PREFIX) || !key.bytes().all(|b| BASE62.contains(&b) || b == b'_') {
        return false;
    }
    let (rest, check) = key.split_at(LENGTH - CHECK);
    !rest[PREFIX.len()..].contains('_') && base62(&crc32(rest.as_bytes()).to_be_bytes(), CHECK) == check
}

/// A fixed-width base62 rendering of big-endian bytes.
fn base62(bytes: &[u8], width: usize) -> String {
    let mut digits = bytes.to_vec();
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        let mut remainder = 0u32;
        for d in digits.iter_mut() {
            let acc = (remainder << 8) | u32::from(*d);
            *d = (acc / 62) as u8;
            remainder = acc % 62;
        }
        *slot = BASE62[remainder as usize];
    }
    String::from_utf8(out).unwrap_or_default()
}

/// CRC-32 (IEEE), bit by bit: a checksum for typing mistakes, not a defence.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// A key as a listing shows it: everything but its digest, and its prefix marked as cut short.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyView {
    pub id: String,
    pub name: String,
    pub prefix: String,
    pub scopes: Vec<Scope>,
    pub playbooks: Option<Vec<String>>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub created_by: Actor,
    pub last_used_at: Option<String>,
}

/// What is kept of a key. The digest never leaves the store but to be compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyRecord {
    pub id: String,
    pub org: String,
    pub name: String,
    /// The first characters of the secret, which a listing shows.
    pub prefix: String,
    pub digest: String,
    pub scopes: Vec<Scope>,
    pub playbooks: Option<Vec<String>>,
    pub expires_at: Option<String>,
    pub created_at: String,
    pub created_by: Actor,
    pub last_used_at: Option<String>,
    pub revoked_at: Option<String>,
}

impl KeyRecord {
    /// The key as a listing shows it.
    pub fn view(&self) -> KeyView {
        KeyView {
            id: self.id.clone(),
            name: self.name.clone(),
            prefix: format!("{}…", self.prefix),
            scopes: self.scopes.clone(),
            playbooks: self.playbooks.clone(),
            expires_at: self.expires_at.clone(),
            created_at: self.created_at.clone(),
            created_by: self.created_by.clone(),
            last_used_at: self.last_used_at.clone(),
        }
    }

    /// The caller this key is at `now`, or none when it is revoked or expired: the three look
    /// alike to whoever holds the key.
    pub fn caller(&self, now: &str) -> Option<Caller> {
        if self.revoked_at.is_some() || self.expires_at.as_deref().is_some_and(|at| !is_before(now, at)) {
            return None;
        }
        Some(Caller {
            id: self.id.clone(),
            principal: Principal::Key { name: self.name.clone() },
            org: self.org.clone(),
            scopes: self.scopes.clone(),
            playbooks: self.playbooks.clone(),
        })
    }

    /// The person who made the key, if a person did. Their authority is the key's: it works only
    /// while they hold a role that manages the org's access (`Role::manages_access`), so a key
    /// does not outlive its maker's role. One the operator or the local developer made has no
    /// such person, and lives until it is revoked or expires.
    pub fn made_by_person(&self) -> Option<&str> {
        (self.created_by.kind == crate::core::actor::ActorKind::Person).then_some(self.created_by.id.as_str())
    }

    /// Whether this use should be written as the key's last: once a minute at most.
    pub fn touch_due(&self, now: &str) -> bool {
        match (self.last_used_at.as_deref().and_then(millis), millis(now)) {
            (Some(last), Some(now)) => now - last >= TOUCH_EVERY_MS,
            _ => true,
        }
    }
}

/// What `create_key` asks for, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub playbooks: Option<Vec<String>>,
    pub expires_at: Option<String>,
}

/// Refuses a key that would reach more than its maker: each scope must be one the caller holds
/// in this request, and a caller kept to some playbooks makes keys kept to some of those. The
/// operator holds no scope and is above this rule, as the local developer holds every one.
pub fn within_maker(new: &NewKey, maker: &Caller) -> Result<(), Problem> {
    if maker.principal == Principal::Operator {
        return Ok(());
    }
    let mut errors = Vec::new();
    for (i, scope) in new.scopes.iter().enumerate() {
        if !maker.allows(*scope) {
            let held: Vec<&str> = maker.scopes.iter().map(|s| s.as_str()).collect();
            errors.push(FieldError::new(
                format!("/scopes/{i}"),
                format!(
                    "is {}, which this request does not hold: a key is made with at most the scopes of whoever makes it ({})",
                    scope.as_str(),
                    held.join(", ")
                ),
            ));
        }
    }
    if let Some(kept) = &maker.playbooks {
        match &new.playbooks {
            None => errors.push(FieldError::new(
                "/playbooks",
                "is required: this caller is kept to some playbooks, so its keys name some of them",
            )),
            Some(list) => {
                for (i, id) in list.iter().enumerate().filter(|(_, id)| !kept.contains(id)) {
                    errors.push(FieldError::new(
                        format!("/playbooks/{i}"),
                        format!("is {id}, a playbook this caller does not reach"),
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

impl NewKey {
    /// Checks the asked fields beyond their schema: known, distinct scopes, playbook ids, and an
    /// expiry that is still to come.
    pub fn check(
        name: &str,
        scopes: &[String],
        playbooks: Option<&[String]>,
        expires_at: Option<&str>,
        now: &str,
    ) -> Result<NewKey, Problem> {
        let mut errors = Vec::new();
        let name = name.trim();
        if name.is_empty()
            || name.chars().count() > NAME_MAX
            || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            errors.push(FieldError::new(
                "/name",
                format!("must be 1 to {NAME_MAX} letters, digits, '-', '_' or '.', such as build-bot"),
            ));
        }
        let mut kept = Vec::new();
        for (i, s) in scopes.iter().enumerate() {
            match Scope::parse(s) {
                Some(scope) if !kept.contains(&scope) => kept.push(scope),
                Some(_) => errors.push(FieldError::new(format!("/scopes/{i}"), "is given twice")),
                None => errors.push(FieldError::new(
                    format!("/scopes/{i}"),
                    "is not a scope: use org:read, org:write, playbook:read or playbook:write",
                )),
            }
        }
        if scopes.is_empty() {
            errors.push(FieldError::new("/scopes", "must name at least one scope"));
        }
        if let Some(list) = playbooks {
            if list.is_empty() || list.len() > PLAYBOOKS_MAX {
                errors.push(FieldError::new(
                    "/playbooks",
                    format!("must name 1 to {PLAYBOOKS_MAX} playbooks, or be left out to reach them all"),
                ));
            }
            for (i, id) in list.iter().enumerate() {
                if !is_playbook_id(id) {
                    errors.push(FieldError::new(format!("/playbooks/{i}"), "is not a playbook id, such as pb_…"));
                }
            }
        }
        if let Some(at) = expires_at {
            match chrono::DateTime::parse_from_rfc3339(at) {
                Err(_) => errors
                    .push(FieldError::new("/expires_at", "must be an RFC 3339 time, such as 2027-01-31T00:00:00Z")),
                Ok(_) if !is_before(now, at) => errors.push(FieldError::new("/expires_at", "must be in the future")),
                Ok(_) => {}
            }
        }
        if !errors.is_empty() {
            return Err(Problem::invalid_fields(errors));
        }
        let mut playbooks = playbooks.map(<[String]>::to_vec);
        if let Some(list) = playbooks.as_mut() {
            list.sort();
            list.dedup();
        }
        Ok(NewKey { name: name.to_string(), scopes: kept, playbooks, expires_at: expires_at.map(str::to_string) })
    }

    /// The record of this key, made with its secret, which is shown once and then forgotten.
    pub fn record(self, id: String, org: &str, secret: &str, now: &str, by: Actor) -> KeyRecord {
        KeyRecord {
            id,
            org: org.to_string(),
            name: self.name,
            prefix: secret.chars().take(SHOWN).collect(),
            digest: digest(secret),
            scopes: self.scopes,
            playbooks: self.playbooks,
            expires_at: self.expires_at,
            created_at: now.to_string(),
            created_by: by,
            last_used_at: None,
            revoked_at: None,
        }
    }
}

/// Keeps a new key in the key store; refused when a live key of the org has its name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MakeKey {
    pub record: KeyRecord,
}

/// The org's live keys, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListKeys {
    pub org: String,
}

/// Revokes a key of the org, at once for every later request; answers the key as revoked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevokeKey {
    pub org: String,
    pub id: String,
    pub now: String,
}

/// The live key with this digest, written as used when due; none for a key unknown, revoked or
/// expired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyKey {
    pub digest: String,
    pub now: String,
}

fn millis(at: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(at).ok().map(|t| t.timestamp_millis())
}

fn is_before(a: &str, b: &str) -> bool {
    matches!((millis(a), millis(b)), (Some(a), Some(b)) if a < b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::access::oauth::secret::same;

    const NOW: &str = "2026-12-04T10:00:00.000Z";

    #[test]
    fn a_minted_key_is_well_formed_and_a_changed_one_is_not() {
        let key = mint(&[7u8; 32]);
        assert_eq!(key.len(), LENGTH);
        assert!(key.starts_with("pbk_") && well_formed(&key), "{key}");
        assert_ne!(mint(&[8u8; 32]), key);
        let mut typo = key.clone().into_bytes();
        typo[10] = if typo[10] == b'a' { b'b' } else { b'a' };
        assert!(!well_formed(&String::from_utf8(typo).unwrap()));
        assert!(!well_formed(&key[1..]) && !well_formed(&format!("ghp_{}", &key[4..])) && !well_formed(""));
        assert!(!well_formed(&format!("{key}x")) && !well_formed(&key.replace('_', "-")));
    }

    #[test]
    fn digests_compare_whole() {
        let d = digest("pbk_x");
        assert_eq!(d.len(), 64);
        assert!(same(&d, &digest("pbk_x")) && !same(&d, &digest("pbk_y")) && !same(&d, "ab"));
    }

    fn record(expires_at: Option<&str>) -> KeyRecord {
        NewKey::check("build-bot", &["org:read".into(), "playbook:read".into()], None, expires_at, NOW).unwrap().record(
            "key_1".into(),
            "acme",
            &mint(&[1u8; 32]),
            NOW,
            Actor::of(&Caller::local(None)),
        )
    }

    #[test]
    fn a_live_key_is_its_caller_and_a_dead_one_none() {
        let live = record(Some("2026-12-05T00:00:00Z"));
        let caller = live.caller(NOW).unwrap();
        assert_eq!(caller.acts_as_sentence(), "This connection acts as the key build-bot in the org acme.");
        assert_eq!(caller.scopes, vec![Scope::OrgRead, Scope::PlaybookRead]);
        assert!(live.caller("2026-12-05T00:00:00.000Z").is_none(), "expired at the instant");
        let revoked = KeyRecord { revoked_at: Some(NOW.into()), ..live.clone() };
        assert!(revoked.caller(NOW).is_none());
        let view = serde_json::to_value(live.view()).unwrap();
        assert!(view.get("digest").is_none() && view["prefix"].as_str().unwrap().ends_with('…'));
        assert_eq!(view["prefix"].as_str().unwrap().chars().count(), SHOWN + 1);
    }

    #[test]
    fn use_is_written_once_a_minute() {
        let r = KeyRecord { last_used_at: Some(NOW.into()), ..record(None) };
        assert!(!r.touch_due("2026-12-04T10:00:59.999Z") && r.touch_due("2026-12-04T10:01:00.000Z"));
        assert!(record(None).touch_due(NOW));
    }

    #[test]
    fn a_bad_request_names_each_field() {
        let p = NewKey::check(
            "build bot",
            &["org:read".into(), "org:read".into(), "org:admin".into()],
            Some(&["nope".into()]),
            Some("2020-01-01T00:00:00Z"),
            NOW,
        )
        .unwrap_err();
        let pointers: Vec<String> = p.errors.iter().map(|e| e.pointer.clone()).collect();
        assert_eq!(pointers, ["/name", "/scopes/1", "/scopes/2", "/playbooks/0", "/expires_at"]);
        let p = NewKey::check("ok", &[], Some(&[]), Some("soon"), NOW).unwrap_err();
        let pointers: Vec<String> = p.errors.iter().map(|e| e.pointer.clone()).collect();
        assert_eq!(pointers, ["/scopes", "/playbooks", "/expires_at"]);
    }

    #[test]
    fn kept_playbooks_are_sorted_once() {
        let (a, b) = ("pb_aaaaaaaaaaaaaaaa".to_string(), "pb_bbbbbbbbbbbbbbbb".to_string());
        let k = NewKey::check("ci", &["playbook:read".into()], Some(&[b.clone(), a.clone(), b.clone()]), None, NOW);
        assert_eq!(k.unwrap().playbooks, Some(vec![a, b]));
    }

    #[test]
    fn a_key_reaches_no_more_than_its_maker() {
        let all: Vec<String> = Scope::ALL.iter().map(|s| s.as_str().to_string()).collect();
        let new = NewKey::check("ci", &all, None, None, NOW).unwrap();
        let person = |scopes: &[Scope]| Caller {
            id: "person:user_2ada".into(),
            principal: Principal::Person { name: "Ada".into(), email: None },
            org: "acme".into(),
            scopes: scopes.to_vec(),
            playbooks: None,
        };
        let refused = within_maker(&new, &person(&[Scope::OrgWrite])).unwrap_err();
        let pointers: Vec<&str> = refused.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, ["/scopes/0", "/scopes/2", "/scopes/3"]);
        assert!(refused.errors[0].detail.contains("(org:write)"), "{}", refused.errors[0].detail);
        assert!(within_maker(&new, &person(&Scope::ALL)).is_ok());
        assert!(within_maker(&new, &Caller::operator("acme")).is_ok());
        assert!(within_maker(&new, &Caller::local(None)).is_ok());
        let kept = Caller { playbooks: Some(vec!["pb_aaaaaaaaaaaaaaaa".into()]), ..person(&Scope::ALL) };
        assert_eq!(within_maker(&new, &kept).unwrap_err().errors[0].pointer, "/playbooks");
        let other = NewKey::check("ci", &all, Some(&["pb_bbbbbbbbbbbbbbbb".into()]), None, NOW).unwrap();
        assert_eq!(within_maker(&other, &kept).unwrap_err().errors[0].pointer, "/playbooks/0");
    }

    #[test]
    fn only_a_person_made_key_names_its_maker() {
        let mut r = record(None);
        r.created_by =
            Actor { kind: crate::core::actor::ActorKind::Person, id: "person:user_2ada".into(), name: "Ada".into() };
        assert_eq!(r.made_by_person(), Some("person:user_2ada"));
        r.created_by.kind = crate::core::actor::ActorKind::Operator;
        assert_eq!(r.made_by_person(), None);
    }
}
