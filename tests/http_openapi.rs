//! The HTTP door on the host: `/v1/openapi.json` is served, and what the playbook routes answer
//! fits the schema the document gives for its operation and status.

mod common;

use futures::executor::block_on;
use playbook_runtime::api::{handle, openapi, HttpRequest, Reply};
use playbook_runtime::core::Caller;
use serde_json::{json, Value};

fn send(backend: &common::Memory, second: u32, method: &str, path: &str, body: Option<Value>) -> Reply {
    let caller = Caller::local(Some("ada".into()));
    let ctx = common::ctx(&caller, backend, second, second as u8);
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = HttpRequest { method, path, query, content_type: Some("application/json"), body: body.as_bytes() };
    block_on(handle(&ctx, &req))
}

/// Asserts the reply fits the document's response of `operation_id` for the reply's status.
fn assert_fits(doc: &Value, operation_id: &str, reply: &Reply) -> Value {
    let op = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .find(|op| op["operationId"] == operation_id)
        .unwrap_or_else(|| panic!("no operation {operation_id}"));
    let mut response = &op["responses"][reply.status.to_string()];
    if response.is_null() {
        response = &op["responses"]["default"];
    }
    if let Some(r) = response["$ref"].as_str() {
        response = doc.pointer(&r[1..]).unwrap();
    }
    let media = reply.content_type.split(';').next().unwrap();
    let schema = &response["content"][media]["schema"];
    assert!(schema.is_object(), "{operation_id} has no {media} response for {}", reply.status);
    let body: Value = serde_json::from_str(&reply.body).unwrap();
    let root = json!({ "components": doc["components"], "allOf": [schema] });
    let validator = playbook_runtime::core::schema::Schema::compile(&root).unwrap();
    let errors: Vec<String> = validator.iter_errors(&body).map(|e| format!("{e} at {}", e.pointer)).collect();
    assert!(errors.is_empty(), "{operation_id} {}: {errors:?}\n{body}", reply.status);
    body
}

#[test]
fn the_document_is_served_at_get_only() {
    let m = common::Memory::default();
    let reply = send(&m, 1, "GET", "/v1/openapi.json", None);
    assert_eq!((reply.status, reply.content_type), (200, "application/json"));
    let doc: Value = serde_json::from_str(&reply.body).unwrap();
    assert_eq!(doc, openapi::document());
    for method in ["POST", "PUT", "DELETE"] {
        let refused = send(&m, 1, method, "/v1/openapi.json", None);
        assert_eq!((refused.status, refused.allow.as_deref()), (405, Some("GET")), "{method}");
        assert_eq!(refused.content_type, "application/problem+json");
    }
}

#[test]
fn the_playbook_routes_answer_what_the_document_says() {
    let m = common::Memory::default();
    let doc = openapi::document();
    let base = "/v1/orgs/local/playbooks";
    let created = send(&m, 1, "POST", base, Some(json!({ "name": "Monthly close", "page": "# Close" })));
    assert_eq!(created.status, 201, "{}", created.body);
    let id = assert_fits(&doc, "create_playbook", &created)["id"].as_str().unwrap().to_string();
    let one = format!("{base}/{id}");
    assert_fits(&doc, "list_playbooks", &send(&m, 2, "GET", &format!("{base}?limit=5"), None));
    assert_fits(&doc, "get_playbook", &send(&m, 3, "GET", &one, None));
    assert_fits(&doc, "update_playbook", &send(&m, 4, "PUT", &one, Some(json!({ "description": "Closes." }))));
    assert_fits(&doc, "retire_playbook", &send(&m, 5, "POST", &format!("{one}/retire"), None));
    assert_fits(&doc, "restore_playbook", &send(&m, 6, "POST", &format!("{one}/restore"), None));
    assert_fits(&doc, "list_models", &send(&m, 7, "GET", "/v1/orgs/local/models", None));
    let generation = send(&m, 7, "GET", "/v1/orgs/local/generation-models?kind=audio", None);
    assert_eq!(generation.status, 200, "{}", generation.body);
    let body = assert_fits(&doc, "list_generation_models", &generation);
    assert_eq!(body["data"].as_array().map(Vec::len), Some(3), "{body}");
    assert_fits(&doc, "list_guides", &send(&m, 8, "GET", "/v1/guides", None));

    let refused = send(&m, 9, "POST", base, Some(json!({ "name": "" })));
    assert_eq!(refused.status, 400);
    assert_eq!(assert_fits(&doc, "create_playbook", &refused)["errors"][0]["pointer"], "/name");
    let missing = send(&m, 10, "GET", &format!("{base}/pb_aaaaaaaaaaaaaaaa"), None);
    assert_eq!(missing.status, 404);
    assert_fits(&doc, "get_playbook", &missing);
}

