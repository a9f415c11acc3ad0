//! Runs that call one tool without a model, on the host, through the same `ops::run::Runner` the
//! Run object uses, with one MCP tool server in memory: a lookup that reads through a tool, a
//! notification sent through one, a request sent through a tool whose replies another reads
//! until one answers it, and requests that expire.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::actor::{Actor, ActorKind};
use playbook_runtime::core::definition::{Kind, Ref};
use playbook_runtime::core::event::EventQuery;
use playbook_runtime::core::run::{Run, RunStatus};
use playbook_runtime::core::tool_server::ToolServers;
use playbook_runtime::core::{ErrorCode, Problem};
use playbook_runtime::ops::memory::Runtime;
use playbook_runtime::ops::memory_tools::ToolServer;
use playbook_runtime::ops::run_start::{self, Asked, Outside};
use playbook_runtime::ops::Backend;
use serde_json::{json, Value};

const ORG: &str = "local";

const CHAT: &str = r#"{"chat": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": "*",
    "sends": "post_message", "reads_replies": "read_replies"}}"#;

const READ_CONTACT: &str = "---
description: Reads one contact of the CRM by its id
input:
  schema: { type: object, properties: { id: { type: string } }, required: [id] }
tool:
  name: chat/read_replies
  arguments: { message_id: \"{{ input.id }}\" }
---
";

const ANNOUNCE: &str = "---
description: Tells the team a brief is approved
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
notify:
  tool: chat/post_message
  arguments: { channel: marketing, text: \"{{ message }}\" }
---
The brief {{ input.title }} is approved.
";

const APPROVE: &str = "---
description: Asks the campaign owner in the team chat to approve a brief
input:
  schema: { type: object, properties: { title: { type: string } }, required: [title] }
ask:
  deliver:
    send: { tool: chat/post_message, arguments: { channel: marketing, text: \"{{ question }}\" } }
    replies: { tool: chat/read_replies, arguments: { message_id: \"{{ sent.structured.message_id }}\" }, every_seconds: 30 }
  expires_in_hours: 1
  answer:
    schema: { type: object, properties: { verdict: { enum: [approve, reject] } }, required: [verdict] }
---
Approve the brief {{ input.title }}?
";

struct World {
    m: Runtime,
    pb: String,
}

impl World {
    fn new() -> World {
        let servers = ToolServers::read(|name| (name == "TOOL_SERVERS").then(|| CHAT.to_string()), false).0;
        let m = Runtime { servers, ..Runtime::default() };
        *m.tool_server.listed.borrow_mut() =
            vec![ToolServer::tool("post_message", false), ToolServer::tool("read_replies", true)];
        let created = common::tool(&m, 1, "create_playbook", json!({ "name": "Campaigns" }));
        let pb = created["structuredContent"]["id"].as_str().unwrap().to_string();
        World { m, pb }
    }

    fn save(&self, name: &str, source: &str) -> Value {
        let kind = if source.contains("\ntool:") { "lookup" } else { "interaction" };
        common::tool(
            &self.m,
            2,
            "create_definition",
            json!({
                "playbook": self.pb, "type": kind, "name": name, "source": source,
                "overview": "Reaches the team through the chat server, as its description says.",
                "diagram": "flowchart LR\n  A[input] --> B[chat]",
            }),
        )
    }

    fn start(&self, kind: Kind, name: &str, run_id: &str, input: Value) -> Result<Run, Problem> {
        let asked = Asked {
            org: ORG.into(),
            playbook: self.pb.clone(),
            definition: Ref { kind, name: name.into() },
            input,
            run_id: run_id.into(),
            now: playbook_runtime::core::text::stamp(self.m.now()),
            within: None,
            by: Actor::of(&playbook_runtime::core::Caller::local(None)),
            again: None,
            stand_ins: None,
        };
        let tools = self.m.tool_servers();
        block_on(run_start::start(
            &self.m,
            &Outside { models: &Default::default(), tools: &tools, connections: None, read: None, now: 0 },
            asked,
        ))
        .map(|s| s.run)
    }

    fn kinds(&self, run_id: &str) -> Vec<String> {
        let query = EventQuery { run_id: Some(run_id.into()), kind: None, limit: 100, after: None };
        let page = block_on(self.m.list_events(ORG, &self.pb, query)).unwrap();
        page.events.into_iter().map(|e| e["kind"].as_str().unwrap_or_default().to_string()).collect()
    }

    fn calls(&self) -> Vec<Value> {
        self.m
            .tool_server
            .calls
            .borrow()
            .iter()
            .map(|c| json!({ "name": c["name"], "arguments": c["arguments"] }))
            .collect()
    }

    fn get(&self, run_id: &str) -> Run {
        block_on(self.m.get_run(ORG, &self.pb, run_id)).unwrap()
    }
}

fn structured(value: Value) -> Result<Value, playbook_runtime::ops::outbound::Unanswered> {
    Ok(json!({ "content": [{ "type": "text", "text": value.to_string() }], "structuredContent": value }))
}

#[test]
fn a_lookup_reads_through_a_tool_that_reads_and_answers_what_it_read() {
    let world = World::new();
    assert_eq!(world.save("read-contact", READ_CONTACT)["isError"], false);
    world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "name": "Ada", "tier": 2 })));
    let run = world.start(Kind::Lookup, "read-contact", "l1", json!({ "id": "c7" })).unwrap();
    let RunStatus::Succeeded { output, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(output["structured"], json!({ "name": "Ada", "tier": 2 }));
    assert_eq!(world.calls(), [json!({ "name": "read_replies", "arguments": { "message_id": "c7" } })]);
    assert_eq!(world.kinds("l1"), ["run_started", "tool_call_started", "tool_call_answered", "run_succeeded"]);

    let acting = READ_CONTACT.replace("chat/read_replies", "chat/post_message");
    let refused = world.save("acting", &acting);
    assert!(refused["content"][0]["text"].as_str().unwrap().contains("not marked reads"), "{refused}");
}

#[test]
fn a_notification_is_sent_through_its_tool_with_the_body_as_its_message() {
    let world = World::new();
    assert_eq!(world.save("announce", ANNOUNCE)["isError"], false);
    world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "message_id": "m1" })));
    let run = world.start(Kind::Interaction, "announce", "n1", json!({ "title": "Autumn" })).unwrap();
    let RunStatus::Succeeded { output, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(output["sent"], true);
    let text = json!({ "channel": "marketing", "text": "The brief Autumn is approved." });
    assert_eq!(world.calls(), [json!({ "name": "post_message", "arguments": text })]);

    world.m.tool_server.answers.borrow_mut().push_back(ToolServer::text("channel_not_found", true));
    let failed = world.start(Kind::Interaction, "announce", "n2", json!({ "title": "Winter" })).unwrap();
    let RunStatus::Failed { error, .. } = &failed.status else { panic!("{failed:?}") };
    assert_eq!(error.reason, ErrorCode::ToolError);
    assert!(error.detail.contains("channel_not_found"), "{}", error.detail);
}

