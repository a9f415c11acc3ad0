//! What the answers show of a connection: every field but its sealed material, which no answer
//! holds, and `connect` only in the answer of the call that made the link. And the words of each
//! answer, which tell the agent what to show the person.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::link::State;
use super::providers::{Providers, Way};
use super::{Connection, Credential, Document, OauthClient, Status, Target};
use crate::core::tool_server::Because;

/// The way of the provider a connection was added by, if any.
pub fn way_of<'p>(c: &Connection, providers: &'p Providers) -> Option<&'p Way> {
    let p = providers.named(c.provider.as_deref()?)?;
    providers.way(p, c.credential.kind())
}

/// The provider's title, for the words the person reads.
pub fn title<'p>(c: &Connection, providers: &'p Providers) -> Option<&'p str> {
    providers.named(c.provider.as_deref()?).map(|p| p.title.as_str())
}

/// The groups of scopes its way names that it does not hold yet and a client here can ask.
pub fn more(c: &Connection, providers: &Providers) -> Vec<Value> {
    let Some(p) = c.provider.as_deref().and_then(|n| providers.named(n)) else { return Vec::new() };
    let Some(way) = way_of(c, providers) else { return Vec::new() };
    let own = if c.credential.own_client() { OauthClient::Own } else { OauthClient::Runtime };
    if c.status == Status::Removed || !providers.group_askable(p, way, own) {
        return Vec::new();
    }
    way.groups()
        .iter()
        .filter(|g| !g.scopes.iter().all(|s| c.granted_scopes.contains(&s.name)))
        .map(|g| json!({ "name": g.name, "for": g.purpose }))
        .collect()
}

/// Why a connection cannot be used now, if it cannot.
pub fn because(c: &Connection) -> Option<Because> {
    match (c.status, &c.broken) {
        (Status::Pending, _) => Some(Because::ConnectionPending),
        (Status::Connected, Some(_)) => Some(Because::ConnectionBroken),
        _ => None,
    }
}

fn credential(c: &Credential) -> Value {
    match c {
        // What the page shows the person stays out of the agent's answers: only its shape.
        Credential::Secret { name, place, scheme, .. } => {
            json!({ "kind": "secret", "name": name, "in": place, "scheme": scheme })
        }
        other => json!(other),
    }
}

/// A connection as `list_connections`, `get_connection` and every other answer show it.
pub fn view(c: &Connection, providers: &Providers) -> Value {
    let way = way_of(c, providers);
    let granted: Vec<Value> =
        c.granted_scopes.iter().map(|s| json!({ "scope": s, "says": way.and_then(|w| w.says(s)) })).collect();
    let (kind, server, document) = match &c.target {
        Target::Mcp { url } => ("mcp", url.clone(), Value::Null),
        Target::Openapi { document: Document::At(at), base_url } => ("openapi", base_url.clone(), json!(at)),
        Target::Openapi { document: Document::Text { sha256, text, tools }, base_url } => {
            ("openapi", base_url.clone(), json!({ "sha256": sha256, "size": text.len(), "tools": tools }))
        }
    };
    let mut v = json!({
        "id": c.id,
        "name": c.name,
        "provider": c.provider,
        "type": kind,
        "server": server,
        "status": c.status.as_str(),
        "broken": c.broken,
        "credential": credential(&c.credential),
        "playbooks": c.rules.playbooks,
        "allowed": c.rules.allowed.as_ref().map_or(json!("*"), |a| json!(a)),
        "record_content": c.rules.record_content,
        "handles_money": c.handles_money,
        "asked_scopes": c.asked_scopes,
        "granted_scopes": granted,
        "more": more(c, providers),
        "signing_secret": c.sealed.signing_secret.is_some(),
        "added_by": c.added_by,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
    });
    if let Some(b) = because(c) {
        v["because"] = json!(b.as_str());
    }
    if kind == "openapi" {
        v["document"] = document;
    }
    if !c.placeholders.is_empty() {
        v["placeholders"] = json!(c.placeholders);
    }
    v
}

/// The link's `connect`, in the answer of the call that made it.
pub fn connect(url: &str, c: &Connection) -> Value {
    json!({ "url": url, "expires_at": c.link.as_ref().map(|l| l.expires_at.clone()) })
}

