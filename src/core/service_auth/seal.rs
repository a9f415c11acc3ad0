//! Sealing what a person gives a connection (a key, a client secret, OAuth tokens): AES-256-GCM
//! under a key derived by HKDF-SHA256 from the Worker secret `CONNECTIONS_KEY`, bound to the org
//! and the connection as associated data, so that a sealed blob copied onto another connection,
//! or another org's, does not open. The nonce comes from the caller (core has no randomness);
//! 12 random bytes per seal keep GCM's nonces from repeating.
//!
//! A sealed blob is text: `v1.` and the nonce followed by the ciphertext and its tag, in
//! base64url without padding. The version names the derivation and the cipher, so that either can
//! change while older blobs still open.

use std::fmt;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use hkdf::Hkdf;
use sha2::Sha256;

/// The fewest characters `CONNECTIONS_KEY` may have: 32 random ones carry enough to derive from.
pub const KEY_SECRET_MIN: usize = 32;
/// What every blob of this version starts with.
pub const VERSION: &str = "v1.";
/// HKDF's salt and info for version 1: they tie the derived key to this use alone, so the same
/// Worker secret used elsewhere never yields this key.
const SALT: &[u8] = b"playbook-runtime connections";
const INFO: &[u8] = b"v1 aes-256-gcm credential seal";
const NONCE_BYTES: usize = 12;
const TAG_BYTES: usize = 16;

/// Why a blob could not be sealed or opened. The words name no secret and no part of the blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SealError {
    /// `CONNECTIONS_KEY` is shorter than `KEY_SECRET_MIN` characters.
    KeyTooShort,
    /// Not a blob of any version this runtime seals.
    UnknownVersion,
    /// A `v1.` blob whose text or length is not one the runtime writes.
    Malformed,
    /// It does not open with this key and these associated data: the key changed, or the blob
    /// was sealed for another connection, or it was altered.
    Refused,
}

impl fmt::Display for SealError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SealError::KeyTooShort => {
                "CONNECTIONS_KEY is shorter than 32 characters; set a long random one with `wrangler secret put CONNECTIONS_KEY`"
            }
            SealError::UnknownVersion => "the sealed credential is of a version this runtime does not open",
            SealError::Malformed => "the sealed credential is not whole: its text is not what the runtime writes",
            SealError::Refused => {
                "the sealed credential does not open: CONNECTIONS_KEY changed since it was sealed, or it belongs to another connection"
            }
        })
    }
}

impl std::error::Error for SealError {}

/// Whether a Worker secret is long enough to seal with; the shell says so at once where not.
///
/// # Errors
///
/// `SealError::KeyTooShort` for fewer than `KEY_SECRET_MIN` characters.
pub fn check_key(key_secret: &str) -> Result<(), SealError> {
    if key_secret.chars().count() < KEY_SECRET_MIN {
        return Err(SealError::KeyTooShort);
    }
    Ok(())
}

fn cipher(key_secret: &str) -> Result<Aes256Gcm, SealError> {
    check_key(key_secret)?;
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(Some(SALT), key_secret.as_bytes()).expand(INFO, &mut key).map_err(|_| SealError::Refused)?;
    Ok(Aes256Gcm::new(&key.into()))
}

/// Seals `plaintext` for the connection `aad` names, with a fresh random `nonce`.
///
/// # Errors
///
/// `SealError::KeyTooShort`; the cipher refuses only a plaintext of gigabytes, said as `Refused`.
pub fn seal(key_secret: &str, aad: &str, plaintext: &[u8], nonce: [u8; NONCE_BYTES]) -> Result<String, SealError> {
    let sealed = cipher(key_secret)?
        .encrypt(Nonce::from_slice(&nonce), Payload { msg: plaintext, aad: aad.as_bytes() })
        .map_err(|_| SealError::Refused)?;
    let mut bytes = nonce.to_vec();
    bytes.extend_from_slice(&sealed);
    Ok(format!("{VERSION}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// Opens a blob `seal` made with the same key secret and associated data.
///
/// # Errors
///
/// Each `SealError`, as its words say.
pub fn open(key_secret: &str, aad: &str, sealed: &str) -> Result<Vec<u8>, SealError> {
    let cipher = cipher(key_secret)?;
    let body = sealed.strip_prefix(VERSION).ok_or(SealError::UnknownVersion)?;
    let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| SealError::Malformed)?;
    if bytes.len() < NONCE_BYTES + TAG_BYTES {
        return Err(SealError::Malformed);
    }
    let (nonce, sealed) = bytes.split_at(NONCE_BYTES);
    cipher
        .decrypt(Nonce::from_slice(nonce), Payload { msg: sealed, aad: aad.as_bytes() })
        .map_err(|_| SealError::Refused)
}

#[cfg(test)]
#[path = "seal_tests.rs"]
mod tests;
