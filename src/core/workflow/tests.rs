//! The machine, input by input, asserting on the actions it answers.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use super::machine::{decide, Action, Command, Outcome};
use super::plan::Plan;
use super::state::{Flow, FlowStatus, StepStatus};
use super::view;
use crate::core::definition::workflow::plan;
use crate::core::definition::workflow_tests::EXAMPLE;
use crate::core::run::RunError;

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-02T09:00:00Z").unwrap().with_timezone(&Utc)
}

/// Feeds inputs one by one, keeping the state, as the Durable Object does.
struct Run {
    plan: Plan,
    flow: Flow,
}

impl Run {
    fn new(doc: &str) -> Run {
        let plan = plan(doc).unwrap_or_else(|p| panic!("{:#?}", p.errors));
        let flow = Flow::new("wf1", &plan);
        Run { plan, flow }
    }

    fn give(&mut self, command: Command, at_seconds: i64) -> Vec<Action> {
        let d = decide(&self.plan, &self.flow, command, t0() + Duration::seconds(at_seconds));
        self.flow = d.flow;
        d.actions
    }
}

fn summaries(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Record { kind, summary, .. } => Some(format!("{kind}: {summary}")),
            _ => None,
        })
        .collect()
}

fn started(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::StartChild { run_id, .. } => Some(run_id.clone()),
            _ => None,
        })
        .collect()
}

fn ok(step: &str, run_id: &str, output: Value) -> Command {
    Command::ChildFinished { step: step.into(), run_id: run_id.into(), outcome: Outcome::Succeeded { output } }
}

fn failed(step: &str, run_id: &str) -> Command {
    let error = RunError { reason: crate::core::ErrorCode::ProviderError, detail: "The model did not answer.".into() };
    Command::ChildFinished { step: step.into(), run_id: run_id.into(), outcome: Outcome::Failed { error } }
}

#[test]
fn the_review_and_approval_run_records_the_spec_events() {
    let mut run = Run::new(EXAMPLE);
    // Only what the machine records: run_started and run_succeeded are the run's own, written by
    // core::run::life and asserted in tests/run_life.rs and tests/e2e/workflows.test.mjs.
    let mut events = Vec::new();
    let a = run.give(Command::Start { input: json!({"file": "briefs/autumn.md", "title": "Autumn launch"}) }, 0);
    assert_eq!(
        a.iter().find(|a| matches!(a, Action::StartChild { .. })),
        Some(&Action::StartChild {
            step: "review_brief".into(),
            definition: crate::core::definition::Ref::parse("reasoning/review-campaign-brief").unwrap(),
            input: json!({"file": "briefs/autumn.md"}),
            run_id: "wf1-review_brief-1".into(),
        })
    );
    events.extend(summaries(&a));
    let review = json!("Revise: the audience lacks a job role.");
    let a = run.give(ok("review_brief", "wf1-review_brief-1", review.clone()), 5);
    assert!(
        matches!(&a[3], Action::StartChild { input, .. } if input["review"] == review && input["title"] == "Autumn launch")
    );
    events.extend(summaries(&a));
    let approval = json!({"verdict": "approve", "note": "Approved for the autumn launch."});
    let a = run.give(ok("ask_for_approval", "wf1-ask_for_approval-1", approval.clone()), 60);
    events.extend(summaries(&a));
    assert_eq!(a.last(), Some(&Action::Finish { output: json!({"review": review, "approval": approval}) }));
    let q = |s: &str| format!("\u{201c}{s}\u{201d}");
    assert_eq!(
        events,
        vec![
            "workflow_input_applied: The workflow started, and 1 step moved.".to_string(),
            format!("step_waiting: The step {} waits for a function it called.", q("review brief")),
            "workflow_input_applied: A function the workflow called answered, and 2 steps moved.".into(),
            format!("step_finished: The step {} finished.", q("review brief")),
            format!("step_waiting: The step {} waits for a function it called.", q("ask for approval")),
            "workflow_input_applied: A function the workflow called answered, and 1 step moved; the workflow ended."
                .into(),
            format!("step_finished: The step {} finished.", q("ask for approval")),
        ]
    );
    let v = view::steps(&run.plan, &run.flow);
    assert_eq!((v[0].step.as_str(), v[0].status.as_str(), v[0].attempt), ("review_brief", "succeeded", Some(1)));
    assert_eq!(v[1].run_id.as_deref(), Some("wf1-ask_for_approval-1"));
    assert_eq!(v[1].finished_at, Some(t0() + Duration::seconds(60)));
}

