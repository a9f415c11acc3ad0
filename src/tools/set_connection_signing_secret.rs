//! `set_connection_signing_secret`: `PUT /v1/orgs/{org}/connections/{connection}/signing-secret`,
//! over HTTP alone: the secret the connection's service signs what it sends with, which a person
//! gives in Studio and no agent holds. Kept sealed, never answered.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{change, connection_arg, live, shown};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::store::Find;
use crate::core::Problem;
use crate::ops::connections::aad;

pub const TOOL: Tool = Tool {
    name: "set_connection_signing_secret",
    title: "Set a connection's signing secret",
    description: "Give a connection the secret its service signs what it sends with, as the service shows it. It is kept sealed and never answered; setting it again replaces it.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Put,
    path: "/v1/orgs/{org}/connections/{connection}/signing-secret",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "connection": connection_arg(),
            "secret": { "type": "string", "minLength": 8, "maxLength": 1024, "description": "The signing secret, as the service shows it." }
        },
        "required": ["connection", "secret"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    connection: String,
    secret: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let c = live(ctx, &a.connection).await?;
    let sealed = ctx.connections.sealer()?.seal(&aad(&c.org, &c.id, "signing_secret"), a.secret.as_bytes())?;
    let c = change(ctx, Find::Id(c.id.clone()), Command::SetSigningSecret { sealed }).await?;
    let summary = format!("The connection {} has its signing secret, kept sealed.", c.name);
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
