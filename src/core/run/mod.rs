//! Runs: one execution of a function with one input, its status (each carrying its own data),
//! and the rules of retrying under a run id. Each type's evaluation sits by its checker, in
//! `definition::<type>`.

pub mod calls;
pub mod error;
pub mod life;
pub mod record;
pub mod rehearsal;
pub mod stats;
pub mod stats_words;
pub mod store;
pub mod words;

pub use error::RunError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::actor::Actor;
use super::definition::Ref;
use super::error::Problem;
use super::ids::RANDOM_CHARS;

pub const RUN_ID_MAX: usize = 64;

crate::core::json::tagged::tagged! {
    /// How a run stands; each state carries what only it has.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum RunStatus as "status" {
        /// Still going; an interaction's run waits here for a person's answer.
        Started {
            #[serde(default, skip_serializing_if = "Option::is_none")]
            waiting: Option<Request>,
        },
        Succeeded {
            output: Value,
            finished_at: String,
        },
        Failed {
            error: RunError,
            finished_at: String,
        },
        Cancelled {
            finished_at: String,
        },
    }
}

impl RunStatus {
    pub fn word(&self) -> &'static str {
        match self {
            RunStatus::Started { .. } => "started",
            RunStatus::Succeeded { .. } => "succeeded",
            RunStatus::Failed { .. } => "failed",
            RunStatus::Cancelled { .. } => "cancelled",
        }
    }

    pub fn finished_at(&self) -> Option<&str> {
        match self {
            RunStatus::Started { .. } => None,
            RunStatus::Succeeded { finished_at, .. }
            | RunStatus::Failed { finished_at, .. }
            | RunStatus::Cancelled { finished_at } => Some(finished_at),
        }
    }
}

/// What an interaction asks a person, and the shape its answer must take.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub question: String,
    pub answer_schema: Value,
    pub asked_at: String,
    /// When the request expires unanswered, and the run with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Where the request is sent through a tool: what reads its replies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub through: Option<Box<Through>>,
}

/// A request sent through one tool whose replies another reads, every so often.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Through {
    /// `server/tool` of each.
    pub send: String,
    pub replies: String,
    /// The reading tool's arguments as written: templates over `input`, `question` and `sent`.
    pub replies_arguments: Value,
    pub every_seconds: u64,
    /// What the sending tool answered, `{text, structured}`, once it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent: Option<Value>,
    /// The reading tool, as the run's start found it offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reader: Option<crate::core::definition::reasoning::dialogue::Bound>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub run_id: String,
    /// The org and playbook the run belongs to, which name the objects it reports to.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub org: String,
    pub playbook: String,
    pub definition: Ref,
    pub version: u32,
    pub input: Value,
    #[serde(flatten)]
    pub status: RunStatus,
    pub started_at: String,
    /// For a run a workflow's step started: the workflow run and the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<Within>,
    /// For a workflow run, as its object answers it: each step, in the order it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<super::workflow::step_view::StepView>>,
    /// Who or what started the run: a caller, a trigger, or a workflow run's step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_by: Option<Actor>,
    /// Who answered an interaction's request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<Actor>,
    /// How the run went, in detail; `get_run` alone answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<record::Record>,
    /// The run this one was started again from, with `rerun_run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_of: Option<RerunOf>,
    /// A rehearsal: nothing it does reaches outside the runtime.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rehearsal: bool,
    /// What answers a rehearsal's calls in place of tools, models and people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_ins: Option<Box<rehearsal::StandIns>>,
}

/// What a run was started again from: the run, and the step it went on from (none for a
/// function's run, or a workflow's run again whole).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RerunOf {
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_step: Option<String>,
}

/// The workflow run, and its step, that started a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Within {
    pub run_id: String,
    pub step: String,
}

impl Run {
    /// A run that has just started: one version of a definition, with its input, in one playbook.
    pub fn started(
        run_id: impl Into<String>,
        (org, playbook): (&str, &str),
        definition: Ref,
        version: u32,
        input: Value,
        started_at: impl Into<String>,
    ) -> Run {
        Run {
            run_id: run_id.into(),
            org: org.to_string(),
            playbook: playbook.to_string(),
            definition,
            version,
            input,
            status: RunStatus::Started { waiting: None },
            started_at: started_at.into(),
            within: None,
            steps: None,
            started_by: None,
            answered_by: None,
            record: None,
            rerun_of: None,
            rehearsal: false,
            stand_ins: None,
        }
    }