#[test]
fn a_save_that_says_not_how_to_reach_the_person_names_the_servers_that_can() {
    let world = World::new();
    let without = {
        let start = APPROVE.find("  deliver:").unwrap();
        let end = APPROVE.find("  expires_in_hours").unwrap();
        format!("{}{}", &APPROVE[..start], &APPROVE[end..])
    };
    let refused = world.save("approve", &without);
    let words = refused["content"][0]["text"].as_str().unwrap();
    assert!(
        words.contains("chat, which sends with chat/post_message and reads the replies with chat/read_replies"),
        "{words}"
    );
    let silent = ANNOUNCE.replace("  tool: chat/post_message\n", "");
    let refused = world.save("announce", &silent);
    assert!(refused["content"][0]["text"].as_str().unwrap().contains("chat, with chat/post_message"), "{refused}");
}

#[test]
fn a_request_sent_through_a_tool_is_answered_by_the_first_reply_that_fits() {
    let world = World::new();
    assert_eq!(world.save("approve", APPROVE)["isError"], false);
    world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "message_id": "m9" })));
    let run = world.start(Kind::Interaction, "approve", "a1", json!({ "title": "Autumn" })).unwrap();
    let RunStatus::Started { waiting: Some(request) } = &run.status else { panic!("{run:?}") };
    assert_eq!(request.question, "Approve the brief Autumn?");
    let listed = block_on(world.m.list_requests(ORG, &world.pb, 20, None)).unwrap();
    assert_eq!(listed.requests.len(), 1, "the request is open to the agent too");

    // The first reading finds no reply; the second, one that does not fit; the third answers.
    world.m.tool_server.answers.borrow_mut().extend([
        structured(json!({ "replies": [] })),
        ToolServer::text("maybe later", false),
        structured(json!({ "verdict": "approve" })),
    ]);
    block_on(world.m.pass(30_000));
    assert_eq!(world.get("a1").status.word(), "started");
    block_on(world.m.pass(60_000));
    let done = world.get("a1");
    let RunStatus::Succeeded { output, .. } = &done.status else { panic!("{done:?}") };
    assert_eq!(output, &json!({ "verdict": "approve" }));
    let by = done.answered_by.unwrap();
    assert_eq!((by.kind, by.id.as_str()), (ActorKind::Tool, "chat/read_replies"));
    let calls = world.calls();
    assert_eq!(calls[0]["arguments"]["text"], "Approve the brief Autumn?");
    assert_eq!(calls.len(), 4);
    assert!(calls[1..].iter().all(|c| c["arguments"] == json!({ "message_id": "m9" })), "{calls:?}");
    let kinds = world.kinds("a1");
    assert_eq!(
        kinds,
        [
            "run_started",
            "interaction_requested",
            "tool_call_started",
            "tool_call_answered",
            "interaction_answered",
            "run_succeeded"
        ]
    );
    let listed = block_on(world.m.list_requests(ORG, &world.pb, 20, None)).unwrap();
    assert!(listed.requests.is_empty(), "the answered request left the list");
}

