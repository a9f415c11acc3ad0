//! `update_definition`: `PUT /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}`.

use super::create_definition::{checked_save, save_schema, SaveArgs};
use super::definition_words::{capitalized, named, saved_output, what_it_does, with_page_note};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::store::DefinitionCommand;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "update_definition",
    title: "Save a new version of a function",
    description: "Save a new version of a definition from its changed document, overview or diagram; give all three as they should now read, since a save replaces them whole. Saving what the current version already holds changes nothing. A retired definition does not change: restore it with restore_definition first. Answers studio, the definition's page in Studio.",
    hints: Hints { read_only: false, destructive: true, idempotent: true, open_world: true },
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Put,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}",
    input_schema: save_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: SaveArgs) -> Result<Output, Problem> {
    let asked = a.playbook.clone();
    let (playbook, save, tools) = checked_save(a, ctx.now.clone(), ctx.by())
        .map_err(|p| super::definition_tools::name_senders(ctx, &asked, p))?;
    super::definition_tools::check(ctx, &playbook, &tools).await?;
    let view = ctx.backend.definition(&ctx.caller.org, &playbook, DefinitionCommand::Update(save)).await?;
    let summary = if view.changed {
        format!("Saved version {} of {}. {}", view.definition.version, named(&view), what_it_does(&view))
    } else {
        format!("{} already reads as given, at version {}; nothing changed.", named(&view), view.definition.version)
    };
    Ok(Output::ok(with_page_note(capitalized(summary), &view), saved_output(ctx, &playbook, &view)?))
}
