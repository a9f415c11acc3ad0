//! The registry's host tests: whom servers serve, kept lists, an HTTP API's calls, the
//! directory's refusal of money, and entries that cannot be used.

use std::cell::Cell;

use futures::executor::block_on;
use serde_json::json;

use super::*;
use crate::core::tool_server::openapi::fixtures::{NOTES, PETSTORE};
use crate::core::tool_server::{Because, Mark, MarkedBy};

/// A modern server of two tools that counts the lists it was asked for.
struct Two {
    asked: Cell<usize>,
    down: Cell<bool>,
}

impl Transport for Two {
    fn send(&self, request: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("")).unwrap_or_default();
        let result = if body["method"] == "server/discover" {
            json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} } })
        } else {
            self.asked.set(self.asked.get() + 1);
            json!({ "tools": [{ "name": "read", "inputSchema": { "type": "object" }, "annotations": { "readOnlyHint": true } },
                              { "name": "write", "inputSchema": { "type": "object" } }] })
        };
        let down = self.down.get();
        Box::pin(async move {
            if down {
                return Err(Unanswered::Timeout);
            }
            let reply = json!({ "jsonrpc": "2.0", "id": body["id"], "result": result });
            Ok(Response {
                status: 200,
                content_type: Some("application/json".into()),
                session: None,
                www_authenticate: None,
                body: reply.to_string(),
            })
        })
    }
}

fn settings(json: &str) -> ToolServers {
    ToolServers::read(|name| (name == "TOOL_SERVERS").then(|| json.to_string()), false).0
}

#[test]
fn the_connections_are_needed_only_for_a_name_no_server_of_the_settings_serves_here() {
    let servers = settings(
        r#"{"files": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": ["read"]},
            "crm": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": "*", "orgs": ["acme"], "playbooks": ["pb_a"]}}"#,
    );
    let registry = Registry { settings: &servers, ..Registry::none() };
    assert!(registry.settings_serve("acme", "pb_a", ["files/read", "crm/*", "files"]));
    // Another org's playbook, or another playbook, is not served crm: a connection may be.
    assert!(!registry.settings_serve("other", "pb_a", ["files/read", "crm/write"]));
    assert!(!registry.settings_serve("acme", "pb_b", ["crm/write"]));
    assert!(!registry.settings_serve("acme", "pb_a", ["linear/list_issues"]));
    assert!(registry.settings_serve("acme", "pb_a", []));
}

#[test]
fn a_server_serves_whom_its_entry_names_and_its_list_is_kept_a_while() {
    let servers = settings(
        r#"{"files": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": ["read"]},
            "crm": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": "*", "playbooks": ["pb_a"]}}"#,
    );
    let two = Two { asked: Cell::new(0), down: Cell::new(false) };
    let lists = Lists::default();
    let registry = Registry { lists: Some(&lists), settings: &servers, transport: &two, ..Registry::none() };
    let names = |v: Vec<&Server>| v.into_iter().map(|s| s.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(registry.serving("acme", Some("pb_b"), None)), ["files"]);
    assert_eq!(names(registry.serving("acme", Some("pb_a"), None)), ["crm", "files"]);
    assert_eq!(names(registry.serving("acme", None, Some(&["pb_b".to_string()]))), ["files"]);

    let files = servers.named("files").unwrap();
    let tools = block_on(registry.offered(files, 100)).unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["read"]);
    block_on(registry.offered(files, 100 + LIST_KEPT_SECONDS - 1)).unwrap();
    assert_eq!(two.asked.get(), 1, "a kept list is not asked for again");
    two.down.set(true);
    let failed = block_on(registry.offered(files, 100 + LIST_KEPT_SECONDS)).unwrap_err();
    assert_eq!(failed.because, Because::Unreachable);
    two.down.set(false);
    assert!(block_on(registry.offered(files, 100 + LIST_KEPT_SECONDS + 1)).is_err(), "a failure is kept too");
    assert!(block_on(registry.offered(files, 100 + LIST_KEPT_SECONDS + FAILURE_KEPT_SECONDS)).is_ok());
    let crm = servers.named("crm").unwrap();
    let crm_tools = block_on(registry.offered(crm, 200)).unwrap();
    assert_eq!(crm_tools.len(), 2, "each server keeps its own list");
    let again = block_on(registry.offered(crm, 201)).unwrap();
    assert!(Rc::ptr_eq(&crm_tools, &again), "a kept list that its entry changes nothing of is shared, not copied");
}

/// An HTTP API that serves its document and answers each call with what it was asked.
struct Pets {
    requests: RefCell<Vec<Request>>,
}

