//! Starting a run: the checks and reads `run_definition` makes before a run of a function or a
//! workflow starts, shared with a workflow's steps so that a step starts its function the same way.

use serde_json::Value;

use super::tool_binding::bind;
use super::tool_servers::Registry;
use super::Backend;
use crate::core::actor::Actor;
use crate::core::definition::lookup::READ_MAX;
use crate::core::definition::prediction::EVENTS_MAX;
use crate::core::definition::reasoning::dialogue::Bound;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::store::DefinitionView;
use crate::core::definition::{spec, Ref, Spec};
use crate::core::model::{resolve, ModelSettings};
use crate::core::run::store::StartRun;
use crate::core::run::{check_input, Run, Within};
use crate::core::text::quote;
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

/// What a start reaches beyond storage, to check that the run can reach it: the model providers
/// and the tool servers, and the second of the request for their kept lists.
pub struct Outside<'a> {
    pub models: &'a ModelSettings,
    pub tools: &'a Registry<'a>,
    pub now: i64,
}

/// Starts the run in its own object, after every check that can refuse it; answers it as it stands.
pub async fn start(backend: &dyn Backend, outside: &Outside<'_>, asked: Asked) -> Result<Run, Problem> {
    let view = read(backend, &asked).await?;
    start_viewed(backend, outside, asked, Viewed::of(&view)).await
}

/// The definition a run is asked of, as it stands.
pub async fn read(backend: &dyn Backend, asked: &Asked) -> Result<DefinitionView, Problem> {
    backend.get_definition(&asked.org, &asked.playbook, asked.definition.clone()).await
}

/// A definition read for a run, its stored document checked once: what is read before the start
/// (the org's connections, or not) and the start itself follow the same spec.
pub struct Viewed<'v> {
    view: &'v DefinitionView,
    /// The stored document checked again: a run follows nothing the checker has not passed.
    spec: Result<Spec, Problem>,
}

impl<'v> Viewed<'v> {
    pub fn of(view: &'v DefinitionView) -> Self {
        Viewed { view, spec: spec(view.definition.kind, &view.document) }
    }

    /// The `server/tool` names a start binds: a reasoning function's tools, and the tools a
    /// function calls without a model. A document the check refuses says so at the start, which
    /// binds none.
    pub fn tool_names(&self) -> Vec<&str> {
        let Ok(spec) = &self.spec else { return Vec::new() };
        let mut names: Vec<&str> = spec.calls().iter().map(|c| c.name.as_str()).collect();
        if let Spec::Reasoning(s) = spec {
            names.extend(s.tools().iter().map(String::as_str));
        }
        names
    }

    /// Whether a start needs the org's connections read first: it binds a tool of a server the
    /// settings do not serve to this playbook.
    pub fn needs_connections(&self, settings: &Registry<'_>, org: &str, playbook: &str) -> bool {
        !settings.settings_serve(org, playbook, self.tool_names())
    }
}

/// `start`, with the definition read already.
pub async fn start_viewed(
    backend: &dyn Backend,
    outside: &Outside<'_>,
    asked: Asked,
    viewed: Viewed<'_>,
) -> Result<Run, Problem> {
    let (org, playbook) = (asked.org.clone(), asked.playbook.clone());
    let start = prepare(backend, outside, asked, viewed).await?;
    backend.start_run(&org, &playbook, start).await
}

/// Every check that can refuse a start, and every read it needs, done: the start to send the
/// run's object. A workflow reads each of its functions once for the steps it starts in a row,
/// and sends each step's start as a step (`Backend::start_step`).
pub async fn prepare(
    backend: &dyn Backend,
    outside: &Outside<'_>,
    asked: Asked,
    viewed: Viewed<'_>,
) -> Result<StartRun, Problem> {
    let Viewed { view, spec } = viewed;
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
    let spec = spec?;
    if let Some(schema) = spec.input_schema() {
        check_input(schema, &input)?;
    }
    if let Spec::Generation(s) = &spec {
        let named = format!("{}/{}", s.gateway(), s.model().model);
        if !outside.models.allows(&named) {
            return Err(Problem::unavailable(format!(
                "The model {named} is not one the operator of this runtime allows, so nothing was run. list_generation_models lists the models a generation function may name; ask whoever runs the runtime to add {named} to ALLOWED_MODELS."
            ))
            .with_kind(crate::core::ErrorCode::ModelNotAllowed));
        }
        if !outside.models.providers.get(s.gateway()).is_some_and(|p| p.gateway) {
            return Err(Problem::unavailable(format!(
                "The model {}/{} names the gateway {}, which MODEL_GATEWAYS does not set up, so nothing was run. list_generation_models names the gateways this runtime has; whoever runs it sets them up.",
                s.gateway(),
                s.model().model,
                s.gateway()
            ))
            .with_kind(crate::core::ErrorCode::ModelNotConfigured));
        }
    }
    if let Spec::Reasoning(s) = &spec {
        resolve(outside.models, s.model())?;
        if !s.tools().is_empty() {
            bind(outside.tools, &org, &playbook, s.tools(), outside.now).await?;
        }
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
    let tools = calls_bound(outside, &org, &playbook, &spec).await?;
    Ok(StartRun { run, source: view.document.clone(), material, events, tools })
}

/// The tools a run without a model calls, bound to the servers that offer them now: a lookup's
/// tool and a request's reading tool must be marked `reads`, since they are called with no one
/// to ask (a request's, again and again).
async fn calls_bound(outside: &Outside<'_>, org: &str, playbook: &str, spec: &Spec) -> Result<Vec<Bound>, Problem> {
    let calls = spec.calls();
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<String> = calls.iter().map(|c| c.name.clone()).collect();
    let tools = bind(outside.tools, org, playbook, &names, outside.now).await?;
    for (tool, call) in tools.iter().zip(calls) {
        if call.must_read && !tool.read_only {
            return Err(Problem::unavailable(format!(
                "The tool {} is not marked reads, and this function calls it with no one to ask, so nothing was run. Name a tool that only reads; or, if it does, whoever runs the runtime marks it reads under marks in its server's entry in TOOL_SERVERS.",
                tool.named()
            ))
            .with_kind(crate::core::ErrorCode::ToolNotReadOnly));
        }
    }
    Ok(tools)
}