const RETRYING: &str = "---
description: Reviews with retries
input: { schema: { type: object } }
steps:
  - id: review
    function: reasoning/review
    retry: { attempts: 3, delay_seconds: 30, backoff: 2 }
---
";

#[test]
fn a_failed_call_is_tried_again_with_backoff_then_fails_the_run() {
    let mut run = Run::new(RETRYING);
    run.give(Command::Start { input: json!({}) }, 0);
    let a = run.give(failed("review", "wf1-review-1"), 10);
    assert_eq!(a.last(), Some(&Action::SetTimer { at: t0() + Duration::seconds(40) }));
    assert!(summaries(&a)[1].contains("failed; attempt 2 of 3 starts at 2025-06-02T09:00:40Z"), "{a:?}");
    assert!(run.give(Command::TimerFired, 39).is_empty(), "not due yet");
    let a = run.give(Command::TimerFired, 40);
    assert_eq!(started(&a), ["wf1-review-2"]);
    let a = run.give(failed("review", "wf1-review-2"), 50);
    assert_eq!(a.last(), Some(&Action::SetTimer { at: t0() + Duration::seconds(110) }));
    assert_eq!(started(&run.give(Command::TimerFired, 110)), ["wf1-review-3"]);
    let a = run.give(failed("review", "wf1-review-3"), 120);
    assert!(
        matches!(a.last(), Some(Action::Fail { error }) if error.reason == crate::core::ErrorCode::StepFailed),
        "{a:?}"
    );
    assert!(summaries(&a)[0].ends_with("; the workflow ended."));
    assert!(matches!(run.flow.status, FlowStatus::Failed { .. }));
    assert_eq!(view::steps(&run.plan, &run.flow)[0].attempt, Some(3));
}

