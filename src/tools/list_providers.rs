//! `list_providers`: `GET /v1/orgs/{org}/providers`, over HTTP alone, which a page reads to show
//! what a person may connect.

use serde_json::{json, Value};

use super::{Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_providers",
    title: "List providers",
    description: "List the providers a person may connect here, by name: each one's title, description, whether it handles money, its ways (credential kinds), which are offered and whether each takes the org's own OAuth client (oauth_client: optional or required), its scopes with what each allows, its groups of scopes beyond the first consent, and its placeholders.",
    hints: Hints::READ,
    scope: Some(Scope::OrgRead),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/providers",
    input_schema,
    // Takes no arguments: the schema holds it to none.
    run: |ctx, _| Box::pin(run(ctx)),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({ "type": "object", "properties": {}, "additionalProperties": false })
}

async fn run(ctx: &Ctx<'_>) -> Result<Output, Problem> {
    let providers = &ctx.connections.providers;
    let listed: Vec<Value> =
        providers.list.iter().filter(|p| providers.offered(p)).map(|p| providers.view(p)).collect();
    let summary = format!("{} a person may connect here.", count(listed.len(), "provider"));
    Ok(Output::ok(summary, json!({ "providers": listed })))
}
