//! `remove_connection`: `DELETE /v1/orgs/{org}/connections/{connection}`. Forgets its credential
//! at once; removing a removed one changes nothing.

use serde_json::json;

use super::connection_ops::{change, connection_id, connection_only, shown, OnConnection};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::store::Find;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "remove_connection",
    title: "Remove a connection",
    description: "Remove a connection of the org for good: its credential is forgotten at once, and no playbook calls its tools again. A removed connection is added again with add_connection. Removing a removed one changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Delete,
    path: "/v1/orgs/{org}/connections/{connection}",
    input_schema: connection_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnConnection) -> Result<Output, Problem> {
    let c = change(ctx, Find::Id(connection_id(&a.connection)?), Command::Remove).await?;
    let summary = format!(
        "The connection {} is removed and its credential forgotten; functions that name {}/… are refused until one of that name is added again.",
        c.name, c.name
    );
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
