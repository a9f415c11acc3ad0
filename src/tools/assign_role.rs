//! `assign_role`: `POST /v1/orgs/{org}/roles`, over HTTP alone. Gives a person a role, or
//! changes the one they hold.

use serde_json::{json, Value};

use super::{read_by, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::access::role::{AssignRole, Role};
use crate::core::access::store::SetRole;
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "assign_role",
    title: "Give a person a role",
    description: "Give a person a role in the org, or change the one they hold: owner, admin, editor or viewer. Owners change every role, admins every role but owner, and the operator and the local developer any; the org's last owner stays one. The person is named by their id, person:<their id at the identity provider>, which the page of a person with no role shows them.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Access,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/roles",
    input_schema,
    // Read by the role's own reader, whose refusals say what a person's id and a role are.
    run: |ctx, args| read_by(ctx, args, |a| AssignRole::parse(&a), run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "person": { "type": "string", "maxLength": 262, "description": "The person's id, person:<their id at the identity provider>." },
            "role": { "type": "string", "enum": Role::ALL.map(Role::as_str), "description": "owner, admin, editor or viewer." }
        },
        "required": ["person", "role"],
        "additionalProperties": false
    })
}

async fn run(ctx: &Ctx<'_>, AssignRole { person, role }: AssignRole) -> Result<Output, Problem> {
    let set = SetRole {
        org: ctx.caller.org.clone(),
        person: person.clone(),
        role: Some(role),
        by: ctx.assigner(),
        now: ctx.instant(),
    };
    let assignment = ctx.backend.set_role(set).await?;
    let summary = format!("{person} is now {} in the org {}.", role.as_str(), ctx.caller.org);
    Ok(Output::ok(summary, json!({ "assignment": assignment })))
}
