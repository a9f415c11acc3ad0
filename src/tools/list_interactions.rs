//! `list_interactions`: `GET /v1/orgs/{org}/playbooks/{playbook}/interactions`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::{cursor_arg, limit_arg, playbook_arg};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::run::store::{decode_cursor, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_interactions",
    title: "List open requests",
    description: "List the open requests of the playbook's interaction functions, newest first, each with its question, its answer_schema and the run_id that answer_interaction takes. Ask the person, then answer in their words. Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/interactions",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "limit": limit_arg(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "requests"),
            "cursor": cursor_arg(32)
        },
        "required": ["playbook"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let before = a.cursor.as_deref().map(decode_cursor).transpose()?;
    let page =
        ctx.backend.list_requests(&ctx.caller.org, &a.playbook, a.limit.unwrap_or(LIST_LIMIT_DEFAULT), before).await?;
    Ok(Output::ok(summary(page.requests.len()), crate::core::error::encoded(&page)?))
}

pub fn summary(waiting: usize) -> String {
    match waiting {
        0 => "No request is waiting.".to_string(),
        1 => "Found 1 request waiting on this page.".to_string(),
        n => format!("Found {n} requests waiting on this page."),
    }
}
