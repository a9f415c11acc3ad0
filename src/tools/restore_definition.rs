//! `restore_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/restore`.

use super::definition_change::{self, Named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::Lifecycle;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "restore_definition",
    title: "Restore a function",
    description:
        "Restore a retired definition under its name. It comes back paused, so nothing runs it until resume_definition.",
    hints: Hints::WRITE,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/restore",
    input_schema: definition_change::schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn change(_: &Named) -> Lifecycle {
    Lifecycle::Restore
}

/// The answer's words when the call changed the definition, and when it already stood so.
const DONE: &str = "Restored {}. It is paused until resume_definition.";
const ALREADY: &str = "{} is not retired; nothing changed.";

async fn run(ctx: &Ctx<'_>, a: Named) -> Result<Output, Problem> {
    definition_change::apply(ctx, a, change, [DONE, ALREADY]).await
}
