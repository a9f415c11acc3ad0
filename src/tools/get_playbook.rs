//! `get_playbook`: `GET /v1/orgs/{org}/playbooks/{playbook}`.

use super::schema::{only_playbook, PlaybookArg};
use super::words::{fits, named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_playbook",
    title: "Read a playbook",
    description: "Read one playbook by its id: its name, description, whether it is active or retired, when it was made and changed, and the Markdown source of its page. A retired playbook stays readable here.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}",
    input_schema: only_playbook,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, PlaybookArg { playbook }: PlaybookArg) -> Result<Output, Problem> {
    let p = ctx.backend.get(&ctx.caller.org, &playbook).await?;
    let state = if p.is_retired() { "retired; restore_playbook makes it active again" } else { "active" };
    let page = if p.page.is_empty() {
        "It has no page yet.".to_string()
    } else {
        format!("Its page holds {} of Markdown.", count(p.page.len(), "byte"))
    };
    let summary = fits(format!("The playbook {} is {state}. {page}", named(&p)));
    Ok(Output::ok(summary, crate::core::error::encoded(&p)?))
}
