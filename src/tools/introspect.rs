//! `introspect`: `GET /v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}`.

use serde_json::json;

use super::tool_servers::{find, mark_words, named_schema, Named};
use super::words::fits;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "introspect",
    title: "Read a tool",
    description: "Read one tool of a tool server the playbook may use, in full: its description, the schema of its arguments, the hints its server gives (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, each only where the server gives it), and its mark with marked_by. Calls no tool; it asks the server for its list of tools.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}",
    input_schema: named_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: Named) -> Result<Output, Problem> {
    let found = find(ctx, &a.playbook, &a.server, &a.tool).await?;
    let t = &found.tool;
    let value = json!({
        "name": found.name(),
        "server": found.server.name,
        "tool": t.name,
        "title": t.title,
        "description": t.description,
        "input_schema": t.input_schema,
        "annotations": t.hints,
        "mark": t.mark,
        "marked_by": t.marked_by,
        "record_content": found.record_content(),
    });
    let call = if t.mark.reads() { "query_connection or execute_connection" } else { "execute_connection alone" };
    let summary = format!(
        "{} {} (marked by {}), so {call} calls it by hand.",
        found.name(),
        mark_words(t.mark),
        t.marked_by.as_str()
    );
    Ok(Output::ok(fits(summary), value))
}
