//! `get_connection`: `GET /v1/orgs/{org}/connections/{connection}`, over HTTP alone: an agent reads
//! the same fields in `list_connections`.

use serde_json::json;

use super::connection_ops::{connection_only, live, shown, OnConnection};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_connection",
    title: "Read a connection",
    description: "Read one connection of the org by its id, with the fields list_connections gives each: its status, what mends it where it is broken, its scopes and the groups it may still be granted.",
    hints: Hints::READ,
    scope: Some(Scope::OrgRead),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/connections/{connection}",
    input_schema: connection_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnConnection) -> Result<Output, Problem> {
    let c = live(ctx, &a.connection).await?;
    let summary = format!("The connection {} is {}.", c.name, c.status.as_str());
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
