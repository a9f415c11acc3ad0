//! Connections through their tools, over the runtime in memory: a key never adds one, a runtime
//! of API keys alone refuses every one, and a connection goes from added to connected on its
//! link's page, to removed, with no credential in any answer.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::caller::{Caller, Principal, Scope};
use playbook_runtime::core::{Problem, Reason};
use playbook_runtime::tools;
use serde_json::{json, Value};

fn call(m: &common::Memory, caller: &Caller, second: u32, name: &str, args: Value) -> Result<Value, Problem> {
    let ctx = common::ctx(caller, m, second, second as u8);
    let tool = tools::find(name).expect("a tool");
    block_on(tools::call(&ctx, tool, args)).map(|o| {
        let mut v = o.value;
        v["_summary"] = json!(o.summary);
        v
    })
}

fn person(id: &str) -> Caller {
    Caller {
        id: id.into(),
        principal: Principal::Person { name: id.into(), email: None },
        org: "local".into(),
        scopes: Scope::ALL.to_vec(),
        playbooks: None,
    }
}

/// An HTTP API's document, given whole.
const NOTES: &str = include_str!("../src/core/tool_server/openapi/fixtures/notes-3.1.yaml");

const HELP: &str =
    "Make a key under [Settings, API keys](https://crm.example.com/keys) as an Admin. It is 40 characters.";

fn crm() -> Value {
    json!({ "name": "crm", "type": "openapi",
            "entry": { "document_text": NOTES, "base_url": "http://127.0.0.1:9" },
            "credential": { "kind": "secret", "name": "X-Api-Key", "in": "header", "instructions": HELP,
                            "key_page": "https://crm.example.com/keys", "pattern": "^crm_[a-z]{8}$" } })
}

/// The token of a link, the last part of its address.
fn token(added: &Value) -> String {
    added["connect"]["url"].as_str().unwrap().rsplit('/').next().unwrap().to_string()
}

#[test]
fn a_key_never_adds_a_connection() {
    let m = common::Memory::default();
    let key = Caller {
        id: "key_1".into(),
        principal: Principal::Key { name: "bot".into() },
        org: "local".into(),
        scopes: Scope::ALL.to_vec(),
        playbooks: None,
    };
    let refused = call(&m, &key, 1, "add_connection", json!({ "provider": "linear" })).unwrap_err();
    let ada = person("person:ada");
    let unread = json!({ "name": "crm", "type": "openapi", "entry": { "document": "http://127.0.0.1:9/openapi.json", "base_url": "http://127.0.0.1:9" }, "credential": { "kind": "none" } });
    let p = call(&m, &ada, 1, "add_connection", unread).unwrap_err();
    assert_eq!(
        p.errors[0].pointer, "/entry/document",
        "a document that cannot be read is refused before anything is kept"
    );
    assert_eq!(refused.reason, Reason::Forbidden);
    assert!(refused.detail.contains("added by a person"), "{}", refused.detail);
}

#[test]
fn a_runtime_of_keys_alone_refuses_every_connection() {
    let m = common::Memory::default();
    let ada = person("person:ada");
    let mut ctx = common::ctx(&ada, &m, 1, 1);
    ctx.connections.people = false;
    let tool = tools::find("add_connection").unwrap();
    let refused = block_on(tools::call(&ctx, tool, json!({ "provider": "linear" }))).unwrap_err();
    assert!(refused.detail.contains("signs nobody in"), "{}", refused.detail);
}

