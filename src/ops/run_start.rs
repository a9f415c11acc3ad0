//! Starting a run: the one way a run of a function or a workflow starts, whoever asks for it
//! (a caller of `run_definition`, a workflow's step, a trigger). The definition is read, its
//! stored document checked, the org's connections read where the run reaches beyond the
//! settings' tool servers, and every check that can refuse the start made, before the run's
//! object is asked to start it.

use std::cell::RefCell;
use std::collections::HashMap;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::connections::Using;
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
use crate::core::run::rehearsal::{self, StandIns};
use crate::core::run::store::{Reused, StartRun, Stepped};
use crate::core::run::{check_input, RerunOf, Run, Within};
use crate::core::text::quote;
use crate::core::tool_server::settings::Server;
use crate::core::Problem;

/// A run someone asked for: by a caller of `run_definition`, a trigger, or a workflow's step.
pub struct Asked {
    pub org: String,
    pub playbook: String,
    pub definition: Ref,
    pub input: Value,
    pub run_id: String,
    pub now: String,
    /// The workflow run and step a step's run is started within; none for any other run.
    pub within: Option<Within>,
    /// The caller, the trigger, or the workflow run's step that asked.
    pub by: Actor,
    /// For a run started again with `rerun_run`: what from, and for a workflow's run from a step,
    /// what its earlier steps take from the old run.
    pub again: Option<Again>,
    /// For a rehearsal: what answers its calls, in place of the tools, models and people they
    /// would reach.
    pub stand_ins: Option<StandIns>,
}

pub struct Again {
    pub of: RerunOf,
    pub reused: Option<Reused>,
    /// The version the old run ran, where the new run runs it rather than the current one.
    pub version: Option<u32>,
}

/// What a start reaches beyond storage, to check that the run can reach it: the model providers
/// and the tool servers, and the second of the request for their kept lists.
#[derive(Clone, Copy)]
pub struct Outside<'a> {
    pub models: &'a ModelSettings,
    /// The tool servers in scope; the org's connections are added to them where they are read.
    pub tools: &'a Registry<'a>,
    /// How the org's connections are read, for a start that binds a tool of a server the
    /// settings do not serve to the playbook; none where the caller reaches none.
    pub connections: Option<&'a dyn Connections>,
    /// The definitions read by the starts before, for a caller that starts several in a row.
    pub read: Option<&'a Views>,
    pub now: i64,
}

/// The org's connections as tool servers, read now for one start.
pub trait Connections {
    fn servers(&self) -> LocalBoxFuture<'_, Vec<Server>>;
}

impl Connections for Using<'_> {
    fn servers(&self) -> LocalBoxFuture<'_, Vec<Server>> {
        Box::pin(super::connections::servers(self))
    }
}

/// The definitions a round of starts has read: a workflow reads each of its functions once for
/// the steps it starts in a row.
#[derive(Default)]
pub struct Views(RefCell<HashMap<Ref, DefinitionView>>);

/// Starts the run in its own object, after every check that can refuse it; answers it as it
/// stands. A step's run (one `within` a workflow run) is started as a step, and answers with what
/// it recorded when it ended at once, for its workflow run to carry (`Backend::start_step`).
pub async fn start(backend: &dyn Backend, outside: &Outside<'_>, asked: Asked) -> Result<Stepped, Problem> {
    let view = read(backend, outside.read, &asked).await?;
    let spec = spec(view.definition.kind, &view.document);
    // The org's connections are read only for a run that reaches tool servers beyond those of the
    // settings: a call to the org's object the others do without.
    let connections = match outside.connections {
        Some(_) if asked.stand_ins.is_some() => None,
        Some(c) if !outside.tools.settings_serve(&asked.org, &asked.playbook, tool_names(&spec)) => {
            Some(c.servers().await)
        }
        _ => None,
    };
    let tools = match &connections {
        Some(servers) => outside.tools.with(servers),
        None => *outside.tools,
    };
    let outside = Outside { tools: &tools, ..*outside };
    let (org, playbook, step) = (asked.org.clone(), asked.playbook.clone(), asked.within.is_some());
    let start = prepare(backend, &outside, asked, &view, spec).await?;
    if step {
        backend.start_step(&org, &playbook, start).await
    } else {
        Ok(Stepped { run: backend.start_run(&org, &playbook, start).await?, carried: Vec::new() })
    }
}

