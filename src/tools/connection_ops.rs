//! What the connection tools share: who may add a connection here, the reads and changes of the
//! org's object, the link a call makes, and the arguments every one of them takes.

use serde::Deserialize;
use serde_json::{json, Value};

use super::Ctx;
use crate::core::caller::Principal;
use crate::core::connection::link::{self, Link};
use crate::core::connection::machine::{not_found, Command};
use crate::core::connection::store::{ChangeConnection, Find, GetConnection};
use crate::core::connection::{is_connection_id, view, Connection, Status};
use crate::core::Problem;

/// The argument naming a connection, as its path does.
pub fn connection_arg() -> Value {
    json!({ "type": "string", "maxLength": 64, "description": "The connection's id, con_…, as list_connections gives it." })
}

/// The input of an operation on one connection, named by its id alone.
pub fn connection_only() -> Value {
    json!({ "type": "object", "properties": { "connection": connection_arg() }, "required": ["connection"], "additionalProperties": false })
}

/// The arguments `connection_only` takes.
#[derive(Deserialize)]
pub struct OnConnection {
    pub connection: String,
}

/// The input of an operation of the connect page, named by its link's token alone.
pub fn token_only() -> Value {
    json!({ "type": "object", "properties": { "token": token_arg() }, "required": ["token"], "additionalProperties": false })
}

/// The arguments `token_only` takes.
#[derive(Deserialize)]
pub struct OnLink {
    pub token: String,
}

/// The argument naming a link, as the page's path does.
pub fn token_arg() -> Value {
    json!({ "type": "string", "maxLength": 64, "description": "The token of the link, cl_…, the last part of connect.url." })
}

/// Refuses every connection on a runtime where nobody could approve one, and a caller who is not
/// a person (a key, the operator); the local developer is the person in local mode.
pub fn a_person(ctx: &Ctx<'_>) -> Result<(), Problem> {
    if !ctx.connections.people {
        return Err(Problem::forbidden(
            "This runtime signs nobody in (API keys alone), so no person could approve a connection, and none is added. Whoever runs it turns sign-in on with OIDC_ISSUER, as the README's Deploy section says.",
        ));
    }
    match ctx.caller.principal {
        Principal::Person { .. } | Principal::LocalDeveloper { .. } => Ok(()),
        _ => Err(Problem::forbidden(
            "A connection is added by a person, who approves it on the runtime's page: a key does not add one. Connect through an agent signed in as the person.",
        )),
    }
}

/// The id of a connection as given, checked for its shape.
pub fn connection_id(id: &str) -> Result<String, Problem> {
    if is_connection_id(id) {
        Ok(id.to_string())
    } else {
        Err(not_found(id))
    }
}

/// The digest of a link's token, checked for its shape.
pub fn digest(token: &str) -> Result<String, Problem> {
    if link::is_token(token) {
        Ok(link::digest(token))
    } else {
        Err(Problem::not_found("No connection has this link: it may be mistyped, or cut short when it was copied.")
            .with_field("/token", "is not the token of a link"))
    }
}

/// One change to a connection of the caller's org.
pub async fn change(ctx: &Ctx<'_>, find: Find, command: Command) -> Result<Connection, Problem> {
    let change = ChangeConnection { org: ctx.caller.org.clone(), find, command, now: ctx.now.clone() };
    ctx.backend.connection(change).await
}

/// A connection of the caller's org, removed ones among them.
pub async fn get(ctx: &Ctx<'_>, find: Find) -> Result<Connection, Problem> {
    ctx.backend.get_connection(GetConnection { org: ctx.caller.org.clone(), find }).await
}

/// A live connection of the caller's org: a removed one is not found.
pub async fn live(ctx: &Ctx<'_>, id: &str) -> Result<Connection, Problem> {
    let c = get(ctx, Find::Id(connection_id(id)?)).await?;
    if c.status == Status::Removed {
        return Err(not_found(id));
    }
    Ok(c)
}

/// A connection as the answers show it.
pub fn shown(ctx: &Ctx<'_>, c: &Connection) -> Value {
    view::view(c, &ctx.connections.providers)
}

/// The provider's title of a connection, for the words the person reads.
pub fn title<'c>(ctx: &'c Ctx<'_>, c: &Connection) -> Option<&'c str> {
    view::title(c, &ctx.connections.providers)
}

/// A new link, made now from the request's secret bytes: its token, which only this answer
/// holds, and what is kept of it.
pub fn new_link(ctx: &Ctx<'_>, more: Option<String>) -> (String, Link) {
    let token = link::mint(&ctx.secret);
    let kept = link::new(&token, ctx.instant(), more);
    (token, kept)
}

/// The connection with the `connect` of the link this call made.
pub fn with_connect(ctx: &Ctx<'_>, c: &Connection, token: &str) -> Value {
    let mut v = shown(ctx, c);
    let url = link::url(&ctx.connections.base, &c.org, token);
    v["connect"] = view::connect(&url, c);
    v
}

/// The connection a link's token names, for the person who added it alone.
pub async fn of_link(ctx: &Ctx<'_>, token: &str) -> Result<(String, Connection), Problem> {
    let digest = digest(token)?;
    let c = get(ctx, Find::Link(digest.clone())).await?;
    if c.added_by.id != ctx.caller.id {
        return Err(Problem::forbidden(format!(
            "This link is for {}, who added the connection; sign in as them to open it.",
            c.added_by.name
        )));
    }
    Ok((digest, c))
}

/// Refuses a link that is no longer open, in the words of where it stands, before anything is
/// asked of a service.
pub fn open_on(ctx: &Ctx<'_>, c: &Connection, digest: &str) -> Result<(), Problem> {
    use crate::core::connection::link::State;
    if c.status == Status::Removed {
        return Err(Problem::conflict(
            "This connection was removed; nothing is connected. The agent adds it again with add_connection.",
        ));
    }
    match c.token_state(digest, ctx.instant()) {
        Some(State::Open) => Ok(()),
        Some(state) => Err(Problem::conflict(crate::core::connection::machine::closed_link(state))),
        None => Err(Problem::not_found("No connection has this link.")),
    }
}

/// One command of the page, by the person who added the connection, to the link's connection.
pub async fn on_link(ctx: &Ctx<'_>, digest: String, command: Command) -> Result<Connection, Problem> {
    change(ctx, Find::Link(digest), command).await
}

/// Marks the connection a server is broken where its failure says its credential was refused (a
/// 401, or a code its provider names); a failure to mark it is said in the log, not to the caller,
/// whose refusal already says what failed.
pub async fn mark_if_broken(
    ctx: &Ctx<'_>,
    server: &crate::core::tool_server::settings::Server,
    because: crate::core::tool_server::Because,
    detail: &str,
) -> bool {
    let Some(id) = server.connection.as_deref() else { return false };
    // A connection found unusable or broken before the call is not its server's refusal.
    if because.as_str().starts_with("connection_") {
        return false;
    }
    let Ok(c) = get(ctx, Find::Id(id.to_string())).await else { return false };
    let Some((kind, words)) = crate::ops::connections::serve::breaks(&c, &ctx.connections, because, detail) else {
        return false;
    };
    match change(ctx, Find::Id(c.id.clone()), Command::Broken { kind, detail: words }).await {
        Ok(_) => true,
        Err(p) => {
            ctx.backend.log(&format!("the connection {id} could not be marked broken: {}", p.detail));
            false
        }
    }
}
