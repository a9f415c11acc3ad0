//! Opaque credentials: minted from random bytes the shell supplies, kept only as digests.
//!
//! A prefix says what a string is, so secret scanners and people can tell them apart, and `_`
//! keeps a double-click selecting the whole string.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub const ACCESS_PREFIX: &str = "pbat_";
pub const REFRESH_PREFIX: &str = "pbrt_";
pub const CODE_PREFIX: &str = "pbac_";
pub const CLIENT_SECRET_PREFIX: &str = "pbcs_";
pub const CLIENT_ID_PREFIX: &str = "pbcl_";
pub const GRANT_ID_PREFIX: &str = "gr_";

/// Random bytes for one credential: 32 of them carry 256 bits, more than any guessing can reach.
pub type Bytes = [u8; 32];

/// `prefix` followed by the bytes, base64url without padding.
pub fn mint(prefix: &str, random: &[u8]) -> String {
    format!("{prefix}{}", URL_SAFE_NO_PAD.encode(random))
}

/// The lowercase hex SHA-256 of a credential: what storage keeps and looks credentials up by.
pub fn digest(credential: &str) -> String {
    Sha256::digest(credential.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two digests in constant time, so timing tells nothing about a near miss.
pub fn same(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_and_digested() {
        let token = mint(ACCESS_PREFIX, &[0; 32]);
        assert_eq!(token, format!("pbat_{}", "A".repeat(43)));
        assert_eq!(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert!(same(&digest("abc"), &digest("abc")) && !same(&digest("abc"), &digest("abd")));
    }
}
