//! `list_role_assignments`: `GET /v1/orgs/{org}/roles`, over HTTP alone.

use serde_json::{json, Value};

use super::{Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_role_assignments",
    title: "List who holds which role",
    description: "List the people who hold a role in the org: each one's id (person:…), name, email, role, and who gave it when. For people whose role holds org:write, the local developer and the operator.",
    hints: Hints::READ,
    scope: Some(Scope::OrgWrite),
    door: Door::Access,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/roles",
    input_schema,
    // Takes no arguments: the schema holds it to none.
    run: |ctx, _| Box::pin(run(ctx)),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

async fn run(ctx: &Ctx<'_>) -> Result<Output, Problem> {
    let assignments = ctx.backend.list_roles(&ctx.caller.org).await?;
    let summary = match assignments.len() {
        0 => format!("Nobody holds a role in the org {} yet.", ctx.caller.org),
        1 => format!("1 person holds a role in the org {}.", ctx.caller.org),
        n => format!("{n} people hold a role in the org {}.", ctx.caller.org),
    };
    Ok(Output::ok(summary, json!({ "assignments": assignments })))
}
