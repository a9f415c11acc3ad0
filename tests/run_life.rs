//! A run's whole life on the host, through the same `ops::run::Runner` the Run object uses, over
//! stores in memory: each type's start, an interaction's answer and cancel, a model's answer,
//! failure and lost call, a workflow's steps, and the outbox when the playbook cannot be reached
//! or the runtime stops between two writes.

mod common;

use common::Memory;
use futures::executor::block_on;
use playbook_runtime::core::actor::Actor;
use playbook_runtime::core::definition::{Kind, Ref};
use playbook_runtime::core::run::record::Record;
use playbook_runtime::core::run::store::AnswerRun;
use playbook_runtime::core::run::{Run, RunStatus};
use playbook_runtime::core::ErrorCode;
use playbook_runtime::ops::memory::Object;
use playbook_runtime::ops::outbound::Unanswered;
use playbook_runtime::ops::run::{Asked, RunStore};
use playbook_runtime::ops::run_start::{self, Asked as StartAsked};
use playbook_runtime::ops::Backend;
use serde_json::{json, Value};

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");

const APPROVE: &str = include_str!("fixtures/approve-campaign-brief.md");

const REVIEW: &str = include_str!("fixtures/review-brief.md");

const REVIEW_AND_APPROVE: &str = include_str!("fixtures/review-and-approve.md");

const ORG: &str = "local";

/// One playbook in the runtime in memory, with the model settings the runs call.
struct World {
    m: Memory,
    pb: String,
}

impl std::ops::Deref for World {
    type Target = Memory;
    fn deref(&self) -> &Memory {
        &self.m
    }
}

impl World {
    fn new() -> World {
        let m = Memory::default();
        *m.models.borrow_mut() = RunHostModels::settings();
        let created = common::tool(&m, 1, "create_playbook", json!({ "name": "Campaigns" }));
        let pb = created["structuredContent"]["id"].as_str().unwrap().to_string();
        World { m, pb }
    }

    /// Saves a definition through create_definition, as an agent does.
    fn define(&self, kind: Kind, name: &str, source: &str) {
        let mut args = json!({
            "playbook": self.pb, "type": kind.as_str(), "name": name, "source": source,
            "overview": format!("The {name} definition of the run tests does what its description says."),
        });
        if kind != Kind::Workflow {
            args["diagram"] = json!("flowchart LR\n  A[input] --> B[output]");
        }
        let saved = common::tool(&self.m, 2, "create_definition", args);
        assert_eq!(saved["isError"], false, "{saved}");
    }

    fn object(&self, run_id: &str) -> std::rc::Rc<Object> {
        self.m.object(ORG, &self.pb, run_id)
    }

    async fn run(&self, run_id: &str, asked: Asked) -> Result<Run, playbook_runtime::core::Problem> {
        self.m.call(ORG, &self.pb, run_id, asked).await
    }

    async fn ring(&self, run_id: &str) -> Result<(), playbook_runtime::core::Problem> {
        self.m.ring(ORG, &self.pb, run_id).await
    }

    fn run_ids(&self) -> Vec<String> {
        let prefix = format!("{ORG}/{}/", self.pb);
        self.m.objects.borrow().keys().filter_map(|k| k.strip_prefix(&prefix).map(str::to_string)).collect()
    }

    /// The runs' events the playbook keeps, oldest first, as `run_id kind`.
    fn kinds(&self) -> Vec<String> {
        self.m.history(ORG, &self.pb).into_iter().filter(|e| e.contains(' ')).collect()
    }
}

fn person() -> Actor {
    Actor::of(&playbook_runtime::core::Caller::local(None))
}

