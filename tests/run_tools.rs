//! Reasoning runs that call tools, on the host, through the same `ops::run::Runner` the Run
//! object uses, over stores in memory and one MCP tool server in memory: the calls the model asks
//! for and their history, a tool's error read by the model, a server that fails, names no server
//! offers refused before the model is asked, and a restart while a tool runs, after which no
//! call is made again.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::actor::Actor;
use playbook_runtime::core::definition::{Kind, Ref};
use playbook_runtime::core::event::EventQuery;
use playbook_runtime::core::run::record::{CallOutcome, Record};
use playbook_runtime::core::run::{Run, RunStatus};
use playbook_runtime::core::tool_server::ToolServers;
use playbook_runtime::core::{ErrorCode, Problem};
use playbook_runtime::ops::memory::Runtime;
use playbook_runtime::ops::memory_tools::ToolServer;
use playbook_runtime::ops::outbound::Unanswered;
use playbook_runtime::ops::run::RunStore;
use playbook_runtime::ops::run_start::{self, Asked, Outside};
use playbook_runtime::ops::Backend;
use serde_json::{json, Value};

const ORG: &str = "local";

/// Seed 004's brief review, as its guide writes it, with a model of the OpenAI-compatible API.
fn review() -> String {
    include_str!("fixtures/brief-review.md").replace("anthropic/claude-sonnet-4-5", "openai/gpt-4.1")
}

struct World {
    m: Runtime,
    pb: String,
}

impl World {
    fn new(servers: &str) -> World {
        let (world, saved) = World::saving(servers);
        assert_eq!(saved["isError"], false, "{saved}");
        world
    }

    /// The world, and the answer to the save of the brief review.
    fn saving(servers: &str) -> (World, Value) {
        let settings = ToolServers::read(|name| (name == "TOOL_SERVERS").then(|| servers.to_string()), false).0;
        let m = Runtime { servers: settings, ..Runtime::default() };
        *m.models.borrow_mut() = models();
        *m.tool_server.listed.borrow_mut() =
            vec![ToolServer::tool("read_text_file", true), ToolServer::tool("write_file", false)];
        let created = common::tool(&m, 1, "create_playbook", json!({ "name": "Campaigns" }));
        let pb = created["structuredContent"]["id"].as_str().unwrap().to_string();
        let saved = common::tool(
            &m,
            2,
            "create_definition",
            json!({
                "playbook": pb, "type": "reasoning", "name": "review-brief", "source": review(),
                "overview": "Reads a brief through the files server and reviews it against four criteria.",
                "diagram": "flowchart LR\n  A[file] --> B[read it] --> C[review]",
            }),
        );
        (World { m, pb }, saved)
    }

    fn start(&self, run_id: &str, file: &str) -> Result<Run, Problem> {
        let asked = Asked {
            org: ORG.into(),
            playbook: self.pb.clone(),
            definition: Ref { kind: Kind::Reasoning, name: "review-brief".into() },
            input: json!({ "file": file }),
            run_id: run_id.into(),
            now: playbook_runtime::core::text::stamp(self.m.now()),
            within: None,
            by: Actor::of(&playbook_runtime::core::Caller::local(None)),
            again: None,
            stand_ins: None,
        };
        let (models, tools) = (models(), self.m.tool_servers());
        block_on(run_start::start(
            &self.m,
            &Outside { models: &models, tools: &tools, connections: None, read: None, now: 0 },
            asked,
        ))
        .map(|s| s.run)
    }

    /// The run's events, oldest first as a run's history lists them, each `kind` with its data.
    fn events(&self, run_id: &str) -> Vec<(String, Value)> {
        let query = EventQuery { run_id: Some(run_id.into()), kind: None, limit: 100, after: None };
        let page = block_on(self.m.list_events(ORG, &self.pb, query)).unwrap();
        page.events
            .into_iter()
            .map(|e| (e["kind"].as_str().unwrap_or_default().to_string(), e["data"].clone()))
            .collect()
    }

    fn kinds(&self, run_id: &str) -> Vec<String> {
        self.events(run_id).into_iter().map(|(k, _)| k).collect()
    }
}

const FILES: &str =
    r#"{"files": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": ["read_text_file", "list_directory"]}}"#;

