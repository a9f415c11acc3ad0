//! `get_event`: `GET /v1/orgs/{org}/playbooks/{playbook}/events/{event_id}`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::event::{shown, SHOWN_FIELD_MAX_BYTES};
use crate::core::text::{cap, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_event",
    title: "Read an event",
    description: "Read one event of the playbook with every field in full, such as a run's whole input or output, by the event_id list_playbook_events gave. Over MCP a field larger than 64 KiB is shown by its size (omitted_bytes); the HTTP route answers it whole.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/events/{event_id}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "event_id": { "type": "string", "minLength": 1, "maxLength": 32, "description": "The event's id, such as ev_42." }
        },
        "required": ["playbook", "event_id"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    event_id: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let event = ctx.backend.get_event(&ctx.caller.org, &a.playbook, &a.event_id).await?;
    // The directory listing names no event of a generation run: there it is not found.
    if let (true, Some(run_id)) = (ctx.directory, event.event.run_id.as_deref()) {
        let of_generation = match ctx.backend.get_run(&ctx.caller.org, &a.playbook, run_id).await {
            Ok(run) => run.definition.kind == crate::core::definition::Kind::Generation,
            Err(p) if p.reason == crate::core::Reason::NotFound => false,
            Err(p) => return Err(p),
        };
        if of_generation {
            return Err(Problem::not_found(format!(
                "This playbook has no event {}. list_playbook_events lists its events.",
                a.event_id
            ))
            .with_field("/event_id", "names no event of this playbook"));
        }
    }
    let said = format!("{} ({}, {}, at {})", event.event.summary, event.event_id, event.event.kind, event.event.at);
    let value = crate::core::error::encoded(&event)?;
    let shown = shown(&value, SHOWN_FIELD_MAX_BYTES);
    let mut output = Output::ok(cap(&said, SUMMARY_MAX), value);
    if shown != output.value {
        output.over_mcp = Some(shown);
    }
    Ok(output)
}
