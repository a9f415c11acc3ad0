//! `publish_event`: `POST /v1/orgs/{org}/playbooks/{playbook}/events`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::event::{check_kind, EventCommand, NewEvent, DATA_MAX_BYTES, KIND_MAX, RECORDED};
use crate::core::text::{cap, quote, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "publish_event",
    title: "Record an event",
    description: "Record an event in the playbook, a fact of the business such as a month closed in a ledger, with its kind and its data. Prediction functions forecast from events of a kind, and later workflows start on them.",
    hints: Hints::WRITE,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/events",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "kind": { "type": "string", "minLength": 1, "maxLength": KIND_MAX, "description": "What happened, as lowercase letters, digits, _ . and -, such as month_closed." },
            "data": { "type": "object", "description": format!("The facts of the event, at most {DATA_MAX_BYTES} bytes as JSON, such as {{\"month\": \"2026-11\", \"totals\": {{\"revenue\": 41200}}}}.") },
            "summary": { "type": "string", "maxLength": 300, "description": "The event in a sentence for people; made from the kind when left out." },
            "at": { "type": "string", "maxLength": 40, "description": "When it happened, as RFC 3339 such as 2026-11-30T17:00:00Z, for a fact recorded after the fact; now when left out." }
        },
        "required": ["playbook", "kind"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    kind: String,
    #[serde(default)]
    data: Option<Value>,
    summary: Option<String>,
    at: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    check_kind(&a.kind)?;
    if RECORDED.contains(&a.kind.as_str()) {
        return Err(Problem::invalid("/kind", "is a kind the runtime records itself; choose a kind of your own"));
    }
    let data = a.data.unwrap_or_else(|| json!({}));
    let size = data.to_string().len();
    if size > DATA_MAX_BYTES {
        return Err(Problem::invalid(
            "/data",
            format!("is {size} bytes as JSON, more than the {DATA_MAX_BYTES} an event may hold"),
        ));
    }
    let summary = a.summary.unwrap_or_else(|| format!("An event {} was published.", quote(&a.kind)));
    let at = match a.at {
        Some(at) => chrono::DateTime::parse_from_rfc3339(&at)
            .map(|t| crate::core::text::stamp(t.with_timezone(&chrono::Utc)))
            .map_err(|_| Problem::invalid("/at", "must be a time in RFC 3339, such as 2026-11-30T17:00:00Z"))?,
        None => ctx.now.clone(),
    };
    let event = NewEvent { kind: a.kind, at, summary, run_id: None, data, family: None, key: None };
    let kept = ctx.backend.events(&ctx.caller.org, &a.playbook, EventCommand::append(vec![event])).await?;
    let event = kept.into_iter().next().ok_or_else(|| Problem::internal("the playbook kept no event"))?;
    let said = format!("Recorded the event {} as {}.", quote(&event.event.kind), event.event_id);
    Ok(Output::created(cap(&said, SUMMARY_MAX), crate::core::error::encoded(&event)?))
}
