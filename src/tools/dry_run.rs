//! `dry_run`: `POST /v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/dry-run`.

use serde_json::json;

use super::tool_servers::{call_schema, check_arguments, find, mark_words, CallArgs};
use super::words::fits;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "dry_run",
    title: "Check a call to a tool",
    description: "See what execute_connection would check before it calls a tool, without calling it: that the playbook may use the server and the tool, and that the arguments fit the tool's input schema, each misfit with its pointer. Answers the tool's mark, so whether query_connection would call it too.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/dry-run",
    input_schema: || call_schema(false),
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: CallArgs) -> Result<Output, Problem> {
    let found = find(ctx, &a.playbook, &a.server, &a.tool).await?;
    let errors = check_arguments(&found.tool, &a.arguments)?;
    let t = &found.tool;
    let summary = if errors.is_empty() {
        let query = if t.mark.reads() {
            "and so would query_connection"
        } else {
            "and query_connection would refuse it, as it does not only read"
        };
        format!(
            "execute_connection would call {} with these arguments, {query}; the tool {}.",
            found.name(),
            mark_words(t.mark)
        )
    } else {
        let first = &errors[0];
        format!(
            "execute_connection would refuse these arguments: {} ({} {}).",
            count(errors.len(), "misfit"),
            first.pointer,
            first.detail
        )
    };
    let value = json!({
        "name": found.name(),
        "valid": errors.is_empty(),
        "errors": errors,
        "mark": t.mark,
        "marked_by": t.marked_by,
        "query_connection": t.mark.reads(),
    });
    Ok(Output::ok(fits(summary), value))
}
