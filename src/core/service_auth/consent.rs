//! The consent at a service: the address the person is sent to sign in and allow the runtime
//! (authorization code with PKCE S256, `state`, and the RFC 8707 `resource` where known), and the
//! redirect that comes back to `{base}/connect/callback`, read and checked against what started
//! it (`state`, and RFC 9207's `iss`). The verifier and the state are minted from random bytes the
//! shell gives.

use std::fmt;

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use serde::{Deserialize, Serialize};

use super::discovery::ServerMetadata;
use super::{AuthError, ErrorKind};
use crate::core::access::oauth::form::{encode_pairs, Form};
use crate::core::access::oauth::{pkce, secret};
use crate::core::text::cap;

/// Random bytes for one consent: 32 for the PKCE verifier, 32 for the state.
pub type Random = [u8; 64];
/// The scope that asks an authorization server for a refresh token, where it lists it.
pub const OFFLINE_ACCESS: &str = "offline_access";

/// What one consent asks.
#[derive(Debug, Clone, Copy)]
pub struct Consent<'a> {
    pub metadata: &'a ServerMetadata,
    pub client_id: &'a str,
    pub redirect_uri: &'a str,
    /// Left out of the address when empty, where the server's metadata names no scopes.
    pub scopes: &'a [String],
    /// The resource a token is asked for: the protected resource metadata's, where read.
    pub resource: Option<&'a str>,
}

/// What the caller keeps between a consent's start and its finish: the state the redirect is
/// found by, the verifier the code is redeemed with, and what the redemption repeats of the
/// start (the redirect URI, the resource, the scopes asked). The state and verifier are secrets
/// for the few minutes a consent lasts; Debug prints neither.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub state: String,
    pub verifier: String,
    pub redirect_uri: String,
    pub resource: Option<String>,
    pub scopes: Vec<String>,
}

impl fmt::Debug for Pending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pending")
            .field("redirect_uri", &self.redirect_uri)
            .field("resource", &self.resource)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

/// The scopes a consent asks: those the server's challenge names, else those its protected
/// resource metadata lists, with `offline_access` where the authorization server lists it, so
/// that a refresh token comes with the access token.
pub fn scopes_to_ask(challenge: &[String], resource_scopes: &[String], server: &ServerMetadata) -> Vec<String> {
    let mut scopes = if challenge.is_empty() { resource_scopes.to_vec() } else { challenge.to_vec() };
    let offers_refresh = server.scopes_supported.iter().any(|s| s == OFFLINE_ACCESS);
    if offers_refresh && !scopes.is_empty() && !scopes.iter().any(|s| s == OFFLINE_ACCESS) {
        scopes.push(OFFLINE_ACCESS.into());
    }
    scopes
}

/// The address to send the person to, with a fresh verifier and state from `random`, and what
/// the caller keeps until the redirect comes back.
///
/// # Errors
///
/// Words for a server whose metadata names no authorization endpoint, or says it does not take
/// PKCE S256.
pub fn start(consent: &Consent<'_>, random: &Random) -> Result<(String, Pending), String> {
    let endpoint = consent
        .metadata
        .authorization_endpoint
        .as_deref()
        .ok_or("its authorization server names no authorization_endpoint, so no person can sign in there")?;
    if consent.metadata.pkce_s256 == Some(false) {
        return Err("its authorization server does not take PKCE with S256, which the runtime requires".into());
    }
    let (verifier_bytes, state_bytes) = random.split_at(32);
    let verifier = URL_SAFE_NO_PAD.encode(verifier_bytes);
    let state = URL_SAFE_NO_PAD.encode(state_bytes);
    let challenge = pkce::challenge_of(&verifier);
    let scope = consent.scopes.join(" ");
    let mut pairs = vec![
        ("response_type", "code"),
        ("client_id", consent.client_id),
        ("redirect_uri", consent.redirect_uri),
        ("state", state.as_str()),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    if !scope.is_empty() {
        pairs.push(("scope", scope.as_str()));
    }
    // OpenID Connect gives a refresh token for offline_access only where the person was asked
    // (Core §11); an OAuth server that does not know `prompt` passes over it.
    if consent.scopes.iter().any(|s| s == OFFLINE_ACCESS) {
        pairs.push(("prompt", "consent"));
    }
    if let Some(resource) = consent.resource {
        pairs.push(("resource", resource));
    }
    let joiner = if endpoint.contains('?') { '&' } else { '?' };
    let url = format!("{endpoint}{joiner}{}", encode_pairs(&pairs));
    let pending = Pending {
        state,
        verifier,
        redirect_uri: consent.redirect_uri.to_string(),
        resource: consent.resource.map(str::to_string),
        scopes: consent.scopes.to_vec(),
    };
    Ok((url, pending))
}

/// The redirect back from the authorization server.
#[derive(Clone, PartialEq, Eq)]
pub struct Callback {
    pub state: String,
    pub iss: Option<String>,
    pub outcome: Outcome,
}

#[derive(Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The person allowed it: the code to redeem.
    Code(String),
    /// The person declined, or the server refused: its error code and words.
    Denied { error: String, description: Option<String> },
}

impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outcome = match &self.outcome {
            Outcome::Code(_) => "code [hidden]".to_string(),
            Outcome::Denied { error, .. } => format!("denied {error}"),
        };
        f.debug_struct("Callback").field("iss", &self.iss).field("outcome", &outcome).finish_non_exhaustive()
    }
}

/// Reads the query of a redirect: its `state` (which finds the consent it finishes), and a code
/// or an error.
///
/// # Errors
///
/// Words for a query that cannot be read or holds neither a state and a code nor an error.
pub fn read_callback(query: &str) -> Result<Callback, String> {
    let form = Form::parse(query).map_err(|e| e.description)?;
    let one = |name: &str| form.one(name).map(|v| v.map(str::to_string)).map_err(|e| e.description);
    let state = one("state")?.ok_or("The address has no state, so it finishes no consent the runtime started.")?;
    let iss = one("iss")?;
    let outcome = match (one("code")?, one("error")?) {
        (_, Some(error)) => Outcome::Denied { error, description: one("error_description")? },
        (Some(code), None) => Outcome::Code(code),
        (None, None) => return Err("The address has neither a code nor an error.".into()),
    };
    Ok(Callback { state, iss, outcome })
}

/// The code of a redirect that finishes the consent started with `state` (`Pending::state`) at the authorization
/// server of `metadata`. A redirect that names another issuer is refused, and so is one without
/// an issuer where the server said it names one (RFC 9207): a code from a server mixed up with
/// this one must not reach this one's token endpoint.
///
/// # Errors
///
/// `ErrorKind::Refused` for a state that does not match, an issuer that does not, or a denial.
pub fn code_of(callback: Callback, state: &str, metadata: &ServerMetadata) -> Result<String, AuthError> {
    let refused = |detail: String| AuthError::new(ErrorKind::Refused, detail);
    if !secret::same(&callback.state, state) {
        return Err(refused("The redirect's state is not the one this consent started with.".into()));
    }
    match &callback.iss {
        Some(iss) if *iss != metadata.issuer => {
            return Err(refused(format!(
                "The redirect came from the issuer {}, not from {}, where the consent started.",
                cap(iss, 200),
                metadata.issuer
            )))
        }
        None if metadata.iss_in_redirect => {
            return Err(refused(format!(
                "The redirect names no issuer, though {} says its redirects do.",
                metadata.issuer
            )))
        }
        _ => {}
    }
    match callback.outcome {
        Outcome::Code(code) => Ok(code),
        Outcome::Denied { error, .. } if error == "access_denied" => {
            Err(refused("The person did not allow the runtime at the service.".into()))
        }
        Outcome::Denied { error, description } => {
            let said = description.map(|d| format!(": {}", cap(&d, 300))).unwrap_or_default();
            Err(refused(format!("The authorization server refused the consent with {}{said}", cap(&error, 60))))
        }
    }
}

#[cfg(test)]
#[path = "consent_tests.rs"]
mod tests;
