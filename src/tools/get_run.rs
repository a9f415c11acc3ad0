//! `get_run`: `GET /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}`.

use serde_json::Value;

use super::run_words::{outcome, run_ref_schema, RunRef};
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
    run_ref_schema("The run's id, as run_definition or list_runs gave it.")
}

async fn run(ctx: &Ctx<'_>, args: Value) -> Result<Output, Problem> {
    let a: RunRef = args::parse(args)?;
    let run = ctx.backend.get_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
    Ok(Output::ok(outcome(&run), serde_json::to_value(&run).unwrap_or_default()))
}
