//! `query_connection`: `POST /v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/query`.

use super::tool_servers::{call_by_hand, call_schema, CallArgs};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "query_connection",
    title: "Try a tool that reads",
    description: "Call one tool marked reads by hand, live, as the playbook, to see what it returns before a function relies on it. A tool marked acts or unmarked is refused as tool_not_read_only: execute_connection calls those. The call, its arguments and its answer are recorded in the playbook's history as tool_called.",
    hints: Hints { read_only: true, destructive: false, idempotent: false, open_world: true },
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/query",
    input_schema: || call_schema(true),
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: CallArgs) -> Result<Output, Problem> {
    call_by_hand(ctx, a, true).await
}
