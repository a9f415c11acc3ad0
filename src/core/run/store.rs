//! What the run's object, and the playbook's index of runs and open requests, are asked.

use serde::{Deserialize, Serialize};

use serde_json::Value;

use super::Run;
use crate::core::definition::Ref;
use crate::core::error::Problem;
use crate::core::event::NewEvent;

pub const LIST_LIMIT_DEFAULT: usize = 20;
pub const LIST_LIMIT_MAX: usize = 100;

/// A run to start, with the document of the version it runs and what it reads, gathered
/// before the start so that the start itself stays synchronous.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartRun {
    pub run: Run,
    pub source: String,
    /// The runs a lookup reads.
    #[serde(default)]
    pub material: Vec<Run>,
    /// The events a prediction forecasts from.
    #[serde(default)]
    pub events: Vec<crate::core::event::Event>,
    /// The tools a run without a model calls, in order, as its start found them offered.
    #[serde(default)]
    pub tools: Vec<crate::core::definition::reasoning::dialogue::Bound>,
    /// For a workflow run again from a step: the states its steps before that one take from the
    /// old run, and the order the old run started them in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused: Option<Reused>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reused {
    pub steps: Vec<crate::core::workflow::state::StepState>,
    pub started: Vec<String>,
    /// The run each reused step's function ran as.
    #[serde(default)]
    pub runs: std::collections::BTreeMap<String, String>,
}

/// A read of a workflow run's plan and state, which a run again from one of its steps takes
/// its earlier steps' outputs from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadFlow {
    pub run_id: String,
}

/// A workflow run's plan and state as its object keeps them; none for a function's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowRead {
    pub plan: crate::core::workflow::Plan,
    pub flow: crate::core::workflow::Flow,
}

/// A run a workflow's step starts. A run that ends at its start answers what it recorded with
/// it, for the workflow run to keep and report with its own history: one call to the playbook
/// for a round of steps rather than one for each step (docs/performance.md). It keeps the same in its own
/// outbox, so a workflow cut off before keeping it asks again and is answered it again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartStep {
    pub start: StartRun,
}

/// A step's run as its start left it, with the events it recorded when it ended at once, keyed
/// as the step's run would have sent them; the workflow run carries the run itself to the index
/// after them. Empty when the run goes on, or recorded anything but events: it reports itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stepped {
    pub run: Run,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carried: Vec<Report>,
}

/// One row of the playbook's index of runs, which `list_runs` pages through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    pub run_id: String,
    pub definition: Ref,
    pub version: u32,
    pub status: String,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// For a run a workflow's step started: the workflow run and the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<super::Within>,
    /// For a run started again with `rerun_run`: the run it was started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_of: Option<String>,
    /// A rehearsal, which lists leave apart unless asked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rehearsal: bool,
}

impl RunEntry {
    pub fn of(run: &Run) -> RunEntry {
        RunEntry {
            run_id: run.run_id.clone(),
            definition: run.definition.clone(),
            version: run.version,
            status: run.status.word().into(),
            started_at: run.started_at.clone(),
            finished_at: run.status.finished_at().map(str::to_string),
            within: run.within.clone(),
            rerun_of: run.rerun_of.as_ref().map(|r| r.run_id.clone()),
            rehearsal: run.rehearsal,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunQuery {
    pub definition: Option<Ref>,
    pub status: Option<String>,
    /// Whether the runs a workflow's steps started are listed too.
    #[serde(default = "yes")]
    pub steps: bool,
    pub limit: usize,
    /// The position the page before ended at; pages go newest first.
    pub before: Option<i64>,
    /// Only the runs started at or after this time, and before `started_before`: each as
    /// `text::stamp` writes it, as runs stamp their start, so that the stores compare them as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_before: Option<String>,
    /// Only the runs started again from this run with `rerun_run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_of: Option<String>,
    /// Rehearsals alone, rather than the runs that are not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rehearsal: bool,
}

impl RunQuery {
    /// Whether a run started at `started_at` is within the query's span of start times.
    pub fn spans(&self, started_at: &str) -> bool {
        self.started_after.as_deref().is_none_or(|after| started_at >= after)
            && self.started_before.as_deref().is_none_or(|before| started_at < before)
    }
}

/// A time a caller names, as the stores compare it: RFC 3339 with any offset, stamped in UTC.
pub fn read_time(pointer: &str, text: &str) -> Result<String, Problem> {
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| crate::core::text::stamp(t.to_utc()))
        .map_err(|_| Problem::invalid(pointer, "must be a time in RFC 3339, such as 2026-11-30T17:00:00Z"))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPage {
    pub runs: Vec<RunEntry>,
    pub next_cursor: Option<String>,
}

crate::core::json::tagged::tagged! {
    /// A write to the playbook's index of runs.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum IndexCommand as "op" {
        /// Records a run whole: how it stands, with its input and output, for lookups to read.
        Record(Box<Run>),
    }
}

/// A write to a playbook's index of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteIndex {
    pub playbook: String,
    pub command: IndexCommand,
}

/// A page of a playbook's index of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRuns {
    pub playbook: String,
    pub query: RunQuery,
}

