//! A run's life as a pure machine, as a workflow's is: given the run as it stands and one input
//! (its start, a person's answer, a cancel, its model's outcome, a call a restart cut off, a
//! workflow's end), it decides how the run stands next and what it reports, in order. The run's
//! object keeps both before any await, then does what `Then` says.

use serde_json::{json, Map, Value};

use super::calls;
use super::record::{Generated, Reasoned, Record};
use super::store::{event, OpenRequest, Report, RequestCommand, StartRun};
use super::words::{started_event, FINISHED_EVENT};
use super::{decide_start, Request, Run, RunError, RunStatus, Start};
use crate::core::actor::Actor;
use crate::core::definition::reasoning::dialogue::{Bound, Called, Planned, Refused};
use crate::core::definition::reasoning::{prepare, Prepared};
use crate::core::definition::{computation, generation, interaction, lookup, prediction, spec, Spec};
use crate::core::text::{capitalized, count, quote};
use crate::core::workflow::{Outcome, Plan};
use crate::core::Problem;

/// One input to a run that exists.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// A person's answer to the request the run waits on.
    Answer {
        answer: Value,
        by: Actor,
    },
    Cancel,
    /// The model answered (`answered` says whether it gave an answer to read) or failed.
    Model {
        record: Box<Reasoned>,
        answered: bool,
        outcome: Result<Value, RunError>,
    },
    /// The model asked for tools: `planned` are made next, in order; `refused` it was told of
    /// without a call. `record` has taken in the model's answer.
    Tools {
        record: Box<Reasoned>,
        planned: Vec<Planned>,
        refused: Vec<Refused>,
    },
    /// A generation run's gateway answered (`answered` says whether the model made what the
    /// record names) or failed; its output names the assets kept.
    Generated {
        record: Box<Generated>,
        answered: bool,
        outcome: Result<Value, RunError>,
    },
    /// A call the run made ended.
    Called {
        planned: Box<Planned>,
        called: Called,
        duration_ms: u64,
    },
    /// The alarm found the model or a tool call still under way after a restart: its answer is
    /// lost, and a tool may have acted.
    Interrupted,
    /// A workflow run's machine finished or failed it.
    FlowEnded(RunStatus),
    /// The request the run waits on was not answered by its `expires_at`.
    Expired,
}