/// What the person does on the page, in the words of its kind.
fn on_the_page(c: &Connection, title: Option<&str>) -> String {
    let service = title.unwrap_or("the service");
    match &c.credential {
        Credential::None | Credential::Reference { .. } => "approve".to_string(),
        Credential::Secret { .. } => "give the key and approve".to_string(),
        Credential::ClientCredentials { .. } => "give the client secret and approve".to_string(),
        Credential::Authorization { oauth_client: OauthClient::Own, .. } => {
            format!("give the org's own OAuth client, sign in at {service} and approve")
        }
        Credential::Authorization { .. } => format!("sign in at {service} and approve"),
    }
}

/// How the agent shows the link: as a link named for the person, never as its address.
pub fn show_link(c: &Connection, title: Option<&str>) -> String {
    format!(
        "Show the person the link connect.url as a link named \"{}\", never as its address; on that page, within 24 hours, they sign in, {}.",
        c.approve_label(title),
        on_the_page(c, title)
    )
}

/// The words of `add_connection`'s answer.
pub fn added(c: &Connection, title: Option<&str>) -> String {
    let what = title.map_or_else(|| format!("the server {}", c.name), |t| format!("{t} as {}", c.name));
    format!(
        "Added {what}, pending until the person approves it; no credential passes through the agent. {} Once approved, its tools are named {}/tool, and list_connections shows it connected.",
        show_link(c, title),
        c.name
    )
}

/// The words of `reconnect_connection`'s answer.
pub fn relinked(c: &Connection, title: Option<&str>, more: Option<&str>) -> String {
    let asks =
        more.map(|g| format!(" Its consent asks the group {g} with what the connection holds.")).unwrap_or_default();
    let stays = if c.status == Status::Connected && c.broken.is_none() {
        " The connection stays connected as it is until the person finishes."
    } else {
        ""
    };
    format!("A new link for {}, which replaces the one before.{asks}{stays} {}", c.name, show_link(c, title))
}

/// A retried `add_connection` or `reconnect_connection`, answered as the connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retried {
    Connected,
    /// Still open: the link is answered again.
    Open,
    Expired,
    /// A newer link, still open, replaced the one offered.
    Replaced,
    Removed,
}

/// Where a retry finds the connection, for the link it offered (`state` of its token).
pub fn retried(c: &Connection, state: Option<State>, now: DateTime<Utc>) -> Retried {
    if c.status == Status::Removed {
        return Retried::Removed;
    }
    match state {
        Some(State::Open) => Retried::Open,
        Some(State::Replaced) if c.link.as_ref().is_some_and(|l| l.open(now)) => Retried::Replaced,
        _ if c.status == Status::Connected => Retried::Connected,
        _ => Retried::Expired,
    }
}

/// The words of a retry, in each case; `declined` where the client declined or cancelled.
pub fn retried_words(c: &Connection, title: Option<&str>, case: Retried, declined: bool) -> String {
    match case {
        Retried::Connected => format!(
            "The connection {} is connected: the person approved it, and nothing is left to open. Its tools are named {}/tool.",
            c.name, c.name
        ),
        Retried::Open => {
            let why = if declined { " The person declined to open the page." } else { "" };
            format!("The connection {} is still pending: nobody approved it yet.{why} {}", c.name, show_link(c, title))
        }
        Retried::Expired => format!(
            "The connection {} is pending and its link expired: call reconnect_connection for a new link.",
            c.name
        ),
        Retried::Replaced => format!(
            "A newer link, still open, replaced the one offered for {}: the person opens the newest link they were given. Reconnecting it would replace that one too.",
            c.name
        ),
        Retried::Removed => format!(
            "The connection {} was removed, as the person cancelled on the page: nothing is connected.",
            c.name
        ),
    }
}

/// The scopes a consent on the connection's link asks: those its way asks first, those the
/// connection asked since and was granted, so a group allowed once is kept, and those of the
/// group the link asks.
pub fn consent_scopes(c: &Connection, providers: &Providers) -> Vec<String> {
    let way = way_of(c, providers);
    let mut scopes: Vec<String> = way.map(|w| w.scopes().iter().map(|s| s.name.clone()).collect()).unwrap_or_default();
    let held = c.asked_scopes.iter().filter(|s| c.granted_scopes.contains(s));
    let group = c.link.as_ref().and_then(|l| l.more.as_ref()).and_then(|g| {
        way.and_then(|w| w.groups().iter().find(|x| &x.name == g))
            .map(|g| g.scopes.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
    });
    for s in held.cloned().chain(group.unwrap_or_default()) {
        if !scopes.contains(&s) {
            scopes.push(s);
        }
    }
    scopes
}
