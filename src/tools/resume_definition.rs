//! `resume_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/resume`.

use super::definition_change::{self, Named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::Lifecycle;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "resume_definition",
    title: "Resume a function",
    description: "Resume a paused definition: runs of it may start again, and its triggers start from the first time or event after now. Resuming an active definition changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/resume",
    input_schema: definition_change::schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn change(_: &Named) -> Lifecycle {
    Lifecycle::Resume
}

/// The answer's words when the call changed the definition, and when it already stood so.
const DONE: &str = "Resumed {}: runs of it may start again.";
const ALREADY: &str = "{} is active already; nothing changed.";

async fn run(ctx: &Ctx<'_>, a: Named) -> Result<Output, Problem> {
    definition_change::apply(ctx, a, change, [DONE, ALREADY]).await
}
