//! Arguments and words the definition tools share.

use serde_json::{json, Value};

use crate::core::definition::store::DefinitionView;
use crate::core::definition::{name_problem, Kind, Ref, NAME_MAX};
pub use crate::core::text::capitalized;
use crate::core::text::{append_if_room, cap, quote, SUMMARY_MAX};
use crate::core::Problem;

/// What each type is for, by the job of the part it takes; the `type` argument's description.
pub const TYPE_HELP: &str = "The type of definition, by the job of the part: reasoning when a model must judge, write or decide; lookup to read earlier runs or one tool that reads; interaction to ask a person and wait, or to notify; prediction to forecast a number from the playbook's events; computation for a deterministic calculation; generation when a model makes an image or speech, kept as an asset; workflow for the job itself, which runs the playbook's functions in order.";

/// `TYPE_HELP` as `/directory` lists it, which serves no generation function.
pub const DIRECTORY_TYPE_HELP: &str = "The type of definition, by the job of the part: reasoning when a model must judge, write or decide; lookup to read earlier runs or one tool that reads; interaction to ask a person and wait, or to notify; prediction to forecast a number from the playbook's events; computation for a deterministic calculation; workflow for the job itself, which runs the playbook's functions in order.";

pub fn type_arg() -> Value {
    let all: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
    json!({ "type": "string", "enum": all, "description": TYPE_HELP })
}

pub fn name_arg() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": NAME_MAX,
        "description": "The definition's name, its id within its type and playbook: lowercase letters, digits and single hyphens, starting with a letter, as approve-campaign-brief."
    })
}

pub fn source_arg() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 65536, "description": "The document: a line ---, the YAML front matter, a line ---, then the template body. The guide of the type (get_guide, such as reasoning-function) gives every key." })
}

pub fn overview_arg() -> Value {
    json!({ "type": "string", "description": "Markdown for a person, 40 to 4,000 characters, no HTML: what the definition does, what it takes and what it answers." })
}

pub fn diagram_arg() -> Value {
    json!({ "type": "string", "description": "A function's diagram, required on every save of a function and refused for a workflow: a Mermaid flowchart of how it works, first line flowchart TD (or LR), then its nodes and edges." })
}

/// The type named by the `type` argument, refused where the runtime does not serve it.
pub fn served_kind(raw: &str) -> Result<Kind, Problem> {
    let kind = Kind::parse(raw).ok_or_else(|| Problem::invalid("/type", "names no type of definition"))?;
    if kind.served() {
        Ok(kind)
    } else {
        Err(kind.not_served())
    }
}

/// The one definition a read narrows to, named by `type` and `name` together, or none with
/// neither; `whose` says what the name is for, as `the function whose runs to list`.
pub fn narrowed_to(kind: Option<String>, name: Option<String>, whose: &str) -> Result<Option<Ref>, Problem> {
    match (kind, name) {
        (Some(k), Some(name)) => Ok(Some(Ref { kind: served_kind(&k)?, name })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(Problem::invalid("/name", format!("is needed with type: name {whose}"))),
        (None, Some(_)) => Err(Problem::invalid("/type", "is needed with name: a name is unique within its type")),
    }
}

pub fn check_name(name: &str) -> Result<(), Problem> {
    match name_problem(name) {
        Some(why) => Err(Problem::invalid("/name", why)),
        None => Ok(()),
    }
}

/// `the computation function “add-vat”`
pub fn named(view: &DefinitionView) -> String {
    format!("the {} {}", view.definition.kind.noun(), quote(&view.definition.name))
}

/// `What it does: …` with the document's description, ending as a sentence.
pub fn what_it_does(view: &DefinitionView) -> String {
    let d = view.definition.description.trim_end_matches('.');
    format!("What it does: {d}.")
}

/// Adds the page note where the definition has no page and the summary has room.
pub fn with_page_note(summary: String, view: &DefinitionView) -> String {
    let summary = cap(&summary, SUMMARY_MAX);
    if view.definition.has_page {
        summary
    } else {
        append_if_room(summary, "It has no page yet; the page guide says how to give it one.")
    }
}

/// The answer of a save with `studio`, the definition's page in Studio, which the agent gives the
/// person without being asked (spec: Links to Studio).
pub fn saved_output(
    ctx: &super::Ctx<'_>,
    playbook: &str,
    view: &DefinitionView,
) -> Result<Value, crate::core::Problem> {
    let mut v = output(view)?;
    let d = &view.definition;
    v["studio"] = Value::String(crate::core::studio::definition(
        &ctx.connections.base,
        &ctx.caller.org,
        playbook,
        d.kind.as_str(),
        &d.name,
    ));
    Ok(v)
}

pub fn output(view: &DefinitionView) -> Result<Value, crate::core::Problem> {
    let mut v = crate::core::error::encoded(view)?;
    if let Some(o) = v.as_object_mut() {
        o.remove("changed");
    }
    Ok(v)
}
