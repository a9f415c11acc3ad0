//! `remove_connection_signing_secret`: `DELETE /v1/orgs/{org}/connections/{connection}/signing-secret`,
//! over HTTP alone. Removing one that is not set changes nothing.

use serde_json::json;

use super::connection_ops::{change, connection_id, connection_only, shown, OnConnection};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::store::Find;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "remove_connection_signing_secret",
    title: "Remove a connection's signing secret",
    description: "Forget the secret a connection's service signs what it sends with. Removing one that is not set changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Delete,
    path: "/v1/orgs/{org}/connections/{connection}/signing-secret",
    input_schema: connection_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnConnection) -> Result<Output, Problem> {
    let c = change(ctx, Find::Id(connection_id(&a.connection)?), Command::RemoveSigningSecret).await?;
    let summary = format!("The connection {} has no signing secret now.", c.name);
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