#[test]
fn a_request_nobody_answers_expires_by_its_alarm() {
    let world = World::new();
    assert_eq!(world.save("approve", APPROVE)["isError"], false);
    world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "message_id": "m1" })));
    world.start(Kind::Interaction, "approve", "e1", json!({ "title": "Autumn" })).unwrap();
    for _ in 0..200 {
        world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "replies": [] })));
    }
    block_on(world.m.pass(3_700_000));
    let run = world.get("e1");
    let RunStatus::Failed { error, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(error.reason, ErrorCode::Expired);
    let kinds = world.kinds("e1");
    assert_eq!(kinds[kinds.len() - 2..], ["interaction_expired".to_string(), "run_failed".into()]);
    let polls = world.calls().len() - 1;
    assert!((100..=121).contains(&polls), "read every 30 seconds for an hour: {polls}");
    let listed = block_on(world.m.list_requests(ORG, &world.pb, 20, None)).unwrap();
    assert!(listed.requests.is_empty(), "the expired request left the list");
}

#[test]
fn a_client_that_answers_forms_is_asked_where_the_owner_is_asked_then_told_what_to_write() {
    use playbook_runtime::mcp::endpoint::Endpoint;
    use playbook_runtime::mcp::server::answer;
    use playbook_runtime::mcp::transport::Era;

    let world = World::new();
    let without = {
        let start = APPROVE.find("  deliver:").unwrap();
        let end = APPROVE.find("  expires_in_hours").unwrap();
        format!("{}{}", &APPROVE[..start], &APPROVE[end..])
    };
    let caller = playbook_runtime::core::Caller::local(None);
    let ctx = common::ctx(&caller, &world.m, 3, 3);
    let arguments = json!({
        "playbook": world.pb, "type": "interaction", "name": "approve", "source": without,
        "overview": "Asks the owner to approve a brief, through the team chat.",
        "diagram": "flowchart LR\n  A[brief] --> B[owner]",
    });
    let forms = Era::Modern { capabilities: json!({ "elicitation": {} }) };
    let call =
        |era: &Era, params: Value| block_on(answer(&ctx, &Endpoint::Root, era, &json!(1), "tools/call", &Some(params)));

    let asked = call(&forms, json!({ "name": "create_definition", "arguments": arguments }));
    let result = &asked["result"];
    assert_eq!(result["resultType"], "input_required", "{asked}");
    let form = &result["inputRequests"]["deliver"]["params"];
    assert_eq!(form["message"], "Where should the owner be asked?");
    let choices: Vec<&str> = form["requestedSchema"]["properties"]["deliver"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["const"].as_str().unwrap())
        .collect();
    assert_eq!(choices, ["chat", "agent"]);

    let retry = |choice: Value| {
        let params = json!({
            "name": "create_definition", "arguments": arguments,
            "inputResponses": { "deliver": choice }, "requestState": result["requestState"],
        });
        call(&forms, params)["result"].clone()
    };
    let chat = retry(json!({ "action": "accept", "content": { "deliver": "chat" } }));
    assert_eq!((chat["isError"].clone(), chat["resultType"].clone()), (json!(true), json!("complete")));
    let words = chat["content"][0]["text"].as_str().unwrap();
    assert!(
        words.contains("the person chose “chat”")
            && words.contains("chat/post_message")
            && words.contains("chat/read_replies"),
        "{words}"
    );
    let agent = retry(json!({ "action": "accept", "content": { "deliver": "agent" } }));
    assert!(agent["content"][0]["text"].as_str().unwrap().contains("write deliver: agent"), "{agent}");
    let declined = retry(json!({ "action": "decline" }));
    assert!(declined["content"][0]["text"].as_str().unwrap().contains("these can send a request"), "{declined}");

    let legacy = Era::Legacy { version: "2025-11-25".into() };
    let plain = call(&legacy, json!({ "name": "create_definition", "arguments": arguments }));
    assert_eq!(plain["result"]["isError"], true, "an earlier revision is not asked: {plain}");
    let no_forms = Era::Modern { capabilities: json!({}) };
    assert_eq!(
        call(&no_forms, json!({ "name": "create_definition", "arguments": arguments }))["result"]["isError"],
        true
    );
}