#[test]
fn a_key_given_on_the_page_connects_and_a_remove_forgets_it() {
    let m = common::Memory::default();
    let ada = person("person:ada");
    let added = call(&m, &ada, 1, "add_connection", crm()).unwrap();
    assert_eq!(added["status"], "pending");
    assert!(added["_summary"].as_str().unwrap().contains("\"Approve the connection\""));
    let url = added["connect"]["url"].as_str().unwrap();
    assert!(url.starts_with("http://127.0.0.1:8787/connect/local/cl_"), "{url}");
    let id = added["id"].as_str().unwrap().to_string();
    let t = token(&added);

    let again = call(&m, &ada, 2, "add_connection", crm()).unwrap();
    assert_eq!((again["id"].as_str(), again.get("connect")), (Some(id.as_str()), None), "a retry adds nothing");
    let bob = person("person:bob");
    assert_eq!(call(&m, &bob, 2, "read_link", json!({ "token": t })).unwrap_err().reason, Reason::Forbidden);

    let page = call(&m, &ada, 3, "read_link", json!({ "token": t })).unwrap();
    assert_eq!(page["link"]["state"], "open");
    assert_eq!(page["asks"]["key"]["key_page"], "https://crm.example.com/keys");
    let early = call(&m, &ada, 4, "approve", json!({ "token": t })).unwrap_err();
    assert_eq!(early.reason, Reason::Conflict);
    let given = call(&m, &ada, 5, "give_credential", json!({ "token": t, "value": "not-a-crm-key" })).unwrap();
    assert_eq!(given["misses_pattern"], true);
    assert!(given["_summary"].as_str().unwrap().contains("kept all the same"));
    let approved = call(&m, &ada, 6, "approve", json!({ "token": t })).unwrap();
    assert_eq!(approved["connection"]["status"], "connected");
    let used = call(&m, &ada, 7, "read_link", json!({ "token": t })).unwrap();
    assert_eq!(used["link"]["state"], "used");

    let listed = call(&m, &ada, 8, "list_connections", json!({})).unwrap();
    assert_eq!(listed["connections"][0]["status"], "connected");
    let relinked = call(&m, &ada, 9, "reconnect_connection", json!({ "connection": id })).unwrap();
    assert!(relinked["connect"]["url"].is_string());
    let replaced = call(&m, &ada, 10, "read_link", json!({ "token": t })).unwrap();
    assert_eq!(replaced["link"]["state"], "replaced");
    let others = call(&m, &bob, 11, "reconnect_connection", json!({ "connection": id })).unwrap_err();
    assert_eq!(others.reason, Reason::Forbidden);
    let removed = call(&m, &ada, 12, "remove_connection", json!({ "connection": id })).unwrap();
    assert_eq!(removed["connection"]["status"], "removed");
    assert_eq!(
        call(&m, &ada, 13, "remove_connection", json!({ "connection": id })).unwrap()["connection"]["status"],
        "removed"
    );
    let gone = call(&m, &ada, 14, "reconnect_connection", json!({ "connection": id })).unwrap_err();
    assert_eq!(gone.reason, Reason::NotFound);
    let kept = m.connections_of("local");
    let row = kept.rows.borrow().get(&id).cloned().unwrap();
    assert_eq!(row.sealed, Default::default(), "a removed connection's credential is forgotten");
    for answer in [added, again, page, given, approved, listed, relinked] {
        assert!(!answer.to_string().contains("not-a-crm-key"), "{answer}");
    }
}

#[test]
fn a_cancel_removes_a_pending_connection_and_a_replaced_link_says_so() {
    let m = common::Memory::default();
    let ada = person("person:ada");
    let added = call(&m, &ada, 1, "add_connection", json!({ "provider": "linear" })).unwrap();
    assert!(added["_summary"].as_str().unwrap().contains("Approve the Linear connection"));
    let first = token(&added);
    let id = added["id"].as_str().unwrap();
    let relinked = call(&m, &ada, 2, "reconnect_connection", json!({ "connection": id, "more": "admin" })).unwrap();
    let bad = call(&m, &ada, 2, "reconnect_connection", json!({ "connection": id, "more": "nope" })).unwrap_err();
    assert_eq!(bad.errors[0].pointer, "/more");
    let replaced = call(&m, &ada, 3, "read_link", json!({ "token": first })).unwrap();
    assert_eq!(replaced["link"]["state"], "replaced");
    assert!(replaced["link"]["words"].as_str().unwrap().contains("A newer link replaced this one"));
    let second = token(&relinked);
    let page = call(&m, &ada, 4, "read_link", json!({ "token": second })).unwrap();
    let scopes: Vec<&str> =
        page["asks"]["consent"]["scopes"].as_array().unwrap().iter().map(|s| s["scope"].as_str().unwrap()).collect();
    assert_eq!(scopes, ["read", "write", "admin"]);
    let cancelled = call(&m, &ada, 5, "cancel", json!({ "token": second })).unwrap();
    assert_eq!(cancelled["connection"]["status"], "removed");
    let providers = call(&m, &ada, 6, "list_providers", json!({})).unwrap();
    assert!(providers["providers"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "stripe" && p["handles_money"] == true));
}

