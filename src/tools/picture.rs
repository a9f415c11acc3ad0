//! The `picture` of a workflow on `get_definition` and of a workflow's run on `get_run`: where
//! Studio serves it as SVG, and, with `picture: true`, the SVG itself, so an agent can show the
//! person how the workflow goes or how the run went.

use serde_json::{json, Map, Value};

use super::Ctx;
use crate::core::definition::store::DefinitionView;
use crate::core::definition::workflow::plan;
use crate::core::definition::Kind;
use crate::core::picture::{self, MEDIA_TYPE};
use crate::core::run::Run;
use crate::core::studio;

/// The optional argument both tools take.
pub fn arg(of: &str) -> Value {
    json!({
        "type": "boolean",
        "default": false,
        "description": format!("true adds the SVG of {of} to the answer's picture, as svg; without it the picture gives only its url.")
    })
}

fn answer(url: String, svg: Option<String>) -> Value {
    let mut p = Map::new();
    p.insert("url".into(), Value::String(url));
    p.insert("media_type".into(), Value::String(MEDIA_TYPE.into()));
    if let Some(svg) = svg {
        p.insert("svg".into(), Value::String(svg));
    }
    Value::Object(p)
}

/// A workflow's picture, drawn from its current version; none for a function.
pub fn of_definition(ctx: &Ctx<'_>, playbook: &str, view: &DefinitionView, svg: bool) -> Option<Value> {
    let d = &view.definition;
    if d.kind != Kind::Workflow {
        return None;
    }
    let url = studio::definition_picture(&ctx.connections.base, &ctx.caller.org, playbook, &d.name);
    let drawn = svg.then(|| plan(&view.document).ok()).flatten().map(|p| picture::workflow(&p, &d.name));
    Some(answer(url, drawn))
}

/// A workflow run's picture: its steps drawn on its workflow, as the workflow now stands; none
/// for a function's run. The run is answered whatever the workflow's read gives: where it fails,
/// the picture has its url alone.
pub async fn of_run(ctx: &Ctx<'_>, run: &Run, svg: bool) -> Option<Value> {
    let steps = run.steps.as_ref().filter(|_| run.definition.kind == Kind::Workflow)?;
    let url = studio::run_picture(&ctx.connections.base, &ctx.caller.org, &run.playbook, &run.run_id);
    let mut drawn = None;
    // A workflow that can no longer be read leaves the run readable, with its picture's url.
    let view = if svg {
        ctx.backend.get_definition(&ctx.caller.org, &run.playbook, run.definition.clone()).await.ok()
    } else {
        None
    };
    if let Some(view) = view {
        // The run's own version is kept by its run alone; a later one is said on the picture.
        let name = match view.definition.version {
            v if v == run.version => run.definition.name.clone(),
            v => format!("{} (version {}, drawn on version {v})", run.definition.name, run.version),
        };
        if let Ok(p) = plan(&view.document) {
            drawn = Some(match run.rehearsal {
                true => picture::rehearsal(&p, steps, &name),
                false => picture::run(&p, steps, &name),
            });
        }
    }
    Some(answer(url, drawn))
}
