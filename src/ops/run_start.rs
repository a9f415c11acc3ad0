//! Starting a run: the checks and reads `run_definition` makes before a run of a function or a
//! workflow starts, shared with a workflow's steps so that a step starts its function the same way.

use serde_json::Value;

use super::Backend;
use crate::core::actor::Actor;
use crate::core::definition::lookup::READ_MAX;
use crate::core::definition::prediction::EVENTS_MAX;
use crate::core::definition::reasoning::ReasoningSpec;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::store::DefinitionView;
use crate::core::definition::{spec, Ref, Spec};
use crate::core::model::{resolve, ModelSettings};
use crate::core::run::store::StartRun;
use crate::core::run::{check_input, Run, Within};
use crate::core::text::{join_and, quote};
use crate::core::Problem;

/// A run someone asked for: by a caller of `run_definition`, or by a workflow's step.
pub struct Asked {
    pub org: String,
    pub playbook: String,
    pub definition: Ref,
    pub input: Value,
    pub run_id: String,
    pub now: String,
    pub within: Option<Within>,
    /// The caller, the trigger, or the workflow run's step that asked.
    pub by: Actor,
}

/// Starts the run in its own object, after every check that can refuse it; answers it as it stands.
pub async fn start(backend: &dyn Backend, models: &ModelSettings, asked: Asked) -> Result<Run, Problem> {
    let view = read(backend, &asked).await?;
    start_viewed(backend, models, asked, &view).await
}

/// The definition a run is asked of, as it stands.
pub async fn read(backend: &dyn Backend, asked: &Asked) -> Result<DefinitionView, Problem> {
    backend.get_definition(&asked.org, &asked.playbook, asked.definition.clone()).await
}

/// `start`, with the definition read already: a workflow reads each of its functions once for
/// the steps it starts in a row.
pub async fn start_viewed(
    backend: &dyn Backend,
    models: &ModelSettings,
    asked: Asked,
    view: &DefinitionView,
) -> Result<Run, Problem> {
    let Asked { org, playbook, definition, input, run_id, now, within, by } = asked;
    let (kind, name) = (definition.kind, definition.name.clone());
    match &view.definition.status {
        DefinitionStatus::Active => {}
        DefinitionStatus::Paused { .. } => {
            return Err(Problem::conflict(format!(
                "The {} {} is paused, and nothing starts a run of it until resume_definition.",
                kind.noun(),
                quote(&name)
            )))
        }
        DefinitionStatus::Retired { .. } => {
            return Err(Problem::conflict(format!(
                "The {} {} is retired; restore_definition brings it back, then resume_definition.",
                kind.noun(),
                quote(&name)
            )))
        }
    }
    // The stored document is checked again: a run follows nothing the checker has not passed.
    let spec = spec(kind, &view.document)?;
    if let Some(schema) = spec.input_schema() {
        check_input(schema, &input)?;
    }
    if let Spec::Reasoning(s) = &spec {
        reachable(models, s, &name)?;
    }
    let run = Run {
        within,
        started_by: Some(by),
        ..Run::started(run_id, (&org, &playbook), definition, view.definition.version, input, now)
    };
    let material = match &spec {
        Spec::Lookup(s) => match s.runs_of() {
            Some(target) => backend.read_runs(&org, &playbook, target.clone(), READ_MAX).await?,
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    let events = match &spec {
        Spec::Prediction(s) => backend.read_events(&org, &playbook, s.event_kind(), EVENTS_MAX).await?,
        _ => Vec::new(),
    };
    let start = StartRun { run, source: view.document.clone(), material, events };
    backend.start_run(&org, &playbook, start).await
}

/// A reasoning function's model and tools must be reachable before anything is sent: a model the
/// operator did not set up or allow, or a tool no tool server offers, is refused here.
fn reachable(models: &ModelSettings, spec: &ReasoningSpec, name: &str) -> Result<(), Problem> {
    resolve(models, spec.model())?;
    let tools: Vec<String> = spec.tools().iter().map(|t| quote(t)).collect();
    if !tools.is_empty() {
        return Err(Problem::unavailable(format!(
            "The reasoning function {} names the tools {}, and no tool server of this runtime offers them, so nothing was run. Whoever runs the runtime sets up tool servers; until then, a function without tools runs.",
            quote(name),
            join_and(&tools)
        ))
        .with_kind(crate::core::ErrorCode::ToolUnavailable));
    }
    Ok(())
}
