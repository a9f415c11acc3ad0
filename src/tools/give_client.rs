//! `give_client`: `POST /v1/orgs/{org}/connect/{token}/client`, over HTTP alone: the person gives
//! the org's own OAuth client on the connect page, before signing in at the service. Its secret is
//! sealed at once.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{of_link, on_link, shown, token_arg};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::OwnClient;
use crate::core::Problem;
use crate::ops::connections::aad;

pub const TOOL: Tool = Tool {
    name: "give_client",
    title: "Give the org's own OAuth client",
    description: "The connect page's client fields, where the org connects under its own OAuth client: client_id and client_secret of the client the org registered with the provider. The secret is kept sealed, never answered; then the person signs in at the service.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connect/{token}/client",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    let text = json!({ "type": "string", "minLength": 1, "maxLength": 1024 });
    json!({
        "type": "object",
        "properties": { "token": token_arg(), "client_id": text, "client_secret": text },
        "required": ["token", "client_id", "client_secret"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    token: String,
    client_id: String,
    client_secret: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let (digest, c) = of_link(ctx, &a.token).await?;
    let sealed_secret =
        ctx.connections.sealer()?.seal(&aad(&c.org, &c.id, "client"), a.client_secret.trim().as_bytes())?;
    let client = OwnClient { client_id: a.client_id.trim().to_string(), sealed_secret };
    let c = on_link(ctx, digest.clone(), Command::GiveClient { digest, by: ctx.caller.id.clone(), client }).await?;
    let summary = "The org's own OAuth client is kept, its secret sealed; now sign in at the service.".to_string();
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
