//! The seam the OAuth consent of the connect page (`start` and `finish`, in `ops::service_auth`)
//! calls: what a consent on a link asks and under which client, and the commands that keep what
//! it found. The consent itself (PKCE, state, the authorization and token requests, refresh) is
//! not here.

use chrono::DateTime;

use super::{aad, Opened, Settings};
use crate::core::connection::link::{self, State};
use crate::core::connection::machine::{closed_link, Command};
use crate::core::connection::providers::{ClientSource, RuntimeClient, Way};
use crate::core::connection::store::{ChangeConnection, Find, GetConnection};
use crate::core::connection::view::{consent_scopes, way_of};
use crate::core::connection::{BreakKind, Connection, Credential, OauthClient, OwnClient, Target};
use crate::core::Problem;
use crate::ops::Backend;

/// Whose client a consent runs under.
#[derive(Debug, Clone, PartialEq)]
pub enum ConsentClient {
    /// The client whoever runs the runtime set for the provider.
    Runtime(RuntimeClient),
    /// None set: the client registers itself with the authorization server (dynamic registration).
    Dynamic,
    /// The org's own, its secret sealed under `aad(org, id, "client")`.
    Own(OwnClient),
}

/// What a consent on an open link asks.
#[derive(Debug, Clone)]
pub struct ConsentPlan {
    pub connection: Connection,
    /// The digest of the link, which the commands below name.
    pub digest: String,
    /// The authorization server: the provider's way's, or the one an MCP server named.
    pub issuer: Option<String>,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: Option<String>,
    /// The scopes to ask: the way's first, those held, and the link's group.
    pub scopes: Vec<String>,
    /// The resource (RFC 8707) the token is for: the MCP server's address, or the API's base.
    pub resource: String,
    pub client: ConsentClient,
}

/// Reads what a consent on the link of `token` asks, for the person `by` who added it.
pub async fn plan(
    backend: &dyn Backend,
    settings: &Settings,
    org: &str,
    by: &str,
    token: &str,
    now: &str,
) -> Result<ConsentPlan, Problem> {
    if !link::is_token(token) {
        return Err(Problem::not_found("No connection has this link."));
    }
    let digest = link::digest(token);
    let c = backend.get_connection(GetConnection { org: org.into(), find: Find::Link(digest.clone()) }).await?;
    let at = DateTime::parse_from_rfc3339(now).map(|t| t.to_utc()).unwrap_or_default();
    match c.token_state(&digest, at) {
        Some(State::Open) => {}
        Some(state) => return Err(Problem::conflict(closed_link(state))),
        None => return Err(Problem::not_found("No connection has this link.")),
    }
    if c.added_by.id != by {
        return Err(Problem::forbidden("Only the person who added the connection signs in for it."));
    }
    let Credential::Authorization { issuer, oauth_client } = &c.credential else {
        return Err(Problem::conflict(format!("The connection {} takes no consent.", c.name)));
    };
    let way = way_of(&c, &settings.providers);
    let (authorization_endpoint, token_endpoint, source) = match way {
        Some(Way::Authorization { authorization_endpoint, token_endpoint, client, .. }) => {
            (authorization_endpoint.clone(), token_endpoint.clone(), Some(*client))
        }
        _ => (None, None, None),
    };
    let client = match (oauth_client, c.sealed.client.clone().or_else(|| staged_client(&c))) {
        (OauthClient::Own, Some(own)) => ConsentClient::Own(own),
        (OauthClient::Own, None) => {
            return Err(Problem::conflict("Give the client ID and client secret of the org's own OAuth client first."))
        }
        (OauthClient::Runtime, _) => match c.provider.as_deref().and_then(|p| settings.providers.client(p)) {
            Some(set) if source != Some(ClientSource::Dynamic) => ConsentClient::Runtime(set.clone()),
            _ => ConsentClient::Dynamic,
        },
    };
    let resource = match &c.target {
        Target::Mcp { url } => url.clone(),
        Target::Openapi { base_url, .. } => base_url.clone(),
    };
    Ok(ConsentPlan {
        scopes: consent_scopes(&c, &settings.providers),
        issuer: issuer.clone(),
        authorization_endpoint,
        token_endpoint,
        resource,
        client,
        digest,
        connection: c,
    })
}

fn staged_client(c: &Connection) -> Option<OwnClient> {
    c.link.as_ref().and_then(|l| l.staged.client.clone())
}

async fn command(
    backend: &dyn Backend,
    org: &str,
    find: Find,
    command: Command,
    now: &str,
) -> Result<Connection, Problem> {
    backend.connection(ChangeConnection { org: org.into(), find, command, now: now.into() }).await
}

/// The consent started, asking `asked`: the connection's `asked_scopes` grow by them.
pub async fn started(backend: &dyn Backend, plan: &ConsentPlan, by: &str, now: &str) -> Result<Connection, Problem> {
    let c = &plan.connection;
    let asked = Command::ConsentStarted { digest: plan.digest.clone(), by: by.into(), asked: plan.scopes.clone() };
    command(backend, &c.org, Find::Link(plan.digest.clone()), asked, now).await
}

/// The consent finished: its tokens are sealed and kept on the link until the person approves.
#[allow(clippy::too_many_arguments)]
pub async fn finished(
    backend: &dyn Backend,
    settings: &Settings,
    org: &str,
    connection: &str,
    digest: &str,
    by: &str,
    tokens: &Opened,
    granted: Vec<String>,
    now: &str,
) -> Result<Connection, Problem> {
    let plain = serde_json::to_vec(tokens).map_err(|e| Problem::internal(format!("could not encode tokens: {e}")))?;
    let sealed = settings.sealer()?.seal(&aad(org, connection, "credential"), &plain)?;
    let done = Command::ConsentFinished { digest: digest.into(), by: by.into(), sealed, granted };
    command(backend, org, Find::Link(digest.into()), done, now).await
}

/// New tokens after a refresh, sealed in place of the old.
pub async fn refreshed(
    backend: &dyn Backend,
    settings: &Settings,
    c: &Connection,
    tokens: &Opened,
    now: &str,
) -> Result<Connection, Problem> {
    let plain = serde_json::to_vec(tokens).map_err(|e| Problem::internal(format!("could not encode tokens: {e}")))?;
    let sealed = settings.sealer()?.seal(&aad(&c.org, &c.id, "credential"), &plain)?;
    command(backend, &c.org, Find::Id(c.id.clone()), Command::Refreshed { sealed }, now).await
}

/// A refused refresh: the connection is broken, and reconnect_connection mends it.
pub async fn refresh_refused(
    backend: &dyn Backend,
    c: &Connection,
    detail: &str,
    now: &str,
) -> Result<Connection, Problem> {
    let broken = Command::Broken { kind: BreakKind::RefreshRefused, detail: detail.into() };
    command(backend, &c.org, Find::Id(c.id.clone()), broken, now).await
}
