//! The runtime as an OAuth client of a service, over the transport the shell supplies: the probe
//! of an MCP server given by hand (one request without a token, then its protected resource
//! metadata), the discovery of an issuer's metadata, the registration of the runtime as a client,
//! and the exchanges at the token endpoint. Every request keeps within `AUTH_SECONDS`; every
//! answer is read within the transport's bound and the smaller bound of `core::service_auth`.
//! What failed is said in words that hold no secret, token, code or verifier.

use chrono::{DateTime, Utc};
use serde_json::json;

use super::tool_client::{unanswered, Response, Transport};
use crate::core::service_auth::consent::Pending;
use crate::core::service_auth::discovery::{self, ServerMetadata};
use crate::core::service_auth::registration::{self, Registration};
use crate::core::service_auth::token::{self, Client, ClientAuth, Grant, Tokens};
use crate::core::service_auth::{scrubbed, AuthError, ErrorKind};
use crate::core::tool_server::mcp::{self, Era};
use crate::core::tool_server::{Because, Request};
use crate::ops::outbound::Unanswered;

/// How long one request to a service's MCP server or authorization server may take.
pub const AUTH_SECONDS: u64 = 15;

/// How an MCP server given by hand authenticates, as its answer without a token says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// It wants a token from this authorization server.
    Authorization(Authorization),
    /// It answered without asking for a token, or asked for one without naming where it is had.
    NamesNone,
    /// It could not be asked, or what it said cannot be used: no answer, an address the runtime
    /// does not fetch, a server error, metadata of another resource or naming an authorization
    /// server the runtime does not reach.
    Unreachable { detail: String },
}

/// What the protected resource metadata of a server that wants a token names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    /// The authorization server, as its metadata must name itself.
    pub issuer: String,
    /// The resource a token is asked for (RFC 8707).
    pub resource: String,
    pub scopes_supported: Vec<String>,
    /// The scopes the server's challenge asked for, which a consent asks before `scopes_supported`.
    pub challenge_scopes: Vec<String>,
}

impl From<Probe> for crate::core::connection::probe::Probe {
    /// What the probe found, as the connection's credential is settled by it.
    fn from(probe: Probe) -> Self {
        use crate::core::connection::probe::Probe as Found;
        match probe {
            Probe::Authorization(a) => {
                let scopes = if a.challenge_scopes.is_empty() { a.scopes_supported } else { a.challenge_scopes };
                Found::Names { issuer: a.issuer, scopes }
            }
            Probe::NamesNone => Found::NamesNone,
            Probe::Unreachable { detail } => Found::Unreachable(detail),
        }
    }
}

/// Asks the MCP server at `mcp_url` once, without a token, how it authenticates. `deployed`
/// refuses addresses other than https on a public host, for the server and for every address its
/// answers name.
pub async fn probe(transport: &dyn Transport, mcp_url: &str, deployed: bool) -> Probe {
    let unreachable = |detail: String| Probe::Unreachable { detail };
    if let Err(why) = discovery::check_address(mcp_url, deployed) {
        return unreachable(format!("its address {why}"));
    }
    let post = mcp::request(&Era::Modern, 1, "server/discover", json!({}), None);
    let request = Request { method: "POST", url: mcp_url.to_string(), headers: post.headers, body: Some(post.body) };
    let response = match transport.send(request, AUTH_SECONDS).await {
        Ok(response) => response,
        Err(u) => return unreachable(unanswered(u, AUTH_SECONDS, &[]).detail),
    };
    match response.status {
        401 | 403 => {}
        404 => return unreachable("it answered HTTP 404: no MCP server is at that address".into()),
        429 => return unreachable("it asked the runtime to slow down (HTTP 429)".into()),
        status @ 500..=599 => return unreachable(format!("it answered HTTP {status}")),
        _ => return Probe::NamesNone,
    }
    let challenge = discovery::read_challenge(response.www_authenticate.as_deref().unwrap_or(""));
    let mut addresses = Vec::new();
    if let Some(named) = challenge.resource_metadata {
        if let Err(why) = discovery::check_address(&named, deployed) {
            return unreachable(format!("the address of its protected resource metadata, {named}, {why}"));
        }
        addresses.push(named);
    }
    addresses.extend(discovery::resource_metadata_urls(mcp_url));
    for address in addresses {
        let response = match get(transport, &address).await {
            Ok(response) => response,
            Err(u) => {
                let said = unanswered(u, AUTH_SECONDS, &[]).detail;
                return unreachable(format!("its protected resource metadata at {address}: {said}"));
            }
        };
        if !(200..300).contains(&response.status) {
            continue;
        }
        let resource = match discovery::read_protected_resource(&response.body, mcp_url) {
            Ok(resource) => resource,
            Err(why) => return unreachable(why),
        };
        let mut refused = None;
        for issuer in &resource.authorization_servers {
            match discovery::check_address(issuer, deployed) {
                Ok(()) => {
                    return Probe::Authorization(Authorization {
                        issuer: issuer.clone(),
                        resource: resource.resource,
                        scopes_supported: resource.scopes_supported,
                        challenge_scopes: challenge.scope,
                    })
                }
                Err(why) => {
                    refused = refused.or(Some(format!("it names the authorization server {issuer}, which {why}")))
                }
            }
        }
        return refused.map_or(Probe::NamesNone, unreachable);
    }
    Probe::NamesNone
}

