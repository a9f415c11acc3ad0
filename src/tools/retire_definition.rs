//! `retire_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/retire`.

use super::definition_change::{self, Named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::Lifecycle;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "retire_definition",
    title: "Retire a function",
    description: "Retire a definition: it keeps its name, its versions and its history, and nothing runs it. Retiring a retired one changes nothing; restore_definition brings it back, paused.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/retire",
    input_schema: definition_change::schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn change(_: &Named) -> Lifecycle {
    Lifecycle::Retire
}

/// The answer's words when the call changed the definition, and when it already stood so.
const DONE: &str = "Retired {}. It keeps its name and history; restore_definition brings it back, paused.";
const ALREADY: &str = "{} is retired already; nothing changed.";

async fn run(ctx: &Ctx<'_>, a: Named) -> Result<Output, Problem> {
    definition_change::apply(ctx, a, change, [DONE, ALREADY]).await
}