/// `run_definition` reads the org's connections (a call to the org's object) only for a run that
/// reaches a tool server: a computation starts without it, a lookup through a tool with it.
#[test]
fn only_a_run_that_reaches_a_tool_server_beyond_the_settings_reads_the_orgs_connections() {
    let world = World::new();
    let saved = common::tool(
        &world.m,
        2,
        "create_definition",
        json!({
            "playbook": world.pb, "type": "computation", "name": "add-vat",
            "source": include_str!("fixtures/add-vat.md"),
            "overview": "Adds VAT to a net amount, as its description says.",
            "diagram": "flowchart LR\n  A[net] --> B[gross]",
        }),
    );
    assert_eq!(saved["isError"], false, "{saved}");
    assert_eq!(world.save("read-contact", READ_CONTACT)["isError"], false);
    let run = |second, kind: &str, name: &str, input: Value| {
        let args = json!({ "playbook": world.pb, "type": kind, "name": name, "input": input });
        common::tool(&world.m, second, "run_definition", args)
    };
    let before = world.m.connection_reads.get();
    let computed = run(3, "computation", "add-vat", json!({ "net": 100 }));
    assert_eq!(computed["structuredContent"]["status"], "succeeded", "{computed}");
    assert_eq!(world.m.connection_reads.get(), before, "a computation reaches no tool server");
    world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "name": "Ada" })));
    let looked_up = run(4, "lookup", "read-contact", json!({ "id": "c7" }));
    assert_eq!(looked_up["structuredContent"]["status"], "succeeded", "{looked_up}");
    // The settings' servers come before the org's connections wherever a name is looked up.
    assert_eq!(world.m.connection_reads.get(), before, "a lookup through a server of the settings");

    // The same lookup through a connection of the org reads them, at its start and in its run.
    let crm = json!({ "name": "crm", "type": "mcp", "entry": { "url": "http://127.0.0.1:9/mcp", "allowed": "*" }, "credential": { "kind": "none" } });
    let added = common::tool(&world.m, 5, "add_connection", crm)["structuredContent"].clone();
    let token = added["connect"]["url"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
    let dev = playbook_runtime::core::Caller::local(Some("ada".into()));
    let approve = playbook_runtime::tools::find("approve").unwrap();
    block_on(playbook_runtime::tools::call(&common::ctx(&dev, &world.m, 6, 6), approve, json!({ "token": token })))
        .unwrap();
    let through_crm = READ_CONTACT.replace("chat/read_replies", "crm/read_replies");
    assert_eq!(world.save("read-crm-contact", &through_crm)["isError"], false);
    world.m.tool_server.answers.borrow_mut().push_back(structured(json!({ "name": "Ada" })));
    let before = world.m.connection_reads.get();
    let looked_up = run(7, "lookup", "read-crm-contact", json!({ "id": "c7" }));
    assert_eq!(looked_up["structuredContent"]["status"], "succeeded", "{looked_up}");
    assert_eq!(world.m.connection_reads.get(), before + 2, "a lookup through a connection reads them twice");
}

