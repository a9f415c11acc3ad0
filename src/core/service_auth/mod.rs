//! The runtime as an OAuth client of the services a connection reaches, and the sealing of what a
//! person gives a connection. Pure: requests are built and answers read here, and sent by
//! `ops::service_auth` over the transport the shell supplies; time and random bytes come in as
//! values.
//!
//! The way through: `discovery` finds the authorization server an MCP server names (RFC 9728)
//! and reads its metadata (RFC 8414, or OpenID discovery); `registration` registers the runtime
//! as a client where no client is set up (RFC 7591); `consent` writes the address the person
//! signs in at (PKCE S256, `state`, `resource` of RFC 8707) and reads the redirect back; `token`
//! redeems the code, refreshes, or asks for client credentials, and reads what comes back.

pub mod consent;
pub mod discovery;
pub mod registration;
pub mod seal;
pub mod token;

use std::fmt;

/// The name the runtime registers under, which the service shows the person it asks.
pub const CLIENT_NAME: &str = "Auto Runtime";
/// The path of the redirect URI under the runtime's base address.
pub const CALLBACK_PATH: &str = "/connect/callback";

/// The redirect URI of a runtime at `base` (`PUBLIC_URL`, or the local address).
pub fn redirect_uri(base: &str) -> String {
    format!("{}{CALLBACK_PATH}", base.trim_end_matches('/'))
}

/// How an exchange with a service's authorization server failed. The words name the step and
/// what the server said; never a secret, token, code or verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    pub kind: ErrorKind,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// `invalid_grant`: the consent, code or refresh token is gone or was never good.
    GrantRefused,
    /// `invalid_client` or `unauthorized_client`: the client is gone, or may not do this.
    ClientRefused,
    /// Another OAuth error: the server refuses what was asked (a scope, a resource, a request).
    Refused,
    /// An address the runtime will not fetch: not https on a public host, where deployed.
    AddressRefused,
    /// No answer within the time, or none at all.
    Unreachable,
    /// It answered, but not as the protocol says: a server error, garbage, a missing field, the
    /// metadata of another issuer.
    Failing,
}

impl AuthError {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> AuthError {
        AuthError { kind, detail: detail.into() }
    }

    /// Whether the connection is broken until the person signs in (or gives a client) again: the
    /// server refused the grant or the client. Anything else may pass by itself.
    pub fn breaks_connection(&self) -> bool {
        matches!(self.kind, ErrorKind::GrantRefused | ErrorKind::ClientRefused)
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

/// `text` with each of `hidden` (secrets that went into the request) put out of sight, for
/// words that repeat what a server or the platform said.
pub fn scrubbed(text: &str, hidden: &[String]) -> String {
    hidden.iter().filter(|h| h.len() >= 4).fold(text.to_string(), |text, secret| text.replace(secret, "[hidden]"))
}
