//! `run_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/run`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{check_name, name_arg, served_kind, type_arg};
use super::run_words::started;
use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::Ref;
use crate::core::run::store::check_back_seconds;
use crate::core::run::{check_run_id, rehearsal, run_id, Run, RunStatus};
use crate::core::Problem;
use crate::ops::run_start::{start, Asked, Outside};

pub const TOOL: Tool = Tool {
    name: "run_definition",
    title: "Run a function or workflow",
    description: "Run a function or a workflow once, with its input and an optional run_id. A workflow does a job the person wants done again, while a function runs alone here to be tested. A workflow's run carries on by itself, step by step. A run that finishes at once answers how it ended; a run that finishes later answers started, and get_run shows how it ended. Calling again with the same run_id and input answers that run and runs nothing again. A reasoning function calls its model, which list_models names, and answers when the model has. Answers studio, the playbook's Ledger in Studio with the run chosen: give the person that link.",
    // Destructive only while a tool server serves the playbook: see `tools::listed_hints`.
    hints: Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/run",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { hints_depend: Some(HINTS_DEPEND), runs_saved: true, ..Special::NONE },
};

pub const HINTS_DEPEND: &str = "destructiveHint is true while a tool server serves the playbook (or, on a connection that names none, the org), since a function's tools may change something.";

/// How many recent runs say how long a run of the definition takes.
const RECENT_RUNS: usize = 20;

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "type": type_arg(),
            "name": name_arg(),
            "input": { "type": "object", "description": "The input, as the function's input.schema describes it." },
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "An id of your choosing (letters, digits, - and _), so that a retry answers the same run instead of starting another." },
            "rehearse": { "type": "boolean", "description": "Rehearse rather than run: nothing reaches outside the runtime. Tool calls, model calls and people are answered by stand_ins, and a call with none fails in words that name what to add. Times a workflow waits for pass at once. The run says rehearsal: true and list_runs leaves it out unless asked." },
            "stand_ins": {
                "type": "object",
                "description": "With rehearse: what answers in place of each tool, model and person. tools: by server/tool, {text?, structured?, is_error?}. models: by function name, {output}, {text} or {tool_calls: [{tool, arguments}]}. people: by interaction function name, the answer. Each is one answer, given to every call, or a list the calls take in order; each step of a workflow takes the answer after those its earlier steps of that function took.",
                "properties": {
                    "tools": { "type": "object", "additionalProperties": { "type": ["object", "array"] } },
                    "models": { "type": "object", "additionalProperties": { "type": ["object", "array"] } },
                    "people": { "type": "object" }
                },
                "additionalProperties": false
            }
        },
        "required": ["playbook", "type", "name"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    #[serde(rename = "type")]
    kind: String,
    name: String,
    #[serde(default)]
    input: Option<Value>,
    run_id: Option<String>,
    #[serde(default)]
    rehearse: bool,
    stand_ins: Option<Value>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let kind = served_kind(&a.kind)?;
    check_name(&a.name)?;
    if let Some(id) = &a.run_id {
        check_run_id(id)?;
    }
    let stand_ins = match (a.rehearse, &a.stand_ins) {
        (true, given) => Some(rehearsal::read(given.as_ref().unwrap_or(&json!({})))?),
        (false, None) => None,
        (false, Some(_)) => {
            return Err(Problem::invalid("/stand_ins", "is for a rehearsal: give rehearse: true with it"));
        }
    };
    let asked = Asked {
        org: ctx.caller.org.clone(),
        playbook: a.playbook.clone(),
        definition: Ref { kind, name: a.name },
        input: a.input.unwrap_or_else(|| json!({})),
        run_id: a.run_id.unwrap_or_else(|| run_id(ctx.random)),
        now: ctx.now.clone(),
        within: None,
        by: ctx.by(),
        again: None,
        stand_ins,
    };
    let (run, value) = begin(ctx, &a.playbook, asked).await?;
    Ok(Output::ok(started(&run), value))
}

/// Starts a run a caller asked for (here, or with `rerun_run`), and answers it with the Ledger's
/// link and, for a run still going, when to look again.
pub async fn begin(ctx: &Ctx<'_>, playbook: &str, asked: Asked) -> Result<(Run, Value), Problem> {
    let connections = crate::ops::connections::Using::of(ctx, &ctx.caller.org);
    let outside = Outside {
        models: &ctx.models,
        tools: &ctx.tool_servers,
        connections: Some(&connections),
        read: None,
        now: ctx.instant().timestamp(),
    };
    let run = start(ctx.backend, &outside, asked).await?.run;
    let mut value = super::run_words::answered(&run)?;
    // The Ledger with this run chosen, so the agent gives the person the link without being asked.
    value["studio"] =
        json!(crate::core::studio::ledger(&ctx.connections.base, &ctx.caller.org, playbook, Some(&run.run_id)));
    if let RunStatus::Started { .. } = run.status {
        let recent = ctx.backend.read_runs(&ctx.caller.org, playbook, run.definition.clone(), RECENT_RUNS).await?;
        value["check_back_in_seconds"] = json!(check_back_seconds(&recent));
    }
    Ok((run, value))
}
