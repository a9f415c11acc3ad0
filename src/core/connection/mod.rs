//! Connections: tool servers a person adds to the org through their agent, a provider of the
//! catalogue by its name or a server given by hand, approved on the runtime's own page.
//!
//! Everything here is pure. The record (`Connection`) is what the org's object keeps; `input`
//! checks what `add_connection` is given; `providers` is the catalogue and what the operator sets
//! over it; `link` makes and reads the links that approve a connection; `machine::decide` says
//! what each command does to a connection; `view` is what the answers show, never a sealed
//! credential; `pattern` checks and matches the restricted pattern of a key.

pub mod given;
mod hand;
pub mod input;
pub mod link;
pub mod machine;
pub mod pattern;
pub mod plan;
pub mod probe;
pub mod providers;
pub mod store;
pub mod variables;
pub mod view;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::core::actor::Actor;
use crate::core::ids::RANDOM_CHARS;

pub use machine::{decide, Command};

/// `con_` followed by 16 base32 characters.
pub fn connection_id(random: [u8; RANDOM_CHARS]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut id = String::from("con_");
    id.extend(random.iter().map(|b| ALPHABET[(b & 31) as usize] as char));
    id
}

pub fn is_connection_id(s: &str) -> bool {
    s.strip_prefix("con_").is_some_and(|rest| {
        rest.len() == RANDOM_CHARS && rest.bytes().all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Added, and not approved yet.
    Pending,
    Connected,
    /// Gone for good: its sealed credential is erased.
    Removed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Connected => "connected",
            Status::Removed => "removed",
        }
    }
}

/// Why a connected connection broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakKind {
    /// Its server answered 401.
    Unauthorized,
    /// Its server answered a code its provider's `failure_codes` names for a refused credential.
    FailureCode,
    /// The authorization server refused to refresh its tokens.
    RefreshRefused,
    /// Its credential is gone from the secret store, or is not the tokens of a consent.
    CredentialGone,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Broken {
    pub kind: BreakKind,
    /// The runtime's words for what happened.
    pub detail: String,
    pub at: String,
}

/// Where a key goes on each request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum In {
    Header,
    Query,
}

/// Whose OAuth client a consent runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OauthClient {
    /// The client whoever runs the runtime set up, or one registered dynamically.
    Runtime,
    /// The organization's own client, its id and secret given on the page.
    Own,
}

/// What a secret given by hand tells the person on the page, beside the field of the key.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KeyHelp {
    pub instructions: String,
    pub key_page: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

crate::core::json::tagged::tagged! {
    /// The credential of a connection as kept: its kind and the fields that say how it is sent,
    /// never the value the person gives, which is kept sealed beside it.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Credential as "kind" {
        /// The server needs nothing.
        None,
        /// A key the person types on the page.
        Secret {
            name: String,
            #[serde(rename = "in")]
            place: In,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            scheme: Option<String>,
            #[serde(flatten)]
            help: KeyHelp,
        },
        /// A Worker secret or variable whoever runs the runtime set.
        Reference {
            variable: String,
            name: String,
            #[serde(rename = "in")]
            place: In,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            scheme: Option<String>,
        },
        /// The client credentials grant at `issuer`; the secret (and the id where left out) is given
        /// on the page.
        ClientCredentials {
            issuer: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            client_id: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            scope: Option<String>,
        },
        /// A consent at an authorization server, under the runtime's client or the org's own.
        Authorization {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            issuer: Option<String>,
            oauth_client: OauthClient,
        },
    }
}

impl Credential {
    pub fn kind(&self) -> &'static str {
        match self {
            Credential::None => "none",
            Credential::Secret { .. } => "secret",
            Credential::Reference { .. } => "reference",
            Credential::ClientCredentials { .. } => "client_credentials",
            Credential::Authorization { .. } => "authorization",
        }
    }

    /// Whether the person gives something on the page before the connection is approved.
    pub fn takes_a_value(&self) -> bool {
        matches!(
            self,
            Credential::Secret { .. } | Credential::ClientCredentials { .. } | Credential::Authorization { .. }
        )
    }

    /// Whether the org's own OAuth client is given on the page before the consent.
    pub fn own_client(&self) -> bool {
        matches!(self, Credential::Authorization { oauth_client: OauthClient::Own, .. })
    }
}

crate::core::json::tagged::tagged! {
    /// What the connection reaches.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Target as "type" {
        Mcp { url: String },
        Openapi { document: Document, base_url: String },
    }
}

impl Target {
    /// Where the connection's calls, and its credential, go: an MCP server's address, or an HTTP
    /// API's `base_url` (its document gets the credential only on that origin).
    pub fn address(&self) -> &str {
        match self {
            Target::Mcp { url } => url,
            Target::Openapi { base_url, .. } => base_url,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Document {
    /// Read from this address when needed.
    At(String),
    /// Given whole, with what the answers say of it in its place.
    Text { text: String, sha256: String, tools: usize },
}

/// What the entry of a connection narrows: which playbooks, which tools, what history keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// `None` serves every playbook of the org.
    pub playbooks: Option<Vec<String>>,
    /// `None` allows every tool its server lists.
    pub allowed: Option<Vec<String>>,
    pub record_content: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules { playbooks: None, allowed: None, record_content: true }
    }
}

/// The sealed material of a connection, each an opaque string the sealing module made: kept
/// only here and erased when the connection is removed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Sealed {
    /// The key, the client secret, or the tokens of a consent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// The org's own OAuth client: its id in clear, its secret sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<OwnClient>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_secret: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnClient {
    pub client_id: String,
    pub sealed_secret: String,
}

/// A connection as the org's object keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Connection {
    pub id: String,
    pub org: String,
    pub name: String,
    /// The provider it was added from; none for a server given by hand.
    pub provider: Option<String>,
    /// The values of the provider's placeholders.
    #[serde(default)]
    pub placeholders: BTreeMap<String, String>,
    pub target: Target,
    pub credential: Credential,
    pub rules: Rules,
    pub handles_money: bool,
    pub status: Status,
    pub broken: Option<Broken>,
    /// The scopes its consents asked, which grow as a consent that asks more starts.
    #[serde(default)]
    pub asked_scopes: Vec<String>,
    #[serde(default)]
    pub granted_scopes: Vec<String>,
    /// The link of the page, while it has one.
    pub link: Option<link::Link>,
    /// The digests of links a newer one replaced, newest last, a handful.
    #[serde(default)]
    pub replaced: Vec<String>,
    pub sealed: Sealed,
    /// A digest of what `add_connection` was given, so that the same call again is a retry.
    pub fingerprint: String,
    pub added_by: Actor,
    pub created_at: String,
    pub updated_at: String,
}

impl Connection {
    /// The words a connection is named by to the person: its provider's title, or its name.
    pub fn approve_label(&self, title: Option<&str>) -> String {
        match title {
            Some(title) => format!("Approve the {title} connection"),
            None => "Approve the connection".to_string(),
        }
    }

    pub fn is_live(&self) -> bool {
        self.status != Status::Removed
    }
}