fn start(
    world: &World,
    kind: Kind,
    name: &str,
    run_id: &str,
    input: Value,
) -> Result<Run, playbook_runtime::core::Problem> {
    let asked = StartAsked {
        org: ORG.into(),
        playbook: world.pb.clone(),
        definition: Ref { kind, name: name.into() },
        input,
        run_id: run_id.into(),
        now: playbook_runtime::core::text::stamp(world.now()),
        within: None,
        by: person(),
        again: None,
        stand_ins: None,
    };
    let (models, tools) = (RunHostModels::settings(), world.tool_servers());
    block_on(run_start::start(
        &world.m,
        &run_start::Outside { models: &models, tools: &tools, connections: None, read: None, now: 0 },
        asked,
    ))
    .map(|s| s.run)
}

/// The model settings the world's host answers with.
struct RunHostModels;

impl RunHostModels {
    fn settings() -> playbook_runtime::core::model::ModelSettings {
        playbook_runtime::core::model::ModelSettings::read(|name| match name {
            "OPENAI_API_KEY" => Some("sk-test".into()),
            "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".into()),
            _ => None,
        })
    }
}

fn openai(text: &str) -> Result<(u16, String), Unanswered> {
    let body = json!({
        "choices": [{ "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 12, "completion_tokens": 5 },
    });
    Ok((200, body.to_string()))
}

fn lines(world: &World) -> Vec<String> {
    world.reported.borrow().clone()
}

#[test]
fn a_computation_answers_at_once_and_its_history_reaches_the_playbook_in_one_call() {
    let world = World::new();
    world.define(Kind::Computation, "add-vat", ADD_VAT);
    let run = start(&world, Kind::Computation, "add-vat", "r1", json!({"net": 100})).unwrap();
    assert_eq!(
        run.status,
        RunStatus::Succeeded {
            output: json!({"vat": 20.0, "gross": 120.0}),
            finished_at: run.status.finished_at().unwrap().into()
        }
    );
    assert!(matches!(run.record, Some(Record::Computation { .. })));
    assert_eq!(lines(&world), ["r1 events run_started,run_succeeded +index succeeded"]);
    assert!(world.object("r1").store.reports().is_empty(), "nothing waits once the playbook has it");

    // The same start again answers the same run and records nothing.
    let again = start(&world, Kind::Computation, "add-vat", "r1", json!({"net": 100})).unwrap();
    assert_eq!(again, run);
    assert_eq!(lines(&world).len(), 1);
    let other = start(&world, Kind::Computation, "add-vat", "r1", json!({"net": 5})).unwrap_err();
    assert_eq!((other.status(), other.errors[0].pointer.as_str()), (409, "/run_id"));
}

#[test]
fn a_document_that_fails_its_check_again_fails_the_run_with_an_empty_record() {
    let world = World::new();
    let start_run = playbook_runtime::core::run::store::StartRun {
        run: start_shape(&world, "r2", Kind::Computation, "broken"),
        source: "---\ndescription: no compute\n---\n".into(),
        material: Vec::new(),
        events: Vec::new(),
        tools: Vec::new(),
        reused: None,
    };
    let run = block_on(world.run("r2", Asked::Start(Box::new(start_run)))).unwrap();
    let RunStatus::Failed { error, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(error.reason, ErrorCode::Document);
    assert_eq!(run.record, Some(Record::Computation { values: Vec::new() }));
    assert_eq!(world.kinds(), ["r2 run_started", "r2 run_failed"]);
}

fn start_shape(world: &World, run_id: &str, kind: Kind, name: &str) -> Run {
    let definition = Ref { kind, name: name.into() };
    Run::started(run_id, (ORG, &world.pb), definition, 1, json!({}), "2026-12-02T10:00:00.000Z")
}

#[test]
fn an_interaction_waits_takes_one_answer_that_fits_and_refuses_the_rest() {
    let world = World::new();
    world.define(Kind::Interaction, "approve", APPROVE);
    let run =
        start(&world, Kind::Interaction, "approve", "ask-1", json!({"title": "Autumn", "review": "Ready"})).unwrap();
    let RunStatus::Started { waiting: Some(request) } = &run.status else { panic!("{run:?}") };
    assert_eq!(request.question, "Approve the brief Autumn? The review says: Ready");
    assert_eq!(
        lines(&world),
        ["ask-1 events run_started +index started", "ask-1 request open", "ask-1 events interaction_requested"]
    );

    let answer = |value: Value| {
        block_on(world.answer_run(ORG, &world.pb, AnswerRun { run_id: "ask-1".into(), answer: value, by: person() }))
    };
    let wrong = answer(json!({"verdict": "maybe"})).unwrap_err();
    assert_eq!(wrong.status(), 400, "{wrong:?}");
    assert_eq!(lines(&world).len(), 3, "a refused answer records nothing");

    let done = answer(json!({"verdict": "approve"})).unwrap();
    assert!(matches!(done.status, RunStatus::Succeeded { .. }));
    assert_eq!(done.answered_by, Some(person()));
    assert_eq!(
        lines(&world)[3..],
        [
            "ask-1 events interaction_answered +index succeeded".to_string(),
            "ask-1 request close".into(),
            "ask-1 events run_succeeded".into(),
        ]
    );
    let again = answer(json!({"verdict": "revise"})).unwrap_err();
    assert_eq!(again.status(), 409);
    assert_eq!(world.kinds().iter().filter(|k| k.ends_with("run_succeeded")).count(), 1);
}

#[test]
fn a_cancel_stops_a_waiting_run_once_and_closes_its_request() {
    let world = World::new();
    world.define(Kind::Interaction, "approve", APPROVE);
    start(&world, Kind::Interaction, "approve", "ask-2", json!({"title": "x", "review": "y"})).unwrap();
    let cancelled = block_on(world.cancel_run(ORG, &world.pb, "ask-2")).unwrap();
    assert!(matches!(cancelled.status, RunStatus::Cancelled { .. }));
    let after = lines(&world)[3..].to_vec();
    assert_eq!(after, ["ask-2 request close", "ask-2 events run_cancelled +index cancelled"]);
    let again = block_on(world.cancel_run(ORG, &world.pb, "ask-2")).unwrap();
    assert_eq!(again.status, cancelled.status, "a run that ended stays as it ended");
    assert_eq!(lines(&world).len(), 5);
}

#[test]
fn a_reasoning_run_keeps_what_its_model_said_or_why_it_failed() {
    let world = World::new();
    world.define(Kind::Reasoning, "review", REVIEW);
    world.answers.borrow_mut().push_back(openai("Ready: the brief names its audience."));
    let run = start(&world, Kind::Reasoning, "review", "m1", json!({"file": "brief.md"})).unwrap();
    assert_eq!(run.status.word(), "succeeded", "{run:?}");
    let RunStatus::Succeeded { output, .. } = &run.status else { unreachable!() };
    assert_eq!(output, &json!("Ready: the brief names its audience."));
    let Some(Record::Reasoning(record)) = &run.record else { panic!("{run:?}") };
    assert_eq!((record.input_tokens, record.output_tokens), (Some(12), Some(5)));
    assert_eq!(world.kinds(), ["m1 run_started", "m1 model_answered", "m1 run_succeeded"]);
    assert!(world.asked.borrow()[0].url.ends_with("/chat/completions"));
    // A model that answers at once: the run reaches the playbook in one report, as it ends.
    assert_eq!(lines(&world), ["m1 events run_started,model_answered,run_succeeded +index succeeded"]);

    // No answer within the deadline: the run fails with the provider's reason.
    let timed_out = start(&world, Kind::Reasoning, "review", "m2", json!({"file": "b"})).unwrap();
    let RunStatus::Failed { error, .. } = &timed_out.status else { panic!("{timed_out:?}") };
    assert_eq!(error.reason, ErrorCode::ProviderTimeout);
    assert_eq!(world.kinds()[3..], ["m2 run_started".to_string(), "m2 run_failed".into()]);
}

#[test]
fn a_model_that_takes_a_while_finds_its_run_listed_as_started_meanwhile() {
    let world = World::new();
    world.define(Kind::Reasoning, "review", REVIEW);
    world.slow_model.set(true);
    world.answers.borrow_mut().push_back(openai("Ready."));
    let run = start(&world, Kind::Reasoning, "review", "m3", json!({"file": "brief.md"})).unwrap();
    assert_eq!(run.status.word(), "succeeded", "{run:?}");
    assert_eq!(
        lines(&world),
        ["m3 events run_started +index started", "m3 events model_answered,run_succeeded +index succeeded"],
        "the start went while the model answered"
    );
}

#[test]
fn a_report_the_playbook_missed_is_sent_by_the_alarm_once() {
    let world = World::new();
    world.define(Kind::Computation, "add-vat", ADD_VAT);
    world.to_playbook.fail_on("report");
    let refused = start(&world, Kind::Computation, "add-vat", "r3", json!({"net": 10})).unwrap_err();
    assert_eq!(refused.status(), 503);
    let object = world.object("r3");
    assert_eq!(object.store.reports().len(), 2, "the run's history waits in its outbox");
    assert_eq!(object.store.run().unwrap().unwrap().status.word(), "succeeded", "the run itself is kept");
    assert_eq!(object.alarm.get(), Some(world.clock.get() + 5_000), "the alarm tries again");

    block_on(world.pass(5_000));
    assert_eq!(lines(&world), ["r3 events run_started,run_succeeded +index succeeded"]);
    assert!(object.store.reports().is_empty());
    block_on(world.run("r3", Asked::Get { run_id: "r3".into() })).unwrap();
    assert_eq!(lines(&world).len(), 1, "a read after sends nothing again");
}

#[test]
fn a_stop_between_two_writes_leaves_the_start_whole_or_undone() {
    for at in 1..=3 {
        let world = World::new();
        world.define(Kind::Computation, "add-vat", ADD_VAT);
        world.object("r4").store.faults.stop_at(at);
        let stopped = start(&world, Kind::Computation, "add-vat", "r4", json!({"net": 10})).unwrap_err();
        assert_eq!(stopped.status(), 503, "stop at write {at}");
        let store = &world.object("r4").store;
        assert!(store.run().unwrap().is_none() && store.reports().is_empty(), "nothing of the start stays ({at})");
        world.restart();
        let run = start(&world, Kind::Computation, "add-vat", "r4", json!({"net": 10})).unwrap();
        assert_eq!(run.status.word(), "succeeded");
        assert_eq!(world.kinds(), ["r4 run_started", "r4 run_succeeded"], "stop at write {at}");
    }
}

#[test]
fn a_stop_after_the_playbook_took_a_report_sends_it_again_and_the_playbook_keeps_it_once() {
    let world = World::new();
    world.define(Kind::Computation, "add-vat", ADD_VAT);
    // Writes: the run, its two events, then the outbox cleared once the playbook took them.
    world.object("r5").store.faults.stop_at(4);
    start(&world, Kind::Computation, "add-vat", "r5", json!({"net": 10})).unwrap_err();
    assert_eq!(world.object("r5").store.reports().len(), 2, "the playbook took them, the outbox still holds them");
    world.restart();
    block_on(world.run("r5", Asked::Get { run_id: "r5".into() })).unwrap();
    assert_eq!(lines(&world).len(), 2, "sent again after the restart");
    assert_eq!(world.kinds(), ["r5 run_started", "r5 run_succeeded"], "kept once, by the events' keys");
    assert!(world.object("r5").store.reports().is_empty());
}

#[test]
fn a_workflow_runs_its_steps_in_their_own_runs_and_ends_with_their_outputs() {
    let world = World::new();
    define_review_and_approve(&world);
    let run =
        start(&world, Kind::Workflow, "review-and-approve", "wf1", json!({"file": "b.md", "title": "Autumn"})).unwrap();
    assert_eq!(run.status.word(), "started");
    world.answers.borrow_mut().push_back(openai("Ready"));
    block_on(world.pass(1_000));

    let step = waiting_step(&world);
    let answered = AnswerRun { run_id: step.clone(), answer: json!({"verdict": "approve"}), by: person() };
    block_on(world.answer_run(ORG, &world.pb, answered)).unwrap();
    block_on(world.pass(1_000));

    let done = block_on(world.run("wf1", Asked::Get { run_id: "wf1".into() })).unwrap();
    let RunStatus::Succeeded { output, .. } = &done.status else { panic!("{done:?}") };
    assert_eq!(output, &json!({"review": "Ready", "approval": {"verdict": "approve"}}));
    let steps = done.steps.as_ref().unwrap();
    assert_eq!(steps.len(), 2);
    let kinds = world.kinds();
    assert_eq!(kinds.first().map(String::as_str), Some("wf1 run_started"));
    assert_eq!(kinds.last().map(String::as_str), Some("wf1 run_succeeded"));
    assert_eq!(kinds.iter().filter(|k| k.ends_with("run_succeeded")).count(), 3, "{kinds:?}");
}

#[test]
fn a_steps_model_call_a_restart_cut_off_fails_the_step_and_the_workflow_rather_than_hang() {
    let world = World::new();
    define_review_and_approve(&world);
    start(&world, Kind::Workflow, "review-and-approve", "wf2", json!({"file": "b.md", "title": "T"})).unwrap();
    block_on(world.ring("wf2")).unwrap();
    let child = world.run_ids().into_iter().find(|k| *k != "wf2").unwrap();
    // The call is marked asked, then the runtime stops before the answer is kept.
    world.answers.borrow_mut().push_back(openai(r#"{"recommendation": "Ready"}"#));
    world.object(&child).store.faults.stop_at(2);
    block_on(world.ring(&child)).unwrap_err();
    world.restart();
    block_on(world.pass(200_000));

    let step = block_on(world.get_run(ORG, &world.pb, &child)).unwrap();
    let RunStatus::Failed { error, .. } = &step.status else { panic!("{step:?}") };
    assert_eq!(error.reason, ErrorCode::Interrupted);
    assert_eq!(world.asked.borrow().len(), 1, "the model is never asked twice");
    let workflow = block_on(world.get_run(ORG, &world.pb, "wf2")).unwrap();
    assert_eq!(workflow.status.word(), "failed", "{workflow:?}");
}

fn define_review_and_approve(world: &World) {
    world.define(Kind::Reasoning, "review-campaign-brief", REVIEW);
    world.define(Kind::Interaction, "approve-campaign-brief", APPROVE);
    world.define(Kind::Workflow, "review-and-approve", REVIEW_AND_APPROVE);
}

/// The step's run that waits for a person.
fn waiting_step(world: &World) -> String {
    let ids = world.run_ids();
    ids.into_iter()
        .find(|id| {
            let run = world.object(id).store.run().unwrap();
            run.is_some_and(|r| matches!(r.status, RunStatus::Started { waiting: Some(_) }))
        })
        .expect("a step waits for a person")
}

/// A workflow of `count` steps, each adding VAT to the one before's gross.
fn vat_chain(count: usize) -> String {
    let steps: Vec<String> = (1..=count)
        .map(|i| {
            let net = if i == 1 { "input.net".to_string() } else { format!("steps.s{}.output.gross", i - 1) };
            format!("  - id: s{i}\n    function: computation/add-vat\n    input:\n      net: {net}\n")
        })
        .collect();
    format!(
        "---\ndescription: Adds VAT {count} times over\ninput:\n  schema: {{ type: object, properties: {{ net: {{ type: number }} }}, required: [net] }}\nsteps:\n{}output:\n  gross: steps.s{count}.output.gross\n---\n",
        steps.concat()
    )
}

/// The runs of add-vat the playbook's index holds, by id, with how each stands.
fn indexed_steps(world: &World) -> Vec<String> {
    let definition = Ref { kind: Kind::Computation, name: "add-vat".into() };
    let mut runs: Vec<String> = block_on(world.read_runs(ORG, &world.pb, definition, 100))
        .unwrap()
        .into_iter()
        .map(|r| format!("{} {}", r.run_id, r.status.word()))
        .collect();
    runs.sort();
    runs
}

#[test]
fn a_step_that_ends_at_its_start_reaches_the_playbook_through_its_workflow_run() {
    let world = World::new();
    world.define(Kind::Computation, "add-vat", ADD_VAT);
    world.define(Kind::Workflow, "vat-chain", &vat_chain(3));
    start(&world, Kind::Workflow, "vat-chain", "wf3", json!({"net": 100})).unwrap();
    block_on(world.pass(1_000));
    let done = block_on(world.run("wf3", Asked::Get { run_id: "wf3".into() })).unwrap();
    let RunStatus::Succeeded { output, .. } = &done.status else { panic!("{done:?}") };
    assert_eq!(output["gross"], json!(172.8));

    let steps: Vec<String> = world.run_ids().into_iter().filter(|id| id != "wf3").collect();
    assert_eq!(steps.len(), 3);
    // Each step's run answered its history to the workflow run, which sent it with its own.
    let calls = lines(&world);
    assert!(calls.iter().all(|l| l.starts_with("wf3 ")), "only the workflow run called the playbook: {calls:?}");
    for step in &steps {
        assert!(calls.iter().any(|l| l.contains(&format!("+step {step} succeeded"))), "{step} indexed: {calls:?}");
        let kinds = world.kinds();
        let mine: Vec<&String> = kinds.iter().filter(|k| k.starts_with(&format!("{step} "))).collect();
        assert_eq!(mine, [&format!("{step} run_started"), &format!("{step} run_succeeded")], "{kinds:?}");
    }
    let expected: Vec<String> = {
        let mut ids: Vec<String> = steps.iter().map(|s| format!("{s} succeeded")).collect();
        ids.sort();
        ids
    };
    assert_eq!(indexed_steps(&world), expected, "every step's run is in the index");

    // A step's run keeps what it carried until it reports itself; the playbook keeps it once.
    assert_eq!(world.object(&steps[0]).store.reports().len(), 2);
    let before = world.kinds().len();
    block_on(world.run(&steps[0], Asked::Get { run_id: steps[0].clone() })).unwrap();
    assert!(world.object(&steps[0]).store.reports().is_empty());
    assert_eq!(world.kinds().len(), before, "sent again, kept once by the events' keys");
}

#[test]
fn a_stop_at_any_write_of_a_workflow_run_carrying_its_steps_loses_and_doubles_nothing() {
    for at in 1..=16 {
        let world = World::new();
        world.define(Kind::Computation, "add-vat", ADD_VAT);
        world.define(Kind::Workflow, "vat-chain", &vat_chain(2));
        start(&world, Kind::Workflow, "vat-chain", "wf4", json!({"net": 100})).unwrap();
        world.object("wf4").store.faults.stop_at(at);
        let _ = block_on(world.ring("wf4"));
        world.restart();
        block_on(world.pass(30_000));
        let done = block_on(world.run("wf4", Asked::Get { run_id: "wf4".into() })).unwrap();
        assert_eq!(done.status.word(), "succeeded", "stop at write {at}: {done:?}");

        let steps: Vec<String> = world.run_ids().into_iter().filter(|id| id != "wf4").collect();
        assert_eq!(steps.len(), 2, "stop at write {at}: each step started once");
        let kinds = world.kinds();
        for step in &steps {
            let mine = kinds.iter().filter(|k| k.starts_with(&format!("{step} "))).count();
            assert_eq!(mine, 2, "stop at write {at}: {step}'s events kept once: {kinds:?}");
        }
        let mut expected: Vec<String> = steps.iter().map(|s| format!("{s} succeeded")).collect();
        expected.sort();
        assert_eq!(indexed_steps(&world), expected, "stop at write {at}");
        let ends = kinds.iter().filter(|k| *k == "wf4 run_succeeded").count();
        assert_eq!(ends, 1, "stop at write {at}: {kinds:?}");
    }
}
