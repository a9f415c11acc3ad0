//! `get_run`: `GET /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::playbook_summary::playbook_arg;
use super::run_words::outcome;
use super::{args, Ctx, Hints, Method, Output, Reach, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_run",
    title: "Read a run",
    description: "Read a run by its run_id: the function and version it ran, its input, its status, and its output once it succeeded or its error once it failed.",
    hints: Hints::READ,
    scope: Scope::PlaybookRead,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}",
    input_schema,
    run: |ctx, args| Box::pin(run(ctx, args)),
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "The run's id, as run_definition or list_runs gave it." }
        },
        "required": ["playbook", "run_id"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    run_id: String,
}

async fn run(ctx: &Ctx<'_>, args: Value) -> Result<Output, Problem> {
    let a: Args = args::parse(args)?;
    let run = ctx.backend.get_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
    Ok(Output::ok(outcome(&run), serde_json::to_value(&run).unwrap_or_default()))
}