/// What to do once the run and its reports are kept.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // lives for one input; boxing would buy nothing
pub enum Then {
    /// Nothing more: answer the run as it stands.
    Answer,
    /// Ask the model now, while the start waits for it.
    Ask(Prepared),
    /// A workflow step's model call: the alarm makes it, so the workflow is not held up.
    Defer(Prepared),
    /// A workflow run begins its plan.
    Flow(Plan),
    /// A run without a model makes its one call now, while the start waits for it.
    Call(Box<Planned>),
    /// A generation run asks its model now, while the start waits for it, a workflow's step
    /// too: the gateway answers one request, and what it made is kept before the run ends.
    Generate(Box<generation::Prepared>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub run: Run,
    /// Whether the run changed and must be kept again.
    pub changed: bool,
    /// What the run records and hands on, in the order it happened.
    pub reports: Vec<Report>,
    pub then: Then,
}

impl Decision {
    fn unchanged(run: Run) -> Decision {
        Decision { run, changed: false, reports: Vec::new(), then: Then::Answer }
    }
}

/// A start under the run's id. The same start again answers the run as it stands and runs
/// nothing; a new one records its start and runs what can run at once.
pub fn start(existing: Option<&Run>, start: StartRun, now: &str) -> Result<Decision, Problem> {
    // `reused` is the Runner's, which seeds a workflow's state with it.
    let StartRun { mut run, source, material, events, tools, reused: _ } = start;
    super::check_sort(existing, run.rehearsal)?;
    if let Start::Existing(run) = decide_start(existing, &run.definition, &run.input)? {
        return Ok(Decision::unchanged(run));
    }
    let mut reports = vec![event(
        &run,
        "run_started",
        &run.started_at,
        started_event(&run.definition),
        json!({ "input": run.input }),
    )];
    let failed = |error| RunStatus::Failed { error, finished_at: now.to_string() };
    let mut then = Then::Answer;
    // The document is checked again here, though the start (`ops::run_start`) checked it before
    // sending it: a spec crosses to this object only as its source, since the checker is the only
    // way to a spec (it has no serde, so none is made from a caller's JSON), and the object may
    // run another version of the checker than its caller while a new version rolls out.
    run.status = match spec(run.definition.kind, &source) {
        Err(p) => {
            run.record = Record::unchecked(run.definition.kind, material.len(), events.len());
            failed(RunError { reason: crate::core::ErrorCode::Document, detail: p.detail })
        }
        Ok(Spec::Workflow(w)) => {
            then = Then::Flow(w.plan().clone());
            RunStatus::Started { waiting: None }
        }
        Ok(Spec::Reasoning(s)) => match prepare(&s, &run.input) {
            Ok(prepared) if run.within.is_some() => {
                then = Then::Defer(prepared);
                RunStatus::Started { waiting: None }
            }
            Ok(prepared) => {
                then = Then::Ask(prepared);
                RunStatus::Started { waiting: None }
            }
            Err(error) => failed(error),
        },
        Ok(Spec::Interaction(s)) if run.rehearsal && !s.notifies() => {
            let answered = rehearsed_answer(&run, &s, now);
            match answered {
                Ok((answer, report)) => {
                    reports.push(report);
                    run.answered_by = Some(Actor::stand_in(&run.definition.name));
                    RunStatus::Succeeded { output: answer, finished_at: now.to_string() }
                }
                Err(error) => failed(error),
            }
        }
        Ok(Spec::Interaction(s)) => match interaction_start(&s, &run.input, tools, now) {
            Ok((waiting, call)) => {
                if let Some(p) = call {
                    run.record = Some(Record::Call { call: calls::started_record(&p) });
                    then = Then::Call(Box::new(p));
                }
                RunStatus::Started { waiting }
            }
            Err(error) => failed(error),
        },
        Ok(Spec::Prediction(s)) => {
            let evaluation = prediction::evaluate(&s, &run.input, &events);
            evaluated(&mut run, evaluation, now)
        }
        Ok(Spec::Lookup(s)) => match s.tool_call() {
            Some(call) => match bound_call(tools, &call.arguments_for(&run.input)) {
                Ok(p) => {
                    run.record = Some(Record::Call { call: calls::started_record(&p) });
                    then = Then::Call(Box::new(p));
                    RunStatus::Started { waiting: None }
                }
                Err(error) => failed(error),
            },
            None => {
                let evaluation = lookup::evaluate(&s, &run.input, &material);
                evaluated(&mut run, evaluation, now)
            }
        },
        Ok(Spec::Computation(s)) => {
            let evaluation = computation::evaluate(&s, &run.input);
            evaluated(&mut run, evaluation, now)
        }
        Ok(Spec::Generation(s)) => match generation::prepare(&s, &run.input) {
            Ok(prepared) => {
                run.record = Some(Record::Generation(Generated::asked(&prepared)));
                then = Then::Generate(Box::new(prepared));
                RunStatus::Started { waiting: None }
            }
            Err(error) => failed(error),
        },
    };
    reports.extend(outcome_reports(&run, now));
    if let Then::Call(p) = &then {
        reports.push(calls::started(&run, p, now));
    }
    Ok(Decision { run, changed: true, reports, then })
}

/// The one call a run without a model makes, with the tool its start found offered.
fn bound_call(tools: Vec<Bound>, arguments: &Result<Map<String, Value>, RunError>) -> Result<Planned, RunError> {
    let arguments = arguments.clone()?;
    let tool = tools.into_iter().next().ok_or_else(|| {
        RunError::new(crate::core::ErrorCode::ToolUnavailable, "the run's start found no tool to call")
    })?;
    Ok(calls::only(tool, arguments))
}

/// An interaction's start: the request it waits on, if it asks, and the call it makes first, if
/// it sends through a tool.
fn interaction_start(
    s: &interaction::InteractionSpec,
    input: &Value,
    tools: Vec<Bound>,
    now: &str,
) -> Result<(Option<Request>, Option<Planned>), RunError> {
    if s.notifies() {
        let (_, arguments) = interaction::notification(s, input)?;
        return Ok((None, Some(bound_call(tools, &Ok(arguments))?)));
    }
    let mut request = interaction::ask(s, input, now)?;
    let Some(through) = request.through.as_mut() else { return Ok((Some(request), None)) };
    let mut tools = tools.into_iter();
    let (sender, reader) = (tools.next(), tools.next());
    through.reader = reader;
    let arguments = interaction::send(s, input, &request.question);
    let p = bound_call(sender.into_iter().collect(), &arguments)?;
    Ok((Some(request), Some(p)))
}

/// A rehearsal's request, answered at once by its stand-in in the person's place, and checked as a
/// person's answer is: nothing is opened in the playbook's requests.
fn rehearsed_answer(run: &Run, s: &interaction::InteractionSpec, now: &str) -> Result<(Value, Report), RunError> {
    let request = interaction::ask(s, &run.input, now)?;
    let stand_ins = run.stand_ins.as_deref().cloned().unwrap_or_default();
    let answer = stand_ins.person(&run.definition.name)?;
    interaction::check_answer(&request, &answer).map_err(|p| {
        RunError::new(
            crate::core::ErrorCode::AnswerSchema,
            format!("The rehearsal's stand-in answer does not fit the request's answer schema: {}", p.detail),
        )
    })?;
    let data =
        json!({ "question": request.question, "answer": answer, "answered_by": Actor::stand_in(&run.definition.name) });
    let words = "The rehearsal's stand-in answered the request in a person's place.".to_string();
    Ok((answer, event(run, "interaction_answered", now, words, data)))
}

/// How a run that answers at once ended, keeping its record.
fn evaluated(run: &mut Run, (result, record): (Result<Value, RunError>, Record), now: &str) -> RunStatus {
    run.record = Some(record);
    match result {
        Ok(output) => RunStatus::Succeeded { output, finished_at: now.to_string() },
        Err(error) => RunStatus::Failed { error, finished_at: now.to_string() },
    }
}

/// One input to a run that exists. A run ends once: an input to a run that ended changes nothing
/// (a cancel that came while the model answered stands, and the answer is dropped).
pub fn decide(mut run: Run, input: Input, now: &str) -> Result<Decision, Problem> {
    let going = matches!(run.status, RunStatus::Started { .. });
    let finished_at = now.to_string();
    let mut reports = Vec::new();
    match input {
        Input::Answer { answer, by } => {
            let RunStatus::Started { waiting: Some(request) } = &run.status else {
                return Err(Problem::conflict(format!(
                    "The run {} is {} and waits for no answer; list_interactions lists the requests still open.",
                    run.run_id,
                    run.status.word()
                ))
                .with_field("/run_id", "names a run that waits for no answer"));
            };
            interaction::check_answer(request, &answer)?;
            let data = json!({ "answer": answer, "answered_by": by });
            reports.push(event(&run, "interaction_answered", now, "A person answered the request.".into(), data));
            reports.push(Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }));
            run.answered_by = Some(by);
            run.status = RunStatus::Succeeded { output: answer, finished_at };
        }
        Input::Cancel if going => run.status = RunStatus::Cancelled { finished_at },
        Input::Model { record, answered, outcome } => {
            if answered {
                let words = format!("The model {} answered.", quote(&record.model));
                reports.push(event(&run, "model_answered", now, words, record.answered_event()));
            }
            if !going {
                return Ok(Decision { run, changed: false, reports, then: Then::Answer });
            }
            run.record = Some(Record::Reasoning(*record));
            run.status = match outcome {
                Ok(output) => RunStatus::Succeeded { output, finished_at },
                Err(error) => RunStatus::Failed { error, finished_at },
            };
        }
        Input::Generated { record, answered, outcome } => {
            if answered {
                let words = format!("The model {} answered.", quote(&record.model));
                reports.push(event(&run, "model_answered", now, words, record.answered_event()));
            }
            if !going {
                return Ok(Decision { run, changed: false, reports, then: Then::Answer });
            }
            run.record = Some(Record::Generation(*record));
            run.status = match outcome {
                Ok(output) => RunStatus::Succeeded { output, finished_at },
                Err(error) => RunStatus::Failed { error, finished_at },
            };
        }
        Input::Tools { record, planned, refused } => {
            let words = format!(
                "The model {} asked for {}.",
                quote(&record.model),
                count(planned.len() + refused.len(), "tool call")
            );
            reports.push(event(&run, "model_answered", now, words, record.answered_event()));
            if !going {
                return Ok(Decision { run, changed: false, reports, then: Then::Answer });
            }
            reports.extend(calls::asked(&mut run, *record, &planned, &refused, now));
            return Ok(Decision { run, changed: true, reports, then: Then::Answer });
        }
        Input::Called { planned, called, duration_ms } => {
            reports.push(calls::ended(&run, &planned, &called, duration_ms, now));
            if !going {
                let reasoning = matches!(run.record, Some(Record::Reasoning(_)));
                if reasoning {
                    calls::end(&mut run, &planned, &called, duration_ms, now);
                }
                return Ok(Decision { run, changed: reasoning, reports, then: Then::Answer });
            }
            reports.extend(calls::end(&mut run, &planned, &called, duration_ms, now));
            if matches!(run.status, RunStatus::Started { .. }) {
                return Ok(Decision { run, changed: true, reports, then: Then::Answer });
            }
        }
        Input::Expired if going => {
            let RunStatus::Started { waiting: Some(request) } = &run.status else {
                return Ok(Decision::unchanged(run));
            };
            let at = request.expires_at.clone().unwrap_or_else(|| now.to_string());
            let words = format!("The request was not answered by {at}, and expired.");
            reports.push(event(&run, "interaction_expired", now, words, json!({ "expires_at": at })));
            reports.push(Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }));
            let error = RunError::new(
                crate::core::ErrorCode::Expired,
                format!("The request was not answered by {at}, when it expired. Start a new run to ask again."),
            );
            run.status = RunStatus::Failed { error, finished_at };
        }
        Input::Interrupted if going => {
            if let RunStatus::Started { waiting: Some(_) } = &run.status {
                reports.push(Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }));
            }
            let detail = calls::interrupted(run.record.as_ref());
            let error = RunError { reason: crate::core::ErrorCode::Interrupted, detail };
            run.status = RunStatus::Failed { error, finished_at };
        }
        Input::FlowEnded(status) if going => run.status = status,
        Input::Cancel | Input::Interrupted | Input::FlowEnded(_) | Input::Expired => {
            return Ok(Decision::unchanged(run))
        }
    }
    reports.extend(outcome_reports(&run, now));
    reports.extend(parent_report(&run));
    Ok(Decision { run, changed: true, reports, then: Then::Answer })
}

