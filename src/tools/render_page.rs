//! `render_page`: `GET /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/page`, over
//! HTTP alone: an agent previews the same page with `get_definition` and `render`. Given a run's
//! `run_id`, it renders that run's page as it stood when the run ended, which Studio's Ledger
//! shows for the chosen run.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::definition_words::{check_name, named, served_kind};
use super::{page_view, typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::Ref;
use crate::core::run::RunStatus;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "render_page",
    title: "Render a definition's page",
    description: "Render a definition's page now, over its runs or over sample_output, as get_definition with render does; or, given run_id, that run's page as it stood when the run ended.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/page",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    let mut schema = super::definition_change::schema();
    schema["properties"]["sample_output"] = page_view::sample_arg();
    schema["properties"]["run_id"] = json!({
        "type": "string", "minLength": 1, "maxLength": 64,
        "description": "A run of this definition that has ended: its page as it stood when the run ended."
    });
    schema
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    #[serde(rename = "type")]
    kind: String,
    name: String,
    sample_output: Option<Value>,
    run_id: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let kind = served_kind(&a.kind)?;
    check_name(&a.name)?;
    let reference = Ref { kind, name: a.name };
    let view = ctx.backend.get_definition(&ctx.caller.org, &a.playbook, reference.clone()).await?;
    let Some(run_id) = a.run_id else {
        let mut shown = Map::new();
        let said = page_view::of_definition(ctx, &a.playbook, &view, true, a.sample_output, &mut shown).await?;
        let page = shown.remove("page").unwrap_or(Value::Null);
        let summary = said.unwrap_or_else(|| format!("The page of {}, rendered now.", named(&view)));
        return Ok(Output::ok(summary, page));
    };
    if a.sample_output.is_some() {
        return Err(Problem::invalid(
            "/sample_output",
            "is not given with run_id: a run's page is rendered over its runs",
        ));
    }
    let run = ctx.backend.get_run(&ctx.caller.org, &a.playbook, &run_id).await?;
    if run.definition != reference {
        return Err(Problem::invalid(
            "/run_id",
            format!("is a run of {}, not of this definition", run.definition.key()),
        ));
    }
    if matches!(run.status, RunStatus::Started { .. }) {
        return Err(Problem::conflict(format!(
            "The run {run_id} has not ended, so its page has no result yet; read it again once it ends."
        )));
    }
    let Some(page) = page_view::of_run(ctx, &a.playbook, &run).await? else {
        return Ok(Output::ok(
            page_view::NO_PAGE.to_string(),
            json!({ "markdown": null, "over": "run", "run_id": run_id, "says": page_view::NO_PAGE }),
        ));
    };
    let mut value = json!({ "markdown": page["result"], "over": "run", "run_id": run_id });
    if let Some(error) = page.get("error") {
        value["error"] = error.clone();
    }
    let summary = format!("The page of {} as it stood when the run {run_id} ended.", named(&view));
    Ok(Output::ok(summary, value))
}
