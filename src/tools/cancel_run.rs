//! `cancel_run`: `POST /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/cancel`.

use serde_json::Value;

use super::run_words::{of, run_ref_schema, RunRef};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::run::RunStatus;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "cancel_run",
    title: "Cancel a run",
    description: "Cancel a run that is still going, such as an interaction waiting for a person: it ends cancelled and its request leaves list_interactions. A run that already ended stays as it ended, so calling again changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/cancel",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    run_ref_schema("The run to cancel.")
}

async fn run(ctx: &Ctx<'_>, a: RunRef) -> Result<Output, Problem> {
    let run = ctx.backend.cancel_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
    let summary = match &run.status {
        RunStatus::Cancelled { .. } => {
            format!("The run {} of {} is cancelled.", run.run_id, of(&run))
        }
        other => format!("The run {} of {} had already ended {}; nothing changed.", run.run_id, of(&run), other.word()),
    };
    Ok(Output::ok(summary, super::run_words::answered(&run)?))
}
