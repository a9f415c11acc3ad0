//! `retire_playbook`: `POST /v1/orgs/{org}/playbooks/{playbook}/retire`.

use super::schema::{only_playbook, PlaybookArg};
use super::words::{fits, named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::directory::Command;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "retire_playbook",
    title: "Retire a playbook",
    description: "Retire a playbook: it keeps its id and everything in it, stays readable with get_playbook, and is listed only with include_retired. Retiring a retired playbook changes nothing. restore_playbook makes it active again.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/retire",
    input_schema: only_playbook,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, PlaybookArg { playbook }: PlaybookArg) -> Result<Output, Problem> {
    let p = ctx
        .backend
        .change(&ctx.caller.org, Command::Retire { id: playbook, now: ctx.now.clone(), by: ctx.by() })
        .await?;
    let summary = fits(format!(
        "The playbook {} is retired. It keeps its id and stays readable; restore_playbook makes it active again.",
        named(&p)
    ));
    Ok(Output::ok(summary, crate::core::error::encoded(&p)?))
}
