//! `list_generation_models`: `GET /v1/orgs/{org}/generation-models`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::generation::catalog::{list, summary};
use crate::core::generation::Kind;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_generation_models",
    title: "List the generation models",
    description: "List the models a generation function may name to make an image, audio or video, from the catalogue this runtime ships, each with what it makes, the media types of the references it takes, and its limits: the sizes, qualities, voices and formats it takes, the most characters of a prompt, and how many references of how many bytes. gateways names the gateways a function writes before its model, as gateway/openai/gpt-image-2; where it is empty no generation function can run. A retired model is listed with the day it retired and its replacement, and a function may not name it. The optional kind lists only the models that make image, audio or video. The models a reasoning function names come from list_models, not from here.",
    hints: Hints::READ,
    scope: Some(Scope::OrgRead),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/generation-models",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "kind": { "type": "string", "enum": ["image", "audio", "video"], "description": "Only the models that make this: image, audio or video." }
        },
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    kind: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let kind = match a.kind.as_deref() {
        None => None,
        Some(k) => Some(Kind::parse(k).ok_or_else(|| Problem::invalid("/kind", "must be image, audio or video"))?),
    };
    let gateways: Vec<String> = ctx.models.providers.values().filter(|p| p.gateway).map(|p| p.prefix.clone()).collect();
    Ok(Output::ok(summary(&gateways, kind), list(&gateways, kind)))
}
