//! A run's calls of tools: the events that record each call as it starts and as it ends, the
//! record of a call, and what the end of its one call makes of a run that calls without a model
//! (a lookup through a tool, a notification, a request sent through a tool).

use serde_json::{json, Map, Value};

use super::record::{CallOutcome, CallRecord, Reasoned, Record};
use super::store::{event, Report, RequestCommand};
use super::{Run, RunError, RunStatus};
use crate::core::definition::reasoning::dialogue::{Bound, Called, Planned, Refused};
use crate::core::definition::Kind;
use crate::core::text::{cap, count, quote, start_within};
use crate::core::ErrorCode;

/// The most of a tool's answer the history keeps; `get_event` reads up to this.
pub const ANSWER_KEPT_MAX: usize = 262_144;
/// The most of a tool's error words a failed run quotes.
const ERROR_QUOTED_MAX: usize = 500;

/// The one call of a run without a model.
pub fn only(tool: Bound, arguments: Map<String, Value>) -> Planned {
    Planned { number: 1, use_id: String::new(), tool, arguments }
}

/// The record of a call as it starts.
pub fn started_record(p: &Planned) -> CallRecord {
    CallRecord {
        number: p.number,
        tool: p.tool.named(),
        read_only: p.tool.read_only,
        outcome: CallOutcome::Started,
        size: None,
        duration_ms: None,
        because: None,
    }
}

/// The record of a call once it ended.
pub fn end_record(c: &mut CallRecord, called: &Called, duration_ms: u64) {
    c.duration_ms = Some(duration_ms);
    match called {
        Called::Answered { text, is_error, .. } => {
            c.outcome = if *is_error { CallOutcome::Error } else { CallOutcome::Answered };
            c.size = Some(text.len());
        }
        Called::Failed { because, .. } => {
            c.outcome = CallOutcome::Failed;
            c.because = Some(because.clone());
        }
    }
}

fn fields(p: &Planned) -> Map<String, Value> {
    let mut data = Map::new();
    data.insert("number".into(), json!(p.number));
    data.insert("name".into(), json!(p.tool.named()));
    data.insert("server".into(), json!(p.tool.server));
    data.insert("tool".into(), json!(p.tool.tool));
    data
}

/// `tool_call_started`: the call kept before it is made, with its arguments, or their size where
/// the server's entry keeps no content.
pub fn started(run: &Run, p: &Planned, now: &str) -> Report {
    let mut data = fields(p);
    data.insert("read_only".into(), json!(p.tool.read_only));
    let arguments = Value::Object(p.arguments.clone());
    if p.tool.record_content {
        data.insert("arguments".into(), arguments);
    } else {
        data.insert("arguments_size".into(), json!(arguments.to_string().len()));
    }
    let words = format!("Call {} of {} started.", p.number, quote(&p.tool.named()));
    event(run, "tool_call_started", now, words, Value::Object(data))
}

/// `tool_call_answered` or `tool_call_failed`: how the call ended.
pub fn ended(run: &Run, p: &Planned, called: &Called, duration_ms: u64, now: &str) -> Report {
    let mut data = fields(p);
    data.insert("duration_ms".into(), json!(duration_ms));
    let named = quote(&p.tool.named());
    match called {
        Called::Answered { text, structured, is_error, assets, .. } => {
            data.insert("size".into(), json!(text.len()));
            data.insert("is_error".into(), json!(is_error));
            if p.tool.record_content {
                data.insert("answer".into(), answer(text, structured.as_ref()));
            }
            // The images the answer carried, kept as assets: the event names them, not their bytes.
            if !assets.is_empty() {
                data.insert("assets".into(), json!(assets));
            }
            let how = if *is_error { "answered an error" } else { "answered" };
            let words =
                format!("Call {} of {named} {how} ({}) in {duration_ms} ms.", p.number, count(text.len(), "byte"));
            event(run, "tool_call_answered", now, words, Value::Object(data))
        }
        Called::Failed { because, detail } => {
            data.insert("because".into(), json!(because));
            data.insert("detail".into(), json!(detail));
            let words = format!("Call {} of {named} got no answer ({because}).", p.number);
            event(run, "tool_call_failed", now, words, Value::Object(data))
        }
    }
}

