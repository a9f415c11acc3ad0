//! `set_connection_playbooks`: `PUT /v1/orgs/{org}/connections/{connection}/playbooks`, over HTTP
//! alone: which playbooks may use a connection.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{change, connection_arg, connection_id, shown};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::input::PLAYBOOKS_MAX;
use crate::core::connection::machine::Command;
use crate::core::connection::store::Find;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "set_connection_playbooks",
    title: "Set a connection's playbooks",
    description:
        "Set which playbooks of the org may use a connection, by id; null lets every playbook of the org use it.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Put,
    path: "/v1/orgs/{org}/connections/{connection}/playbooks",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "connection": connection_arg(),
            "playbooks": {
                "type": ["array", "null"], "minItems": 1, "maxItems": PLAYBOOKS_MAX, "items": { "type": "string", "maxLength": 64 },
                "description": "The playbooks that may use it, by id; null for every playbook of the org."
            }
        },
        "required": ["connection", "playbooks"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    connection: String,
    playbooks: Option<Vec<String>>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let command = Command::SetPlaybooks { playbooks: a.playbooks };
    let c = change(ctx, Find::Id(connection_id(&a.connection)?), command).await?;
    let summary = match &c.rules.playbooks {
        None => format!("Every playbook of the org may use the connection {}.", c.name),
        Some(list) => format!("The connection {} serves {} of the org's playbooks alone.", c.name, list.len()),
    };
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
