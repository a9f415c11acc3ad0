//! `restore_playbook`: `POST /v1/orgs/{org}/playbooks/{playbook}/restore`.

use super::schema::{only_playbook, PlaybookArg};
use super::words::{fits, named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::directory::Command;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "restore_playbook",
    title: "Restore a playbook",
    description: "Bring a retired playbook back, active again under its id. Refused as a conflict while an active playbook has the same name: rename one of them with update_playbook first.",
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/restore",
    input_schema: only_playbook,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, PlaybookArg { playbook }: PlaybookArg) -> Result<Output, Problem> {
    let p = ctx
        .backend
        .change(&ctx.caller.org, Command::Restore { id: playbook, now: ctx.now.clone(), by: ctx.by() })
        .await?;
    let summary = fits(format!("The playbook {} is active again.", named(&p)));
    Ok(Output::ok(summary, crate::core::error::encoded(&p)?))
}
