//! `revoke_key`: `DELETE /v1/orgs/{org}/keys/{key}`, over HTTP alone.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::access::key::RevokeKey;
use crate::core::caller::Scope;
use crate::core::ids::is_key_id;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "revoke_key",
    title: "Revoke an API key",
    description: "Revoke an API key by its id: every later request with it is refused, within 5 seconds everywhere and at once where it was revoked. Revoking a revoked key changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Access,
    reach: Reach::Org,
    method: Method::Delete,
    path: "/v1/orgs/{org}/keys/{key}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "key": { "type": "string", "maxLength": 64, "description": "The key's id, key_…, as list_keys gives it." } },
        "required": ["key"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    key: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    if !is_key_id(&a.key) {
        return Err(Problem::invalid("/key", "is not a key id, such as key_…: list_keys gives each key's id"));
    }
    let revoke = RevokeKey { org: ctx.caller.org.clone(), id: a.key.clone(), now: ctx.now.clone() };
    let key = ctx.backend.revoke_key(revoke).await?;
    let summary = format!("The key {} is revoked: every later request with it is refused.", a.key);
    Ok(Output::ok(summary, json!({ "key": key })))
}