fn models() -> playbook_runtime::core::model::ModelSettings {
    playbook_runtime::core::model::ModelSettings::read(|name| match name {
        "OPENAI_API_KEY" => Some("sk-test".into()),
        "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".into()),
        _ => None,
    })
}

/// The model asks for `read_text_file` of `path`.
fn asks_to_read(path: &str) -> Result<(u16, String), Unanswered> {
    let call = json!({ "id": "call_1", "type": "function", "function": { "name": "files__read_text_file", "arguments": json!({ "path": path }).to_string() } });
    let body = json!({
        "choices": [{ "message": { "role": "assistant", "content": null, "tool_calls": [call] }, "finish_reason": "tool_calls" }],
        "usage": { "prompt_tokens": 30, "completion_tokens": 8 },
    });
    Ok((200, body.to_string()))
}

fn says(text: &str) -> Result<(u16, String), Unanswered> {
    let body = json!({
        "choices": [{ "message": { "role": "assistant", "content": text }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 50, "completion_tokens": 20 },
    });
    Ok((200, body.to_string()))
}

#[test]
fn the_model_calls_the_tool_reads_its_answer_and_the_history_shows_the_call() {
    let world = World::new(FILES);
    world.m.answers.borrow_mut().extend([asks_to_read("autumn-reporting-trial.txt"), says("Ready: all four are met.")]);
    world
        .m
        .tool_server
        .answers
        .borrow_mut()
        .push_back(ToolServer::text("Audience: finance leads at mid-size firms.", false));
    let reads = world.m.connection_reads.get();
    let run = world.start("t1", "autumn-reporting-trial.txt").unwrap();
    let RunStatus::Succeeded { output, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(output, &json!("Ready: all four are met."));
    // Every tool it names is of a server of the settings, which come before the org's
    // connections: the run reads none.
    assert_eq!(world.m.connection_reads.get(), reads, "the run read the org's connections");

    let calls = world.m.tool_server.calls.borrow().clone();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (&calls[0]["name"], &calls[0]["arguments"]),
        (&json!("read_text_file"), &json!({ "path": "autumn-reporting-trial.txt" }))
    );
    let asked = world.m.asked.borrow();
    let first = asked[0].body.as_ref().unwrap();
    assert_eq!(first["tools"][0]["function"]["name"], "files__read_text_file");
    let second = asked[1].body.as_ref().unwrap();
    assert_eq!(
        second["messages"].as_array().unwrap().last().unwrap()["content"],
        "Audience: finance leads at mid-size firms."
    );

    assert_eq!(
        world.kinds("t1"),
        ["run_started", "model_answered", "tool_call_started", "tool_call_answered", "model_answered", "run_succeeded"]
    );
    let events = world.events("t1");
    let started = &events[2].1;
    assert_eq!(started["arguments"], json!({ "path": "autumn-reporting-trial.txt" }));
    assert_eq!((started["number"].clone(), started["read_only"].clone()), (json!(1), json!(true)));
    assert_eq!(started["name"], "files/read_text_file");
    let answered = &events[3].1;
    assert_eq!(answered["answer"]["text"], "Audience: finance leads at mid-size firms.");
    assert_eq!(answered["is_error"], false);
    assert_eq!(events[4].1["turn"], 2, "the second answer of the model says it is");

    let Some(Record::Reasoning(record)) = &run.record else { panic!("{run:?}") };
    assert_eq!((record.turns, record.input_tokens), (2, Some(80)));
    assert_eq!(record.tool_calls.len(), 1);
    assert_eq!(record.tool_calls[0].outcome, CallOutcome::Answered);
}

#[test]
fn run_definition_of_a_function_whose_tools_are_all_of_the_settings_reads_no_connection() {
    let world = World::new(FILES);
    world.m.answers.borrow_mut().extend([asks_to_read("brief.txt"), says("Ready.")]);
    world.m.tool_server.answers.borrow_mut().push_back(ToolServer::text("Audience: finance leads.", false));
    let reads = world.m.connection_reads.get();
    let args =
        json!({ "playbook": world.pb, "type": "reasoning", "name": "review-brief", "input": { "file": "brief.txt" } });
    let dev = playbook_runtime::core::Caller::local(Some("ada".into()));
    let ctx = playbook_runtime::ops::Ctx { models: std::rc::Rc::new(models()), ..common::ctx(&dev, &world.m, 3, 3) };
    let run_definition = playbook_runtime::tools::find("run_definition").unwrap();
    let answered = block_on(playbook_runtime::tools::call(&ctx, run_definition, args)).unwrap();
    assert_eq!(answered.value["status"], "succeeded", "{}", answered.value);
    assert_eq!(world.m.connection_reads.get(), reads, "the start or the run read the org's connections");
}

#[test]
fn a_tools_error_reaches_the_model_and_the_run_still_succeeds() {
    let world = World::new(FILES);
    world
        .m
        .answers
        .borrow_mut()
        .extend([asks_to_read("missing.txt"), says("I could not read the file, so I review nothing.")]);
    world.m.tool_server.answers.borrow_mut().push_back(ToolServer::text("ENOENT: no such file or directory", true));
    let run = world.start("t2", "missing.txt").unwrap();
    assert_eq!(run.status.word(), "succeeded", "{run:?}");
    let second = world.m.asked.borrow()[1].body.clone().unwrap();
    let told = second["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    assert_eq!(told, "Error: ENOENT: no such file or directory");
    let answered = world.events("t2").into_iter().find(|(k, _)| k == "tool_call_answered").unwrap().1;
    assert_eq!(answered["is_error"], true);
}

#[test]
fn a_server_that_gives_no_answer_fails_the_run_with_its_reason() {
    let world = World::new(FILES);
    world.m.answers.borrow_mut().push_back(asks_to_read("a.txt"));
    let run = world.start("t3", "a.txt").unwrap();
    let RunStatus::Failed { error, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(error.reason, ErrorCode::ToolFailed);
    assert!(error.detail.contains("files") && error.detail.contains("unreachable"), "{}", error.detail);
    assert_eq!(world.m.asked.borrow().len(), 1, "the model is not asked again");
    assert_eq!(world.kinds("t3")[2..], ["tool_call_started", "tool_call_failed", "run_failed"]);
}

#[test]
fn a_tool_no_server_offers_is_refused_at_its_save_and_before_the_model_is_asked() {
    let (_, saved) =
        World::saving(r#"{"files": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": ["list_directory"]}}"#);
    let problem: Value = serde_json::from_str(saved["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(problem["errors"][0]["pointer"], "/tools/0");
    assert_eq!(problem["errors"][0]["in"], "source");
    assert!(problem["detail"].as_str().unwrap().contains("offers no tool “read_text_file”"), "{problem}");
    let (_, none) = World::saving("");
    assert!(none["content"][0]["text"].as_str().unwrap().contains("TOOL_SERVERS"), "{none}");

    // Saved while the server offered the tool; by the run it no longer does.
    let world = World::new(FILES);
    *world.m.tool_server.listed.borrow_mut() = vec![ToolServer::tool("list_directory", true)];
    let refused = world.start("t4", "a.txt").unwrap_err();
    assert_eq!((refused.status(), refused.kind), (503, Some(ErrorCode::ToolUnavailable)));
    assert!(
        refused.detail.contains("files/read_text_file") && refused.detail.contains("search with server files"),
        "{}",
        refused.detail
    );
    assert!(world.m.asked.borrow().is_empty(), "no model was asked");
    assert!(world.kinds("t4").is_empty(), "no run was started");
}

#[test]
fn a_server_that_keeps_no_content_leaves_sizes_in_the_history() {
    let world = World::new(
        r#"{"files": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": ["read_text_file"], "record_content": false}}"#,
    );
    world.m.answers.borrow_mut().extend([asks_to_read("a.txt"), says("Done.")]);
    world.m.tool_server.answers.borrow_mut().push_back(ToolServer::text("secret figures", false));
    world.start("t6", "a.txt").unwrap();
    let events = world.events("t6");
    let started = &events[2].1;
    assert!(started.get("arguments").is_none());
    assert_eq!(started["arguments_size"], json!({ "path": "a.txt" }).to_string().len());
    let answered = &events[3].1;
    assert!(answered.get("answer").is_none());
    assert_eq!(answered["size"], "secret figures".len());
}

#[test]
fn a_restart_while_a_tool_runs_ends_the_run_interrupted_and_calls_nothing_again() {
    let world = World::new(FILES);
    world.m.answers.borrow_mut().push_back(asks_to_read("a.txt"));
    world.m.tool_server.answers.borrow_mut().push_back(ToolServer::text("the brief", false));
    // Writes: the start (the run, its event), then the model's turn (the run, two events), none
    // sent yet, since the model and the tool answer at once; the runtime stops as the call's
    // answer is kept.
    let object = world.m.object(ORG, &world.pb, "t7");
    object.store.faults.stop_at(6);
    world.start("t7", "a.txt").unwrap_err();
    assert_eq!(world.m.tool_server.calls.borrow().len(), 1);
    let kept = object.store.run().unwrap();
    assert_eq!(kept.as_ref().map(|r| r.status.word()), Some("started"), "{kept:?}");
    world.m.restart();
    // The first read after the restart finds the call no one waits for, without the alarm.
    let run = block_on(world.m.get_run(ORG, &world.pb, "t7")).unwrap();
    let RunStatus::Failed { error, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(error.reason, ErrorCode::Interrupted);
    assert!(error.detail.contains("files/read_text_file") && error.detail.contains("call 1"), "{}", error.detail);
    assert_eq!(world.m.tool_server.calls.borrow().len(), 1, "no call is made twice");
    assert_eq!(world.m.asked.borrow().len(), 1, "the model is not asked again");
    block_on(world.m.pass(200_000));
    assert_eq!(
        block_on(world.m.get_run(ORG, &world.pb, "t7")).unwrap().status,
        run.status,
        "the alarm changes nothing"
    );
    let again = world.start("t7", "a.txt").unwrap_err();
    assert_eq!(again.status(), 409, "the run id is never run again: {}", again.detail);
    assert_eq!(world.m.tool_server.calls.borrow().len(), 1);
}

#[test]
fn a_connected_connection_serves_a_runs_tools_as_a_server_of_the_settings_does() {
    let m = Runtime { models: std::cell::RefCell::new(models()), ..Runtime::default() };
    *m.tool_server.listed.borrow_mut() =
        vec![ToolServer::tool("read_text_file", true), ToolServer::tool("write_file", false)];
    let files = json!({ "name": "files", "type": "mcp", "entry": { "url": "http://127.0.0.1:9/mcp", "allowed": ["read_text_file"] }, "credential": { "kind": "none" } });
    let added = common::tool(&m, 1, "add_connection", files)["structuredContent"].clone();
    let token = added["connect"]["url"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
    let dev = playbook_runtime::core::Caller::local(Some("ada".into()));
    let ctx = common::ctx(&dev, &m, 2, 2);
    let approve = playbook_runtime::tools::find("approve").unwrap();
    block_on(playbook_runtime::tools::call(&ctx, approve, json!({ "token": token }))).unwrap();
    let created = common::tool(&m, 3, "create_playbook", json!({ "name": "Campaigns" }));
    let pb = created["structuredContent"]["id"].as_str().unwrap().to_string();
    let saved = common::tool(
        &m,
        4,
        "create_definition",
        json!({
            "playbook": pb, "type": "reasoning", "name": "review-brief", "source": review(),
            "overview": "Reads a brief through the files connection and reviews it against four criteria.",
            "diagram": "flowchart LR\n  A[file] --> B[read it] --> C[review]",
        }),
    );
    assert_eq!(saved["isError"], false, "{saved}");
    m.answers.borrow_mut().extend([asks_to_read("brief.txt"), says("Ready.")]);
    m.tool_server.answers.borrow_mut().push_back(ToolServer::text("Audience: finance leads.", false));
    let world = World { m, pb };
    // A run's binding reads the org's connections through its host; its start takes them as well.
    let settings = world.m.connection_settings();
    let using = playbook_runtime::ops::connections::Using {
        backend: &world.m,
        settings: &settings,
        transport: &world.m.tool_server,
        org: ORG,
        now: world.m.now(),
    };
    let loaded = block_on(playbook_runtime::ops::connections::servers(&using));
    assert_eq!(loaded.len(), 1);
    let asked = Asked {
        org: ORG.into(),
        playbook: world.pb.clone(),
        definition: Ref { kind: Kind::Reasoning, name: "review-brief".into() },
        input: json!({ "file": "brief.txt" }),
        run_id: "c1".into(),
        now: playbook_runtime::core::text::stamp(world.m.now()),
        within: None,
        by: Actor::of(&dev),
        again: None,
        stand_ins: None,
    };
    let (models, tools) = (models(), world.m.tool_servers().with(&loaded));
    let reads = world.m.connection_reads.get();
    let run = block_on(run_start::start(
        &world.m,
        &Outside { models: &models, tools: &tools, connections: None, read: None, now: 0 },
        asked,
    ))
    .unwrap()
    .run;
    let RunStatus::Succeeded { output, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(output, &json!("Ready."));
    assert!(world.m.connection_reads.get() > reads, "the run's binding read the org's connections");
    let m = &world.m;
    assert_eq!(m.tool_server.calls.borrow()[0]["name"], "read_text_file");
}

/// A tool's answer of a line of text and one image block.
fn with_image(media_type: &str, bytes: &[u8]) -> Result<Value, Unanswered> {
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(json!({ "content": [
        { "type": "text", "text": "The chart:" },
        { "type": "image", "mimeType": media_type, "data": data },
    ] }))
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01";

#[test]
fn a_tools_image_is_kept_as_an_asset_which_the_event_and_the_model_name() {
    let world = World::new(FILES);
    world.m.answers.borrow_mut().extend([asks_to_read("chart.png"), says("A chart.")]);
    world.m.tool_server.answers.borrow_mut().push_back(with_image("image/png", PNG));
    let run = world.start("t-image", "chart.png").unwrap();
    assert_eq!(run.status.word(), "succeeded", "{run:?}");

    let answered = world.events("t-image").into_iter().find(|(k, _)| k == "tool_call_answered").unwrap().1;
    let asset = &answered["assets"][0];
    let id = asset["asset_id"].as_str().expect("the event names the asset");
    assert_eq!((asset["media_type"].as_str(), asset["size"].as_u64()), (Some("image/png"), Some(PNG.len() as u64)));
    let text = answered["answer"]["text"].as_str().unwrap();
    assert_eq!(text, format!("The chart:\n[image image/png, {} bytes, kept as the asset {id}]", PNG.len()));
    assert!(!answered.to_string().contains("iVBOR"), "no base64 in the event: {answered}");

    let second = world.m.asked.borrow()[1].body.clone().unwrap();
    let told = second["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    assert_eq!(told, json!(text), "the model reads the asset named");

    let kept = block_on(playbook_runtime::ops::assets::content(&world.m, ORG, &world.pb, id)).expect("kept");
    assert_eq!(kept.1, PNG);
    assert_eq!(
        serde_json::to_value(&kept.0.made_by).unwrap(),
        json!({ "kind": "tool", "run_id": "t-image", "tool": "files/read_text_file" })
    );
}

#[test]
fn an_image_that_is_not_what_it_says_or_cannot_be_kept_stays_described_and_the_run_goes_on() {
    let world = World::new(FILES);
    world.m.answers.borrow_mut().extend([asks_to_read("a.png"), says("Nothing to see.")]);
    world.m.tool_server.answers.borrow_mut().push_back(with_image("image/png", b"<html>not a picture</html>"));
    let run = world.start("t-lie", "a.png").unwrap();
    assert_eq!(run.status.word(), "succeeded", "{run:?}");
    let answered = world.events("t-lie").into_iter().find(|(k, _)| k == "tool_call_answered").unwrap().1;
    assert!(answered.get("assets").is_none(), "{answered}");
    let text = answered["answer"]["text"].as_str().unwrap();
    assert!(
        text.contains("[image image/png, about ") && text.contains("(not kept: The bytes given as image/png"),
        "{text}"
    );

    world.m.answers.borrow_mut().extend([asks_to_read("b.png"), says("Nothing kept.")]);
    world.m.tool_server.answers.borrow_mut().push_back(with_image("image/png", PNG));
    world.m.bucket.faults.fail_on("put");
    let run = world.start("t-down", "b.png").unwrap();
    assert_eq!(run.status.word(), "succeeded", "{run:?}");
    let answered = world.events("t-down").into_iter().find(|(k, _)| k == "tool_call_answered").unwrap().1;
    assert!(answered.get("assets").is_none(), "{answered}");
    assert!(answered["answer"]["text"].as_str().unwrap().contains("(not kept: The asset bucket did not answer"));
    assert_eq!(world.m.shelf(ORG, &world.pb).assets.rows.borrow().len(), 0, "no record names bytes not kept");
}