const FALLING: &str = "---
description: Reviews, or falls back to a canned review
input: { schema: { type: object } }
steps:
  - id: review
    function: reasoning/review
    fallback: canned
  - id: canned
    function: computation/canned-review
  - id: publish
    function: computation/publish
    input: { text: \"steps.review.output if steps.review.status == 'succeeded' else steps.canned.output\" }
---
";

#[test]
fn a_fallback_runs_in_place_of_a_failed_step() {
    let mut run = Run::new(FALLING);
    run.give(Command::Start { input: json!({}) }, 0);
    let a = run.give(failed("review", "wf1-review-1"), 5);
    assert_eq!(started(&a), ["wf1-canned-1"]);
    let a = run.give(ok("canned", "wf1-canned-1", json!("canned words")), 6);
    assert!(matches!(&a[..], [.., Action::StartChild { input, .. }] if input["text"] == "canned words"), "{a:?}");
    let a = run.give(ok("publish", "wf1-publish-1", json!(1)), 7);
    assert!(matches!(a.last(), Some(Action::Finish { .. })), "{a:?}");
}

const PARALLEL: &str = "---
description: Two checks at once, then a join
input: { schema: { type: object } }
steps:
  - id: legal
    function: reasoning/legal-check
    after: []
  - id: brand
    function: reasoning/brand-check
    after: []
    when: input.brand == true
  - id: decide
    function: computation/decide
    after: [legal, brand]
    input: { legal: steps.legal.output, brand: steps.brand.status }
---
";

#[test]
fn parallel_steps_are_joined_and_a_false_condition_skips() {
    let mut run = Run::new(PARALLEL);
    let a = run.give(Command::Start { input: json!({"brand": true}) }, 0);
    assert_eq!(started(&a), ["wf1-legal-1", "wf1-brand-1"]);
    assert_eq!(summaries(&a)[0], "workflow_input_applied: The workflow started, and 2 steps moved.");
    assert!(started(&run.give(ok("legal", "wf1-legal-1", json!("fine")), 1)).is_empty(), "decide waits for brand");
    assert_eq!(started(&run.give(ok("brand", "wf1-brand-1", json!("fine")), 2)), ["wf1-decide-1"]);

    let mut run = Run::new(PARALLEL);
    let a = run.give(Command::Start { input: json!({"brand": false}) }, 0);
    assert_eq!(started(&a), ["wf1-legal-1"]);
    assert!(summaries(&a)
        .contains(&"step_skipped: The step \u{201c}brand\u{201d} was skipped: its condition was false.".to_string()));
    let a = run.give(ok("legal", "wf1-legal-1", json!("fine")), 1);
    assert!(matches!(&a[..], [.., Action::StartChild { input, .. }] if input["brand"] == "skipped"), "{a:?}");
}

const WAITING: &str = "---
description: Waits for an approval, then a day
input: { schema: { type: object } }
steps:
  - id: approval
    wait: { event: brief_approved, where: { team: marketing }, timeout_seconds: 3600 }
  - id: cool_off
    wait: { seconds: 86400 }
output: steps.approval.output
---
";

#[test]
fn waits_for_an_event_then_a_time() {
    let mut run = Run::new(WAITING);
    let a = run.give(Command::Start { input: json!({}) }, 0);
    assert!(summaries(&a).contains(
        &"step_waiting: The step \u{201c}approval\u{201d} waits for the event \u{201c}brief_approved\u{201d}."
            .to_string()
    ));
    assert_eq!(a.last(), Some(&Action::SetTimer { at: t0() + Duration::seconds(3600) }));
    let a = run.give(Command::EventArrived { name: "brief_approved".into(), data: json!({"team": "sales"}) }, 5);
    assert_eq!(
        summaries(&a)[0],
        "workflow_input_applied: The event \u{201c}brief_approved\u{201d} reached the workflow, and no step moved."
    );
    let a = run.give(
        Command::EventArrived { name: "brief_approved".into(), data: json!({"team": "marketing", "by": "ana"}) },
        10,
    );
    assert_eq!(
        summaries(&a)[0],
        "workflow_input_applied: The event \u{201c}brief_approved\u{201d} reached the workflow, and 2 steps moved."
    );
    assert_eq!(a.last(), Some(&Action::SetTimer { at: t0() + Duration::seconds(10 + 86_400) }));
    let a = run.give(Command::TimerFired, 10 + 86_400);
    assert_eq!(
        summaries(&a)[0],
        "workflow_input_applied: A time the workflow waited for came, and 1 step moved; the workflow ended."
    );
    assert_eq!(a.last(), Some(&Action::Finish { output: json!({"team": "marketing", "by": "ana"}) }));
}

#[test]
fn a_refused_event_is_told_what_the_run_waits_on() {
    let mut run = Run::new(WAITING);
    run.give(Command::Start { input: json!({}) }, 0);
    assert_eq!(
        super::words::waits_on(&run.plan, &run.flow),
        "It waits for the event \u{201c}brief_approved\u{201d} (the step \u{201c}approval\u{201d})."
    );
    assert_eq!(run.flow.events_waited(), ["brief_approved"]);
    run.give(Command::EventArrived { name: "brief_approved".into(), data: json!({"team": "marketing"}) }, 1);
    assert_eq!(
        super::words::waits_on(&run.plan, &run.flow),
        "It waits for no event: the step \u{201c}cool off\u{201d} waits for a time."
    );
    assert!(super::state::event_waits(&run.plan, &run.flow).is_empty());
}

#[test]
fn an_event_that_comes_early_is_kept_and_one_that_never_comes_times_out() {
    let doc = WAITING.replace("steps:\n", "steps:\n  - id: first\n    function: computation/first\n");
    let mut run = Run::new(&doc);
    run.give(Command::Start { input: json!({}) }, 0);
    run.give(Command::EventArrived { name: "brief_approved".into(), data: json!({"team": "marketing"}) }, 1);
    let a = run.give(ok("first", "wf1-first-1", json!(1)), 2);
    assert!(summaries(&a).contains(&"step_finished: The step \u{201c}approval\u{201d} finished.".to_string()), "{a:?}");

    let mut run = Run::new(WAITING);
    run.give(Command::Start { input: json!({}) }, 0);
    let a = run.give(Command::TimerFired, 3600);
    assert!(
        matches!(a.last(), Some(Action::Fail { error }) if error.detail.contains("no event brief_approved came in time")),
        "{a:?}"
    );
}

#[test]
fn cancel_stops_the_children_and_ends_the_run() {
    let mut run = Run::new(PARALLEL);
    run.give(Command::Start { input: json!({"brand": true}) }, 0);
    let a = run.give(Command::Cancel, 3);
    assert!(a.contains(&Action::CancelChildren { run_ids: vec!["wf1-legal-1".into(), "wf1-brand-1".into()] }), "{a:?}");
    assert_eq!(
        summaries(&a)[0],
        "workflow_input_applied: The workflow was cancelled, and 2 steps moved; the workflow ended."
    );
    assert_eq!(run.flow.status, FlowStatus::Cancelled);
    assert!(run.give(ok("legal", "wf1-legal-1", json!(1)), 4).is_empty(), "a run that ended takes nothing more");
    let v = view::steps(&run.plan, &run.flow);
    assert_eq!(v.iter().map(|s| s.status.as_str()).collect::<Vec<_>>(), ["cancelled", "cancelled", "pending"]);
}

#[test]
fn a_replay_decides_the_same_and_never_starts_a_step_twice() {
    let script = || {
        vec![
            (Command::Start { input: json!({"file": "f", "title": "t"}) }, 0),
            (ok("review_brief", "wf1-review_brief-1", json!("r")), 1),
            (ok("review_brief", "wf1-review_brief-1", json!("r")), 2),
            (Command::Start { input: json!({"file": "g", "title": "u"}) }, 3),
            (ok("ask_for_approval", "wf1-ask_for_approval-9", json!("stale")), 4),
        ]
    };
    let first: Vec<Vec<Action>> = {
        let mut run = Run::new(EXAMPLE);
        script().into_iter().map(|(c, s)| run.give(c, s)).collect()
    };
    let second: Vec<Vec<Action>> = {
        let mut run = Run::new(EXAMPLE);
        script().into_iter().map(|(c, s)| run.give(c, s)).collect()
    };
    assert_eq!(first, second);
    assert!(first[2].is_empty() && first[3].is_empty() && first[4].is_empty(), "repeats and strays do nothing");
    let all: Vec<String> = first.iter().flat_map(|a| started(a)).collect();
    assert_eq!(all, ["wf1-review_brief-1", "wf1-ask_for_approval-1"]);
    let mut run = Run::new(EXAMPLE);
    for (c, s) in script() {
        run.give(c, s);
    }
    assert!(matches!(run.flow.steps[1].status, StepStatus::Running { .. }));
    let json = serde_json::to_value(&run.flow).unwrap();
    assert_eq!(serde_json::from_value::<Flow>(json).unwrap(), run.flow, "the state keeps as JSON");
}

#[test]
fn a_state_of_other_steps_fails_the_run_rather_than_misreading_it() {
    let plan = plan(PARALLEL).unwrap();
    let flow = Flow::new("wf1", &crate::core::definition::workflow::plan(EXAMPLE).unwrap());
    let d = decide(&plan, &flow, Command::Start { input: json!({}) }, t0());
    assert!(matches!(&d.actions[..], [Action::Fail { error }] if error.reason == crate::core::ErrorCode::Plan));
}
