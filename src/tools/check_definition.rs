//! `check_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/check`. A save
//! decided as the playbook's object would decide it (an update where the name is held, else a
//! create) and kept not, with what a run of it would still need.

use serde_json::json;

use super::create_definition::{checked_save, save_schema, SaveArgs};
use super::definition_words::{capitalized, named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::store::{DefinitionCommand, DefinitionView};
use crate::core::definition::{spec, Kind};
use crate::core::error::encoded;
use crate::core::text::{cap, count, SUMMARY_MAX};
use crate::core::{Problem, Reason};

pub const TOOL: Tool = Tool {
    name: "check_definition",
    title: "Check a function without saving it",
    description: "Check a document as create_definition or update_definition would, and keep nothing: the same arguments, and the same refusals, every problem at its pointer, answered as valid false with the problem. Where the playbook holds the name already the check is of an update, else of a create; would says which, or nothing where the document already reads so. needs lists what a run would still lack: a model the settings do not serve, a tool server that cannot be used now, a definition that is paused. Check before each save.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/check",
    input_schema: save_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

/// What a save that was only checked answers.
#[allow(clippy::large_enum_variant)] // lives for one answer; boxing would buy nothing
enum Checked {
    Saves(DefinitionView),
    Refused(Problem),
}

async fn run(ctx: &Ctx<'_>, a: SaveArgs) -> Result<Output, Problem> {
    let asked = a.playbook.clone();
    let source = a.source.clone();
    let mut needs = Vec::new();
    let checked = match checked_save(a, ctx.now.clone(), ctx.by()) {
        Err(p) => Checked::Refused(super::definition_tools::name_senders(ctx, &asked, p)),
        Ok((playbook, save, tools)) => {
            let kind = save.kind;
            match super::definition_tools::check(ctx, &playbook, &tools).await {
                Err(p) => Checked::Refused(p),
                Ok(unreached) => {
                    needs.extend(unreached);
                    match ctx.backend.definition(&ctx.caller.org, &playbook, DefinitionCommand::Check(save)).await {
                        Ok(view) => {
                            needs.extend(run_needs(ctx, kind, &source, &view));
                            Checked::Saves(view)
                        }
                        // What a save would refuse is the check's answer; a playbook that is not
                        // there, or storage that fails, is the call's.
                        Err(p) if matches!(p.reason, Reason::InvalidInput | Reason::Conflict) => Checked::Refused(p),
                        Err(p) => return Err(p),
                    }
                }
            }
        }
    };
    answer(checked, needs)
}

/// What a run of the saved document would lack that the save does not refuse.
fn run_needs(ctx: &Ctx<'_>, kind: Kind, source: &str, view: &DefinitionView) -> Vec<String> {
    let mut needs = Vec::new();
    if let Ok(spec) = spec(kind, source) {
        if let Err(p) = crate::ops::run_start::models_fit(&ctx.models, &spec) {
            needs.push(p.detail);
        }
    }
    if let DefinitionStatus::Paused { .. } = view.definition.status {
        needs.push(format!(
            "{} is paused, so nothing starts a run of it until resume_definition",
            capitalized(named(view))
        ));
    }
    needs
}

fn answer(checked: Checked, needs: Vec<String>) -> Result<Output, Problem> {
    let still = if needs.is_empty() {
        String::new()
    } else {
        format!(
            " A run would still need: {}.",
            needs.iter().map(|n| n.trim_end_matches('.')).collect::<Vec<_>>().join("; ")
        )
    };
    let (summary, value) = match checked {
        Checked::Saves(view) => {
            let d = &view.definition;
            let would = match (view.changed, d.version) {
                (false, _) => "nothing",
                (true, 1) => "create",
                (true, _) => "update",
            };
            let said = match would {
                "nothing" => capitalized(format!(
                    "{} already reads as given, at version {}: a save would change nothing.",
                    named(&view),
                    d.version
                )),
                "create" => format!(
                    "The check found nothing a save refuses: create_definition would save {} as version 1.",
                    named(&view)
                ),
                _ => format!(
                    "The check found nothing a save refuses: update_definition would save version {} of {}.",
                    d.version,
                    named(&view)
                ),
            };
            let value = json!({
                "valid": true,
                "would": would,
                "type": d.kind.as_str(),
                "name": d.name,
                "version": d.version,
                "needs": needs,
                "kept": false,
            });
            (format!("{said} Nothing was kept.{still}"), value)
        }
        Checked::Refused(p) => {
            let said = if p.errors.is_empty() {
                format!("A save would refuse this: {}", p.detail)
            } else {
                let first = &p.errors[0];
                format!(
                    "A save would refuse this, with {}, each at its pointer in problem.errors; the first, at {}: {}.",
                    count(p.errors.len(), "problem"),
                    first.pointer,
                    first.detail.trim_end_matches('.')
                )
            };
            let value = json!({ "valid": false, "problem": encoded(&p)?, "needs": needs, "kept": false });
            (format!("{} Nothing was kept.{still}", said.trim_end()), value)
        }
    };
    Ok(Output::ok(cap(&summary, SUMMARY_MAX), value))
}