#[test]
fn the_stats_route_answers_what_the_document_says() {
    let m = common::Memory::default();
    let doc = openapi::document();
    let created = send(&m, 1, "POST", "/v1/orgs/local/playbooks", Some(json!({ "name": "Orders" })));
    let id = assert_fits(&doc, "create_playbook", &created)["id"].as_str().unwrap().to_string();
    let one = format!("/v1/orgs/local/playbooks/{id}");
    let empty = assert_fits(&doc, "get_stats", &send(&m, 2, "GET", &format!("{one}/stats?window=24h"), None));
    assert_eq!((&empty["current"]["runs"], &empty["current"]["success_rate"]), (&json!(0), &Value::Null));
    let source = include_str!("fixtures/add-vat.md");
    let definition = json!({ "name": "add-vat", "source": source, "overview": "Adds VAT to a net amount, as the stats route's test needs.", "diagram": "flowchart LR\n  A[net] --> B[gross]" });
    assert_eq!(send(&m, 3, "POST", &format!("{one}/definitions/computation"), Some(definition)).status, 201);
    let run = json!({ "input": { "net": 10 } });
    assert_eq!(send(&m, 4, "POST", &format!("{one}/definitions/computation/add-vat/run"), Some(run)).status, 200);
    let counted = assert_fits(&doc, "get_stats", &send(&m, 5, "GET", &format!("{one}/stats"), None));
    assert_eq!(
        (&counted["current"]["succeeded"], &counted["slowest"][0]["ended"]),
        (&json!(1), &json!(1)),
        "{counted}"
    );
    let refused = send(&m, 6, "GET", &format!("{one}/stats?window=1y"), None);
    assert_eq!(assert_fits(&doc, "get_stats", &refused)["errors"][0]["pointer"], "/window");
}

#[test]
fn the_connection_routes_answer_what_the_document_says() {
    let m = common::Memory::default();
    let doc = openapi::document();
    m.tool_server.listed.borrow_mut().push(playbook_runtime::ops::memory_tools::ToolServer::tool("read_file", true));
    let files = json!({ "name": "files", "type": "mcp", "entry": { "url": "http://127.0.0.1:9/mcp" }, "credential": { "kind": "none" } });
    let added = send(&m, 1, "POST", "/v1/orgs/local/connections", Some(files));
    assert_eq!(added.status, 201, "{}", added.body);
    let added = assert_fits(&doc, "add_connection", &added);
    let id = added["id"].as_str().unwrap();
    let token = added["connect"]["url"].as_str().unwrap().rsplit('/').next().unwrap();
    let page = send(&m, 2, "GET", &format!("/v1/orgs/local/connect/{token}"), None);
    assert_fits(&doc, "read_link", &page);
    let approved = send(&m, 3, "POST", &format!("/v1/orgs/local/connect/{token}/approve"), None);
    assert_fits(&doc, "approve", &approved);
    for (op, method, path) in [
        ("list_connections", "GET", "/v1/orgs/local/connections".to_string()),
        ("get_connection", "GET", format!("/v1/orgs/local/connections/{id}")),
        ("list_connection_tools", "GET", format!("/v1/orgs/local/connections/{id}/tools")),
        ("list_providers", "GET", "/v1/orgs/local/providers".to_string()),
        ("search", "GET", "/v1/orgs/local/tool-servers/search?terms=files".to_string()),
    ] {
        let reply = send(&m, 4, method, &path, None);
        assert_eq!(reply.status, 200, "{op}: {}", reply.body);
        assert_fits(&doc, op, &reply);
    }
    let set =
        send(&m, 5, "PUT", &format!("/v1/orgs/local/connections/{id}/playbooks"), Some(json!({ "playbooks": null })));
    assert_fits(&doc, "set_connection_playbooks", &set);
    let relinked = send(&m, 6, "POST", &format!("/v1/orgs/local/connections/{id}/link"), Some(json!({})));
    assert_fits(&doc, "reconnect_connection", &relinked);
    let removed = send(&m, 7, "DELETE", &format!("/v1/orgs/local/connections/{id}"), None);
    assert_fits(&doc, "remove_connection", &removed);
    let missing = send(&m, 8, "GET", "/v1/orgs/local/connections/con_zzzzzzzzzzzzzzzz", None);
    assert_eq!(missing.status, 404);
}
