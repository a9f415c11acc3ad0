//! A connection's token kept good as the connection is used: an access token of a consent that
//! has ended, or ends within a minute, is refreshed before the call, and one of client
//! credentials asked again; a server that refuses the token (a 401) has it renewed once before
//! the refusal stands. The new tokens are kept sealed before the call goes on.
//!
//! Two requests may renew the same connection at once, and a public client's refresh token
//! rotates: once one request used it, the other's is refused. So a refused refresh reads the
//! connection again, and where its credential changed meanwhile, uses the newer one; a refusal
//! that still stands breaks the connection until the person signs in again. A failure that may
//! pass (no answer, a failing or garbled token endpoint) leaves it connected, and this call
//! without it.

use chrono::{DateTime, TimeDelta, Utc};
use futures::future::LocalBoxFuture;

use super::{aad, serve, Opened, Settings};
use crate::core::connection::machine::Command;
use crate::core::connection::store::{ChangeConnection, Find, GetConnection};
use crate::core::connection::{BreakKind, Broken, Connection, Credential, Status, Target};
use crate::core::service_auth::token::{Client, ClientAuth, Tokens};
use crate::core::service_auth::AuthError;
use crate::core::text::stamp;
use crate::core::tool_server::settings::{Server, Unusable};
use crate::core::tool_server::Because;
use crate::core::{Problem, Reason};
use crate::ops::service_auth;
use crate::ops::tool_client::Transport;
use crate::ops::Backend;

/// How long before its end an access token is renewed, so that it does not end mid-call.
pub const MARGIN_SECONDS: i64 = 60;

/// What using an org's connections reaches: its table, the settings, the transport to the
/// services' authorization servers, and the time of the request.
pub struct Using<'a> {
    pub backend: &'a dyn Backend,
    pub settings: &'a Settings,
    pub transport: &'a dyn Transport,
    pub org: &'a str,
    pub now: DateTime<Utc>,
}