/// What a run records where it now stands: the request it opens, or how it ended.
fn outcome_reports(run: &Run, now: &str) -> Vec<Report> {
    let noun = format!("the {} {}", run.definition.kind.noun(), quote(&run.definition.name));
    match &run.status {
        RunStatus::Started { waiting: Some(request) } => vec![
            Report::Request(RequestCommand::Open(OpenRequest {
                run_id: run.run_id.clone(),
                definition: run.definition.clone(),
                question: request.question.clone(),
                answer_schema: request.answer_schema.clone(),
                asked_at: request.asked_at.clone(),
                expires_at: request.expires_at.clone(),
            })),
            event(
                run,
                "interaction_requested",
                now,
                format!("{} asks a person and waits for the answer.", capitalized(noun)),
                json!({ "question": request.question, "answer_schema": request.answer_schema, "expires_at": request.expires_at }),
            ),
        ],
        RunStatus::Started { waiting: None } => Vec::new(),
        RunStatus::Succeeded { output, .. } => {
            vec![event(run, "run_succeeded", now, FINISHED_EVENT.into(), json!({ "output": output }))]
        }
        RunStatus::Failed { error, .. } => vec![event(
            run,
            "run_failed",
            now,
            format!("A run of {noun} failed: {}", error.detail),
            json!({ "error": error }),
        )],
        RunStatus::Cancelled { .. } => vec![
            Report::Request(RequestCommand::Close { run_id: run.run_id.clone() }),
            event(run, "run_cancelled", now, format!("A run of {noun} was cancelled."), json!({})),
        ],
    }
}

/// A run a workflow's step started, ended after its start answered: the workflow hears of it
/// through the outbox, so a workflow that cannot be reached at once hears later.
fn parent_report(run: &Run) -> Option<Report> {
    let within = run.within.clone()?;
    let outcome = Outcome::of(run)?;
    Some(Report::Parent { within, child: run.run_id.clone(), outcome })
}

#[cfg(test)]
#[path = "life_tests.rs"]
mod tests;
