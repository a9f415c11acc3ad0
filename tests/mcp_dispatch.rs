//! The MCP dispatch on the host: a playbook walked through every tool, each answer checked for
//! the shape agents read (summary, JSON text, structured content) and each refusal for its pointer.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::Caller;
use playbook_runtime::mcp::endpoint::Endpoint;
use playbook_runtime::mcp::server::answer;
use playbook_runtime::mcp::transport::Era;
use serde_json::{json, Value};

fn legacy() -> Era {
    Era::Legacy { version: "2025-11-25".into() }
}

fn call(backend: &common::Memory, second: u32, name: &str, args: Value) -> Value {
    common::tool(backend, second, name, args)
}

fn assert_agrees(result: &Value) {
    assert_eq!(result["isError"], false, "{result}");
    let summary = result["content"][0]["text"].as_str().unwrap();
    assert!(summary.chars().count() <= 400 && serde_json::from_str::<Value>(summary).is_err(), "{summary}");
    let text: Value = serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
}

#[test]
fn a_playbook_walks_through_every_tool() {
    let m = common::Memory::default();
    let welcome = call(&m, 1, "list_playbooks", json!({}));
    assert!(welcome["content"][0]["text"].as_str().unwrap().starts_with("This organization has no playbooks yet."));
    assert_eq!(welcome["structuredContent"]["playbooks"], json!([]));

    let created =
        call(&m, 2, "create_playbook", json!({ "name": "Month-end close", "description": "Closes the books." }));
    assert_agrees(&created);
    let id = created["structuredContent"]["id"].as_str().unwrap().to_string();
    assert!(created["content"][0]["text"].as_str().unwrap().contains("Month-end close"));

    let updated = call(&m, 3, "update_playbook", json!({ "playbook": id, "page": "# Close" }));
    assert_agrees(&updated);
    assert_eq!(updated["structuredContent"]["page"], "# Close");
    let again = call(&m, 4, "update_playbook", json!({ "playbook": id, "page": "# Close" }));
    assert!(again["content"][0]["text"].as_str().unwrap().contains("nothing changed"), "{again}");

    let retired = call(&m, 5, "retire_playbook", json!({ "playbook": id }));
    assert_agrees(&retired);
    assert_eq!(retired["structuredContent"]["status"], "retired");
    assert_eq!(retired["structuredContent"]["page"], "# Close", "retiring keeps the page");
    let active = call(&m, 6, "list_playbooks", json!({}));
    assert_eq!(active["structuredContent"]["playbooks"], json!([]));
    assert!(active["structuredContent"].get("welcome").is_none(), "an org that has a playbook is not welcomed");
    let all = call(&m, 7, "list_playbooks", json!({ "include_retired": true }));
    assert_eq!(all["structuredContent"]["playbooks"][0]["id"], json!(id));
    assert!(all["structuredContent"]["playbooks"][0].get("page").is_none());

    let restored = call(&m, 8, "restore_playbook", json!({ "playbook": id }));
    assert_eq!(restored["structuredContent"]["status"], "active");
    assert!(restored["structuredContent"].get("retired_at").is_none());
}

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");
const APPROVE: &str = include_str!("fixtures/approve-campaign-brief.md");

fn ok(result: Value) -> Value {
    assert_agrees(&result);
    result["structuredContent"].clone()
}