#[test]
fn a_connected_connection_is_a_tool_server_of_the_org_and_a_pending_one_is_listed_unavailable() {
    use playbook_runtime::ops::memory_tools::ToolServer;
    let m = common::Memory::default();
    m.tool_server
        .listed
        .borrow_mut()
        .extend([ToolServer::tool("read_file", true), ToolServer::tool("write_file", false)]);
    let dev = Caller::local(None);
    let files = json!({ "name": "files", "type": "mcp", "entry": { "url": "http://127.0.0.1:9/mcp" }, "credential": { "kind": "none" } });
    let added = call(&m, &dev, 1, "add_connection", files).unwrap();
    let id = added["id"].as_str().unwrap().to_string();
    // The server answered without asking for a token: it names no authorization server.
    let consent = json!({ "name": "other", "type": "mcp", "entry": { "url": "http://127.0.0.1:9/mcp" }, "credential": { "kind": "authorization" } });
    let refused = call(&m, &dev, 1, "add_connection", consent).unwrap_err();
    assert!(
        refused.errors[0].pointer == "/credential/kind" && refused.detail.contains("offers no consent"),
        "{}",
        refused.detail
    );
    let unavailable = call(&m, &dev, 2, "list_connection_tools", json!({ "connection": id })).unwrap_err();
    assert!(unavailable.detail.contains("connection_pending"), "{}", unavailable.detail);
    call(&m, &dev, 3, "approve", json!({ "token": token(&added) })).unwrap();

    let tools = call(&m, &dev, 4, "list_connection_tools", json!({ "connection": id })).unwrap();
    let names: Vec<&str> = tools["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read_file", "write_file"]);
    assert_eq!((tools["tools"][0]["mark"].as_str(), tools["tools"][0].get("hints")), (Some("reads"), None));

    call(&m, &dev, 5, "add_connection", json!({ "provider": "linear" })).unwrap();
    let found = call(&m, &dev, 6, "search", json!({ "terms": "notes pages" })).unwrap();
    let servers = found["servers"].as_array().unwrap();
    let files = servers.iter().find(|s| s["name"] == "files").unwrap();
    assert_eq!(
        (files["connection"].as_str(), files["provider"].clone(), files["available"].clone()),
        (Some(id.as_str()), Value::Null, json!(true))
    );
    let linear = servers.iter().find(|s| s["name"] == "linear").unwrap();
    assert_eq!((linear["available"].clone(), linear["because"].clone()), (json!(false), json!("connection_pending")));
    assert!(linear["detail"].as_str().unwrap().contains("approves it on the page of its link"), "{linear}");
    let providers: Vec<&str> =
        found["providers"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(providers, ["notion"], "found by its terms, and linear is served already");
    let mut on_a_playbook = common::ctx(&dev, &m, 6, 6);
    on_a_playbook.connections.lists_providers = false;
    let found =
        block_on(tools::call(&on_a_playbook, tools::find("search").unwrap(), json!({ "terms": "notes pages" })));
    assert_eq!(found.unwrap().value["providers"], json!([]), "a playbook's endpoint lists no tool that adds one");
    let issues = call(&m, &dev, 7, "search", json!({ "terms": "issues" })).unwrap();
    let with_more = issues["providers"].as_array().unwrap().iter().find(|p| p["name"] == "github").unwrap();
    assert!(with_more["more"].as_array().is_some_and(|g| !g.is_empty()), "{with_more}");
    let kept = m.connections_of("local");
    let c = kept.rows.borrow().get(&id).cloned().unwrap();
    assert_eq!(c.status, playbook_runtime::core::connection::Status::Connected);
}

#[test]
fn a_consent_is_started_only_by_the_person_who_added_it_and_finished_only_once_started() {
    let m = common::Memory::default();
    let ada = person("person:ada");
    let added = call(&m, &ada, 1, "add_connection", json!({ "provider": "linear" })).unwrap();
    let t = token(&added);
    let refused = call(&m, &person("person:bob"), 2, "start", json!({ "token": t })).unwrap_err();
    assert_eq!(refused.reason, Reason::Forbidden, "{}", refused.detail);
    let early = call(&m, &ada, 3, "finish", json!({ "token": t, "query": "code=c&state=s" })).unwrap_err();
    assert_eq!(early.reason, Reason::Conflict, "{}", early.detail);
    assert!(early.detail.contains("No sign-in at the service was started"), "{}", early.detail);
}

