//! A workflow offered as a tool, on the host over the runtime in memory: the run-mode endpoints
//! list it with the workflow's input schema and hints, refuse an argument the schema does not
//! declare before anything runs, start its run and answer its handle, and offer nothing to a
//! caller that may not start a run; a save refuses a tool name another workflow holds.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::caller::Scope;
use playbook_runtime::core::Caller;
use playbook_runtime::mcp::endpoint::Endpoint;
use playbook_runtime::mcp::server::answer;
use playbook_runtime::mcp::transport::Era;
use serde_json::{json, Value};

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");

fn flow(tool: &str) -> String {
    format!(
        "---\ndescription: Adds VAT to an invoice's net amount\ninput:\n  schema: {{ type: object, properties: {{ net: {{ type: number }} }}, required: [net] }}\n{tool}steps:\n  - id: vat\n    function: computation/add-vat\n    input:\n      net: input.net\noutput:\n  gross: steps.vat.output.gross\n---\n"
    )
}

struct World {
    m: common::Memory,
    pb: String,
}

impl World {
    fn new() -> World {
        let m = common::Memory::default();
        let pb = common::playbook(&m, "Invoices");
        let w = World { m, pb };
        w.save("create_definition", "computation", "add-vat", ADD_VAT).unwrap();
        w
    }

    fn save(&self, tool: &str, kind: &str, name: &str, source: &str) -> Result<Value, Value> {
        let args = common::save_args(&self.pb, kind, name, source);
        let saved = common::tool(&self.m, 2, tool, args);
        if saved["isError"] == false {
            Ok(saved)
        } else {
            Err(serde_json::from_str(saved["content"][1]["text"].as_str().unwrap()).unwrap())
        }
    }

    fn on_playbook(&self) -> Endpoint {
        Endpoint::Run { org: "local".into(), playbook: Some(self.pb.clone()) }
    }

    fn rpc(&self, caller: &Caller, endpoint: &Endpoint, method: &str, params: Value) -> Value {
        let ctx = common::ctx(caller, &self.m, 5, 5);
        let era = Era::Legacy { version: "2025-11-25".into() };
        block_on(answer(&ctx, endpoint, &era, &json!(1), method, &Some(params)))
    }

    fn listed(&self, caller: &Caller, endpoint: &Endpoint) -> Vec<Value> {
        let reply = self.rpc(caller, endpoint, "tools/list", json!({}));
        reply["result"]["tools"].as_array().unwrap_or_else(|| panic!("{reply}")).clone()
    }

    fn call(&self, endpoint: &Endpoint, name: &str, args: Value) -> Value {
        let reply = self.rpc(&ada(), endpoint, "tools/call", json!({ "name": name, "arguments": args }));
        reply["result"].clone()
    }
}

