//! `list_models`: `GET /v1/orgs/{org}/models`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::{Principal, Scope};
use crate::core::model::catalog::{asked, build, summary, PROVIDER_SETUP};
use crate::core::text::quote;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_models",
    title: "List the models",
    description: "List the models a reasoning function may name in its model, as provider/model such as anthropic/claude-sonnet-4-5, with the aliases its operator configured. Name a concrete id from the list: an id ending in * stands for any model of a provider and is not a model to run. catalog_status partial means a provider could not be asked just now, not that it has no models. The optional provider lists only what one provider or gateway serves. The tools a function names come from search, not from here.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::OrgRead),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/models",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "provider": { "type": "string", "minLength": 1, "maxLength": 64, "description": "One provider prefix, such as anthropic, or a configured gateway's name: only what it serves is listed, and no other provider is asked." }
        },
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    provider: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let only = a.provider.as_deref();
    if let Some(prefix) = only {
        if !ctx.models.providers.contains_key(prefix) {
            let set_up: Vec<&str> = ctx.models.providers.keys().map(String::as_str).collect();
            let known = if set_up.is_empty() {
                "No provider is set up yet.".to_string()
            } else {
                format!("Those set up are {}.", set_up.join(", "))
            };
            let mut p = Problem::invalid("/provider", format!("is not a provider this runtime has set up. {known}"));
            p.detail = format!("This runtime has no provider {}. {known}", quote(prefix));
            return Err(p);
        }
    }
    let kept = ctx.backend.model_lists(asked(&ctx.models, only)).await?;
    let now_ms = chrono::DateTime::parse_from_rfc3339(&ctx.now).map(|t| t.timestamp_millis()).unwrap_or(0);
    let mut result = build(&ctx.models, only, &kept, now_ms, &ctx.now);
    let mut words = summary(&result);
    let nothing = result["data"].as_array().is_none_or(Vec::is_empty);
    // Only the person running the runtime on their own computer can act on the setup steps.
    let local = matches!(ctx.caller.principal, Principal::LocalDeveloper { .. });
    if nothing && only.is_none() && ctx.models.providers.is_empty() && local {
        result["provider_setup"] = json!(PROVIDER_SETUP);
        words = "This runtime can call no model yet: no model provider is set up. provider_setup says how to add one."
            .into();
    }
    Ok(Output::ok(words, result))
}
