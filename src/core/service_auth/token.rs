//! The token endpoint of a service's authorization server: the requests that redeem a code,
//! refresh a token and ask for client credentials, the client authenticated as the server's
//! metadata says, and the answer read into tokens with an absolute expiry, or into an error that
//! tells a connection that is broken (the grant or client refused) from a failure that may pass.

use std::fmt;

use base64::{engine::general_purpose::STANDARD, Engine};
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::discovery::document;
use super::{scrubbed, AuthError, ErrorKind};
use crate::core::access::oauth::form::{encode, encode_pairs};
use crate::core::text::cap;
use crate::core::tool_server::Request;

/// An expiry further than this is read as this: a server that says a token lasts for ever, or
/// for millennia, is not taken at its word.
const EXPIRES_IN_MAX: i64 = 10 * 365 * 24 * 3600;

/// How the client proves itself at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientAuth {
    /// A public client: its id alone, PKCE standing in for a secret.
    None,
    ClientSecretPost,
    ClientSecretBasic,
}

impl ClientAuth {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientAuth::None => "none",
            ClientAuth::ClientSecretPost => "client_secret_post",
            ClientAuth::ClientSecretBasic => "client_secret_basic",
        }
    }

    pub fn parse(text: &str) -> Option<ClientAuth> {
        [ClientAuth::None, ClientAuth::ClientSecretPost, ClientAuth::ClientSecretBasic]
            .into_iter()
            .find(|m| m.as_str() == text)
    }

    /// How a client that holds a secret authenticates at a server that takes `methods`: in the
    /// body where it takes that, else with HTTP Basic, every server's default.
    pub fn for_secret(methods: &[String]) -> ClientAuth {
        if methods.iter().any(|m| m == "client_secret_post") {
            ClientAuth::ClientSecretPost
        } else {
            ClientAuth::ClientSecretBasic
        }
    }
}

/// A client of the service: registered by the runtime, the org's own, or an operator's.
#[derive(Clone, PartialEq, Eq)]
pub struct Client {
    pub id: String,
    pub secret: Option<String>,
    pub auth: ClientAuth,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secret = self.secret.as_ref().map(|_| "[hidden]");
        f.debug_struct("Client").field("id", &self.id).field("secret", &secret).field("auth", &self.auth).finish()
    }
}

/// What is asked of the token endpoint.
#[derive(Clone, Copy)]
pub enum Grant<'a> {
    /// The code of a finished consent, with the verifier its start kept.
    Code {
        code: &'a str,
        verifier: &'a str,
        redirect_uri: &'a str,
    },
    Refresh {
        refresh_token: &'a str,
    },
    ClientCredentials,
}

impl Grant<'_> {
    fn name(&self) -> &'static str {
        match self {
            Grant::Code { .. } => "authorization_code",
            Grant::Refresh { .. } => "refresh_token",
            Grant::ClientCredentials => "client_credentials",
        }
    }

    /// The step, as the words of a failure name it.
    pub fn step(&self) -> &'static str {
        match self {
            Grant::Code { .. } => "the code of the consent",
            Grant::Refresh { .. } => "the refresh of the connection's token",
            Grant::ClientCredentials => "the client credentials",
        }
    }
}

/// The request to `token_endpoint`. `scopes` go with client credentials alone (a code carries
/// the scopes of its consent, and a refresh keeps those granted); `resource` (RFC 8707) with each.
pub fn request(
    token_endpoint: &str,
    client: &Client,
    grant: &Grant<'_>,
    scopes: &[String],
    resource: Option<&str>,
) -> Request {
    let scope = scopes.join(" ");
    let mut pairs = vec![("grant_type", grant.name())];
    match grant {
        Grant::Code { code, verifier, redirect_uri } => {
            pairs.extend([("code", *code), ("redirect_uri", *redirect_uri), ("code_verifier", *verifier)]);
        }
        Grant::Refresh { refresh_token } => pairs.push(("refresh_token", *refresh_token)),
        Grant::ClientCredentials if !scope.is_empty() => pairs.push(("scope", scope.as_str())),
        Grant::ClientCredentials => {}
    }
    if let Some(resource) = resource {
        pairs.push(("resource", resource));
    }
    authenticated(token_endpoint, client, pairs)
}

/// The request that revokes `token` at `endpoint` (RFC 7009), `hint` its kind
/// (`refresh_token`, `access_token`), as a connection is removed: the service forgets the grant
/// as the runtime forgets its credential.
pub fn revocation_request(endpoint: &str, client: &Client, token: &str, hint: &str) -> Request {
    authenticated(endpoint, client, vec![("token", token), ("token_type_hint", hint)])
}

/// A form POST to `endpoint` with `pairs`, the client authenticated as it does.
fn authenticated<'a>(endpoint: &str, client: &'a Client, mut pairs: Vec<(&'a str, &'a str)>) -> Request {
    let mut headers = vec![
        ("Content-Type".to_string(), "application/x-www-form-urlencoded".to_string()),
        ("Accept".to_string(), "application/json".to_string()),
    ];
    let secret = client.secret.as_deref().unwrap_or("");
    match client.auth {
        ClientAuth::None => pairs.push(("client_id", &client.id)),
        ClientAuth::ClientSecretPost => pairs.extend([("client_id", client.id.as_str()), ("client_secret", secret)]),
        ClientAuth::ClientSecretBasic => {
            headers.push(("Authorization".into(), format!("Basic {}", basic(&client.id, secret))));
        }
    }
    Request { method: "POST", url: endpoint.to_string(), headers, body: Some(encode_pairs(&pairs)) }
}

