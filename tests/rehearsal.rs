//! Rehearsals on the host, over the runtime in memory: a workflow with a lookup through a tool, a
//! reasoning step that calls a tool, a wait of an hour and an approval asked twice runs on its
//! stand-ins alone. The tool server in memory counts every request it is sent and the model
//! provider every request it is asked: both stay at none. The rehearsal is listed apart, and its
//! events reach no trigger.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::tool_server::ToolServers;
use playbook_runtime::ops::memory::Runtime;
use playbook_runtime::ops::memory_tools::ToolServer;
use serde_json::{json, Value};

const SERVERS: &str = r#"{"crm": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": ["find_customer"], "marks": {"find_customer": "reads"}}}"#;
const APPROVE: &str = include_str!("fixtures/approve-campaign-brief.md");
const ADD_VAT: &str = include_str!("fixtures/add-vat.md");

/// Starts on every run that succeeds in the playbook.
const ECHO: &str = "---\ndescription: Notes each run that succeeded\ninput:\n  schema: { type: object }\ntriggers:\n  - event: run_succeeded\n    input: {}\nsteps:\n  - id: pause\n    wait:\n      seconds: 1\noutput:\n  at: steps.pause.output.at\n---\n";

const FIND: &str = "---\ndescription: Finds the customer a brief is for\ninput:\n  schema: { type: object, properties: { name: { type: string } }, required: [name] }\ntool: {name: crm/find_customer, arguments: {name: \"{{ input.name }}\"}}\n---\n";

const TRIAGE: &str = "---\ndescription: Reviews a brief with the customer's record\nmodel: openai/gpt-4o-mini\ninput:\n  schema: { type: object, properties: { name: { type: string } }, required: [name] }\noutput:\n  schema: { type: object, properties: { review: { type: string } }, required: [review] }\ntools: [crm/find_customer]\n---\nReview the brief of {{ input.name }}.\n";

const FLOW: &str = "---\ndescription: Reviews a brief, waits an hour, and has it approved twice\ninput:\n  schema: { type: object, properties: { name: { type: string } }, required: [name] }\nsteps:\n  - id: find\n    function: lookup/find-customer\n    input:\n      name: input.name\n  - id: triage\n    function: reasoning/triage\n    input:\n      name: input.name\n  - id: pause\n    wait:\n      seconds: 3600\n  - id: first\n    function: interaction/approve\n    input:\n      title: input.name\n      review: steps.triage.output.review\n  - id: second\n    function: interaction/approve\n    input:\n      title: input.name\n      review: steps.triage.output.review\noutput:\n  first: steps.first.output.verdict\n  second: steps.second.output.verdict\n---\n";

struct World {
    m: Runtime,
    pb: String,
}

impl World {
    fn new() -> World {
        let settings = ToolServers::read(|name| (name == "TOOL_SERVERS").then(|| SERVERS.to_string()), false).0;
        let m = Runtime { servers: settings, ..Runtime::default() };
        *m.tool_server.listed.borrow_mut() = vec![ToolServer::tool("find_customer", true)];
        let pb = common::playbook(&m, "Briefs");
        let w = World { m, pb };
        w.save("lookup", "find-customer", FIND);
        w.save("reasoning", "triage", TRIAGE);
        w.save("interaction", "approve", APPROVE);
        w.save("workflow", "review", FLOW);
        w.m.tool_server.sent.set(0);
        w
    }

    fn save(&self, kind: &str, name: &str, source: &str) {
        let args = common::save_args(&self.pb, kind, name, source);
        let saved = common::tool(&self.m, 2, "create_definition", args);
        assert_eq!(saved["isError"], false, "{saved}");
    }

    fn call(&self, tool: &str, args: Value) -> Value {
        let mut args = args;
        args["playbook"] = json!(self.pb);
        common::tool(&self.m, 3, tool, args)
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args);
        assert_eq!(result["isError"], false, "{result}");
        result["structuredContent"].clone()
    }

    fn listed(&self, args: Value) -> Vec<String> {
        let page = self.ok("list_runs", args);
        page["runs"].as_array().unwrap().iter().map(|r| r["run_id"].as_str().unwrap().to_string()).collect()
    }
}

fn stand_ins() -> Value {
    json!({
        "tools": { "crm/find_customer": { "structured": { "id": 7, "name": "Acme" } } },
        "models": { "triage": [
            { "tool_calls": [{ "tool": "crm/find_customer", "arguments": { "name": "Acme" } }] },
            { "output": { "review": "Ready: the budget is stated." } }
        ] },
        "people": { "approve": [{ "verdict": "approve" }, { "verdict": "revise" }] }
    })
}

