//! TEMPORARY stand-in, with the interface of the AES-256-GCM sealing another branch writes and
//! which replaces this file whole when the branches meet. It is an authenticated stream cipher
//! out of SHA-256 alone (counter-mode keystream, HMAC-SHA256 tag over the associated data, nonce
//! and ciphertext), so that nothing is ever kept in clear meanwhile.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealError;

impl std::fmt::Display for SealError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the sealed value does not open under this key and associated data")
    }
}

const PREFIX: &str = "t0.";

fn key(key_secret: &str, what: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"connections seal stand-in\0");
    h.update(what);
    h.update(key_secret.as_bytes());
    h.finalize().into()
}

fn hmac(key: &[u8; 32], parts: &[&[u8]]) -> [u8; 32] {
    let mut inner = Sha256::new();
    inner.update(key.map(|b| b ^ 0x36));
    inner.update([0x36u8; 32]);
    for p in parts {
        inner.update((p.len() as u64).to_be_bytes());
        inner.update(p);
    }
    let mut outer = Sha256::new();
    outer.update(key.map(|b| b ^ 0x5c));
    outer.update([0x5cu8; 32]);
    outer.update(inner.finalize());
    outer.finalize().into()
}

fn stream(key: &[u8; 32], nonce: &[u8], data: &mut [u8]) {
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let block = hmac(key, &[nonce, &(i as u64).to_be_bytes()]);
        for (b, k) in chunk.iter_mut().zip(block) {
            *b ^= k;
        }
    }
}

/// Seals `plaintext` under a key derived from `key_secret`, bound to `aad`, with a fresh `nonce`.
pub fn seal(key_secret: &str, aad: &str, plaintext: &[u8], nonce: [u8; 12]) -> String {
    let (enc, mac) = (key(key_secret, b"enc"), key(key_secret, b"mac"));
    let mut body = plaintext.to_vec();
    stream(&enc, &nonce, &mut body);
    let tag = hmac(&mac, &[aad.as_bytes(), &nonce, &body]);
    let mut out = nonce.to_vec();
    out.extend(body);
    out.extend(tag);
    format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(out))
}

/// Opens what `seal` made with the same key and associated data.
pub fn open(key_secret: &str, aad: &str, sealed: &str) -> Result<Vec<u8>, SealError> {
    let bytes = sealed.strip_prefix(PREFIX).and_then(|b| URL_SAFE_NO_PAD.decode(b).ok()).ok_or(SealError)?;
    if bytes.len() < 44 {
        return Err(SealError);
    }
    let (nonce, rest) = bytes.split_at(12);
    let (body, tag) = rest.split_at(rest.len() - 32);
    let (enc, mac) = (key(key_secret, b"enc"), key(key_secret, b"mac"));
    let expected = hmac(&mac, &[aad.as_bytes(), nonce, body]);
    if !bool::from(expected.ct_eq(tag)) {
        return Err(SealError);
    }
    let mut plain = body.to_vec();
    stream(&enc, nonce, &mut plain);
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_opens_only_with_its_key_and_data() {
        let s = seal("k", "acme/con_a/credential", b"s3cret key", [7; 12]);
        assert!(!s.contains("s3cret"));
        assert_eq!(open("k", "acme/con_a/credential", &s).unwrap(), b"s3cret key");
        assert_eq!(open("other", "acme/con_a/credential", &s), Err(SealError));
        assert_eq!(open("k", "acme/con_b/credential", &s), Err(SealError));
    }
}