/// An answer as history keeps it: its text up to the bound, and its structured content where it
/// fits.
pub fn answer(text: &str, structured: Option<&Value>) -> Value {
    let mut kept = json!({ "text": start_within(text, ANSWER_KEPT_MAX) });
    if let Some(s) = structured.filter(|s| s.to_string().len() <= ANSWER_KEPT_MAX) {
        kept["structured"] = s.clone();
    }
    kept
}

/// Why a call that got no answer fails its run: whether it acted is unknown.
pub fn no_answer(p: &Planned, because: &str, detail: &str) -> RunError {
    RunError::new(
        ErrorCode::ToolFailed,
        format!(
            "The tool server {} gave no answer to the call of {} (call {}), {because}: {detail}. Whether the call acted is unknown, so the run stopped; start a new run once search shows the server available.",
            quote(&p.tool.server),
            quote(&p.tool.tool),
            p.number
        ),
    )
}

/// The model asked for calls: those refused, with why, and those kept as started before they are
/// made, in the run's record and its history.
pub fn asked(run: &mut Run, mut record: Reasoned, planned: &[Planned], refused: &[Refused], now: &str) -> Vec<Report> {
    let mut reports = Vec::new();
    for r in refused {
        let words = format!("The model asked for {}, which was not called: {}", quote(&r.name), r.why);
        let data = json!({ "name": r.name, "why": r.why });
        reports.push(event(run, "tool_call_refused", now, cap(&words, 300), data));
    }
    for p in planned {
        record.tool_calls.push(started_record(p));
        reports.push(started(run, p, now));
    }
    run.record = Some(Record::Reasoning(record));
    reports
}

/// The end of a call, in the run's record; and what it makes of the run: a reasoning run goes on
/// unless its server gave no answer, a run without a model ends as its one call did.
pub fn end(run: &mut Run, p: &Planned, called: &Called, duration_ms: u64, now: &str) -> Vec<Report> {
    let Some(Record::Reasoning(record)) = run.record.as_mut() else {
        return take_end(run, p, called, duration_ms, now);
    };
    if let Some(c) = record.tool_calls.iter_mut().find(|c| c.number == p.number) {
        end_record(c, called, duration_ms);
    }
    if let (Called::Failed { because, detail }, RunStatus::Started { .. }) = (called, &run.status) {
        run.status = RunStatus::Failed { error: no_answer(p, because, detail), finished_at: now.to_string() };
    }
    Vec::new()
}

/// Why a run whose model or call a restart cut off failed: the call under way, where one was.
pub fn interrupted(record: Option<&Record>) -> String {
    const NEVER: &str = "Start a new run; this run id is never run again";
    match record {
        Some(Record::Call { call }) if call.outcome == CallOutcome::Started => format!(
            "The runtime stopped while the tool {} was called, so whether it acted is unknown. {NEVER}.",
            quote(&call.tool)
        ),
        Some(Record::Reasoning(r)) => match r.call_under_way() {
            Some(call) => format!(
                "The runtime stopped while the tool {} was called (call {}), so whether it acted is unknown. {NEVER}, since its tools may have acted.",
                quote(&call.tool),
                call.number
            ),
            None if !r.tool_calls.is_empty() => format!(
                "The runtime stopped while the model was answering, so its answer was lost. {NEVER}, since its tools may have acted."
            ),
            None => format!("The runtime stopped while the model was answering, so its answer was lost. {NEVER}."),
        },
        Some(Record::Generation(g)) => format!(
            "The runtime stopped while the gateway made what the model {} was asked for, so it was lost and nothing was kept. {NEVER}.",
            quote(&g.model)
        ),
        _ => format!("The runtime stopped while the model was answering, so its answer was lost. {NEVER}."),
    }
}

