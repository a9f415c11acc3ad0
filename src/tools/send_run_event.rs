//! `send_run_event`: `POST /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/events`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::run_words::outcome;
use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::event::{check_kind, DATA_MAX_BYTES, KIND_MAX};
use crate::core::run::check_run_id;
use crate::core::text::{cap, quote, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "send_run_event",
    title: "Send an event to a workflow run",
    description: "Deliver an event to a workflow run that is still started, such as brief_approved with its data: a step that waits for an event of that name whose filter the data fits takes it and the run goes on. An event that no step waits for, now or later, is refused, in words that say what the run waits on.",
    hints: Hints::WRITE,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/events",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "The workflow run, as run_definition or list_runs gave it." },
            "name": { "type": "string", "minLength": 1, "maxLength": KIND_MAX, "description": "The event's name, as the step's wait names it, such as brief_approved." },
            "data": { "type": "object", "description": format!("The event's data, at most {DATA_MAX_BYTES} bytes as JSON; the step that takes it gives it as its output.") }
        },
        "required": ["playbook", "run_id", "name"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    run_id: String,
    name: String,
    #[serde(default)]
    data: Option<Value>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    check_run_id(&a.run_id)?;
    check_kind(&a.name).map_err(|_| {
        Problem::invalid(
            "/name",
            format!("must be 1 to {KIND_MAX} lowercase letters, digits, _ . and -, starting with a letter, as brief_approved"),
        )
    })?;
    let data = a.data.unwrap_or_else(|| json!({}));
    let size = data.to_string().len();
    if size > DATA_MAX_BYTES {
        return Err(Problem::invalid(
            "/data",
            format!("is {size} bytes as JSON, more than the {DATA_MAX_BYTES} an event may hold"),
        ));
    }
    let run = ctx.backend.send_run_event(&ctx.caller.org, &a.playbook, &a.run_id, &a.name, data).await?;
    let said = format!("The run {} took the event {}. {}", run.run_id, quote(&a.name), outcome(&run));
    Ok(Output::ok(cap(&said, SUMMARY_MAX), super::run_words::answered(&run)?))
}
