//! `list_keys`: `GET /v1/orgs/{org}/keys`, over HTTP alone. Never answers a secret.

use serde_json::{json, Value};

use super::{Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_keys",
    title: "List API keys",
    description: "List the org's live API keys, newest first: each one's id, name, the first characters of its secret, scopes, the playbooks it is kept to, when it expires, who made it and when, and when it was last used, to the minute. Never the secret.",
    hints: Hints::READ,
    scope: Some(Scope::OrgWrite),
    door: Door::Access,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/keys",
    input_schema,
    // Takes no arguments: the schema holds it to none.
    run: |ctx, _| Box::pin(run(ctx)),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

async fn run(ctx: &Ctx<'_>) -> Result<Output, Problem> {
    let keys = ctx.backend.list_keys(&ctx.caller.org).await?;
    let summary = match keys.len() {
        0 => format!("The org {} has no live key.", ctx.caller.org),
        1 => format!("The org {} has 1 live key.", ctx.caller.org),
        n => format!("The org {} has {n} live keys.", ctx.caller.org),
    };
    Ok(Output::ok(summary, json!({ "keys": keys })))
}