#[test]
fn a_client_that_opens_links_is_asked_to_and_its_retry_answers_the_connection_as_it_stands() {
    use playbook_runtime::mcp::endpoint::Endpoint;
    use playbook_runtime::mcp::server::answer;
    use playbook_runtime::mcp::transport::Era;
    let m = common::Memory::default();
    let ada = person("person:ada");
    let modern = Era::Modern { capabilities: json!({ "elicitation": { "url": {} } }) };
    let mcp = |caller: &Caller, second: u32, era: &Era, params: Value| {
        let ctx = common::ctx(caller, &m, second, second as u8);
        block_on(answer(&ctx, &Endpoint::Root, era, &json!(second), "tools/call", &Some(params)))["result"].clone()
    };
    let add = json!({ "name": "add_connection", "arguments": { "provider": "linear" } });
    let asked = mcp(&ada, 1, &modern, add.clone());
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let question = &asked["inputRequests"]["connect"]["params"];
    assert_eq!(question["mode"], "url");
    assert!(question["message"].as_str().unwrap().starts_with("Approve the Linear connection"));
    let url = question["url"].as_str().unwrap().to_string();
    let state = asked["requestState"].as_str().unwrap().to_string();

    let retried = |caller: &Caller, second: u32, state: &str, action: &str| {
        let mut params = add.clone();
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({ "connect": { "action": action } });
        mcp(caller, second, &modern, params)
    };
    let declined = retried(&ada, 2, &state, "decline");
    assert_eq!(declined["structuredContent"]["status"], "pending");
    assert_eq!(declined["structuredContent"]["connect"]["url"], url.as_str());
    assert!(declined["content"][0]["text"].as_str().unwrap().contains("declined to open the page"));
    let listed = call(&m, &ada, 3, "list_connections", json!({})).unwrap();
    assert_eq!(listed["connections"].as_array().unwrap().len(), 1, "the retry adds nothing");

    let bob = person("person:bob");
    assert_eq!(retried(&bob, 4, &state, "accept")["isError"], true);
    let elsewhere = state.replacen(":local:", ":acme:", 1);
    let other = retried(&ada, 4, &elsewhere, "accept");
    assert!(other["content"][0]["text"].as_str().unwrap().contains("another org"), "{other}");

    let token = url.rsplit('/').next().unwrap();
    let c = m.connections_of("local").rows.borrow().values().next().cloned().unwrap();
    let d = playbook_runtime::core::connection::link::digest(token);
    let sealed = json!({ "access_token": "at" }).to_string();
    let begun = playbook_runtime::core::connection::machine::Command::ConsentStarted {
        digest: d.clone(),
        by: "person:ada".into(),
        asked: vec![],
        consent: "sealed".into(),
    };
    let change = |command| playbook_runtime::core::connection::store::ChangeConnection {
        org: "local".into(),
        find: playbook_runtime::core::connection::store::Find::Id(c.id.clone()),
        command,
        now: "2026-12-02T10:00:05.000Z".into(),
    };
    block_on(playbook_runtime::ops::Backend::connection(&m, change(begun))).unwrap();
    let finish = playbook_runtime::core::connection::machine::Command::ConsentFinished {
        digest: d,
        by: "person:ada".into(),
        sealed,
        granted: vec![],
    };
    block_on(playbook_runtime::ops::Backend::connection(&m, change(finish))).unwrap();
    call(&m, &ada, 6, "approve", json!({ "token": token })).unwrap();
    let connected = retried(&ada, 7, &state, "accept");
    assert_eq!(connected["structuredContent"]["status"], "connected");
    assert!(connected["structuredContent"].get("connect").is_none());
    assert!(connected["content"][0]["text"].as_str().unwrap().contains("nothing is left to open"));

    let legacy = Era::Legacy { version: "2025-11-25".into() };
    let plain = mcp(&ada, 8, &legacy, json!({ "name": "add_connection", "arguments": { "provider": "notion" } }));
    assert!(plain["structuredContent"]["connect"]["url"].is_string(), "{plain}");
    assert!(plain["content"][0]["text"].as_str().unwrap().contains("Approve the Notion connection"));
}