    /// The run whose history holds this one's: the workflow run that started it, or itself.
    pub fn family(&self) -> &str {
        self.within.as_ref().map_or(&self.run_id, |w| &w.run_id)
    }
}

/// `run_` and 16 base32 characters, for a run whose caller named no id.
pub fn run_id(random: [u8; RANDOM_CHARS]) -> String {
    super::ids::playbook_id(random).replacen("pb_", "run_", 1)
}

/// A run id a caller chooses: 1 to 64 letters, digits, `-` and `_`.
pub fn check_run_id(id: &str) -> Result<(), Problem> {
    if id.is_empty()
        || id.len() > RUN_ID_MAX
        || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(Problem::invalid("/run_id", format!("must be 1 to {RUN_ID_MAX} letters, digits, - and _")));
    }
    Ok(())
}

/// What a start under a run id does, given the run that id already names, if any.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // lives for one start; boxing would buy nothing
pub enum Start {
    /// Nothing has this id: start it.
    New,
    /// The same request again: answer the run as it stands and run nothing.
    Existing(Run),
}

pub fn decide_start(existing: Option<&Run>, definition: &Ref, input: &Value) -> Result<Start, Problem> {
    let Some(run) = existing else {
        return Ok(Start::New);
    };
    if run.definition != *definition || run.input != *input {
        return Err(Problem::conflict(format!(
            "The run id {} names an earlier run of {} with another input. A new run needs a new run id.",
            run.run_id,
            run.definition.key()
        ))
        .with_field("/run_id", "names a run with another input"));
    }
    match &run.status {
        RunStatus::Failed { .. } | RunStatus::Cancelled { .. } => Err(Problem::conflict(format!(
            "The run {} ended {} and is never run again under its id. Start a new run with a new run id, or with none.",
            run.run_id,
            run.status.word()
        ))
        .with_field("/run_id", "names a run that ended without succeeding")),
        _ => Ok(Start::Existing(run.clone())),
    }
}

/// A start under an id that names a run of the other sort: a rehearsal and a run never share one.
pub fn check_sort(existing: Option<&Run>, rehearsal: bool) -> Result<(), Problem> {
    match existing {
        Some(run) if run.rehearsal != rehearsal => {
            let (named, asked) = if run.rehearsal { ("a rehearsal", "run") } else { ("a run", "rehearsal") };
            Err(Problem::conflict(format!(
                "The run id {} names {named}, and a {asked} never takes its id. Start it with a new run id, or with none.",
                run.run_id
            ))
            .with_field("/run_id", format!("names {named}")))
        }
        _ => Ok(()),
    }
}

/// Checks an input against the function's input schema; each problem points into `input`.
pub fn check_input(schema: &Value, input: &Value) -> Result<(), Problem> {
    crate::core::schema::check(schema, input, "/input", super::code::ErrorCode::InputSchema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::Kind;
    use serde_json::json;

    fn run(status: RunStatus) -> Run {
        let definition = Ref { kind: Kind::Computation, name: "add-vat".into() };
        Run { status, ..Run::started("r1", ("local", "pb_x"), definition, 1, json!({"net": 100}), "t0") }
    }

    #[test]
    fn retrying_under_a_run_id() {
        let def = Ref { kind: Kind::Computation, name: "add-vat".into() };
        assert_eq!(decide_start(None, &def, &json!({})), Ok(Start::New));
        let ok = run(RunStatus::Succeeded { output: json!({}), finished_at: "t1".into() });
        assert!(matches!(decide_start(Some(&ok), &def, &json!({"net": 100})), Ok(Start::Existing(_))));
        assert!(decide_start(Some(&ok), &def, &json!({"net": 5})).is_err());
        let failed = run(RunStatus::Failed {
            error: RunError { reason: crate::core::ErrorCode::Internal, detail: "y".into() },
            finished_at: "t1".into(),
        });
        let p = decide_start(Some(&failed), &def, &json!({"net": 100})).unwrap_err();
        assert!(p.detail.contains("new run id"), "{}", p.detail);
    }

    #[test]
    fn input_problems_point_into_input() {
        let schema = json!({"type": "object", "properties": {"net": {"type": "number"}}, "required": ["net"]});
        let p = check_input(&schema, &json!({"net": "x"})).unwrap_err();
        assert_eq!((p.errors[0].pointer.as_str(), p.kind), ("/input/net", Some(crate::core::ErrorCode::InputSchema)));
        assert!(check_run_id("order-42_b").is_ok() && check_run_id("no spaces").is_err());
        assert!(run_id([1; RANDOM_CHARS]).starts_with("run_"));
    }
}
