//! `pause_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/pause`.

use serde_json::Value;

use super::definition_change::{self, Named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::Lifecycle;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "pause_definition",
    title: "Pause a function",
    description: "Pause a definition, so that nothing starts a run of it until it is resumed, with an optional reason the playbook keeps. Pausing a paused definition changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/pause",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn change(a: &Named) -> Lifecycle {
    Lifecycle::Pause { reason: a.reason.clone() }
}

/// The answer's words when the call changed the definition, and when it already stood so.
const DONE: &str = "Paused {}: nothing starts a run of it until resume_definition.";
const ALREADY: &str = "{} was paused already; nothing changed.";

async fn run(ctx: &Ctx<'_>, a: Named) -> Result<Output, Problem> {
    definition_change::apply(ctx, a, change, [DONE, ALREADY]).await
}

fn input_schema() -> Value {
    let mut schema = definition_change::schema();
    schema["properties"]["reason"] = serde_json::json!({
        "type": "string",
        "maxLength": 500,
        "description": "Why it is paused, kept with it and shown to whoever reads it."
    });
    schema
}
