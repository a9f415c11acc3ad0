//! `get_run_history`: `GET /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/history`, over HTTP
//! alone: an agent reads the same with `list_playbook_events` and a `run_id`. The run's events
//! and those of every run it started, oldest first, a page at a time.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::{cursor_arg, limit_arg, playbook_arg};
use super::{list_playbook_events, typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::event::{LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_run_history",
    title: "Read a run's history",
    description: "A run's whole history, oldest first: its events and those of every run it started, its steps, its tool calls and how it ended, as list_playbook_events with its run_id answers them. Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/history",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "The run whose history to read." },
            "limit": limit_arg(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "events"),
            "cursor": cursor_arg(32)
        },
        "required": ["playbook", "run_id"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    run_id: String,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    // An unknown run is not_found, rather than a history with nothing in it.
    ctx.backend.get_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
    let events = list_playbook_events::Args {
        playbook: a.playbook,
        run_id: Some(a.run_id),
        kind: None,
        limit: a.limit,
        cursor: a.cursor,
    };
    list_playbook_events::page(ctx, events).await
}
