//! `rerun_run`: `POST /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/rerun`. A run that ended,
//! started again as a new run with the same input: a function's whole, a workflow's whole or from
//! one of its steps, the steps before that one keeping what they ended with in the old run. The
//! new run is of the definition's current version, or of the old run's where asked, and names
//! the run it was started from.

use serde::Deserialize;
use serde_json::{json, Value};

use super::run_definition::begin;
use super::run_words::started;
use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::{workflow, Kind};
use crate::core::run::store::Reused;
use crate::core::run::{check_run_id, run_id, RerunOf, Run, RunStatus};
use crate::core::text::{cap, join_and, quote, SUMMARY_MAX};
use crate::core::workflow::rerun::{kept_runs, reused};
use crate::core::Problem;
use crate::ops::run_start::{Again, Asked};

pub const TOOL: Tool = Tool {
    name: "rerun_run",
    title: "Run a run again",
    description: "Start a run that has ended again, as a new run with the same input, on the definition's current version (or, with same_version, the version the old run ran): a function's run whole, a workflow's whole, or with from_step from one of its steps, the steps before it keeping the outputs they ended with in the old run (their functions are not run again). The new run names rerun_of; the old run is untouched. Refused while the old run is still going, where the step is not in the old run, or where the current version no longer has it or changed a step before it. Fix the function that failed, then rerun from the step that failed.",
    hints: Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/rerun",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    // Destructive only while a tool server serves the playbook, as run_definition.
    special: Special { hints_depend: Some(super::run_definition::HINTS_DEPEND), runs_saved: true, ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "The run to start again, which has ended." },
            "from_step": { "type": "string", "minLength": 1, "maxLength": 64, "description": "For a workflow's run, the step to run again from; the steps before it keep their outputs. Without it the run starts again whole." },
            "new_run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "An id of your choosing for the new run, so that a retry answers it instead of starting another." },
            "same_version": { "type": "boolean", "default": false, "description": "Run the version the old run ran, as it was saved then, rather than the definition's current version." }
        },
        "required": ["playbook", "run_id"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    run_id: String,
    from_step: Option<String>,
    new_run_id: Option<String>,
    #[serde(default)]
    same_version: bool,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    check_run_id(&a.run_id)?;
    if let Some(id) = &a.new_run_id {
        check_run_id(id).map_err(|p| Problem::invalid("/new_run_id", p.detail))?;
    }
    let org = &ctx.caller.org;
    let old = ctx.backend.get_run(org, &a.playbook, &a.run_id).await?;
    if let RunStatus::Started { .. } = old.status {
        return Err(Problem::conflict(format!(
            "The run {} is still going, so it is not started again: cancel_run stops it, or wait until it ends.",
            old.run_id
        ))
        .with_field("/run_id", "names a run that is still going"));
    }
    let reused = match &a.from_step {
        None => None,
        Some(step) => Some(from_step(ctx, &a.playbook, &old, step, a.same_version).await?),
    };
    let taken: Vec<String> = reused.iter().flat_map(|r| r.steps.iter().map(|s| s.id.clone())).collect();
    let asked = Asked {
        org: org.clone(),
        playbook: a.playbook.clone(),
        definition: old.definition.clone(),
        input: old.input.clone(),
        run_id: a.new_run_id.unwrap_or_else(|| run_id(ctx.random)),
        now: ctx.now.clone(),
        within: None,
        by: ctx.by(),
        again: Some(Again {
            of: RerunOf { run_id: old.run_id.clone(), from_step: a.from_step.clone() },
            reused,
            version: a.same_version.then_some(old.version),
        }),
        // A rehearsal run again is rehearsed again, with the same stand-ins.
        stand_ins: old.stand_ins.as_deref().cloned(),
    };
    let (run, value) = begin(ctx, &a.playbook, asked).await?;
    Ok(Output::ok(cap(&words(&old, &run, a.from_step.as_deref(), &taken), SUMMARY_MAX), value))
}

/// The states a workflow's run again from `step` takes from the old run.
async fn from_step(
    ctx: &Ctx<'_>,
    playbook: &str,
    old: &Run,
    step: &str,
    same_version: bool,
) -> Result<Reused, Problem> {
    if old.definition.kind != Kind::Workflow {
        return Err(Problem::invalid(
            "/from_step",
            format!(
                "is for a workflow's run, and {} is a run of the {} {}, which has no steps; leave from_step out to run it again with the same input",
                old.run_id,
                old.definition.kind.noun(),
                quote(&old.definition.name)
            ),
        ));
    }
    let kept = ctx
        .backend
        .read_flow(&ctx.caller.org, playbook, &old.run_id)
        .await?
        .ok_or_else(|| Problem::internal("a workflow run's state is missing"))?;
    let (org, definition) = (&ctx.caller.org, old.definition.clone());
    let runs = match same_version {
        true => ctx.backend.get_version(org, playbook, definition, old.version).await?,
        false => ctx.backend.get_definition(org, playbook, definition).await?,
    };
    let plan = workflow::plan(&runs.document)?;
    let steps = reused(&kept.plan, &kept.flow, &plan, step)?;
    let runs = kept_runs(&kept.plan, &kept.flow, &steps);
    Ok(Reused { steps, started: kept.flow.started, runs })
}

fn words(old: &Run, run: &Run, from_step: Option<&str>, taken: &[String]) -> String {
    let again = match from_step {
        Some(step) if taken.is_empty() => format!(
            "Started {} again from the step {}, its first, as the run {}, with the input of {}.",
            super::run_words::of(old),
            quote(step),
            run.run_id,
            old.run_id
        ),
        Some(step) => {
            let quoted: Vec<String> = taken.iter().map(|s| quote(s)).collect();
            format!(
                "Started {} again from the step {} as the run {}, with the input of {}; {} kept the outputs they ended with there, and their functions were not run again.",
                super::run_words::of(old),
                quote(step),
                run.run_id,
                old.run_id,
                join_and(&quoted)
            )
        }
        None => format!(
            "Started {} again as the run {}, with the input of {}.",
            super::run_words::of(old),
            run.run_id,
            old.run_id
        ),
    };
    let differ =
        if old.definition.kind == Kind::Reasoning { " The model's answer may differ from the old run's." } else { "" };
    format!("{again}{differ} {}", started(run))
}
