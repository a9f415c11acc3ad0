//! `get_definition`: `GET /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}`.

use serde::Deserialize;
use serde_json::Value;

use super::definition_change;
use super::definition_words::{capitalized, check_name, named, output, served_kind, what_it_does};
use super::{page_view, typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::Ref;
use crate::core::text::{append_if_room, cap, count, join_and, quote, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_definition",
    title: "Read a function",
    description: "Read a definition: its current version and number, its status, its document as written, its overview, its diagram, used_by, the definitions of the playbook, active or paused, that use it, its page's runs (the newest 20, as list_runs lists them) and standing (how its runs stand), and a workflow's glance. With render: true it also renders its page now, over its runs, or over sample_output, one made-up run that succeeded. A workflow answers its picture too: url, where Studio serves it as SVG, and media_type image/svg+xml; with picture: true, also svg, the picture itself, to show the person.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    let mut schema = definition_change::schema();
    schema["properties"]["picture"] = super::picture::arg("the workflow");
    schema["properties"]["render"] = serde_json::json!({
        "type": "boolean",
        "default": false,
        "description": "Render the definition's page now, as page {markdown, over}: over its runs, or over sample_output."
    });
    schema["properties"]["sample_output"] = page_view::sample_arg();
    schema
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    #[serde(rename = "type")]
    kind: String,
    name: String,
    #[serde(default)]
    picture: bool,
    #[serde(default)]
    render: bool,
    sample_output: Option<Value>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let kind = served_kind(&a.kind)?;
    check_name(&a.name)?;
    let view = ctx.backend.get_definition(&ctx.caller.org, &a.playbook, Ref { kind, name: a.name }).await?;
    let mut value = output(&view)?;
    let mut shown = serde_json::Map::new();
    let said = page_view::of_definition(ctx, &a.playbook, &view, a.render, a.sample_output, &mut shown).await?;
    if let Some(o) = value.as_object_mut() {
        o.extend(shown);
    }
    let state = match &view.definition.status {
        DefinitionStatus::Active => "active".to_string(),
        DefinitionStatus::Paused { reason: Some(r), .. } => format!("paused ({r})"),
        DefinitionStatus::Paused { .. } => "paused".to_string(),
        DefinitionStatus::Retired { .. } => "retired".to_string(),
    };
    let users: Vec<String> = view.used_by.iter().map(|r| quote(&r.key())).collect();
    let used = if users.is_empty() {
        "No other definition uses it.".to_string()
    } else {
        format!(
            "{} use{} it: {}.",
            count(users.len(), "definition"),
            if users.len() == 1 { "s" } else { "" },
            join_and(&users)
        )
    };
    let summary = format!(
        "{}, version {}, is {state}. {} {used}",
        capitalized(named(&view)),
        view.definition.version,
        what_it_does(&view)
    );
    if let (Some(picture), Some(o)) =
        (super::picture::of_definition(ctx, &a.playbook, &view, a.picture), value.as_object_mut())
    {
        o.insert("picture".into(), picture);
    }
    let summary = match said {
        Some(words) => append_if_room(cap(&summary, SUMMARY_MAX), &words),
        None => summary,
    };
    Ok(Output::ok(cap(&summary, SUMMARY_MAX), value))
}