#[test]
fn a_broken_reference_takes_no_link_and_connects_again_once_its_variable_is_set() {
    use playbook_runtime::core::connection::machine::Command;
    use playbook_runtime::core::connection::store::{ChangeConnection, Find};
    use playbook_runtime::core::connection::variables::ConnectionVariables;
    use playbook_runtime::core::connection::BreakKind;
    use playbook_runtime::core::model::Secret;
    use std::rc::Rc;
    let listed = r#"{"CRM_KEY": {"orgs": ["local"], "hosts": ["127.0.0.1:9"]}}"#;
    let m =
        common::Memory { listed: ConnectionVariables::read(Some(listed), &Default::default()).0, ..Default::default() };
    let dev = Caller::local(None);
    let api = json!({ "name": "crm", "type": "openapi", "entry": { "document_text": NOTES, "base_url": "http://127.0.0.1:9" },
                      "credential": { "kind": "reference", "variable": "CRM_KEY", "name": "X-Api-Key", "in": "header" } });
    let added = call(&m, &dev, 1, "add_connection", api).unwrap();
    let id = added["id"].as_str().unwrap().to_string();
    call(&m, &dev, 2, "approve", json!({ "token": token(&added) })).unwrap();
    let broken = Command::Broken { kind: BreakKind::Unauthorized, detail: "HTTP 401".into() };
    let change = ChangeConnection {
        org: "local".into(),
        find: Find::Id(id.clone()),
        command: broken,
        now: "2026-12-02T10:00:03.000Z".into(),
    };
    block_on(playbook_runtime::ops::Backend::connection(&m, change)).unwrap();
    let unset = call(&m, &dev, 4, "reconnect_connection", json!({ "connection": id })).unwrap_err();
    assert!(unset.detail.contains("CRM_KEY, which is not set"), "{}", unset.detail);
    let mut ctx = common::ctx(&dev, &m, 5, 5);
    ctx.connections.variable = Rc::new(|name: &str| (name == "CRM_KEY").then(|| Secret("k".into())));
    let tool = tools::find("reconnect_connection").unwrap();
    let again = block_on(tools::call(&ctx, tool, json!({ "connection": id }))).unwrap();
    assert_eq!((again.value["connection"]["broken"].clone(), again.value.get("connect")), (Value::Null, None));
}

#[test]
fn a_reference_sends_only_a_variable_the_operator_lists_for_its_org_and_host() {
    use playbook_runtime::core::connection::variables::{runtime_own, ConnectionVariables};
    let own = runtime_own(|_| None);
    let listed = r#"{"CRM_KEY": {"orgs": ["acme"], "hosts": ["127.0.0.1:9"]}, "ADMIN_TOKEN": {"orgs": "*", "hosts": ["127.0.0.1:9"]}}"#;
    let m = common::Memory { listed: ConnectionVariables::read(Some(listed), &own).0, ..Default::default() };
    let dev = Caller::local(None);
    let add = |second: u32, variable: &str, base: &str| {
        let api = json!({ "name": format!("crm{second}"), "type": "openapi", "entry": { "document_text": NOTES, "base_url": base },
                          "credential": { "kind": "reference", "variable": variable, "name": "X-Api-Key", "in": "header" } });
        call(&m, &dev, second, "add_connection", api)
    };
    for (second, variable, base, words) in [
        (1, "ADMIN_TOKEN", "http://127.0.0.1:9", "has not listed for connections"),
        (2, "CONNECTIONS_KEY", "http://127.0.0.1:9", "has not listed for connections"),
        (3, "CRM_KEY", "http://127.0.0.1:9", "does not list for the org local"),
    ] {
        let refused = add(second, variable, base).unwrap_err();
        assert_eq!(refused.errors[0].pointer, "/credential/variable", "{variable}");
        assert!(refused.errors[0].detail.contains(words), "{variable}: {}", refused.errors[0].detail);
        assert!(refused.errors[0].detail.contains("CONNECTION_VARIABLES"));
    }
    let acme = Caller { org: "acme".into(), ..Caller::local(None) };
    let other_host = call(
        &m,
        &acme,
        4,
        "add_connection",
        json!({ "name": "crm4", "type": "openapi",
        "entry": { "document_text": NOTES, "base_url": "http://127.0.0.1:10" },
        "credential": { "kind": "reference", "variable": "CRM_KEY", "name": "X-Api-Key", "in": "header" } }),
    )
    .unwrap_err();
    assert!(other_host.errors[0].detail.contains("not to 127.0.0.1"), "{}", other_host.errors[0].detail);
}
