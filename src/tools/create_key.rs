//! `create_key`: `POST /v1/orgs/{org}/keys`, over HTTP alone. Answers the secret this once.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::access::key::{mint, within_maker, NewKey, NAME_MAX, PLAYBOOKS_MAX};
use crate::core::caller::Scope;
use crate::core::ids::key_id;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "create_key",
    title: "Make an API key",
    description: "Make an API key of the org for a bot or CI: its name, its scopes, optionally the playbooks it is kept to and when it expires. The answer holds the secret as key, this once: only its digest is kept. For the local developer, the operator's ADMIN_TOKEN and people whose role holds org:write; a key never makes keys. A person's key holds at most the scopes their sign-in allowed, and works only while they hold a role that manages the org's access.",
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Access,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/keys",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "minLength": 1, "maxLength": NAME_MAX, "description": "What the key is for, such as build-bot: the instructions name it as whom a connection acts." },
            "scopes": {
                "type": "array", "minItems": 1, "maxItems": 4,
                "items": { "type": "string", "enum": Scope::ALL.map(Scope::as_str) },
                "description": "What the key may do: org:read, org:write, playbook:read, playbook:write."
            },
            "playbooks": {
                "type": "array", "minItems": 1, "maxItems": PLAYBOOKS_MAX, "items": { "type": "string" },
                "description": "The playbooks the key is kept to, by id; left out, it reaches every playbook of the org."
            },
            "expires_at": { "type": "string", "description": "When the key stops working, RFC 3339; left out, it works until revoked." }
        },
        "required": ["name", "scopes"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    name: String,
    scopes: Vec<String>,
    playbooks: Option<Vec<String>>,
    expires_at: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let new = NewKey::check(&a.name, &a.scopes, a.playbooks.as_deref(), a.expires_at.as_deref(), &ctx.now)?;
    within_maker(&new, ctx.caller)?;
    let secret = mint(&ctx.secret);
    let record = new.record(key_id(ctx.random), &ctx.caller.org, &secret, &ctx.now, ctx.by());
    let mut value = json!(record.view());
    ctx.backend.make_key(record.clone()).await?;
    value["key"] = json!(secret);
    let summary = format!(
        "The key {} of the org {} is made, with {}. Its secret is in key, shown this once: keep it in the connection's configuration, as Authorization: Bearer <key>.",
        record.name,
        record.org,
        record.scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
    );
    Ok(Output::created(summary, value))
}
