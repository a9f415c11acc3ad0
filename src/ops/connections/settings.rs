//! What the connection operations are handed besides storage: the providers, where links point,
//! whether anyone here may add a connection, and the sealer of what a person gives.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::core::connection::providers::Providers;
use crate::core::connection::variables::ConnectionVariables;
use crate::core::model::Secret;
use crate::core::Problem;

/// Seals what a person gives, with `aad` (the org, the connection and what it is) bound to it,
/// and opens it again at call time. The shell's seals with AES-256-GCM under a key derived from
/// `CONNECTIONS_KEY`; host tests use one in memory.
pub trait Sealer {
    fn seal(&self, aad: &str, plaintext: &[u8]) -> Result<String, Problem>;
    fn open(&self, aad: &str, sealed: &str) -> Result<Vec<u8>, Problem>;
}

/// What a sealed credential holds, as JSON inside the seal. Its Debug print hides every value.
#[derive(Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Opened {
    /// A key, or the access token of a consent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token ends, RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// Where a consent's tokens are refreshed, how the client authenticates there, and the
    /// resource they were granted for: what a refresh needs besides the secrets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_auth: Option<crate::core::service_auth::token::ClientAuth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Opened([hidden])")
    }
}

impl std::fmt::Debug for dyn Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[sealer]")
    }
}

/// The associated data a seal of `what` for a connection is bound to.
pub fn aad(org: &str, connection: &str, what: &str) -> String {
    format!("{org}/{connection}/{what}")
}

/// Reads a Worker secret or variable by name.
pub type Variables = Rc<dyn Fn(&str) -> Option<Secret>>;

#[derive(Clone)]
pub struct Settings {
    pub providers: Rc<Providers>,
    /// Where links point: `PUBLIC_URL`, else the address the request came to.
    pub base: String,
    /// Whether people may add connections here: where sign-in is on, or in local mode. A runtime
    /// of API keys alone signs nobody in, so nobody could approve one.
    pub people: bool,
    /// Refuses addresses a deployed runtime does not reach.
    pub deployed: bool,
    /// `None` while `CONNECTIONS_KEY` is not set: nothing a person gives can be kept.
    pub sealer: Option<Rc<dyn Sealer>>,
    /// A Worker secret or variable by name, for a connection of a reference: set or not, and its
    /// value at call time. Read only through `reference`, which asks `listed` first.
    pub variable: Variables,
    /// The variables the operator lets connections send (`CONNECTION_VARIABLES`).
    pub listed: Rc<ConnectionVariables>,
    /// Whether `search` lists the providers a person may connect: on `/mcp` and the org
    /// endpoint, not on a playbook's, which lists no tool that adds a connection.
    pub lists_providers: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            providers: Rc::new(Providers::compiled()),
            base: "http://127.0.0.1:8787".into(),
            people: true,
            deployed: false,
            sealer: None,
            variable: Rc::new(|_| None),
            listed: Rc::default(),
            lists_providers: true,
        }
    }
}

/// Why a connection of a reference cannot send its variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotSent {
    /// The operator does not let it go there: the words follow "is NAME, ".
    NotListed(String),
    /// Listed, but not set.
    NotSet,
}

impl Settings {
    /// The value of `variable` for a connection of `org` whose calls go to `address`: only where
    /// the operator lists it for that org and host, read now.
    pub fn reference(&self, org: &str, variable: &str, address: &str) -> Result<Secret, NotSent> {
        self.listed.admits(variable, org, address).map_err(NotSent::NotListed)?;
        (self.variable)(variable).ok_or(NotSent::NotSet)
    }

    /// The sealer, or the refusal that tells whoever runs the runtime to set its key.
    pub fn sealer(&self) -> Result<&dyn Sealer, Problem> {
        self.sealer.as_deref().ok_or_else(|| {
            Problem::unavailable(
                "This runtime cannot keep a credential: whoever runs it sets the key it seals them with, with wrangler secret put CONNECTIONS_KEY, and restarts it.",
            )
        })
    }

    /// A secret sealed as text for a connection, such as the org's own client secret, opened.
    pub fn open_text(&self, org: &str, connection: &str, what: &str, sealed: &str) -> Result<String, Problem> {
        let bytes = self.sealer()?.open(&aad(org, connection, what), sealed)?;
        String::from_utf8(bytes).map_err(|_| Problem::internal("a sealed secret is not text"))
    }
}
