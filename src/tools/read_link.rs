//! `read_link`: `GET /v1/orgs/{org}/connect/{token}`, over HTTP alone: what the connect page shows
//! the person who added the connection.

use serde_json::{json, Value};

use super::connection_ops::{of_link, shown, title, token_only, OnLink};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::link::State;
use crate::core::connection::machine::closed_link;
use crate::core::connection::view::{consent_scopes, way_of};
use crate::core::connection::{Connection, Credential, OauthClient, Status};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "read_link",
    title: "Read a connection's link",
    description: "What the runtime's connect page shows for a link: the connection, its provider's title, the playbooks it serves, what is asked (a key with its instructions, key page, example and pattern; client credentials; a consent at the service with its scopes; the org's own OAuth client), what was given so far, and where the link stands: open, expired, replaced or used. For the person who added the connection alone.",
    hints: Hints::READ,
    scope: Some(Scope::OrgRead),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/connect/{token}",
    input_schema: token_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnLink) -> Result<Output, Problem> {
    let (digest, c) = of_link(ctx, &a.token).await?;
    let state = c.token_state(&digest, ctx.instant()).unwrap_or(State::Used);
    let words = if c.status == Status::Removed {
        "This connection was removed; nothing is connected.".to_string()
    } else if state == State::Open {
        format!("Approve the connection {} for the org {}.", c.name, c.org)
    } else {
        closed_link(state).to_string()
    };
    let link = c.link.as_ref().filter(|l| l.digest == digest);
    let staged = link.map(|l| l.staged.clone()).unwrap_or_default();
    let value = json!({
        "link": { "state": state.as_str(), "expires_at": link.map(|l| l.expires_at.clone()), "more": link.and_then(|l| l.more.clone()), "words": words },
        "connection": shown(ctx, &c),
        "provider": c.provider.as_ref().map(|p| json!({ "name": p, "title": title(ctx, &c) })),
        "playbooks": c.rules.playbooks,
        "asks": asks(ctx, &c),
        "given": {
            "credential": staged.credential.is_some(),
            "misses_pattern": staged.misses_pattern,
            "client": staged.client.is_some() || c.sealed.client.is_some(),
            "client_id": staged.client.as_ref().or(c.sealed.client.as_ref()).map(|o| o.client_id.clone()),
            "consent_finished": staged.granted.is_some(),
        },
    });
    Ok(Output::ok(words, value))
}

/// What the page asks of the person, by the kind of the credential.
fn asks(ctx: &Ctx<'_>, c: &Connection) -> Value {
    match &c.credential {
        Credential::None | Credential::Reference { .. } => json!({ "kind": c.credential.kind() }),
        Credential::Secret { name, help, .. } => json!({
            "kind": "secret",
            "key": { "name": name, "instructions": help.instructions, "key_page": help.key_page, "example": help.example, "pattern": help.pattern }
        }),
        Credential::ClientCredentials { issuer, client_id, scope } => json!({
            "kind": "client_credentials",
            "client_credentials": { "issuer": issuer, "client_id": client_id, "scope": scope }
        }),
        Credential::Authorization { issuer, oauth_client } => {
            let way = way_of(c, &ctx.connections.providers);
            let scopes: Vec<Value> = consent_scopes(c, &ctx.connections.providers)
                .iter()
                .map(|s| json!({ "scope": s, "says": way.and_then(|w| w.says(s)) }))
                .collect();
            json!({
                "kind": "authorization",
                "consent": {
                    "issuer": issuer,
                    "scopes": scopes,
                    "oauth_client": if *oauth_client == OauthClient::Own { "own" } else { "runtime" },
                }
            })
        }
    }
}