/// The newest runs of one definition whole, with their input and output, for a lookup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadRuns {
    pub playbook: String,
    pub definition: Ref,
    pub limit: usize,
}

fn yes() -> bool {
    true
}

pub const STATUSES: [&str; 4] = ["started", "succeeded", "failed", "cancelled"];

pub fn decode_cursor(token: &str) -> Result<i64, Problem> {
    token
        .strip_prefix("r")
        .and_then(|n| n.parse::<i64>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| Problem::invalid("/cursor", "is not a cursor this list gave; pass next_cursor as it came"))
}

pub fn encode_cursor(position: i64) -> String {
    format!("r{position}")
}

/// When a run that finishes later is worth reading again: the median time the definition's recent
/// runs took to end, within 5 seconds and an hour; a minute when none has ended yet.
pub fn check_back_seconds(recent: &[Run]) -> u64 {
    let mut seconds: Vec<i64> = recent
        .iter()
        .filter_map(|r| {
            let start = chrono::DateTime::parse_from_rfc3339(&r.started_at).ok()?;
            let end = chrono::DateTime::parse_from_rfc3339(r.status.finished_at()?).ok()?;
            Some((end - start).num_seconds())
        })
        .collect();
    if seconds.is_empty() {
        return 60;
    }
    seconds.sort_unstable();
    seconds[seconds.len() / 2].clamp(5, 3600) as u64
}

/// An open request of an interaction, as `list_interactions` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenRequest {
    pub run_id: String,
    pub definition: Ref,
    pub question: String,
    pub answer_schema: serde_json::Value,
    pub asked_at: String,
    /// When it expires unanswered; none for a request from before requests expired.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

crate::core::json::tagged::tagged! {
    /// A run opens its request when it begins to wait for an answer, and closes it when it stops.
    /// Kept in a run's outbox until its playbook takes it.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum RequestCommand as "op" {
        Open(OpenRequest),
        Close { run_id: String },
    }
}

/// A write to a playbook's open requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteRequests {
    pub playbook: String,
    pub command: RequestCommand,
}

/// A page of a playbook's open requests, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListRequests {
    pub playbook: String,
    pub limit: usize,
    /// The position the page before ended at.
    pub before: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestPage {
    pub requests: Vec<OpenRequest>,
    pub next_cursor: Option<String>,
}

crate::core::json::tagged::tagged! {
    /// What a run's object hands its playbook, in the order it happened.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Report as "report" {
        Event(crate::core::event::NewEvent),
        Request(RequestCommand),
        /// A run a workflow's step started ended after its start answered: the workflow run hears.
        Parent {
            within: super::Within,
            child: String,
            outcome: crate::core::workflow::Outcome,
        },
        /// A workflow run's step began to wait for events of a kind, which the playbook delivers.
        Wait {
            kind: String,
        },
        /// A step's run as it ended at its start, which its workflow run carries to the index
        /// after the events it carried (see `StartStep`).
        Index(Box<Run>),
    }
}

/// A read of a run as it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetRun {
    pub run_id: String,
}

/// A cancel of a run that is still going.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelRun {
    pub run_id: String,
}

/// A person's answer to the request of a waiting run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerRun {
    pub run_id: String,
    pub answer: serde_json::Value,
    pub by: crate::core::actor::Actor,
}

/// A step's run ended after its start answered.
#[derive(Debug, Serialize, Deserialize)]
pub struct ChildEnded {
    pub run_id: String,
    pub step: String,
    pub child: String,
    pub outcome: crate::core::workflow::Outcome,
}

/// An event sent to the run with `send_run_event`.
#[derive(Debug, Serialize, Deserialize)]
pub struct SentEvent {
    pub run_id: String,
    pub name: String,
    #[serde(default)]
    pub data: serde_json::Value,
}

