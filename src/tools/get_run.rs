//! `get_run`: `GET /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}`.

use serde_json::Value;

use super::run_words::{outcome, run_ref_schema};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::event::{shown_of, SHOWN_FIELD_MAX_BYTES};
use crate::core::run::record::Record;
use crate::core::run::RunStatus;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_run",
    title: "Read a run",
    description: "Read a run by its run_id: the function and version it ran, its input, its status, its output once it succeeded or its error once it failed, who or what started it (started_by), and its record, the detail of how it went: a reasoning run's prompt as sent, model, answer, stop reason, tokens and duration; a computation's values in order; a lookup's query and the runs it read; a prediction's series, method and parameters; a workflow's steps; and where its definition has a page, page.result, the run as that page shows it, rendered over the runs as they stood when it ended. A workflow's run answers its picture too: url, where Studio serves the run drawn on its workflow as SVG, each step in the colour of how it went, and media_type image/svg+xml; with picture: true, also svg, the picture itself, to show the person. Over MCP a field larger than 64 KiB is shown by its size; the HTTP route answers it whole. With wait_seconds (at most 10) it waits for a run that is still going and answers as soon as it ends.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

/// The longest a caller may wait for a run to end, so that a call stays short.
pub const WAIT_MAX_SECONDS: u64 = 10;
const POLL_MILLIS: u64 = 500;

fn input_schema() -> Value {
    let mut schema = run_ref_schema("The run's id, as run_definition or list_runs gave it.");
    schema["properties"]["wait_seconds"] = serde_json::json!({
        "type": "integer",
        "minimum": 0,
        "maximum": WAIT_MAX_SECONDS,
        "default": 0,
        "description": "Wait up to this many seconds for a run that is still going to end, and answer as soon as it does."
    });
    schema["properties"]["picture"] = super::picture::arg("the run drawn on its workflow");
    schema
}

#[derive(serde::Deserialize)]
struct Args {
    playbook: String,
    run_id: String,
    #[serde(default)]
    wait_seconds: u64,
    #[serde(default)]
    picture: bool,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let mut run = ctx.backend.get_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
    // The directory listing serves no generation function: their runs are not found there.
    if ctx.directory && run.definition.kind == crate::core::definition::Kind::Generation {
        return Err(crate::ops::run::unknown_run(&a.run_id));
    }
    let mut waited = 0;
    while matches!(run.status, RunStatus::Started { .. }) && waited < a.wait_seconds.min(WAIT_MAX_SECONDS) * 1000 {
        ctx.backend.pause(POLL_MILLIS).await;
        waited += POLL_MILLIS;
        run = ctx.backend.get_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
    }
    // A workflow's record is its step view, which its object answers fresh with each read.
    if let Some(steps) = run.steps.clone() {
        run.record = Some(Record::Workflow { steps });
    }
    let mut value = super::run_words::shown(&run)?;
    if let (Some(picture), Some(o)) = (super::picture::of_run(ctx, &run, a.picture).await, value.as_object_mut()) {
        o.insert("picture".into(), picture);
    }
    if let (Some(page), Some(o)) = (super::page_view::of_run(ctx, &a.playbook, &run).await?, value.as_object_mut()) {
        o.insert("page".into(), page);
    }
    let shown = shown_of(&value, SHOWN_FIELD_MAX_BYTES, "the run");
    let mut output = Output::ok(outcome(&run), value);
    if shown != output.value {
        output.over_mcp = Some(shown);
    }
    Ok(output)
}