/// The metadata of the authorization server `issuer`: RFC 8414's address first, then OpenID
/// discovery's. Each document found must name `issuer` itself.
///
/// # Errors
///
/// `AddressRefused` for an issuer the runtime does not fetch. Where no address held its metadata,
/// the first failure: `Unreachable` for an address that gave no answer, `Failing` for one that
/// held garbage or another issuer's metadata, and `Failing` where every one was missing.
pub async fn discover(transport: &dyn Transport, issuer: &str, deployed: bool) -> Result<ServerMetadata, AuthError> {
    if let Err(why) = discovery::check_address(issuer, deployed) {
        return Err(AuthError::new(ErrorKind::AddressRefused, format!("The issuer {issuer} {why}.")));
    }
    let addresses = discovery::server_metadata_urls(issuer);
    if addresses.is_empty() {
        return Err(AuthError::new(ErrorKind::AddressRefused, format!("The issuer {issuer} has a query or fragment.")));
    }
    let mut failure = None;
    for address in &addresses {
        match get(transport, address).await {
            Ok(response) if (200..300).contains(&response.status) => {
                match discovery::read_server_metadata(&response.body, issuer, deployed) {
                    Ok(metadata) => return Ok(metadata),
                    Err(why) => {
                        failure =
                            failure.or(Some(AuthError::new(ErrorKind::Failing, format!("The issuer {issuer}: {why}."))))
                    }
                }
            }
            Ok(_) => {}
            Err(u) => {
                failure = failure.or(Some(not_answered(&format!("The metadata of {issuer} at {address}"), u, &[])))
            }
        }
    }
    Err(failure.unwrap_or_else(|| {
        AuthError::new(
            ErrorKind::Failing,
            format!("The issuer {issuer} serves no authorization server metadata at {}.", addresses.join(" or ")),
        )
    }))
}

/// Registers the runtime as a client of the authorization server of `metadata`, for the redirect
/// URI `redirect_uri` (`core::service_auth::redirect_uri`). The caller keeps what it answers for
/// the connection, its secret sealed.
///
/// # Errors
///
/// `Refused` where the server takes no registration (the org's own client is needed) or refuses
/// this one; `Unreachable` or `Failing` as the answer was.
pub async fn register(
    transport: &dyn Transport,
    metadata: &ServerMetadata,
    redirect_uri: &str,
) -> Result<Registration, AuthError> {
    let endpoint = metadata.registration_endpoint.as_deref().ok_or_else(|| {
        AuthError::new(
            ErrorKind::Refused,
            format!(
                "The authorization server {} takes no registration of clients, so a client set up there is needed.",
                metadata.issuer
            ),
        )
    })?;
    let auth = registration::auth_to_ask(metadata);
    let request = registration::request(endpoint, redirect_uri, auth);
    let response =
        transport.send(request, AUTH_SECONDS).await.map_err(|u| not_answered("The registration endpoint", u, &[]))?;
    registration::read_response(response.status, &response.body, auth)
}

/// Redeems the code of a finished consent (`consent::code_of`) with what its start kept.
///
/// # Errors
///
/// As `token::read_response`, and `Unreachable` for no answer.
pub async fn redeem(
    transport: &dyn Transport,
    metadata: &ServerMetadata,
    client: &Client,
    pending: &Pending,
    code: &str,
    now: DateTime<Utc>,
) -> Result<Tokens, AuthError> {
    let grant = Grant::Code { code, verifier: &pending.verifier, redirect_uri: &pending.redirect_uri };
    let resource = pending.resource.as_deref();
    exchange(transport, &metadata.token_endpoint, client, &grant, &pending.scopes, resource, now).await
}