/// An event of the run, in its family's history.
pub fn event(run: &Run, kind: &str, at: &str, summary: String, mut data: Value) -> Report {
    if run.rehearsal {
        if let Some(object) = data.as_object_mut() {
            object.insert("rehearsal".into(), Value::Bool(true));
        }
    }
    Report::Event(NewEvent {
        kind: kind.into(),
        at: at.into(),
        summary,
        run_id: Some(run.run_id.clone()),
        data,
        family: Some(run.family().to_string()),
        key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::Kind;
    use crate::core::run::RunStatus;

    #[test]
    fn check_back_follows_recent_runs() {
        let ended = |start: &str, end: &str| {
            let definition = Ref { kind: Kind::Interaction, name: "a".into() };
            let status = RunStatus::Succeeded { output: serde_json::json!({}), finished_at: end.into() };
            Run { status, ..Run::started("r", ("", "pb"), definition, 1, serde_json::json!({}), start) }
        };
        assert_eq!(check_back_seconds(&[]), 60);
        let runs = [
            ended("2026-12-01T10:00:00Z", "2026-12-01T10:02:00Z"),
            ended("2026-12-01T11:00:00Z", "2026-12-01T11:10:00Z"),
            ended("2026-12-01T12:00:00Z", "2026-12-01T12:00:01Z"),
        ];
        assert_eq!(check_back_seconds(&runs), 120);
        assert_eq!(check_back_seconds(&runs[2..]), 5);
    }

    fn succeeded() -> Run {
        let definition = Ref { kind: Kind::Computation, name: "a".into() };
        let status = RunStatus::Succeeded { output: serde_json::json!({"gross": 1.2}), finished_at: "t".into() };
        Run { status, ..Run::started("r", ("local", "pb_x"), definition, 1, serde_json::json!({"net": 1}), "t") }
    }

    #[test]
    fn a_recorded_run_travels_whole() {
        let run = succeeded();
        let text = serde_json::to_string(&IndexCommand::Record(Box::new(run.clone()))).unwrap();
        assert_eq!(serde_json::from_str::<IndexCommand>(&text).unwrap(), IndexCommand::Record(Box::new(run.clone())));
        let back: Run = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
        assert_eq!(back, run);
    }

    #[test]
    fn a_steps_carried_history_travels_whole() {
        let event = crate::core::event::NewEvent {
            kind: "run_succeeded".into(),
            at: "t".into(),
            summary: "It ended.".into(),
            run_id: Some("r".into()),
            data: serde_json::json!({ "output": { "gross": 1.2 } }),
            family: Some("wf".into()),
            key: Some("r#2".into()),
        };
        let stepped = Stepped { run: succeeded(), carried: vec![Report::Event(event)] };
        let text = serde_json::to_string(&stepped).unwrap();
        assert_eq!(serde_json::from_str::<Stepped>(&text).unwrap(), stepped);
        // As the workflow run keeps the run in its outbox, after the events.
        let index = Report::Index(Box::new(succeeded()));
        assert_eq!(serde_json::from_str::<Report>(&serde_json::to_string(&index).unwrap()).unwrap(), index);
        // A step's run that carried nothing answers as a run's start did, beside it.
        let bare = serde_json::json!({ "run": succeeded() });
        assert_eq!(serde_json::from_value::<Stepped>(bare).unwrap(), Stepped { run: succeeded(), carried: Vec::new() });
    }

    #[test]
    fn a_span_of_start_times_compares_as_stamped() {
        assert_eq!(read_time("/started_after", "2026-12-01T11:30:00+01:30"), Ok("2026-12-01T10:00:00.000Z".into()));
        let bad = read_time("/started_after", "yesterday").unwrap_err();
        assert_eq!(bad.errors[0].pointer, "/started_after");
        let query = |after: Option<&str>, before: Option<&str>| RunQuery {
            definition: None,
            status: None,
            steps: true,
            limit: 20,
            before: None,
            started_after: after.map(str::to_string),
            started_before: before.map(str::to_string),
            rerun_of: None,
            rehearsal: false,
        };
        let (at, later) = ("2026-12-01T10:00:00.000Z", "2026-12-01T10:00:00.001Z");
        assert!(query(None, None).spans(at));
        assert!(query(Some(at), None).spans(at), "after is from that time on");
        assert!(!query(Some(later), None).spans(at));
        assert!(!query(None, Some(at)).spans(at), "before is up to that time");
        assert!(query(Some(at), Some(later)).spans(at));
        // A query of the version before, without a span, reads as one without.
        let old = serde_json::json!({ "definition": null, "status": null, "limit": 20, "before": null });
        assert_eq!(serde_json::from_value::<RunQuery>(old).unwrap(), query(None, None));
    }

    #[test]
    fn writes_read_the_bodies_of_the_version_before() {
        // The bodies keep the shape run objects of the version before sent, so calls across a deploy read.
        let close = serde_json::json!({ "playbook": "pb_x", "command": { "op": "close", "run_id": "r" } });
        let read: WriteRequests = serde_json::from_value(close.clone()).unwrap();
        assert_eq!(read.command, RequestCommand::Close { run_id: "r".into() });
        assert_eq!(serde_json::to_value(&read).unwrap(), close);
        let run = Box::new(succeeded());
        let record = serde_json::json!({ "playbook": "pb_x", "command": IndexCommand::Record(run.clone()) });
        let read: WriteIndex = serde_json::from_value(record).unwrap();
        assert_eq!(read.command, IndexCommand::Record(run));
    }
}
