//! `create_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}`.

use crate::core::actor::Actor;
use crate::core::definition::store::DefinitionView;
use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{
    capitalized, check_name, diagram_arg, name_arg, named, overview_arg, saved_output, served_kind, source_arg,
    type_arg, what_it_does, with_page_note,
};
use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::check::NamedTool;
use crate::core::definition::store::{DefinitionCommand, SaveCommand, Written};
use crate::core::definition::{check_document, check_extras};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "create_definition",
    title: "Create a function",
    description: "Save a new function of a playbook from its document (source), its overview, and for a function its diagram. Each part of a job is its own function, of the type its work needs; a workflow owns one job the business does again and again, so a check, a test or a setup is not one. Read the guide of the type first (get_guide reasoning-function, lookup-function, interaction-function, prediction-function, computation-function or workflow): every problem in a document is reported at once, each at its place. Answers studio, the definition's page in Studio: give the person that link.",
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

pub fn save_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "type": type_arg(),
            "name": name_arg(),
            "source": source_arg(),
            "overview": overview_arg(),
            "diagram": diagram_arg(),
        },
        "required": ["playbook", "type", "name", "source", "overview"],
        "additionalProperties": false
    })
}

fn input_schema() -> Value {
    save_schema()
}

#[derive(Deserialize)]
pub struct SaveArgs {
    pub playbook: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub source: String,
    pub overview: String,
    pub diagram: Option<String>,
}

/// Checks a save whole, name, document, overview and diagram, and reports every problem at once.
/// Answers the playbook, the save, and the tools the document names.
pub fn checked_save(a: SaveArgs, now: String, by: Actor) -> Result<(String, SaveCommand, Vec<NamedTool>), Problem> {
    let kind = served_kind(&a.kind)?;
    let mut errors = Vec::new();
    if let Err(p) = check_name(&a.name) {
        errors.extend(p.errors);
    }
    let checked = match check_document(kind, &a.source) {
        Ok(c) => Some(c),
        Err(p) => {
            errors.extend(p.errors);
            None
        }
    };
    if let Err(p) = check_extras(kind.is_function(), &a.overview, a.diagram.as_deref()) {
        errors.extend(p.errors);
    }
    match checked {
        Some(c) if errors.is_empty() => {
            let tools = c.tools.clone();
            let written = Written { source: a.source, overview: a.overview, diagram: a.diagram };
            Ok((a.playbook, SaveCommand::new(kind, a.name, written, c, now, by), tools))
        }
        _ => Err(Problem::invalid_fields(errors)),
    }
}

async fn run(ctx: &Ctx<'_>, a: SaveArgs) -> Result<Output, Problem> {
    let asked = a.playbook.clone();
    let (playbook, save, tools) = checked_save(a, ctx.now.clone(), ctx.by())
        .map_err(|p| super::definition_tools::name_senders(ctx, &asked, p))?;
    super::definition_tools::check(ctx, &playbook, &tools).await?;
    let view = ctx.backend.definition(&ctx.caller.org, &playbook, DefinitionCommand::Create(save)).await?;
    Ok(Output::created(created(&view), saved_output(ctx, &playbook, &view)?))
}

/// `Created the workflow “review-and-approve”. What it does: … It has no page yet; …`
pub fn created(view: &DefinitionView) -> String {
    let summary =
        format!("Created {}. {} It has been saved but has not been run yet.", named(view), what_it_does(view));
    with_page_note(capitalized(summary), view)
}
