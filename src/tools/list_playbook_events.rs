//! `list_playbook_events`: `GET /v1/orgs/{org}/playbooks/{playbook}/events`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::{cursor_arg, limit_arg, playbook_arg};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::event::{decode_cursor, EventQuery, KIND_MAX, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX};
use crate::core::text::{cap, count, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_playbook_events",
    title: "Read the playbook's events",
    description: "Read everything that happened in the playbook, newest first, or with run_id one run's whole history, oldest first: how it started and how it ended. Each event has its kind, time, summary and data (a large data is left out with its size; get_event reads it whole). Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/events",
    input_schema,
    run: |ctx, args| typed(ctx, args, page),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "Only this run's events, oldest first." },
            "kind": { "type": "string", "minLength": 1, "maxLength": KIND_MAX, "description": "Only events of this kind." },
            "limit": limit_arg(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "events"),
            "cursor": cursor_arg(32)
        },
        "required": ["playbook"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
pub(super) struct Args {
    pub(super) playbook: String,
    pub(super) run_id: Option<String>,
    pub(super) kind: Option<String>,
    pub(super) limit: Option<usize>,
    pub(super) cursor: Option<String>,
}

/// One page of the playbook's events, or of one run's (`get_run_history` reads it too).
pub(super) async fn page(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let after = a.cursor.as_deref().map(decode_cursor).transpose()?;
    let one_run = a.run_id.is_some();
    let query = EventQuery { run_id: a.run_id, kind: a.kind, limit: a.limit.unwrap_or(LIST_LIMIT_DEFAULT), after };
    let mut page = ctx.backend.list_events(&ctx.caller.org, &a.playbook, query).await?;
    if ctx.directory {
        page.events = without_generation(ctx, &a.playbook, page.events).await?;
    }
    let said = summary(page.events.len(), one_run, page.next_cursor.is_some());
    Ok(Output::ok(said, crate::core::error::encoded(&page)?))
}

/// The events of a page less those of generation runs, which `/directory` names none of: each
/// run an event names is read once, by its id, to know its type.
async fn without_generation(ctx: &Ctx<'_>, playbook: &str, events: Vec<Value>) -> Result<Vec<Value>, Problem> {
    let mut generation: std::collections::BTreeMap<String, bool> = std::collections::BTreeMap::new();
    let mut kept = Vec::with_capacity(events.len());
    for event in events {
        let Some(run_id) = event.get("run_id").and_then(Value::as_str).map(str::to_string) else {
            kept.push(event);
            continue;
        };
        let of_generation = match generation.get(&run_id) {
            Some(known) => *known,
            None => {
                let known = match ctx.backend.get_run(&ctx.caller.org, playbook, &run_id).await {
                    Ok(run) => run.definition.kind == crate::core::definition::Kind::Generation,
                    Err(p) if p.reason == crate::core::Reason::NotFound => false,
                    Err(p) => return Err(p),
                };
                generation.insert(run_id, known);
                known
            }
        };
        if !of_generation {
            kept.push(event);
        }
    }
    Ok(kept)
}

pub fn summary(found: usize, one_run: bool, more: bool) -> String {
    let more = super::words::more(more);
    let summary = match (found, one_run) {
        (0, true) => "No event of that run is on this page.".to_string(),
        (0, false) => "No event is on this page.".to_string(),
        (n, true) => format!(
            "Found {} of the run asked for in this playbook, oldest first, each with its fact and its metadata.{more}",
            count(n, "event")
        ),
        (n, false) => format!("Found {} in this playbook, newest first.{more}", count(n, "event")),
    };
    cap(&summary, SUMMARY_MAX)
}