/// The definition a run is asked of, as it stands, or as the starts before read it.
async fn read(backend: &dyn Backend, views: Option<&Views>, asked: &Asked) -> Result<DefinitionView, Problem> {
    if let Some(version) = asked.again.as_ref().and_then(|a| a.version) {
        return backend.get_version(&asked.org, &asked.playbook, asked.definition.clone(), version).await;
    }
    if let Some(view) = views.and_then(|v| v.0.borrow().get(&asked.definition).cloned()) {
        return Ok(view);
    }
    let view = backend.get_definition(&asked.org, &asked.playbook, asked.definition.clone()).await?;
    if let Some(views) = views {
        views.0.borrow_mut().insert(asked.definition.clone(), view.clone());
    }
    Ok(view)
}

/// The `server/tool` names a start binds: a reasoning function's tools, and the tools a function
/// calls without a model. A document the check refuses says so in `prepare`, which binds none.
fn tool_names(spec: &Result<Spec, Problem>) -> Vec<&str> {
    let Ok(spec) = spec else { return Vec::new() };
    let mut names: Vec<&str> = spec.calls().iter().map(|c| c.name.as_str()).collect();
    if let Spec::Reasoning(s) = spec {
        names.extend(s.tools().iter().map(String::as_str));
    }
    names
}

/// Every check that can refuse a start, and every read it needs, done: the start to send the
/// run's object, with the document its `spec` was checked from.
async fn prepare(
    backend: &dyn Backend,
    outside: &Outside<'_>,
    asked: Asked,
    view: &DefinitionView,
    spec: Result<Spec, Problem>,
) -> Result<StartRun, Problem> {
    let Asked { org, playbook, definition, input, run_id, now, within, by, again, stand_ins } = asked;
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
    // A rehearsal reaches no model and no tool server, so it needs none set up.
    let rehearsal = stand_ins.is_some();
    if !rehearsal {
        models_fit(outside.models, &spec)?;
    }
    if let Spec::Reasoning(s) = &spec {
        if !s.tools().is_empty() && !rehearsal {
            bind(outside.tools, &org, &playbook, s.tools(), outside.now).await?;
        }
    }
    let (rerun_of, reused) = match again {
        Some(a) => (Some(a.of), a.reused),
        None => (None, None),
    };
    let run = Run {
        within,
        started_by: Some(by),
        rerun_of,
        rehearsal,
        stand_ins: stand_ins.map(Box::new),
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
    let tools = if rehearsal {
        rehearsal::bound(&spec.calls().iter().map(|c| c.name.clone()).collect::<Vec<_>>())
    } else {
        calls_bound(outside, &org, &playbook, &spec).await?
    };
    Ok(StartRun { run, source: view.document.clone(), material, events, tools, reused })
}

/// That the model a function names is one the settings serve: a generation's gateway and its
/// allowed models, a reasoning function's provider. Also what `check_definition` says a run
/// would still need.
pub fn models_fit(models: &ModelSettings, spec: &Spec) -> Result<(), Problem> {
    if let Spec::Generation(s) = spec {
        let named = format!("{}/{}", s.gateway(), s.model().model);
        if !models.allows(&named) {
            return Err(Problem::unavailable(format!(
                "The model {named} is not one the operator of this runtime allows, so nothing was run. list_generation_models lists the models a generation function may name; ask whoever runs the runtime to add {named} to ALLOWED_MODELS."
            ))
            .with_kind(crate::core::ErrorCode::ModelNotAllowed));
        }
        if !models.providers.get(s.gateway()).is_some_and(|p| p.gateway) {
            return Err(Problem::unavailable(format!(
                "The model {}/{} names the gateway {}, which MODEL_GATEWAYS does not set up, so nothing was run. list_generation_models names the gateways this runtime has; whoever runs it sets them up.",
                s.gateway(),
                s.model().model,
                s.gateway()
            ))
            .with_kind(crate::core::ErrorCode::ModelNotConfigured));
        }
    }
    if let Spec::Reasoning(s) = spec {
        resolve(models, s.model())?;
    }
    Ok(())
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