/// `run_definition`, a workflow's step and a trigger start a run one way, with the same checks:
/// a lookup through a connection the org has since removed is refused in the same words when
/// `run_definition` runs it, when a step of a workflow that `run_definition` runs does, and when a
/// step of that workflow's run a trigger started does.
#[test]
fn the_three_starters_refuse_a_function_whose_connection_is_gone_alike() {
    let world = World::new();
    let crm = json!({ "name": "crm", "type": "mcp", "entry": { "url": "http://127.0.0.1:9/mcp", "allowed": "*" }, "credential": { "kind": "none" } });
    let added = common::tool(&world.m, 3, "add_connection", crm)["structuredContent"].clone();
    let token = added["connect"]["url"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
    let dev = playbook_runtime::core::Caller::local(Some("ada".into()));
    let approve = playbook_runtime::tools::find("approve").unwrap();
    block_on(playbook_runtime::tools::call(&common::ctx(&dev, &world.m, 4, 4), approve, json!({ "token": token })))
        .unwrap();
    let through_crm = READ_CONTACT.replace("chat/read_replies", "crm/read_replies");
    assert_eq!(world.save("read-crm-contact", &through_crm)["isError"], false);
    let workflow = "---
description: Reads a contact of the CRM every hour
input:
  schema: { type: object, properties: { id: { type: string } }, required: [id] }
triggers:
  - every: 1h
    input: { id: \"'c7'\" }
steps:
  - id: contact
    function: lookup/read-crm-contact
    input: { id: input.id }
output:
  contact: steps.contact.output
---
";
    let args = json!({
        "playbook": world.pb, "type": "workflow", "name": "hourly-contact", "source": workflow,
        "overview": "Reads a contact of the CRM every hour, as its description says.",
    });
    let saved = common::tool(&world.m, 5, "create_definition", args);
    assert_eq!(saved["isError"], false, "{saved}");
    let removed = common::tool(&world.m, 6, "remove_connection", json!({ "connection": added["id"] }));
    assert_eq!(removed["isError"], false, "{removed}");

    let run = |second, kind: &str, name: &str| {
        let args = json!({ "playbook": world.pb, "type": kind, "name": name, "input": { "id": "c7" } });
        common::tool(&world.m, second, "run_definition", args)
    };
    let direct = run(7, "lookup", "read-crm-contact");
    assert_eq!(direct["isError"], true, "{direct}");
    let refusal = direct["content"][0]["text"].as_str().unwrap().to_string();
    assert!(refusal.contains("crm"), "{refusal}");

    let started = run(8, "workflow", "hourly-contact");
    let by_hand = started["structuredContent"]["run_id"].as_str().unwrap().to_string();
    block_on(world.m.pass(3_600_000));
    let workflow = Ref { kind: Kind::Workflow, name: "hourly-contact".into() };
    let runs = block_on(world.m.read_runs(ORG, &world.pb, workflow, 10)).unwrap();
    let by_trigger = runs.iter().find(|r| r.run_id != by_hand).expect("the trigger started a run");
    assert_eq!(by_trigger.started_by.as_ref().map(|a| a.kind), Some(ActorKind::Trigger), "{by_trigger:?}");
    for run_id in [by_hand.as_str(), by_trigger.run_id.as_str()] {
        let RunStatus::Failed { error, .. } = world.get(run_id).status else { panic!("{run_id} did not fail") };
        assert_eq!(error.reason, ErrorCode::StepFailed, "{error:?}");
        assert!(error.detail.contains(&refusal), "{run_id}: {} does not say {refusal}", error.detail);
    }
    assert!(world.calls().is_empty(), "no start called a tool");
}
