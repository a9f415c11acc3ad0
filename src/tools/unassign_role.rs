//! `unassign_role`: `DELETE /v1/orgs/{org}/roles/{person}`, over HTTP alone. Takes a person's
//! role away, from their next request on.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::access::role::is_person_id;
use crate::core::access::store::SetRole;
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "unassign_role",
    title: "Take a person's role away",
    description: "Take a person's role in the org away: from their next request on, their tokens act with no scope in the org. The org's last owner keeps the role.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Access,
    reach: Reach::Org,
    method: Method::Delete,
    path: "/v1/orgs/{org}/roles/{person}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "person": { "type": "string", "maxLength": 262, "description": "The person's id, person:…." } },
        "required": ["person"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    person: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    if !is_person_id(&a.person) {
        return Err(Problem::invalid("/person", "must be a person's id, person:<their id at the identity provider>"));
    }
    let set = SetRole {
        org: ctx.caller.org.clone(),
        person: a.person.clone(),
        role: None,
        by: ctx.assigner(),
        now: ctx.instant(),
    };
    let assignment = ctx.backend.set_role(set).await?;
    let summary = format!("{} holds no role in the org {} any more.", a.person, ctx.caller.org);
    Ok(Output::ok(summary, json!({ "assignment": assignment })))
}
