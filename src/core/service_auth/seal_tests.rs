use super::*;

const KEY: &str = "0123456789abcdef0123456789abcdef";
const NONCE: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

/// Associated data as a caller might write it: any text binds a blob to what it names.
fn associated(org: &str, connection: &str) -> String {
    serde_json::json!([org, connection]).to_string()
}

fn aad() -> String {
    associated("acme", "con_0123456789abcdef")
}

#[test]
fn an_independent_implementation_opens_what_it_seals() {
    // Made with Python's `cryptography` (HKDF-SHA256 with this module's salt and info, then
    // AESGCM), not with this code: the derivation and the layout are what they say.
    let theirs = "v1.AAECAwQFBgcICQoLQZ3bdIiz9CI5g6fFKvycgo-Q7G67B_uje_giDLcFQw";
    assert_eq!(aad(), r#"["acme","con_0123456789abcdef"]"#);
    assert_eq!(seal(KEY, &aad(), b"sk_live_example", NONCE).unwrap(), theirs);
    assert_eq!(open(KEY, &aad(), theirs).unwrap(), b"sk_live_example");
}

#[test]
fn bound_to_its_connection_its_key_and_its_bytes() {
    let sealed = seal(KEY, &aad(), b"sk_live_example", NONCE).unwrap();
    assert!(!sealed.contains("sk_live"));
    let elsewhere = [associated("acme", "con_other"), associated("other", "con_0123456789abcdef")];
    for aad in elsewhere {
        assert_eq!(open(KEY, &aad, &sealed), Err(SealError::Refused));
    }
    assert_eq!(open(&format!("{KEY}x"), &aad(), &sealed), Err(SealError::Refused));
    // One character changed anywhere past the version, in the nonce, the ciphertext or the tag.
    for at in [VERSION.len(), VERSION.len() + 20, sealed.len() - 1] {
        let mut bytes = sealed.clone().into_bytes();
        bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(bytes).unwrap();
        assert!(matches!(open(KEY, &aad(), &altered), Err(SealError::Refused | SealError::Malformed)), "{at}");
    }
}

#[test]
fn names_cannot_run_together() {
    assert_ne!(associated("a\",\"b", "c"), associated("a", "b\",\"c"));
    assert_ne!(associated("ab", "c"), associated("a", "bc"));
}

#[test]
fn refusals_in_words() {
    assert_eq!(seal("short", &aad(), b"x", NONCE), Err(SealError::KeyTooShort));
    assert_eq!(open(&"k".repeat(31), &aad(), "v1.AAAA"), Err(SealError::KeyTooShort));
    assert!(check_key(&"é".repeat(32)).is_ok());
    assert!(SealError::KeyTooShort.to_string().contains("wrangler secret put CONNECTIONS_KEY"));
    assert_eq!(open(KEY, &aad(), "v2.AAAA"), Err(SealError::UnknownVersion));
    assert_eq!(open(KEY, &aad(), "plain text"), Err(SealError::UnknownVersion));
    assert_eq!(open(KEY, &aad(), "v1.not base64!"), Err(SealError::Malformed));
    assert_eq!(open(KEY, &aad(), "v1.AAECAwQFBgcICQoL"), Err(SealError::Malformed));
}

#[test]
fn nonces_make_each_seal_different() {
    let a = seal(KEY, &aad(), b"same", NONCE).unwrap();
    let b = seal(KEY, &aad(), b"same", [9; 12]).unwrap();
    assert_ne!(a, b);
    assert_eq!(open(KEY, &aad(), &b).unwrap(), b"same");
}
