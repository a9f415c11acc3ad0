//! `execute_connection`:
//! `POST /v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/execute`.

use super::tool_servers::{call_by_hand, call_schema, CallArgs};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "execute_connection",
    title: "Call a tool",
    description: "Call one tool by hand, live, as the playbook, whatever its mark, to see what it returns or to act: a tool that acts changes what its server holds, so ask the person first. dry_run checks the same call without making it. The call, its arguments and its answer are recorded in the playbook's history as tool_called.",
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/execute",
    input_schema: || call_schema(true),
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: CallArgs) -> Result<Output, Problem> {
    call_by_hand(ctx, a, false).await
}