fn ada() -> Caller {
    Caller::local(Some("ada".into()))
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

#[test]
fn a_playbook_run_mode_endpoint_lists_the_workflow_with_its_schema_and_follows_its_run() {
    let w = World::new();
    w.save("create_definition", "workflow", "invoice", &flow("tool: { name: add_vat, wait_seconds: 0 }\n")).unwrap();
    let tools = w.listed(&ada(), &w.on_playbook());
    let mut listed = names(&tools);
    listed.sort_unstable();
    let following = ["answer_interaction", "cancel_run", "get_guide", "get_run", "list_interactions", "list_runs"];
    assert_eq!(
        listed,
        [&["add_vat"][..], &following].concat(),
        "the run-following tools and the workflow's, nothing that builds"
    );
    let add_vat = tools.iter().find(|t| t["name"] == "add_vat").unwrap();
    assert_eq!(add_vat["inputSchema"]["properties"]["net"]["type"], "number");
    assert_eq!(add_vat["inputSchema"]["required"], json!(["net"]));
    assert!(add_vat["description"].as_str().unwrap().starts_with("Adds VAT to an invoice's net amount"));
    assert_eq!(add_vat["annotations"]["readOnlyHint"], true, "a computation only reads");
    assert_eq!(add_vat["annotations"]["openWorldHint"], false);
    let get_run = tools.iter().find(|t| t["name"] == "get_run").unwrap();
    assert!(get_run["inputSchema"]["properties"].get("playbook").is_none(), "the endpoint fixes the playbook");

    let refused = w.call(&w.on_playbook(), "add_vat", json!({ "net": 100, "nett": 1 }));
    assert_eq!(refused["isError"], true, "{refused}");
    let problem: Value = serde_json::from_str(refused["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(problem["errors"][0]["pointer"], "/nett", "{problem}");
    let listed = common::tool(&w.m, 6, "list_runs", json!({ "playbook": w.pb }));
    assert_eq!(listed["structuredContent"]["runs"], json!([]), "a refused call starts nothing");

    let started = w.call(&w.on_playbook(), "add_vat", json!({ "net": 100 }));
    assert_eq!(started["isError"], false, "{started}");
    let run_id = started["structuredContent"]["run_id"].as_str().unwrap().to_string();
    assert!(started["structuredContent"]["check_back_in_seconds"].is_number(), "{started}");
    assert!(started["content"][0]["text"].as_str().unwrap().contains("get_run"), "{started}");
    block_on(w.m.pass(5_000));
    let run = w.call(&w.on_playbook(), "get_run", json!({ "run_id": run_id }));
    assert_eq!(run["structuredContent"]["status"], "succeeded", "{run}");
    assert_eq!(run["structuredContent"]["output"]["gross"], json!(120.0));
    assert_eq!(run["structuredContent"]["definition"]["name"], "invoice");
}

#[test]
fn the_org_run_mode_endpoint_names_each_tool_by_its_playbook() {
    let w = World::new();
    w.save("create_definition", "workflow", "invoice", &flow("tool: { name: add_vat, wait_seconds: 0 }\n")).unwrap();
    let org = Endpoint::Run { org: "local".into(), playbook: None };
    let tools = w.listed(&ada(), &org);
    let name = format!("{}_add_vat", w.pb);
    let tool = tools.iter().find(|t| t["name"] == name.as_str()).unwrap_or_else(|| panic!("{tools:?}"));
    assert!(tool["title"].as_str().unwrap().contains("Invoices"), "{tool}");
    let get_run = tools.iter().find(|t| t["name"] == "get_run").unwrap();
    assert!(get_run["inputSchema"]["properties"].get("playbook").is_some(), "the org's endpoint names no playbook");
    let started = w.call(&org, &name, json!({ "net": 5 }));
    assert_eq!(started["isError"], false, "{started}");
    assert_eq!(w.call(&org, "add_vat", json!({ "net": 5 }))["isError"], Value::Null, "unprefixed, it names nothing");
}

#[test]
fn a_caller_that_may_not_start_a_run_is_offered_no_workflow() {
    let w = World::new();
    w.save("create_definition", "workflow", "invoice", &flow("tool: { name: add_vat }\n")).unwrap();
    let reader = Caller { scopes: vec![Scope::OrgRead, Scope::PlaybookRead], ..ada() };
    let tools = w.listed(&reader, &w.on_playbook());
    assert!(!names(&tools).contains(&"add_vat") && names(&tools).contains(&"get_run"), "{tools:?}");
    let reply = w.rpc(&reader, &w.on_playbook(), "tools/call", json!({ "name": "add_vat", "arguments": { "net": 1 } }));
    assert!(reply["error"]["message"].as_str().unwrap().starts_with("Unknown tool: add_vat"), "{reply}");
    let elsewhere = Caller { playbooks: Some(vec!["pb_aaaaaaaaaaaaaaaa".into()]), ..ada() };
    let org = Endpoint::Run { org: "local".into(), playbook: None };
    assert!(w.listed(&elsewhere, &org).iter().all(|t| !t["name"].as_str().unwrap().ends_with("_add_vat")));
}

#[test]
fn a_tool_name_is_one_workflow_s_and_a_paused_workflow_is_not_offered() {
    let w = World::new();
    w.save("create_definition", "workflow", "invoice", &flow("tool: { name: add_vat }\n")).unwrap();
    let taken = w.save("create_definition", "workflow", "invoice-two", &flow("tool: { name: add_vat }\n")).unwrap_err();
    assert_eq!(taken["errors"][0]["pointer"], "/tool/name", "{taken}");
    assert!(taken["errors"][0]["detail"].as_str().unwrap().contains("“invoice”"), "{taken}");
    let reserved = w.save("create_definition", "workflow", "runner", &flow("tool: { name: get_run }\n")).unwrap_err();
    assert_eq!(reserved["errors"][0]["pointer"], "/tool/name", "{reserved}");
    let updated =
        w.save("update_definition", "workflow", "invoice", &flow("tool: { name: add_vat, wait_seconds: 2 }\n"));
    assert!(updated.is_ok(), "a workflow keeps its own tool's name across versions: {updated:?}");
    let got =
        common::tool(&w.m, 6, "get_definition", json!({ "playbook": w.pb, "type": "workflow", "name": "invoice" }));
    assert_eq!(got["structuredContent"]["tool"], json!({ "name": "add_vat", "wait_seconds": 2 }));

    common::tool(&w.m, 7, "pause_definition", json!({ "playbook": w.pb, "type": "workflow", "name": "invoice" }));
    assert!(!names(&w.listed(&ada(), &w.on_playbook())).contains(&"add_vat"), "a paused workflow is not offered");
}
