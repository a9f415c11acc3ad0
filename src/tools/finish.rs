//! `finish`: `POST /v1/orgs/{org}/connect/{token}/finish`, over HTTP alone: the end of a consent
//! at the service, with the query of the redirect back (`code`, `state`, `iss`, or `error`). The
//! browser's redirect to `/connect/callback` runs the same operation. The tokens are kept sealed
//! until the person approves.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{of_link, on_link, open_on, shown, token_arg};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::Problem;
use crate::ops::connections::consent;

pub const TOOL: Tool = Tool {
    name: "finish",
    title: "Finish the consent at the service",
    description: "The end of the connect page's sign-in at the service: given the query the service sent the person back with, checks its state, redeems its code with the verifier kept at the start, and keeps the tokens sealed for the person to approve. A consent the person refused at the service is answered in the service's words.",
    hints: Hints { open_world: true, ..Hints::WRITE },
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connect/{token}/finish",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "token": token_arg(),
            "query": { "type": "string", "maxLength": 8192, "description": "The query of the redirect back from the service, without the ?." }
        },
        "required": ["token", "query"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    token: String,
    query: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let (digest, c) = of_link(ctx, &a.token).await?;
    open_on(ctx, &c, &digest)?;
    let sealed = c
        .link
        .as_ref()
        .filter(|l| l.digest == digest)
        .and_then(|l| l.staged.consent.clone())
        .ok_or_else(|| Problem::conflict("No sign-in at the service was started on this link, or it finished already: start it again from the page."))?;
    let reach = consent::Reach { transport: ctx.tool_servers.transport, settings: &ctx.connections };
    let (tokens, granted) = consent::finish(&reach, &c, &sealed, &a.query, ctx.instant()).await?;
    let command = Command::ConsentFinished {
        digest: digest.clone(),
        by: ctx.caller.id.clone(),
        sealed: tokens,
        granted: granted.clone(),
    };
    let c = on_link(ctx, digest, command).await?;
    let summary = format!(
        "Signed in at the service of {}, which granted {}; approve the connection to use it.",
        c.name,
        if granted.is_empty() { "no scope by name".to_string() } else { granted.join(", ") }
    );
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c), "granted_scopes": granted })))
}
