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
use chrono::{DateTime, Utc};
use hkdf::Hkdf;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use super::token::Tokens;

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
    /// What opened is not a credential this runtime seals.
    Unreadable,
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
            SealError::Unreadable => "the sealed credential opened but holds no credential this runtime reads",
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

/// The associated data of one connection of one org, written so that no two pairs give the same
/// text, whatever characters the names hold.
pub fn associated(org: &str, connection: &str) -> String {
    serde_json::json!([org, connection]).to_string()
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
/// Each `SealError` but `Unreadable`, as its words say.
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

/// What a connection keeps sealed: one of these, as JSON inside the blob. Its Debug prints what
/// is not secret (kinds, a client's id, scopes, expiry) and `[hidden]` for the rest.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Sealed {
    /// A key the person typed, or a signing secret.
    Key { value: String },
    /// A client's id and secret: of `client_credentials`, or the org's own OAuth client before
    /// the person signs in with it.
    Client { id: String, secret: String },
    /// What a consent at the service gave, with the secret of the client it was given to where
    /// that client has one, which a refresh needs.
    Tokens {
        access: String,
        refresh: Option<String>,
        expires_at: Option<DateTime<Utc>>,
        scope: Vec<String>,
        client_secret: Option<String>,
    },
}

/// What Debug prints in place of a secret.
struct Hidden;

impl fmt::Debug for Hidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[hidden]")
    }
}

impl fmt::Debug for Sealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sealed::Key { .. } => f.debug_struct("Key").field("value", &Hidden).finish(),
            Sealed::Client { id, .. } => f.debug_struct("Client").field("id", id).field("secret", &Hidden).finish(),
            Sealed::Tokens { refresh, expires_at, scope, client_secret, .. } => f
                .debug_struct("Tokens")
                .field("access", &Hidden)
                .field("refresh", &refresh.as_ref().map(|_| Hidden))
                .field("expires_at", expires_at)
                .field("scope", scope)
                .field("client_secret", &client_secret.as_ref().map(|_| Hidden))
                .finish(),
        }
    }
}

impl Sealed {
    /// What a token exchange gave, sealed with the secret of the client it was given to.
    pub fn from_tokens(tokens: Tokens, client_secret: Option<String>) -> Sealed {
        let Tokens { access, refresh, expires_at, scope } = tokens;
        Sealed::Tokens { access, refresh, expires_at, scope, client_secret }
    }

    /// The tokens this holds, and the client secret that goes with them, if it holds tokens.
    pub fn tokens(&self) -> Option<(Tokens, Option<&str>)> {
        match self {
            Sealed::Tokens { access, refresh, expires_at, scope, client_secret } => Some((
                Tokens {
                    access: access.clone(),
                    refresh: refresh.clone(),
                    expires_at: *expires_at,
                    scope: scope.clone(),
                },
                client_secret.as_deref(),
            )),
            _ => None,
        }
    }

    /// Seals this credential for the connection `aad` names.
    ///
    /// # Errors
    ///
    /// As `seal`.
    pub fn seal(&self, key_secret: &str, aad: &str, nonce: [u8; NONCE_BYTES]) -> Result<String, SealError> {
        // Serializing strings, dates and lists into JSON does not fail.
        let text = serde_json::to_vec(self).map_err(|_| SealError::Unreadable)?;
        seal(key_secret, aad, &text, nonce)
    }

    /// Opens a credential `Sealed::seal` sealed.
    ///
    /// # Errors
    ///
    /// As `open`, and `SealError::Unreadable` for what opens but is no `Sealed`.
    pub fn open(key_secret: &str, aad: &str, sealed: &str) -> Result<Sealed, SealError> {
        let text = open(key_secret, aad, sealed)?;
        serde_json::from_slice(&text).map_err(|_| SealError::Unreadable)
    }
}

#[cfg(test)]
#[path = "seal_tests.rs"]
mod tests;