/// What the end of its one call makes of a run without a model; the reports it adds, in order.
/// A lookup answers what the tool read; a notification, that it was sent; a request sent through
/// a tool waits on, for its replies. A tool's error or no answer fails the run.
fn take_end(run: &mut Run, p: &Planned, called: &Called, duration_ms: u64, now: &str) -> Vec<Report> {
    if let Some(Record::Call { call }) = run.record.as_mut() {
        end_record(call, called, duration_ms);
    }
    let finished_at = now.to_string();
    let mut reports = Vec::new();
    let outcome: Result<Value, RunError> = match called {
        Called::Failed { because, detail } => Err(no_answer(p, because, detail)),
        Called::Answered { text, is_error: true, .. } => Err(RunError::new(
            ErrorCode::ToolError,
            format!(
                "The tool {} answered an error: {}",
                quote(&p.tool.named()),
                start_within(text.trim(), ERROR_QUOTED_MAX)
            ),
        )),
        Called::Answered { text, structured, .. } => {
            let mut output = json!({ "text": text });
            if let Some(s) = structured {
                output["structured"] = s.clone();
            }
            Ok(output)
        }
    };
    let waiting = match &mut run.status {
        RunStatus::Started { waiting: Some(request) } => Some(request),
        _ => None,
    };
    run.status = match (run.definition.kind, waiting, outcome) {
        // A request sent: it waits for the replies its reading tool finds.
        (Kind::Interaction, Some(request), Ok(sent)) => {
            if let Some(through) = request.through.as_mut() {
                through.sent = Some(sent);
            }
            return reports;
        }
        (_, waiting, Err(error)) => {
            if waiting.is_some() {
                reports.push(Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }));
            }
            RunStatus::Failed { error, finished_at }
        }
        (Kind::Interaction, None, Ok(mut answered)) => {
            answered["sent"] = json!(true);
            RunStatus::Succeeded { output: answered, finished_at }
        }
        (_, _, Ok(output)) => RunStatus::Succeeded { output, finished_at },
    };
    reports
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::Ref;
    use crate::core::model::wire::Offer;

    fn planned() -> Planned {
        let tool = Bound {
            offer: Offer { name: "crm__get".into(), description: String::new(), input_schema: json!({}) },
            server: "crm".into(),
            tool: "get".into(),
            read_only: true,
            record_content: true,
        };
        only(tool, Map::new())
    }

    fn lookup() -> Run {
        let definition = Ref { kind: Kind::Lookup, name: "read".into() };
        let mut run = Run::started("r1", ("local", "pb_x"), definition, 1, json!({}), "t");
        run.record = Some(Record::Call { call: started_record(&planned()) });
        run
    }

    #[test]
    fn a_lookup_answers_what_its_tool_read_and_fails_on_its_error() {
        let mut run = lookup();
        let answered = Called::Answered {
            text: "{\"id\":7}".into(),
            structured: Some(json!({"id": 7})),
            is_error: false,
            images: vec![],
            assets: vec![],
        };
        take_end(&mut run, &planned(), &answered, 12, "t2");
        assert_eq!(
            run.status,
            RunStatus::Succeeded {
                output: json!({"text": "{\"id\":7}", "structured": {"id": 7}}),
                finished_at: "t2".into()
            }
        );
        let Some(Record::Call { call }) = &run.record else { panic!() };
        assert_eq!((call.outcome, call.size, call.duration_ms), (CallOutcome::Answered, Some(8), Some(12)));

        let mut run = lookup();
        take_end(
            &mut run,
            &planned(),
            &Called::Answered {
                text: "not found".into(),
                structured: None,
                is_error: true,
                images: vec![],
                assets: vec![],
            },
            1,
            "t2",
        );
        let RunStatus::Failed { error, .. } = &run.status else { panic!("{run:?}") };
        assert_eq!(error.reason, ErrorCode::ToolError);
        assert!(error.detail.ends_with("not found"), "{}", error.detail);

        let mut run = lookup();
        take_end(
            &mut run,
            &planned(),
            &Called::Failed { because: "unreachable".into(), detail: "refused".into() },
            1,
            "t2",
        );
        let RunStatus::Failed { error, .. } = &run.status else { panic!("{run:?}") };
        assert_eq!(error.reason, ErrorCode::ToolFailed);
    }

    #[test]
    fn history_keeps_a_bounded_answer() {
        let long = "é".repeat(ANSWER_KEPT_MAX);
        let kept = answer(&long, None);
        assert!(kept["text"].as_str().unwrap().len() <= ANSWER_KEPT_MAX);
        assert!(kept.get("structured").is_none());
    }
}
