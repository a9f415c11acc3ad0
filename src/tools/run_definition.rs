//! `run_definition`: `POST /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/run`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{check_name, name_arg, served_kind, type_arg};
use super::playbook_summary::playbook_arg;
use super::run_words::outcome;
use super::{args, Ctx, Hints, Method, Output, Reach, Tool};
use crate::core::caller::Scope;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::store::DefinitionCommand;
use crate::core::definition::{Document, Kind, Ref};
use crate::core::event::EventCommand;
use crate::core::model::resolve;
use crate::core::run::forecast::EVENTS_MAX;
use crate::core::run::lookup::READ_MAX;
use crate::core::run::reason::model_and_tools;
use crate::core::run::store::{check_back_seconds, StartRun};
use crate::core::run::{check_input, check_run_id, run_id, Run, RunStatus};
use crate::core::text::{join_and, quote};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "run_definition",
    title: "Run a function",
    description: "Run a function once, with its input and an optional run_id. A workflow does a job the person wants done again, while a function runs alone here to be tested. A run that finishes at once answers how it ended; a run that finishes later answers started, and get_run shows how it ended. Calling again with the same run_id and input answers that run and runs nothing again. A reasoning function calls its model, which list_models names, and answers when the model has.",
    hints: Hints { read_only: false, destructive: true, idempotent: false, open_world: true },
    scope: Scope::PlaybookWrite,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}/{name}/run",
    input_schema,
    run: |ctx, args| Box::pin(run(ctx, args)),
};

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
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "An id of your choosing (letters, digits, - and _), so that a retry answers the same run instead of starting another." }
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
}

/// A reasoning function's model and tools must be reachable before anything is sent: a model the
/// operator did not set up or allow, or a tool no tool server offers, is refused here.
fn reachable(ctx: &Ctx<'_>, doc: &Document<'_>, name: &str) -> Result<(), Problem> {
    let (model, tools) = model_and_tools(&doc.front);
    resolve(&ctx.models, &model)?;
    let tools: Vec<String> = tools.iter().map(|t| quote(t)).collect();
    if !tools.is_empty() {
        return Err(Problem::unavailable(format!(
            "The reasoning function {} names the tools {}, and no tool server of this runtime offers them, so nothing was run. Whoever runs the runtime sets up tool servers; until then, a function without tools runs.",
            quote(name),
            join_and(&tools)
        ))
        .with_kind("tool_unavailable"));
    }
    Ok(())
}

async fn run(ctx: &Ctx<'_>, args: Value) -> Result<Output, Problem> {
    let a: Args = args::parse(args)?;
    let kind = served_kind(&a.kind)?;
    check_name(&a.name)?;
    if let Some(id) = &a.run_id {
        check_run_id(id)?;
    }
    let get = DefinitionCommand::Get { kind, name: a.name.clone() };
    let view = ctx.backend.definition(&ctx.caller.org, &a.playbook, get).await?;
    match &view.definition.status {
        DefinitionStatus::Active => {}
        DefinitionStatus::Paused { .. } => {
            return Err(Problem::conflict(format!(
                "The {} {} is paused, and nothing starts a run of it until resume_definition.",
                kind.noun(),
                quote(&a.name)
            )))
        }
        DefinitionStatus::Retired { .. } => {
            return Err(Problem::conflict(format!(
                "The {} {} is retired; restore_definition brings it back, then resume_definition.",
                kind.noun(),
                quote(&a.name)
            )))
        }
    }
    if kind == Kind::Workflow {
        return Err(Problem::unavailable(
            "This version saves and checks workflows but does not run them yet; run each of its functions with run_definition to try them.",
        )
        .with_kind("type_not_run")
        .with_field("/type", "workflows do not run yet"));
    }
    let input = a.input.unwrap_or_else(|| json!({}));
    let doc = Document::parse(&view.document)?;
    if let Some(schema) = doc.front.pointer("/input/schema") {
        check_input(schema, &input)?;
    }
    if kind == Kind::Reasoning {
        reachable(ctx, &doc, &a.name)?;
    }
    let run = Run {
        run_id: a.run_id.unwrap_or_else(|| run_id(ctx.random)),
        org: ctx.caller.org.clone(),
        playbook: a.playbook.clone(),
        definition: Ref { kind, name: a.name },
        version: view.definition.version,
        input,
        status: RunStatus::Started { waiting: None },
        started_at: ctx.now.clone(),
    };
    let material = match (kind, doc.front.pointer("/runs/of").and_then(Value::as_str).and_then(Ref::parse)) {
        (Kind::Lookup, Some(target)) => ctx.backend.read_runs(&ctx.caller.org, &a.playbook, target, READ_MAX).await?,
        _ => Vec::new(),
    };
    let events = match (kind, doc.front.pointer("/events/kind").and_then(Value::as_str)) {
        (Kind::Prediction, Some(event_kind)) => {
            let read = EventCommand::Read { kind: event_kind.to_string(), limit: EVENTS_MAX };
            let value = ctx.backend.events(&ctx.caller.org, &a.playbook, read).await?;
            serde_json::from_value(value)
                .map_err(|e| Problem::internal(format!("the events could not be read: {e}")))?
        }
        _ => Vec::new(),
    };
    let start = StartRun { run, source: view.document.clone(), material, events };
    let run = ctx.backend.start_run(&ctx.caller.org, &a.playbook, start).await?;
    let mut value = serde_json::to_value(&run).unwrap_or_default();
    if let RunStatus::Started { .. } = run.status {
        let recent = ctx.backend.read_runs(&ctx.caller.org, &a.playbook, run.definition.clone(), RECENT_RUNS).await?;
        value["check_back_in_seconds"] = json!(check_back_seconds(&recent));
    }
    Ok(Output::ok(outcome(&run), value))
}
