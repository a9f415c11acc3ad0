//! The link that approves a connection: `{base}/connect/{org}/{token}`, open for 24 hours, the
//! token `cl_` and 32 random characters, of which only the SHA-256 digest is kept. A newer link
//! replaces the one before, open or not; the digests it replaced are kept, a handful, so that a
//! replaced token is told so rather than not found.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::{Connection, OwnClient};
use crate::core::access::oauth::secret::digest as sha256_hex;

pub const LINK_HOURS: i64 = 24;
/// How many replaced digests a connection keeps.
pub const REPLACED_KEPT: usize = 8;
const TOKEN_CHARS: usize = 32;
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// A link as kept: its digest, its times, what it asks, and what the person gave on its page,
/// which takes effect only when they approve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub digest: String,
    pub made_at: String,
    pub expires_at: String,
    /// The group of scopes the link's consent asks beyond what the connection holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more: Option<String>,
    /// Approved, or cancelled: the page is done with it.
    #[serde(default)]
    pub used: bool,
    #[serde(default)]
    pub staged: Staged,
}

/// What the person gave on a link's page, before they approve.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Staged {
    /// The key, the client secret or the tokens of a consent, sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// The key given misses the pattern its way names.
    #[serde(default)]
    pub misses_pattern: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<OwnClient>,
    /// The scopes the consent granted, once it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granted: Option<Vec<String>>,
    /// A consent started at the service and not finished: what its finish needs (the state, the
    /// verifier, the client and the server's endpoints), sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consent: Option<String>,
}

/// Where a token stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Open,
    Expired,
    Replaced,
    Used,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Expired => "expired",
            State::Replaced => "replaced",
            State::Used => "used",
        }
    }
}

/// A new token from 32 random bytes.
pub fn mint(random: &[u8; 32]) -> String {
    let mut token = String::from("cl_");
    token.extend(random.iter().take(TOKEN_CHARS).map(|b| ALPHABET[(b & 31) as usize] as char));
    token
}

pub fn is_token(s: &str) -> bool {
    s.strip_prefix("cl_").is_some_and(|rest| rest.len() == TOKEN_CHARS && rest.bytes().all(|b| ALPHABET.contains(&b)))
}

/// The digest a token is kept and found by.
pub fn digest(token: &str) -> String {
    sha256_hex(token)
}

/// The address of the page of a token.
pub fn url(base: &str, org: &str, token: &str) -> String {
    format!("{}/connect/{org}/{token}", base.trim_end_matches('/'))
}

fn instant(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.to_utc())
}

/// A new link of `token`, made `now`, asking `more`.
pub fn new(token: &str, now: DateTime<Utc>, more: Option<String>) -> Link {
    Link {
        digest: digest(token),
        made_at: crate::core::text::stamp(now),
        expires_at: crate::core::text::stamp(now + Duration::hours(LINK_HOURS)),
        more,
        used: false,
        staged: Staged::default(),
    }
}

impl Link {
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        instant(&self.expires_at).is_none_or(|at| now >= at)
    }

    pub fn open(&self, now: DateTime<Utc>) -> bool {
        !self.used && !self.expired(now)
    }
}

impl Connection {
    /// Where the token of `digest` stands for this connection, if it is one of its links.
    pub fn token_state(&self, digest: &str, now: DateTime<Utc>) -> Option<State> {
        if let Some(link) = self.link.as_ref().filter(|l| l.digest == digest) {
            return Some(if link.used {
                State::Used
            } else if link.expired(now) {
                State::Expired
            } else {
                State::Open
            });
        }
        self.replaced.iter().any(|d| d == digest).then_some(State::Replaced)
    }

    /// Puts a new link in place of the one before, whose digest is kept as replaced.
    pub fn replace_link(&mut self, link: Link) {
        if let Some(before) = self.link.take() {
            self.replaced.push(before.digest);
            let over = self.replaced.len().saturating_sub(REPLACED_KEPT);
            self.replaced.drain(..over);
        }
        self.link = Some(link);
    }
}
