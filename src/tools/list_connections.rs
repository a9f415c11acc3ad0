//! `list_connections`: `GET /v1/orgs/{org}/connections`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::shown;
use super::schema::{cursor_arg, limit_arg};
use super::words::more;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::store::{Cursor, ListConnections, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX};
use crate::core::connection::Status;
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_connections",
    title: "List connections",
    description: "List the org's connections, newest first: each one's id, name, provider, status (pending until the person approves it, connected, or broken with what mends it), the scopes it asked and was granted with what each allows, and more, the groups of scopes it may still be granted. Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::OrgRead),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/connections",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "limit": limit_arg(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "connections"), "cursor": cursor_arg(256) },
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let after = a.cursor.as_deref().map(Cursor::decode).transpose()?;
    let query = ListConnections {
        org: ctx.caller.org.clone(),
        limit: a.limit.unwrap_or(LIST_LIMIT_DEFAULT),
        after,
        live: true,
    };
    let page = ctx.backend.list_connections(query).await?;
    let pending = page.connections.iter().filter(|c| c.status == Status::Pending).count();
    let broken = page.connections.iter().filter(|c| c.broken.is_some()).count();
    let summary = if page.connections.is_empty() && page.next_cursor.is_none() {
        format!("The org {} has no connection; add_connection adds one, which a person approves.", ctx.caller.org)
    } else {
        format!(
            "{} of the org {}, {pending} pending and {broken} broken.{}",
            count(page.connections.len(), "connection"),
            ctx.caller.org,
            more(page.next_cursor.is_some())
        )
    };
    let listed: Vec<Value> = page.connections.iter().map(|c| shown(ctx, c)).collect();
    Ok(Output::ok(summary, json!({ "connections": listed, "next_cursor": page.next_cursor })))
}
