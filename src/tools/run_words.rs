//! Words the run tools share: how a run's state reads in a summary.

use crate::core::definition::Kind;
use crate::core::run::words::output_words;
use crate::core::run::{Run, RunStatus};
use crate::core::text::{cap, quote, SUMMARY_MAX};

/// The arguments of a tool that names one run of a playbook.
pub fn run_ref_schema(what: &str) -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "playbook": super::schema::playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": what }
        },
        "required": ["playbook", "run_id"],
        "additionalProperties": false
    })
}

#[derive(serde::Deserialize)]
pub struct RunRef {
    pub playbook: String,
    pub run_id: String,
}

/// A run as every tool but `get_run` answers it: without its detailed record.
pub fn answered(run: &Run) -> Result<serde_json::Value, crate::core::Problem> {
    let mut v = shown(run)?;
    if let Some(o) = v.as_object_mut() {
        o.remove("record");
        // The caller's own stand-ins; get_run shows them.
        o.remove("stand_ins");
    }
    Ok(v)
}

/// A run as its answers show it: without what its object keeps only to carry on, the reading
/// tool of a request sent through a tool.
pub fn shown(run: &Run) -> Result<serde_json::Value, crate::core::Problem> {
    let mut v = crate::core::error::encoded(run)?;
    if let Some(through) = v.pointer_mut("/waiting/through").and_then(|t| t.as_object_mut()) {
        through.remove("reader");
    }
    Ok(v)
}

/// `the computation function “add-vat”`
pub fn of(run: &Run) -> String {
    format!("the {} {}", run.definition.kind.noun(), quote(&run.definition.name))
}

/// What a run came to, in one or two sentences.
pub fn outcome(run: &Run) -> String {
    let text = match &run.status {
        RunStatus::Started { waiting: Some(_) } => format!(
            "The run {} of {} has started and waits for a person's answer: list_interactions shows the request, and answer_interaction answers it. It carries on by itself, and get_run shows how it ends.",
            run.run_id,
            of(run)
        ),
        RunStatus::Started { waiting: None } if run.definition.kind == Kind::Workflow => format!(
            "The workflow {} is still running; how it ends can be looked up again later.",
            quote(&run.definition.name)
        ),
        RunStatus::Started { waiting: None } => format!(
            "The run {} of {} is still running. It carries on by itself, and get_run shows how it ends.",
            run.run_id,
            of(run)
        ),
        RunStatus::Succeeded { output, .. } => match output_words(output) {
            Some(words) => format!("The run of {} finished. Its {}: {words}", of(run), result_word(run)),
            None => format!("The run of {} finished. Its result is in structuredContent, as output.", of(run)),
        },
        RunStatus::Failed { error, .. } => format!(
            "The run {} of {} failed ({}): {} A new run needs a new run id, or none.",
            run.run_id,
            of(run),
            error.reason,
            error.detail.trim_end_matches('.').to_string() + "."
        ),
        RunStatus::Cancelled { .. } => format!("The run {} of {} was cancelled.", run.run_id, of(run)),
    };
    cap(&text, SUMMARY_MAX)
}

/// What `run_definition` says of a run it started: a workflow's carries on by itself.
pub fn started(run: &Run) -> String {
    let said = match (&run.status, run.definition.kind) {
        (RunStatus::Started { waiting: None }, Kind::Workflow) => format!(
            "The workflow {} has started and is still running. It carries on by itself, and how it ends can be looked up later.",
            quote(&run.definition.name)
        ),
        _ => outcome(run),
    };
    if run.rehearsal {
        format!("Rehearsal, in which nothing reached outside the runtime: {said}")
    } else {
        said
    }
}

/// An interaction's run ends with a person's answer; any other with its result.
fn result_word(run: &Run) -> &'static str {
    if run.definition.kind == Kind::Interaction {
        "answer"
    } else {
        "result"
    }
}
