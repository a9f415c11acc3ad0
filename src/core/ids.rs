//! Identifiers: minted from random bytes the shell supplies, checked when they come back in.

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
/// Characters of randomness in an id: 16 base32 characters carry 80 bits.
pub const RANDOM_CHARS: usize = 16;

/// `pb_` followed by 16 base32 characters drawn from `random`.
pub fn playbook_id(random: [u8; RANDOM_CHARS]) -> String {
    prefixed("pb_", random)
}

/// `key_` followed by 16 base32 characters: the id a key is listed and revoked by.
pub fn key_id(random: [u8; RANDOM_CHARS]) -> String {
    prefixed("key_", random)
}

pub fn is_key_id(s: &str) -> bool {
    s.strip_prefix("key_").is_some_and(|rest| rest.len() == RANDOM_CHARS && rest.bytes().all(|b| ALPHABET.contains(&b)))
}

/// `prefix` followed by 16 base32 characters drawn from `random`.
pub fn prefixed(prefix: &str, random: [u8; RANDOM_CHARS]) -> String {
    let mut id = String::with_capacity(prefix.len() + RANDOM_CHARS);
    id.push_str(prefix);
    for b in random {
        id.push(ALPHABET[(b & 31) as usize] as char);
    }
    id
}

/// Whether `s` is `prefix` followed by 16 base32 characters, as `prefixed` mints them.
pub fn is_prefixed(prefix: &str, s: &str) -> bool {
    s.strip_prefix(prefix).is_some_and(|rest| rest.len() == RANDOM_CHARS && rest.bytes().all(|b| ALPHABET.contains(&b)))
}

/// Whether `s` has the shape of a playbook id; anything else cannot name a playbook.
pub fn is_playbook_id(s: &str) -> bool {
    s.strip_prefix("pb_").is_some_and(|rest| rest.len() == RANDOM_CHARS && rest.bytes().all(|b| ALPHABET.contains(&b)))
}

/// An org name as it appears in a path: lowercase letters, digits and `-`, 1 to 64 characters.
pub fn is_org_name(s: &str) -> bool {
    (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_ids_check() {
        let id = playbook_id([7; RANDOM_CHARS]);
        assert_eq!(id, "pb_hhhhhhhhhhhhhhhh");
        assert!(is_playbook_id(&id));
        assert!(!is_playbook_id("pb_short"));
        assert!(!is_playbook_id("pb_HHHHHHHHHHHHHHHH"));
        assert!(is_org_name("local") && !is_org_name("Local") && !is_org_name(""));
    }
}