impl Transport for Pets {
    fn send(&self, request: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        let body = if request.url.ends_with("/openapi.json") {
            PETSTORE.to_string()
        } else {
            json!({ "asked": format!("{} {}", request.method, request.url) }).to_string()
        };
        self.requests.borrow_mut().push(request);
        let content_type = Some("application/json".to_string());
        Box::pin(async move { Ok(Response { status: 200, content_type, session: None, www_authenticate: None, body }) })
    }
}

#[test]
fn an_http_api_offers_its_documents_operations_and_calls_them_at_its_base() {
    let settings = json!({
        "pets": { "type": "openapi", "document": "http://127.0.0.1:9/openapi.json", "base_url": "http://127.0.0.1:9/v1",
                  "allowed": ["listPets", "showPetById"], "credential": { "kind": "secret", "name": "PETS_KEY" } },
        "notes": { "type": "openapi", "document_text": NOTES, "base_url": "http://127.0.0.1:9/notes", "allowed": "*" },
        "old": { "type": "openapi", "document_text": "swagger: '2.0'", "base_url": "http://127.0.0.1:9" }
    })
    .to_string();
    let var = |name: &str| match name {
        "TOOL_SERVERS" => Some(settings.clone()),
        "PETS_KEY" => Some("s3cret".to_string()),
        _ => None,
    };
    let servers = ToolServers::read(var, false).0;
    let pets = Pets { requests: RefCell::new(Vec::new()) };
    let lists = Lists::default();
    let registry =
        Registry { lists: Some(&lists), settings: &servers, transport: &pets, clock: || 100_000, ..Registry::none() };

    let api = servers.named("pets").unwrap();
    let tools = block_on(registry.offered(api, 100)).unwrap();
    assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["listPets", "showPetById"]);
    assert_eq!((tools[0].mark, tools[0].marked_by), (Mark::Reads, MarkedBy::Method));
    block_on(registry.offered(api, 100 + LIST_KEPT_SECONDS - 1)).unwrap();
    let answered = block_on(registry.call(api, "listPets", &json!({}), &json!({ "limit": 3 }), 5)).unwrap();
    assert_eq!(answered.structured, Some(json!({ "asked": "GET http://127.0.0.1:9/v1/pets?limit=3" })));
    {
        let requests = pets.requests.borrow();
        let urls: Vec<&str> = requests.iter().map(|r| r.url.as_str()).collect();
        assert_eq!(
            urls,
            ["http://127.0.0.1:9/openapi.json", "http://127.0.0.1:9/v1/pets?limit=3"],
            "fetched once, kept"
        );
        let keys: Vec<Option<&str>> = requests
            .iter()
            .map(|r| r.headers.iter().find(|(k, _)| k == "X-Api-Key").map(|(_, v)| v.as_str()))
            .collect();
        assert_eq!(keys, [None, Some("s3cret")], "the call carries the key where the document's scheme says");
    }
    let gone = block_on(registry.call(api, "noSuchOperation", &json!({}), &json!({}), 5)).unwrap();
    assert!(gone.is_error);

    let notes = servers.named("notes").unwrap();
    assert_eq!(block_on(registry.offered(notes, 100)).unwrap().len(), 3);
    assert_eq!(pets.requests.borrow().len(), 2, "a document in the settings is read where it stands");
    let refused = block_on(registry.offered(servers.named("old").unwrap(), 100)).unwrap_err();
    assert_eq!(refused.because, Because::DocumentRefused);
    assert!(refused.detail.contains("/swagger"), "{}", refused.detail);
}

#[test]
fn the_directory_refuses_a_server_that_handles_money_in_words_that_say_so() {
    let servers =
        settings(r#"{"pay": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": "*", "handles_money": true}}"#);
    let registry = Registry { settings: &servers, without_money: true, ..Registry::none() };
    assert!(registry.serving("acme", Some("pb_a"), None).is_empty());
    let refused = block_on(registry.offering("acme", "pb_a", "pay", 0)).err().unwrap();
    assert_eq!(refused.reason, crate::core::Reason::Unavailable);
    assert!(refused.detail.contains("directory listing does not offer"), "{}", refused.detail);
    let merged = Registry { settings: &servers, ..Registry::none() };
    let extra = ToolServers::read(|_| None, false).0;
    let with = merged.with(&extra.servers);
    assert_eq!(with.serving("acme", Some("pb_a"), None).len(), 1, "through /mcp it is served");
}

#[test]
fn an_unusable_entry_and_no_servers_offer_nothing() {
    let servers = settings(r#"{"files": {"type": "mcp", "url": "ftp://x"}}"#);
    let registry = Registry { settings: &servers, ..Registry::none() };
    let failed = block_on(registry.offered(&servers.servers[0], 0)).unwrap_err();
    assert_eq!(failed.because, Because::SettingsInvalid);
    assert!(Registry::none().serving("acme", None, None).is_empty());
}