#[test]
fn a_workflow_rehearses_on_its_stand_ins_and_reaches_nothing_outside() {
    let w = World::new();
    let started = w.ok(
        "run_definition",
        json!({ "type": "workflow", "name": "review", "input": { "name": "Acme" }, "run_id": "r1", "rehearse": true, "stand_ins": stand_ins() }),
    );
    assert_eq!(started["rehearsal"], true, "{started}");
    assert!(started.get("stand_ins").is_none(), "the answer does not echo the stand-ins");
    block_on(w.m.pass(5_000));

    let done = w.ok("get_run", json!({ "run_id": "r1" }));
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["output"], json!({ "first": "approve", "second": "revise" }), "yes, then no");
    assert_eq!(w.m.tool_server.sent.get(), 0, "no request reached the tool server");
    assert!(w.m.asked.borrow().is_empty(), "no request reached a model provider");

    let triage = w.ok("get_run", json!({ "run_id": "r1-triage-1" }));
    assert_eq!(triage["rehearsal"], true);
    assert_eq!(triage["output"]["review"], "Ready: the budget is stated.");
    assert_eq!(triage["record"]["tool_calls"][0]["tool"], "crm/find_customer", "{triage}");
    let first = w.ok("get_run", json!({ "run_id": "r1-first-1" }));
    assert_eq!(first["answered_by"]["kind"], "stand_in", "{first}");
    let open = w.ok("list_interactions", json!({}));
    assert_eq!(open["requests"], json!([]), "a rehearsal opens no request: {open}");

    assert!(w.listed(json!({})).is_empty(), "list_runs leaves rehearsals out");
    let apart = w.listed(json!({ "rehearsal": true, "steps": false }));
    assert_eq!(apart, ["r1"]);
    let events = w.ok("list_playbook_events", json!({ "run_id": "r1" }));
    let all = events["events"].as_array().unwrap();
    assert!(!all.is_empty() && all.iter().all(|e| e["data"]["rehearsal"] == true), "{events}");
}

#[test]
fn a_rehearsal_s_events_start_no_trigger_where_a_run_s_do() {
    let w = World::new();
    w.save("computation", "add-vat", ADD_VAT);
    w.save("workflow", "echo", ECHO);
    let echoes = |w: &World| w.listed(json!({ "type": "workflow", "name": "echo" })).len();
    let vat = |run_id: &str, rehearse: bool| json!({ "type": "computation", "name": "add-vat", "input": { "net": 100 }, "run_id": run_id, "rehearse": rehearse });
    w.ok("run_definition", vat("v1", true));
    block_on(w.m.pass(5_000));
    assert_eq!(echoes(&w), 0, "a rehearsal's success starts nothing");
    let shared = w.call("run_definition", vat("v1", false));
    assert_eq!(shared["isError"], true, "a run never takes a rehearsal's id: {shared}");
    w.ok("run_definition", vat("v2", false));
    block_on(w.m.pass(5_000));
    assert_eq!(echoes(&w), 1, "a run's success starts the trigger's workflow");
}

#[test]
fn a_call_with_no_stand_in_fails_in_words_that_name_what_to_add() {
    let w = World::new();
    let mut given = stand_ins();
    given["people"]["approve"] = json!([{ "verdict": "approve" }]);
    w.ok(
        "run_definition",
        json!({ "type": "workflow", "name": "review", "input": { "name": "Acme" }, "run_id": "r2", "rehearse": true, "stand_ins": given }),
    );
    block_on(w.m.pass(5_000));
    let second = w.ok("get_run", json!({ "run_id": "r2-second-1" }));
    assert_eq!(second["status"], "failed", "{second}");
    assert_eq!(second["error"]["reason"], "no_stand_in");
    let detail = second["error"]["detail"].as_str().unwrap();
    assert!(detail.contains("answered its first 1") && detail.contains("stand_ins.people[\"approve\"]"), "{detail}");

    let lookup = w.ok(
        "run_definition",
        json!({ "type": "lookup", "name": "find-customer", "input": { "name": "Acme" }, "rehearse": true }),
    );
    assert_eq!(lookup["status"], "failed", "{lookup}");
    assert!(lookup["error"]["detail"].as_str().unwrap().contains("stand_ins.tools"), "{lookup}");
    assert_eq!(w.m.tool_server.sent.get(), 0);

    let refused = w.call(
        "run_definition",
        json!({ "type": "lookup", "name": "find-customer", "input": { "name": "A" }, "stand_ins": {} }),
    );
    assert_eq!(refused["isError"], true, "stand-ins without rehearse are refused");
    let bad = w.call(
        "run_definition",
        json!({ "type": "lookup", "name": "find-customer", "input": { "name": "A" }, "rehearse": true, "stand_ins": { "tools": { "find": {} } } }),
    );
    let problem: Value = serde_json::from_str(bad["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(problem["errors"][0]["pointer"], "/stand_ins/tools/find", "{problem}");
}
