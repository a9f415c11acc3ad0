//! What `get_definition` and `get_run` answer of a definition's page: its standing and the runs
//! its page is given, a workflow's glance, the page rendered now or over a sample, and a run's `page.result`. Each
//! reads the definition's runs once, at most `page::RUNS_READ` of them.

use serde_json::{json, Map, Value};

use super::Ctx;
use crate::core::code::ErrorCode;
use crate::core::definition::page::{self, About, Over};
use crate::core::definition::store::DefinitionView;
use crate::core::definition::{check_document, spec};
use crate::core::run::store::RunEntry;
use crate::core::run::{Run, RunStatus};
use crate::core::Problem;

/// The words a render of a definition without a page answers, as its summaries write them.
pub const NO_PAGE: &str = "It has no page yet; the page guide says how to give it one.";

/// `sample_output`'s schema, for `get_definition`.
pub fn sample_arg() -> Value {
    json!({
        "description": format!("With render: the output of one made-up run that succeeded, to preview the page over it instead of over the definition's runs. It must fit the definition's output schema where it has one, and hold at most {} bytes as JSON.", page::SAMPLE_MAX_BYTES)
    })
}

/// Adds `standing`, `runs` (the newest 20, as `list_runs` lists them), a workflow's `glance`,
/// and with `render` the page, to a definition's answer.
/// Answers the words the summary adds.
pub async fn of_definition(
    ctx: &Ctx<'_>,
    playbook: &str,
    view: &DefinitionView,
    render: bool,
    sample_output: Option<Value>,
    into: &mut Map<String, Value>,
) -> Result<Option<String>, Problem> {
    let d = &view.definition;
    if sample_output.is_some() && !render {
        return Err(Problem::invalid("/sample_output", "is given with render: true, to preview the page over it"));
    }
    let sample = match sample_output {
        Some(output) => Some(checked_sample(d.kind, &view.document, output)?),
        None => None,
    };
    let reference = crate::core::definition::Ref { kind: d.kind, name: d.name.clone() };
    let runs = ctx.backend.read_runs(&ctx.caller.org, playbook, reference.clone(), page::RUNS_READ).await?;
    let standing = page::standing(&runs);
    let mut said = None;
    into.insert("standing".into(), crate::core::error::encoded(&standing)?);
    let listed: Vec<RunEntry> = runs.iter().take(page::RUNS_SHOWN).map(RunEntry::of).collect();
    into.insert("runs".into(), crate::core::error::encoded(&listed)?);
    let checked = check_document(d.kind, &view.document);
    let about = About { kind: d.kind.as_str(), name: &d.name, version: d.version, description: &d.description };
    let context = page::context(&about, &runs, None);
    if let Some(glance) = checked.as_ref().ok().and_then(|c| c.glance.as_ref()) {
        let shown = match page::render_glance(glance, &context) {
            Ok(shown) => crate::core::error::encoded(&shown)?,
            Err(failed) => json!({ "error": failed }),
        };
        into.insert("glance".into(), shown);
    }
    if render {
        let template = checked.as_ref().map(|c| c.page.as_deref());
        let (over, context) = match sample {
            Some(output) => {
                let run = page::sample_run(&reference, d.version, output, &ctx.now);
                let runs = [run];
                (Over::SampleOutput, page::context(&about, &runs, None))
            }
            None => (Over::Runs, context),
        };
        let (shown, words) = rendered(template, over, &context);
        said = words;
        into.insert("page".into(), shown);
    }
    Ok(said)
}

/// `page.result` of an ended run whose definition has a page: the page rendered over the runs as
/// they stood when it ended. None where either is not so, or the definition cannot be read.
pub async fn of_run(ctx: &Ctx<'_>, playbook: &str, run: &Run) -> Result<Option<Value>, Problem> {
    if matches!(run.status, RunStatus::Started { .. }) {
        return Ok(None);
    }
    let Ok(view) = ctx.backend.get_definition(&ctx.caller.org, playbook, run.definition.clone()).await else {
        return Ok(None);
    };
    let d = &view.definition;
    let Some(template) = check_document(d.kind, &view.document).ok().and_then(|c| c.page) else {
        return Ok(None);
    };
    let runs = ctx.backend.read_runs(&ctx.caller.org, playbook, run.definition.clone(), page::RUNS_READ).await?;
    let stood = page::as_it_stood(&runs, run);
    let about = About { kind: d.kind.as_str(), name: &d.name, version: d.version, description: &d.description };
    let context = page::context(&about, &stood, Some(run));
    Ok(Some(match page::render(&template, &context) {
        Ok(markdown) => json!({ "result": markdown }),
        Err(failed) => json!({ "result": null, "error": failed }),
    }))
}

/// `{markdown, over}`, or where it has no page or did not render, `markdown: null` and the words.
/// A document saved before a rule it now breaks is read, and its page not rendered, with why.
fn rendered(template: Result<Option<&str>, &Problem>, over: Over, context: &Value) -> (Value, Option<String>) {
    let template = match template {
        Ok(Some(t)) => t,
        Ok(None) => return (json!({ "markdown": null, "over": over, "says": NO_PAGE }), Some(NO_PAGE.to_string())),
        Err(p) => {
            let says = format!("The page is not rendered: the document no longer passes its checks. {}", p.detail);
            return (json!({ "markdown": null, "over": over, "says": says }), Some(says));
        }
    };
    match page::render(template, context) {
        Ok(markdown) => (json!({ "markdown": markdown, "over": over }), None),
        Err(failed) => {
            let says = format!("The page did not render, at {}: {}.", failed.pointer, failed.detail);
            (json!({ "markdown": null, "over": over, "says": says, "error": failed }), Some(says))
        }
    }
}

/// A sample output, refused at `/sample_output` where it is too large or misses the output schema.
fn checked_sample(kind: crate::core::definition::Kind, document: &str, output: Value) -> Result<Value, Problem> {
    let size = serde_json::to_string(&output).map(|s| s.len()).unwrap_or(usize::MAX);
    if size > page::SAMPLE_MAX_BYTES {
        return Err(Problem::invalid(
            "/sample_output",
            format!("is {size} bytes as JSON, more than the {} a sample may hold", page::SAMPLE_MAX_BYTES),
        ));
    }
    if let Some(schema) = spec(kind, document).ok().as_ref().and_then(|s| s.output_schema()) {
        crate::core::schema::check(schema, &output, "/sample_output", ErrorCode::OutputSchema)?;
    }
    Ok(output)
}
