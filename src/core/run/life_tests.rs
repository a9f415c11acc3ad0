use serde_json::json;

use super::*;
use crate::core::definition::{Kind, Ref};
use crate::core::run::Request;

const NOW: &str = "2026-12-02T10:00:05.000Z";

fn run(kind: Kind, status: RunStatus) -> Run {
    let within = Some(crate::core::run::Within { run_id: "wf".into(), step: "s".into() });
    let definition = Ref { kind, name: "f".into() };
    Run {
        status,
        within,
        ..Run::started("r1", ("local", "pb_x"), definition, 1, json!({}), "2026-12-02T10:00:00.000Z")
    }
}

fn kinds(reports: &[Report]) -> Vec<String> {
    reports
        .iter()
        .map(|r| match r {
            Report::Event(e) => e.kind.clone(),
            Report::Request(RequestCommand::Open(_)) => "open".into(),
            Report::Request(_) => "close".into(),
            Report::Parent { .. } => "parent".into(),
            Report::Wait { kind } => format!("wait {kind}"),
            Report::Index(run) => format!("index {}", run.run_id),
        })
        .collect()
}

fn waiting() -> RunStatus {
    let request = Request {
        question: "Ok?".into(),
        answer_schema: json!({"type": "object", "required": ["ok"]}),
        asked_at: "t".into(),
        expires_at: None,
        through: None,
    };
    RunStatus::Started { waiting: Some(request) }
}

fn answered(text: &str) -> Input {
    let record = Box::new(Reasoned {
        system: None,
        user: "u".into(),
        model: "openai/m".into(),
        resolved_to: None,
        answer: Some(text.into()),
        stop: None,
        input_tokens: None,
        output_tokens: None,
        duration_ms: None,
        last_turn: None,
        turns: 1,
        tool_calls: Vec::new(),
    });
    Input::Model { record, answered: true, outcome: Ok(json!({"text": text})) }
}

#[test]
fn an_answer_ends_a_waiting_step_and_tells_its_workflow() {
    let by = Actor::step("wf", "s");
    let d = decide(run(Kind::Interaction, waiting()), Input::Answer { answer: json!({"ok": true}), by }, NOW).unwrap();
    assert!(d.changed);
    assert_eq!(kinds(&d.reports), ["interaction_answered", "close", "run_succeeded", "parent"]);
    let refused =
        decide(run(Kind::Interaction, waiting()), Input::Answer { answer: json!({}), by: Actor::step("wf", "s") }, NOW);
    assert_eq!(refused.unwrap_err().status(), 400);
    let ended = run(Kind::Interaction, RunStatus::Cancelled { finished_at: NOW.into() });
    let late = decide(ended, Input::Answer { answer: json!({"ok": true}), by: Actor::step("wf", "s") }, NOW);
    assert_eq!(late.unwrap_err().status(), 409);
}

#[test]
fn a_run_ends_once() {
    let going = RunStatus::Started { waiting: None };
    let cancelled = decide(run(Kind::Reasoning, going), Input::Cancel, NOW).unwrap();
    assert_eq!(kinds(&cancelled.reports), ["close", "run_cancelled", "parent"]);
    // The model answers after the cancel: its answer is recorded, the run stays cancelled.
    let late = decide(cancelled.run.clone(), answered("late"), NOW).unwrap();
    assert!(!late.changed);
    assert_eq!(kinds(&late.reports), ["model_answered"]);
    assert_eq!(late.run.status, cancelled.run.status);
    for input in [Input::Cancel, Input::Interrupted, Input::FlowEnded(RunStatus::Cancelled { finished_at: NOW.into() })]
    {
        let again = decide(cancelled.run.clone(), input, NOW).unwrap();
        assert!(!again.changed && again.reports.is_empty());
    }
}

#[test]
fn a_lost_model_call_fails_with_words_that_say_so() {
    let d = decide(run(Kind::Reasoning, RunStatus::Started { waiting: None }), Input::Interrupted, NOW).unwrap();
    let RunStatus::Failed { error, finished_at } = &d.run.status else { panic!("{:?}", d.run) };
    assert_eq!((error.reason, finished_at.as_str()), (crate::core::ErrorCode::Interrupted, NOW));
    assert!(error.detail.contains("never run again"), "{}", error.detail);
    assert_eq!(kinds(&d.reports), ["run_failed", "parent"]);
}

#[test]
fn a_start_records_its_start_then_what_it_came_to() {
    let mut asked = run(Kind::Computation, RunStatus::Started { waiting: None });
    asked.within = None;
    asked.input = json!({"net": 10});
    let source = "---
description: Adds VAT
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
output:
  schema: { type: object, properties: { vat: { type: number } }, required: [vat] }
compute:
  vat: input.net * 0.2
---
";
    let start_run = StartRun {
        run: asked.clone(),
        source: source.into(),
        material: Vec::new(),
        events: Vec::new(),
        tools: Vec::new(),
        reused: None,
    };
    let d = start(None, start_run.clone(), NOW).unwrap();
    assert_eq!(kinds(&d.reports), ["run_started", "run_succeeded"]);
    assert_eq!(d.then, Then::Answer);
    let again = start(Some(&d.run), start_run, NOW).unwrap();
    assert!(!again.changed && again.reports.is_empty(), "the same start again runs nothing");
}
