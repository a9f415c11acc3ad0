//! `reconnect_connection`: `POST /v1/orgs/{org}/connections/{connection}/link`. A new link, which
//! replaces the one before, on which the person gives the credential or signs in again, or allows
//! `more`; a connection of a reference connects again at once where its variable is set.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{a_person, change, connection_arg, live, new_link, shown, title, with_connect};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::store::Find;
use crate::core::connection::view::{self, way_of};
use crate::core::connection::{Connection, Credential, OauthClient};
use crate::core::Problem;
use crate::ops::connections::NotSent;

pub const TOOL: Tool = Tool {
    name: "reconnect_connection",
    title: "Reconnect a connection",
    description: "Give a connection a new link, for one that is broken, whose link expired, or whose credential the person replaces; with more, a group of scopes list_connections lists, a link whose consent asks it beside what the connection holds. The new link replaces the one before; nothing else changes. Answers it as add_connection does: show the link as a link named as the words say, never as its address. Only the person who added it reconnects it.",
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connections/{connection}/link",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { person_only: true, opens_link: true, ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "connection": connection_arg(),
            "more": { "type": "string", "maxLength": 64, "description": "A group of scopes to ask beside those the connection holds, by its name in the connection's more." }
        },
        "required": ["connection"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    connection: String,
    more: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    a_person(ctx)?;
    let c = live(ctx, &a.connection).await.map_err(|p| match p.reason {
        crate::core::Reason::NotFound => Problem::not_found(format!(
            "The org has no connection {} that is not removed; a removed one is added again with add_connection.",
            a.connection
        ))
        .with_field("/connection", "is not a live connection of the org"),
        _ => p,
    })?;
    if c.added_by.id != ctx.caller.id {
        return Err(Problem::forbidden(format!(
            "Only {} ({}), who added the connection {}, reconnects it.",
            c.added_by.name, c.added_by.id, c.name
        )));
    }
    if let Credential::Reference { variable, .. } = &c.credential {
        return reference(ctx, &c, variable).await;
    }
    if let Some(group) = &a.more {
        check_more(ctx, &c, group)?;
    }
    let (token, link) = new_link(ctx, a.more.clone());
    let by = ctx.caller.id.clone();
    let kept = change(ctx, Find::Id(c.id.clone()), Command::NewLink { link, by }).await?;
    let mut out =
        Output::ok(view::relinked(&kept, title(ctx, &kept), a.more.as_deref()), with_connect(ctx, &kept, &token));
    out.relay = true;
    Ok(out)
}

/// A group the way does not name is invalid at `/more`; one held already, or that no client here
/// covers, is a conflict.
fn check_more(ctx: &Ctx<'_>, c: &Connection, group: &str) -> Result<(), Problem> {
    let providers = &ctx.connections.providers;
    let way = way_of(c, providers);
    let Some(g) = way.and_then(|w| w.groups().iter().find(|g| g.name == group)) else {
        return Err(Problem::invalid(
            "/more",
            format!("is {group}, not a group of scopes this connection's way names"),
        ));
    };
    if g.scopes.iter().all(|s| c.granted_scopes.contains(&s.name)) {
        return Err(Problem::conflict(format!("The connection {} holds the group {group} already.", c.name)));
    }
    let provider = c.provider.as_deref().and_then(|n| providers.named(n));
    let own = if c.credential.own_client() { OauthClient::Own } else { OauthClient::Runtime };
    match (provider, way) {
        (Some(p), Some(w)) if providers.group_askable(p, w, own) => Ok(()),
        _ => Err(Problem::conflict(format!("No OAuth client set up here covers the group {group}."))),
    }
}

/// A connection of a reference takes no link: its variable is read when the runtime starts.
async fn reference(ctx: &Ctx<'_>, c: &Connection, variable: &str) -> Result<Output, Problem> {
    match ctx.connections.reference(&c.org, variable, c.target.address()) {
        Ok(_) => {}
        Err(NotSent::NotListed(why)) => {
            return Err(Problem::conflict(format!(
                "The connection {} sends the variable {variable}, which is {why}.",
                c.name
            )))
        }
        Err(NotSent::NotSet) => {
            return Err(Problem::conflict(format!(
                "The connection {} reads the variable {variable}, which is not set; whoever runs the runtime sets it and restarts it, since it reads its variables when it starts.",
                c.name
            )))
        }
    }
    let kept = change(ctx, Find::Id(c.id.clone()), Command::Mended).await?;
    let summary = format!(
        "The variable {variable} is set, so the connection {} is connected again; no link is needed.",
        kept.name
    );
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &kept) })))
}