impl<'a> Using<'a> {
    /// What a request of an operation reaches, for the connections of `org`.
    pub fn of(ctx: &'a crate::ops::Ctx<'a>, org: &'a str) -> Using<'a> {
        Using {
            backend: ctx.backend,
            settings: &ctx.connections,
            transport: ctx.tool_servers.transport,
            org,
            now: ctx.instant(),
        }
    }
}

/// What a connection's credential needs before it is sent.
enum Due {
    Nothing,
    /// A consent's tokens, to refresh.
    Refresh(Opened),
    /// A token of client credentials, to ask for.
    Ask(Opened),
}

/// Whether an expiry (RFC 3339) is past at `now`, or within the margin of it.
fn ended(expires_at: Option<&str>, now: DateTime<Utc>) -> bool {
    let at = expires_at.and_then(|at| DateTime::parse_from_rfc3339(at).ok());
    at.is_some_and(|at| now + TimeDelta::seconds(MARGIN_SECONDS) >= at.to_utc())
}

/// What `c` needs now; `refused` where its server just refused its token, whatever its expiry.
fn due(c: &Connection, settings: &Settings, now: DateTime<Utc>, refused: bool) -> Due {
    if c.status != Status::Connected || c.broken.is_some() {
        return Due::Nothing;
    }
    let takes = matches!(c.credential, Credential::Authorization { .. } | Credential::ClientCredentials { .. });
    let Some(opened) = takes.then(|| serve::opened(c, settings).ok()).flatten() else { return Due::Nothing };
    let stale = refused || ended(opened.expires_at.as_deref(), now);
    match c.credential {
        Credential::Authorization { .. } => {
            let can = opened.refresh_token.as_deref().is_some_and(|t| !t.is_empty())
                && opened.token_endpoint.is_some()
                && opened.client_id.is_some();
            if can && stale {
                Due::Refresh(opened)
            } else {
                Due::Nothing
            }
        }
        _ if stale || opened.access_token.is_none() => Due::Ask(opened),
        _ => Due::Nothing,
    }
}

/// `c` as it is to be used now, its token renewed first where it is due; or why it cannot be used
/// for this call though it stays connected. `refused` renews it whatever its expiry.
pub async fn fresh(using: &Using<'_>, c: Connection, refused: bool) -> Result<Connection, Unusable> {
    match due(&c, using.settings, using.now, refused) {
        Due::Nothing => Ok(c),
        Due::Refresh(opened) => refresh(using, c, opened).await,
        Due::Ask(opened) => ask(using, c, opened).await,
    }
}

/// The server `c` is now, renewed first where due. None for a removed connection.
pub async fn server(using: &Using<'_>, c: Connection, refused: bool) -> Option<Server> {
    match fresh(using, c.clone(), refused).await {
        Ok(c) => serve::server(&c, using.settings),
        Err(unusable) => serve::server(&c, using.settings).map(|mut s| {
            s.state = Err(unusable);
            s
        }),
    }
}

async fn refresh(using: &Using<'_>, c: Connection, opened: Opened) -> Result<Connection, Unusable> {
    let (Some(endpoint), Some(refresh_token), Some(id)) =
        (opened.token_endpoint.as_deref(), opened.refresh_token.as_deref(), opened.client_id.as_deref())
    else {
        return Ok(c);
    };
    let secret = opened.client_secret.clone();
    let auth =
        opened.client_auth.unwrap_or(if secret.is_some() { ClientAuth::ClientSecretBasic } else { ClientAuth::None });
    let client = Client { id: id.to_string(), secret, auth };
    let resource = opened.resource.as_deref();
    let asked = service_auth::refresh(
        using.transport,
        endpoint,
        &client,
        refresh_token,
        resource,
        &c.granted_scopes,
        using.now,
    )
    .await;
    match asked {
        Ok(tokens) => keep(using, c, renewed(opened, tokens)).await,
        Err(e) => failed(using, c, e).await,
    }
}

async fn ask(using: &Using<'_>, c: Connection, opened: Opened) -> Result<Connection, Unusable> {
    let Credential::ClientCredentials { issuer, client_id, scope } = &c.credential else { return Ok(c) };
    let (Some(id), Some(secret)) =
        (opened.client_id.as_deref().or(client_id.as_deref()), opened.client_secret.as_deref())
    else {
        return Ok(c);
    };
    let scopes: Vec<String> = scope.as_deref().unwrap_or("").split_ascii_whitespace().map(str::to_string).collect();
    let resource = match &c.target {
        Target::Mcp { url } => Some(url.as_str()),
        Target::Openapi { .. } => None,
    };
    let deployed = using.settings.deployed;
    let asked =
        service_auth::client_credentials(using.transport, issuer, id, secret, &scopes, resource, deployed, using.now)
            .await;
    match asked {
        Ok(tokens) => keep(using, c, renewed(opened, tokens)).await,
        Err(e) => failed(using, c, e).await,
    }
}

/// The credential with the new tokens, and the newest refresh token: the answer's, else the one
/// it was refreshed with.
fn renewed(opened: Opened, tokens: Tokens) -> Opened {
    Opened {
        access_token: Some(tokens.access),
        refresh_token: tokens.refresh.or(opened.refresh_token.clone()),
        expires_at: tokens.expires_at.map(stamp),
        ..opened
    }
}

/// Keeps the renewed credential sealed, and answers the connection as kept. Where another
/// request or a new consent replaced the credential meanwhile, the newer stands, and is used.
/// Where storage fails, this call uses the new token, and says so in the log.
async fn keep(using: &Using<'_>, mut c: Connection, opened: Opened) -> Result<Connection, Unusable> {
    let unavailable = |p: Problem| unavailable(&c, &p.detail);
    let text =
        serde_json::to_vec(&opened).map_err(|_| unavailable(Problem::internal("the tokens could not be written")))?;
    let sealer = using.settings.sealer().map_err(unavailable)?;
    let sealed = sealer.seal(&aad(&c.org, &c.id, "credential"), &text).map_err(unavailable)?;
    let command = Command::Refreshed { sealed: sealed.clone(), from: c.sealed.credential.clone() };
    match change(using, &c.id, command).await {
        Ok(kept) => Ok(kept),
        Err(p) if p.reason == Reason::Conflict => match get(using, &c.id).await {
            Ok(kept) => Ok(kept),
            Err(p) => Err(unavailable(p)),
        },
        Err(p) => {
            using.backend.log(&format!("the renewed token of the connection {} could not be kept: {}", c.id, p.detail));
            c.sealed.credential = Some(sealed);
            Ok(c)
        }
    }
}

/// A renewal that failed: a refused grant or client breaks the connection, unless another request
/// renewed it meanwhile; anything else leaves it connected, and this call without it.
async fn failed(using: &Using<'_>, mut c: Connection, e: AuthError) -> Result<Connection, Unusable> {
    if !e.breaks_connection() {
        return Err(unavailable(&c, &e.detail));
    }
    // A rotated refresh token is refused once another request used it: its credential is newer.
    match get(using, &c.id).await {
        Ok(kept) if kept.sealed.credential != c.sealed.credential => return Ok(kept),
        Ok(_) => {}
        Err(p) => return Err(unavailable(&c, &p.detail)),
    }
    let detail = format!("its service refused to renew its access token: {}", e.detail);
    let command = Command::Broken { kind: BreakKind::RefreshRefused, detail: detail.clone() };
    match change(using, &c.id, command).await {
        Ok(kept) => Ok(kept),
        Err(p) => {
            using.backend.log(&format!("the connection {} could not be marked broken: {}", c.id, p.detail));
            c.broken = Some(Broken { kind: BreakKind::RefreshRefused, detail, at: stamp(using.now) });
            Ok(c)
        }
    }
}

/// A connection that stays connected but cannot be used for this call.
fn unavailable(c: &Connection, why: &str) -> Unusable {
    Unusable {
        because: Because::ConnectionUnavailable,
        detail: format!(
            "the connection {} could not renew its access token just now ({}); a later call may find it put right, as its service answers again.",
            c.name,
            why.trim_end_matches('.')
        ),
    }
}

async fn get(using: &Using<'_>, id: &str) -> Result<Connection, Problem> {
    let get = GetConnection { org: using.org.to_string(), find: Find::Id(id.to_string()) };
    using.backend.get_connection(get).await
}

async fn change(using: &Using<'_>, id: &str, command: Command) -> Result<Connection, Problem> {
    let change =
        ChangeConnection { org: using.org.to_string(), find: Find::Id(id.to_string()), command, now: stamp(using.now) };
    using.backend.connection(change).await
}

impl crate::ops::tool_servers::Renew for Using<'_> {
    /// Reads the connection again, and renews its token whatever its expiry, where it has one to
    /// renew: a refresh token, or client credentials.
    fn renew<'r>(&'r self, refused: &'r Server) -> LocalBoxFuture<'r, Option<Server>> {
        Box::pin(async move {
            let c = get(self, refused.connection.as_deref()?).await.ok()?;
            if matches!(due(&c, self.settings, self.now, true), Due::Nothing) {
                return None;
            }
            server(self, c, true).await
        })
    }
}

#[cfg(test)]
#[path = "renew_tests.rs"]
mod tests;
