use super::*;

const KEY: &str = "0123456789abcdef0123456789abcdef";
const NONCE: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

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
    let garbage = seal(KEY, &aad(), b"not json", NONCE).unwrap();
    assert_eq!(Sealed::open(KEY, &aad(), &garbage), Err(SealError::Unreadable));
}

#[test]
fn nonces_make_each_seal_different() {
    let a = seal(KEY, &aad(), b"same", NONCE).unwrap();
    let b = seal(KEY, &aad(), b"same", [9; 12]).unwrap();
    assert_ne!(a, b);
    assert_eq!(open(KEY, &aad(), &b).unwrap(), b"same");
}

#[test]
fn credentials_round_trip_and_print_nothing_secret() {
    let at = DateTime::parse_from_rfc3339("2026-12-05T08:00:00Z").unwrap().with_timezone(&Utc);
    let all = [
        Sealed::Key { value: "sk_live_secret".into() },
        Sealed::Client { id: "client-visible".into(), secret: "cs_secret".into() },
        Sealed::Tokens {
            access: "at_secret".into(),
            refresh: Some("rt_secret".into()),
            expires_at: Some(at),
            scope: vec!["read".into(), "write".into()],
            client_secret: Some("cs2_secret".into()),
        },
    ];
    for credential in all {
        let sealed = credential.seal(KEY, &aad(), NONCE).unwrap();
        assert_eq!(Sealed::open(KEY, &aad(), &sealed).unwrap(), credential);
        let printed = format!("{credential:?}");
        for value in ["sk_live_secret", "cs_secret", "at_secret", "rt_secret", "cs2_secret"] {
            assert!(!printed.contains(value), "{printed}");
        }
        assert!(printed.contains("[hidden]"), "{printed}");
    }
    let tokens =
        Sealed::Tokens { access: "a".into(), refresh: None, expires_at: None, scope: vec![], client_secret: None };
    assert_eq!(
        format!("{tokens:?}"),
        "Tokens { access: [hidden], refresh: None, expires_at: None, scope: [], client_secret: None }"
    );
}

#[test]
fn tokens_in_and_out() {
    let tokens = Tokens { access: "a".into(), refresh: Some("r".into()), expires_at: None, scope: vec!["s".into()] };
    let sealed = Sealed::from_tokens(tokens.clone(), Some("cs".into()));
    assert_eq!(sealed.tokens(), Some((tokens, Some("cs"))));
    assert_eq!(Sealed::Key { value: "k".into() }.tokens(), None);
}