/// Refreshes a connection's tokens. The answer keeps `refresh_token` where it brings no new one,
/// and `granted` where it names no scopes.
///
/// # Errors
///
/// `GrantRefused` or `ClientRefused` where the connection is broken until the person signs in
/// again; others may pass.
pub async fn refresh(
    transport: &dyn Transport,
    token_endpoint: &str,
    client: &Client,
    refresh_token: &str,
    resource: Option<&str>,
    granted: &[String],
    now: DateTime<Utc>,
) -> Result<Tokens, AuthError> {
    let grant = Grant::Refresh { refresh_token };
    exchange(transport, token_endpoint, client, &grant, granted, resource, now).await
}

/// Asks the authorization server `issuer` for a token with client credentials: its metadata
/// found first, the client authenticated as it says.
///
/// # Errors
///
/// As `discover`, and as `refresh`.
#[allow(clippy::too_many_arguments)]
pub async fn client_credentials(
    transport: &dyn Transport,
    issuer: &str,
    client_id: &str,
    client_secret: &str,
    scopes: &[String],
    resource: Option<&str>,
    deployed: bool,
    now: DateTime<Utc>,
) -> Result<Tokens, AuthError> {
    let metadata = discover(transport, issuer, deployed).await?;
    let client = Client {
        id: client_id.to_string(),
        secret: Some(client_secret.to_string()),
        auth: ClientAuth::for_secret(&metadata.token_auth_methods),
    };
    let grant = Grant::ClientCredentials;
    exchange(transport, &metadata.token_endpoint, &client, &grant, scopes, resource, now).await
}

/// Revokes `token` (of kind `hint`, `refresh_token` or `access_token`) at the authorization
/// server, as a connection is removed. Answers `false` where the server names no revocation
/// endpoint, so there is nothing to revoke there; a token the server no longer knows counts as
/// revoked (RFC 7009 §2.2).
///
/// # Errors
///
/// As the exchanges: the server refused, failed, or could not be reached. The credential is
/// forgotten here whatever the service answers.
pub async fn revoke(
    transport: &dyn Transport,
    metadata: &ServerMetadata,
    client: &Client,
    token: &str,
    hint: &str,
) -> Result<bool, AuthError> {
    let Some(endpoint) = metadata.revocation_endpoint.as_deref() else { return Ok(false) };
    // The token goes in the body as a refresh token does, and is hidden as one is.
    let hidden = token::hidden(client, &Grant::Refresh { refresh_token: token });
    let request = token::revocation_request(endpoint, client, token, hint);
    let response =
        transport.send(request, AUTH_SECONDS).await.map_err(|u| not_answered("The revocation endpoint", u, &hidden))?;
    if (200..300).contains(&response.status) {
        return Ok(true);
    }
    Err(token::oauth_error(
        response.status,
        &response.body,
        "The revocation endpoint refused to revoke the token",
        &hidden,
    ))
}

async fn exchange(
    transport: &dyn Transport,
    endpoint: &str,
    client: &Client,
    grant: &Grant<'_>,
    scopes: &[String],
    resource: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Tokens, AuthError> {
    let hidden = token::hidden(client, grant);
    let request = token::request(endpoint, client, grant, scopes, resource);
    let response = transport
        .send(request, AUTH_SECONDS)
        .await
        .map_err(|u| not_answered(&format!("The token endpoint, asked for {},", grant.step()), u, &hidden))?;
    token::read_response(grant, response.status, &response.body, scopes, now, &hidden)
}

async fn get(transport: &dyn Transport, address: &str) -> Result<Response, Unanswered> {
    let headers = vec![("Accept".to_string(), "application/json".to_string())];
    let request = Request { method: "GET", url: address.to_string(), headers, body: None };
    transport.send(request, AUTH_SECONDS).await
}

/// A request that got no answer, said of `who`, the platform's words kept clear of `hidden`.
fn not_answered(who: &str, u: Unanswered, hidden: &[String]) -> AuthError {
    let failure = unanswered(u, AUTH_SECONDS, &[]);
    let kind = if failure.because == Because::Unreachable { ErrorKind::Unreachable } else { ErrorKind::Failing };
    let said = failure.detail.strip_prefix("it ").unwrap_or(&failure.detail);
    AuthError::new(kind, scrubbed(&format!("{who} {said}."), hidden))
}

#[cfg(test)]
#[path = "service_auth_tests.rs"]
mod tests;