#[test]
fn a_function_is_defined_run_answered_and_read_through_its_tools() {
    let m = common::Memory::default();
    let pb = ok(call(&m, 1, "create_playbook", json!({ "name": "Orders" })))["id"].as_str().unwrap().to_string();
    let define = |second, kind: &str, name: &str, source: &str| {
        call(
            &m,
            second,
            "create_definition",
            json!({
                "playbook": pb, "type": kind, "name": name, "source": source,
                "overview": format!("The {name} {kind} of the dispatch tests does what its description says."),
                "diagram": "flowchart LR\n  A[in] --> B[out]",
            }),
        )
    };
    let saved = ok(define(2, "computation", "add-vat", ADD_VAT));
    assert_eq!((saved["version"].as_u64(), saved["status"].as_str()), (Some(1), Some("active")));
    assert_eq!(define(3, "computation", "add-vat", ADD_VAT)["isError"], true, "a second create is refused");
    let listed = ok(call(&m, 4, "list_definitions", json!({ "playbook": pb, "type": "computation" })));
    assert_eq!(listed["definitions"][0]["name"], "add-vat");

    let run = ok(call(
        &m,
        5,
        "run_definition",
        json!({
            "playbook": pb, "type": "computation", "name": "add-vat", "input": { "net": 100 }, "run_id": "order-1",
        }),
    ));
    assert_eq!((run["status"].as_str(), &run["output"]), (Some("succeeded"), &json!({ "vat": 20.0, "gross": 120.0 })));
    let read = ok(call(&m, 6, "get_run", json!({ "playbook": pb, "run_id": "order-1" })));
    assert_eq!(read["record"]["type"], "computation");
    let runs = ok(call(&m, 7, "list_runs", json!({ "playbook": pb })));
    assert_eq!(runs["runs"][0]["run_id"], "order-1");
    let refused = call(
        &m,
        8,
        "run_definition",
        json!({
            "playbook": pb, "type": "computation", "name": "add-vat", "input": { "net": "x" },
        }),
    );
    let doc: Value = serde_json::from_str(refused["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(doc["errors"][0]["pointer"], "/input/net", "{doc}");

    let history = ok(call(&m, 9, "list_playbook_events", json!({ "playbook": pb, "run_id": "order-1" })));
    let kinds: Vec<&str> = history["events"].as_array().unwrap().iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, ["run_started", "run_succeeded"]);
    let first = history["events"][0]["event_id"].as_str().unwrap();
    assert_eq!(ok(call(&m, 10, "get_event", json!({ "playbook": pb, "event_id": first })))["kind"], "run_started");
    let published = ok(call(
        &m,
        11,
        "publish_event",
        json!({ "playbook": pb, "kind": "month_closed", "data": { "month": "2026-11" } }),
    ));
    assert!(published["event_id"].as_str().unwrap().starts_with("ev_"));

    ok(define(12, "interaction", "approve", APPROVE));
    let asked = ok(call(
        &m,
        13,
        "run_definition",
        json!({
            "playbook": pb, "type": "interaction", "name": "approve", "input": { "title": "Autumn", "review": "Ready" },
        }),
    ));
    assert_eq!(asked["status"], "started");
    let open = ok(call(&m, 14, "list_interactions", json!({ "playbook": pb })));
    assert_eq!(open["requests"][0]["run_id"], asked["run_id"]);
    let answered = ok(call(
        &m,
        15,
        "answer_interaction",
        json!({
            "playbook": pb, "run_id": asked["run_id"], "answer": { "verdict": "approve" },
        }),
    ));
    assert_eq!(answered["status"], "succeeded");
    assert_eq!(ok(call(&m, 16, "list_interactions", json!({ "playbook": pb })))["requests"], json!([]));

    let paused =
        ok(call(&m, 17, "pause_definition", json!({ "playbook": pb, "type": "computation", "name": "add-vat" })));
    assert_eq!(paused["status"], "paused");
    let stopped = call(
        &m,
        18,
        "run_definition",
        json!({
            "playbook": pb, "type": "computation", "name": "add-vat", "input": { "net": 1 },
        }),
    );
    assert_eq!(stopped["isError"], true, "a paused function starts no run");
    ok(call(&m, 19, "resume_definition", json!({ "playbook": pb, "type": "computation", "name": "add-vat" })));
    let updated = ok(call(
        &m,
        20,
        "update_definition",
        json!({
            "playbook": pb, "type": "computation", "name": "add-vat", "source": ADD_VAT.replace("0.2", "0.1"),
            "overview": "Adds 10% VAT to a net amount and answers the VAT and the gross amount.",
            "diagram": "flowchart LR\n  A[net] --> B[gross]",
        }),
    ));
    assert_eq!(updated["version"], 2);
    ok(call(&m, 21, "retire_definition", json!({ "playbook": pb, "type": "computation", "name": "add-vat" })));
    let gone = ok(call(&m, 22, "list_definitions", json!({ "playbook": pb, "type": "computation" })));
    assert_eq!(gone["definitions"], json!([]), "a retired definition is listed only when asked");
    ok(call(&m, 23, "restore_definition", json!({ "playbook": pb, "type": "computation", "name": "add-vat" })));
}

#[test]
fn refusals_name_the_field() {
    let m = common::Memory::default();
    let bad = call(&m, 1, "create_playbook", json!({ "name": "x".repeat(81) }));
    assert_eq!(bad["isError"], true);
    assert!(bad.get("structuredContent").is_none());
    let doc: Value = serde_json::from_str(bad["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!((doc["reason"].as_str(), doc["errors"][0]["pointer"].as_str()), (Some("invalid_input"), Some("/name")));

    call(&m, 2, "create_playbook", json!({ "name": "Payroll" }));
    let dup = call(&m, 3, "create_playbook", json!({ "name": "PAYROLL" }));
    let doc: Value = serde_json::from_str(dup["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(doc["reason"], "conflict");

    let guide = call(&m, 4, "get_guide", json!({ "guide": "nope" }));
    assert!(guide["content"][0]["text"].as_str().unwrap().contains("start"), "{guide}");
}

#[test]
fn unknown_tools_and_methods_are_protocol_errors() {
    let m = common::Memory::default();
    let caller = Caller::local(None);
    let ctx = common::ctx(&caller, &m, 1, 1);
    let r =
        block_on(answer(&ctx, &Endpoint::Root, &legacy(), &json!(1), "tools/call", &Some(json!({ "name": "nope" }))));
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("nope"));
    let r = block_on(answer(&ctx, &Endpoint::Root, &legacy(), &json!(2), "no/such", &None));
    assert_eq!(r["error"]["code"], -32601);
    let modern = Era::Modern { capabilities: json!({}) };
    let r = block_on(answer(&ctx, &Endpoint::Root, &modern, &json!(3), "tools/list", &None));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["tools"].as_array().map(Vec::len), Some(43));
    // The directory listing leaves out list_generation_models, get_asset and rerun_run, and a call to one is
    // an unknown tool there.
    let r = block_on(answer(&ctx, &Endpoint::Directory, &modern, &json!(4), "tools/list", &None));
    assert_eq!(r["result"]["tools"].as_array().map(Vec::len), Some(40));
    let call = json!({ "name": "list_generation_models", "arguments": {} });
    let r = block_on(answer(&ctx, &Endpoint::Directory, &modern, &json!(5), "tools/call", &Some(call.clone())));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = block_on(answer(&ctx, &Endpoint::Root, &modern, &json!(6), "tools/call", &Some(call)));
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("No generation function can run until whoever runs the server configures"), "{r}");
}

#[test]
fn pages_follow_the_cursor() {
    let m = common::Memory::default();
    for i in 0..5 {
        call(&m, 10 + i, "create_playbook", json!({ "name": format!("Playbook {i}") }));
    }
    let first = call(&m, 20, "list_playbooks", json!({ "limit": 2 }));
    assert_eq!(first["structuredContent"]["playbooks"][0]["name"], "Playbook 4");
    let cursor = first["structuredContent"]["next_cursor"].as_str().unwrap().to_string();
    let second = call(&m, 21, "list_playbooks", json!({ "limit": 2, "cursor": cursor }));
    assert_eq!(second["structuredContent"]["playbooks"][0]["name"], "Playbook 2");
    let bad = call(&m, 22, "list_playbooks", json!({ "cursor": "zz" }));
    assert_eq!(bad["isError"], true);
}

#[test]
fn a_playbook_endpoint_fixes_the_playbook() {
    let m = common::Memory::default();
    let caller = Caller::local(None);
    let ctx = common::ctx(&caller, &m, 1, 1);
    let pb = Endpoint::Playbook { org: "local".into(), playbook: "pb_aaaaaaaaaaaaaaaa".into() };
    let r = block_on(answer(&ctx, &pb, &legacy(), &json!(1), "tools/list", &None));
    let tools = r["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().all(|t| t["inputSchema"]["properties"].get("playbook").is_none()));
    assert!(tools.iter().all(|t| t["name"] != "create_playbook"));
    let call =
        json!({ "name": "get_definition", "arguments": { "playbook": "pb_x", "type": "computation", "name": "a" } });
    let r = block_on(answer(&ctx, &pb, &legacy(), &json!(2), "tools/call", &Some(call)));
    // The pointer, not isError alone: a definition the playbook lacks is refused too.
    let doc: Value = serde_json::from_str(r["result"]["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(doc["errors"][0]["pointer"], "/playbook", "{doc}");
    let init = block_on(answer(&ctx, &pb, &legacy(), &json!(3), "initialize", &Some(json!({}))));
    assert!(init["result"]["instructions"].as_str().unwrap().contains("acts on one playbook"));
    let prompts = block_on(answer(&ctx, &pb, &legacy(), &json!(4), "prompts/list", &None));
    let names: Vec<&str> =
        prompts["result"]["prompts"].as_array().into_iter().flatten().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(
        names,
        ["give-tools", "schedule", "keep", "try-before-you-save"],
        "get-started and first-playbook need create_playbook"
    );
}

#[test]
fn list_generation_models_names_the_gateways_of_model_gateways_alone() {
    let m = common::Memory::default();
    let caller = Caller::local(None);
    let mut ctx = common::ctx(&caller, &m, 1, 1);
    let vars =
        [("ANTHROPIC_API_KEY", "k"), ("MODEL_GATEWAYS", r#"{"gateway": {"base_url": "http://127.0.0.1:1/v1"}}"#)];
    ctx.models = std::rc::Rc::new(playbook_runtime::core::model::ModelSettings::read(|n| {
        vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string())
    }));
    let params = Some(json!({ "name": "list_generation_models", "arguments": {} }));
    let r = block_on(answer(&ctx, &Endpoint::Root, &legacy(), &json!(1), "tools/call", &params));
    assert_eq!(
        r["result"]["content"][0]["text"],
        "A generation function can name 5 models through gateway: it makes an image with gpt-image-2 or gpt-image-2.6-flare and audio with gpt-4o-mini-tts, tts-1, or tts-1-hd. dall-e-3 was retired on 2026-05-12; gpt-image-2 replaces it."
    );
    let out = &r["result"]["structuredContent"];
    assert_eq!((&out["object"], &out["gateways"]), (&json!("list"), &json!(["gateway"])), "{out}");
    let params = Some(json!({ "name": "list_generation_models", "arguments": { "kind": "sound" } }));
    let r = block_on(answer(&ctx, &Endpoint::Root, &legacy(), &json!(2), "tools/call", &params));
    assert_eq!(r["result"]["isError"], true, "{r}");
}

/// `tools/list` is built once per isolate for what it is built from, then spliced into each
/// answer: every endpoint, caller and revision is answered the same text as a fresh build, the
/// first time (built and kept) and the second (kept).
#[test]
fn a_kept_tool_list_is_the_list_built_afresh() {
    use playbook_runtime::core::caller::{Principal, Scope};
    use playbook_runtime::core::tool_server::ToolServers;
    use playbook_runtime::mcp::server::respond;

    let chat = r#"{"chat": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": "*"}}"#;
    let served = ToolServers::read(|name| (name == "TOOL_SERVERS").then(|| chat.to_string()), false).0;
    let runtimes = [common::Memory::default(), common::Memory { servers: served, ..Default::default() }];
    let key = |scopes: &[Scope], playbooks: Option<&[&str]>| Caller {
        id: "key_1".into(),
        principal: Principal::Key { name: "bot".into() },
        org: "local".into(),
        scopes: scopes.to_vec(),
        playbooks: playbooks.map(|p| p.iter().map(|s| s.to_string()).collect()),
    };
    let person = Caller {
        principal: Principal::Person { name: "Ada".into(), email: None },
        ..key(&[Scope::OrgRead, Scope::PlaybookRead, Scope::PlaybookWrite], None)
    };
    let callers = [
        Caller::local(Some("ada".into())),
        key(&Scope::ALL, None),
        key(&[Scope::OrgRead, Scope::PlaybookRead], None),
        key(&[], None),
        key(&Scope::ALL, Some(&["pb_aaaaaaaaaaaaaaaa"])),
        person,
        Caller::operator("local"),
    ];
    let endpoints = [
        Endpoint::Root,
        Endpoint::Directory,
        Endpoint::Org { org: "local".into() },
        Endpoint::Playbook { org: "local".into(), playbook: "pb_aaaaaaaaaaaaaaaa".into() },
        Endpoint::Playbook { org: "local".into(), playbook: "pb_bbbbbbbbbbbbbbbb".into() },
    ];
    let eras = [legacy(), Era::Modern { capabilities: json!({}) }];
    let mut lists = std::collections::HashSet::new();
    for m in &runtimes {
        for caller in &callers {
            let ctx = common::ctx(caller, m, 1, 1);
            for endpoint in &endpoints {
                for era in &eras {
                    for id in [json!(7), json!("seven")] {
                        let fresh = block_on(answer(&ctx, endpoint, era, &id, "tools/list", &None)).to_string();
                        for time in ["built", "kept"] {
                            let sent = block_on(respond(&ctx, endpoint, era, &id, "tools/list", &None));
                            assert_eq!(sent, fresh, "{time}: {endpoint:?} {:?} {era:?}", caller.principal);
                        }
                        lists.insert(fresh.replace(&id.to_string(), ""));
                    }
                }
            }
        }
    }
    // The combinations list different tools, hints and words, so the comparisons above compare.
    assert!(lists.len() > 20, "{}", lists.len());
    let m = &runtimes[0];
    let caller = Caller::local(None);
    let ctx = common::ctx(&caller, m, 1, 1);
    let bad = block_on(respond(&ctx, &Endpoint::Root, &legacy(), &json!(1), "tools/list", &Some(json!([1]))));
    let fresh = block_on(answer(&ctx, &Endpoint::Root, &legacy(), &json!(1), "tools/list", &Some(json!([1]))));
    assert_eq!(bad, fresh.to_string(), "a refusal is answered as it is built");
}