/// The secrets a token request carries, as given and as the request writes them (form-encoded,
/// and the Basic credentials), to be kept out of any words about it.
pub fn hidden(client: &Client, grant: &Grant<'_>) -> Vec<String> {
    let mut secrets: Vec<&str> = client.secret.as_deref().into_iter().collect();
    match grant {
        Grant::Code { code, verifier, .. } => secrets.extend([*code, *verifier]),
        Grant::Refresh { refresh_token } => secrets.push(refresh_token),
        Grant::ClientCredentials => {}
    }
    let mut hidden: Vec<String> = secrets.iter().flat_map(|s| [s.to_string(), encode(s)]).collect();
    if let (ClientAuth::ClientSecretBasic, Some(secret)) = (client.auth, &client.secret) {
        hidden.push(basic(&client.id, secret));
    }
    hidden
}

/// The credentials of HTTP Basic: RFC 6749 §2.3.1 form-encodes each part before the two are
/// joined and encoded.
fn basic(id: &str, secret: &str) -> String {
    STANDARD.encode(format!("{}:{}", encode(id), encode(secret)))
}

/// What the token endpoint gave.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub access: String,
    pub refresh: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
    /// The scopes granted: as the answer says, or, where it says none, those asked.
    pub scope: Vec<String>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokens")
            .field("access", &"[hidden]")
            .field("refresh", &self.refresh.as_ref().map(|_| "[hidden]"))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .finish()
    }
}

impl Tokens {
    /// Whether the access token is past its expiry at `now`, or within `margin` of it.
    pub fn expired(&self, now: DateTime<Utc>, margin: TimeDelta) -> bool {
        self.expires_at.is_some_and(|at| now + margin >= at)
    }
}

/// Reads the token endpoint's answer to `grant`. `asked` are the scopes asked, granted where the
/// answer names none; a refresh's refresh token is kept where the answer brings no new one;
/// `hidden` are the secrets the request carried, kept out of the words.
///
/// # Errors
///
/// `GrantRefused` for `invalid_grant`; `ClientRefused` for `invalid_client`,
/// `unauthorized_client`, or a 401 that says nothing; `Refused` for another OAuth error;
/// `Failing` for anything else.
pub fn read_response(
    grant: &Grant<'_>,
    status: u16,
    body: &str,
    asked: &[String],
    now: DateTime<Utc>,
    hidden: &[String],
) -> Result<Tokens, AuthError> {
    let step = grant.step();
    if !(200..300).contains(&status) {
        return Err(oauth_error(status, body, &format!("The token endpoint refused {step}"), hidden));
    }
    let failing =
        |why: &str| AuthError::new(ErrorKind::Failing, format!("The token endpoint answered {step} with {why}."));
    let doc = document(body, "answer").map_err(|_| failing("what is not a JSON object"))?;
    let access = match doc.get("access_token") {
        Some(Value::String(token)) if !token.is_empty() => token.clone(),
        _ => return Err(failing("no access_token")),
    };
    match doc.get("token_type").and_then(Value::as_str) {
        Some(kind) if kind.eq_ignore_ascii_case("bearer") => {}
        // RFC 6749 asks for it; some servers leave it out of a bearer token.
        None => {}
        Some(kind) => {
            return Err(failing(&format!("a token of type {}, which the runtime does not send", cap(kind, 40))))
        }
    }
    let expires_at = match doc.get("expires_in") {
        None | Some(Value::Null) => None,
        Some(value) => match value.as_f64().or_else(|| value.as_str().and_then(|s| s.trim().parse().ok())) {
            Some(seconds) if seconds.is_finite() && seconds >= 0.0 => {
                Some(now + TimeDelta::seconds((seconds as i64).min(EXPIRES_IN_MAX)))
            }
            _ => return Err(failing("an expires_in that is not a number of seconds")),
        },
    };
    let previous = match grant {
        Grant::Refresh { refresh_token } => Some(refresh_token.to_string()),
        _ => None,
    };
    let refresh = match doc.get("refresh_token") {
        Some(Value::String(token)) if !token.is_empty() => Some(token.clone()),
        _ => previous,
    };
    let scope = match doc.get("scope") {
        Some(Value::String(scope)) => scope.split_ascii_whitespace().map(str::to_string).collect(),
        _ => asked.to_vec(),
    };
    Ok(Tokens { access, refresh, expires_at, scope })
}

/// An error answer of an OAuth endpoint (RFC 6749 §5.2, RFC 7591 §3.2.2), told by its code.
/// `what` begins the words: "The token endpoint refused the refresh …".
pub fn oauth_error(status: u16, body: &str, what: &str, hidden: &[String]) -> AuthError {
    let doc = document(body, "answer").ok();
    let code = doc.as_ref().and_then(|d| d.get("error")).and_then(Value::as_str).map(|c| cap(c, 60));
    let description = doc
        .as_ref()
        .and_then(|d| d.get("error_description"))
        .and_then(Value::as_str)
        .map(|d| format!(": {}", cap(&scrubbed(d, hidden), 300)))
        .unwrap_or_default();
    let kind = match code.as_deref() {
        Some("invalid_grant") => ErrorKind::GrantRefused,
        Some("invalid_client" | "unauthorized_client") => ErrorKind::ClientRefused,
        Some(_) => ErrorKind::Refused,
        None if status == 401 => ErrorKind::ClientRefused,
        None => ErrorKind::Failing,
    };
    match code {
        Some(code) => AuthError::new(kind, format!("{what} with {code}{description}.")),
        None if status == 429 => AuthError::new(kind, format!("{what}, asking the runtime to slow down (HTTP 429).")),
        None => AuthError::new(kind, format!("{what} with HTTP {status}.")),
    }
}

#[cfg(test)]
#[path = "token_tests.rs"]
mod tests;
