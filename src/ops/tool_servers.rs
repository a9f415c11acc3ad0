//! The tool servers a playbook may use, as one registry over their sources (the operator's
//! settings now; the org's connections in a later issue): whom each serves, the tools it offers,
//! kept per isolate for a stated time, and one call to one of them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::api_client;
use super::tool_client::{Client, Failure, Response, Transport};
use crate::core::tool_server::mcp::{Answered, Era, Listed};
use crate::core::tool_server::offer::offered;
use crate::core::tool_server::openapi::{Api, Operation};
use crate::core::tool_server::settings::{Credential, Document, Server, ServerEntry, ServerKind, ToolServers};
use crate::core::tool_server::{words, Request};
use crate::core::Problem;
use crate::ops::run::Unanswered;

/// How long a server's list of tools is kept before it is asked again, and how long a failure
/// to list is, so that a server that came back is seen soon.
pub const LIST_KEPT_SECONDS: i64 = 60;
pub const FAILURE_KEPT_SECONDS: i64 = 5;

#[derive(Clone, Copy)]
pub struct Registry<'a> {
    pub settings: &'a ToolServers,
    /// The connections of the org a request acts in, as servers, loaded by the operations that
    /// reach tool servers (never on `tools/list`'s path); none elsewhere.
    pub connections: &'a [Server],
    pub transport: &'a dyn Transport,
    /// The lists this isolate keeps; none keeps nothing.
    pub lists: Option<&'a Lists>,
    /// Milliseconds of a clock, to say how long a call took.
    pub clock: fn() -> i64,
    /// Leaves out the servers that handle money, as `/directory` does.
    pub without_money: bool,
}

/// The tool lists one isolate keeps, by server and address, with the second each was read; and
/// the revision and session settled with each MCP server, by its address.
#[derive(Default)]
pub struct Lists {
    kept: RefCell<BTreeMap<String, Kept>>,
    eras: RefCell<BTreeMap<String, Era>>,
}

/// A server's list as it was read, or how reading it failed, and the second it was.
type Kept = (i64, Result<Listing, Failure>);

/// What a server lists: an MCP server's tools, or the operations of an HTTP API's document,
/// which its calls need as well.
#[derive(Clone)]
enum Listing {
    Tools(Vec<Listed>),
    Api(Rc<Api>),
}

impl Listing {
    fn tools(&self) -> Vec<Listed> {
        match self {
            Listing::Tools(tools) => tools.clone(),
            Listing::Api(api) => api.tools(),
        }
    }

    fn operation(&self, tool: &str) -> Option<&Operation> {
        match self {
            Listing::Tools(_) => None,
            Listing::Api(api) => api.operation(tool),
        }
    }
}

/// A server that can reach a person: its name, and its tools as `server/tool`.
pub struct Sender {
    pub server: String,
    pub send: String,
    pub replies: Option<String>,
}

static NO_SERVERS: ToolServers = ToolServers { servers: Vec::new() };

/// A transport for a runtime with no server, which reaches nothing.
struct Nowhere;

impl Transport for Nowhere {
    fn send(&self, _: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        Box::pin(async { Err(Unanswered::Unreachable("no tool server is set up".into())) })
    }
}

impl<'a> Registry<'a> {
    /// A registry of no server.
    pub fn none() -> Registry<'static> {
        Registry {
            settings: &NO_SERVERS,
            connections: &[],
            transport: &Nowhere,
            lists: None,
            clock: || 0,
            without_money: false,
        }
    }

    /// This registry with the org's connections beside the servers of the settings.
    pub fn with<'b>(&self, connections: &'b [Server]) -> Registry<'b>
    where
        'a: 'b,
    {
        Registry { connections, ..*self }
    }

    /// The server of this name, of the settings or a connection of the org.
    pub fn named(&self, name: &str) -> Option<&'a Server> {
        self.settings.named(name).or_else(|| self.connections.iter().find(|s| s.name == name))
    }

    /// The servers that serve `org`, and `playbook` where one is named, by name. A caller kept to
    /// some playbooks sees, with no playbook named, the servers of those alone.
    pub fn serving(&self, org: &str, playbook: Option<&str>, kept_to: Option<&[String]>) -> Vec<&'a Server> {
        self.settings
            .servers
            .iter()
            .chain(self.connections.iter())
            .filter(|s| !(self.without_money && s.state.as_ref().is_ok_and(|e| e.handles_money)))
            .filter(|s| match (playbook, kept_to) {
                (None, Some(kept)) => kept.iter().any(|p| s.serves(org, Some(p))),
                _ => s.serves(org, playbook),
            })
            .collect()
    }

    /// The servers of `playbook` that can reach a person, as their entries name their tools: the
    /// one that sends a message and, where there is one, the one that reads the replies.
    pub fn senders(&self, org: &str, playbook: &str) -> Vec<Sender> {
        self.serving(org, Some(playbook), None)
            .into_iter()
            .filter_map(|s| {
                let e = s.state.as_ref().ok()?;
                let named = |tool: &String| format!("{}/{tool}", s.name);
                Some(Sender {
                    server: s.name.clone(),
                    send: named(e.sends.as_ref()?),
                    replies: e.reads_replies.as_ref().map(named),
                })
            })
            .collect()
    }

    /// The server `server` of `playbook` and the tools it offers now, or the refusal that says what
    /// `search` shows: `not_found` for a server the playbook may not use, `unavailable` for one
    /// that cannot be used just now.
    pub async fn offering(
        &self,
        org: &str,
        playbook: &str,
        server: &str,
        now: i64,
    ) -> Result<(&'a Server, Vec<Listed>), Problem> {
        let serving = self.serving(org, Some(playbook), None);
        let Some(found) = serving.iter().copied().find(|s| s.name == server) else {
            let money = self.named(server).and_then(|s| s.state.as_ref().ok()).is_some_and(|e| e.handles_money);
            if self.without_money && money {
                return Err(Problem::unavailable(format!(
                    "The directory listing does not offer the tool server {server}, whose tools pay, refund, transfer or pay out money; through /mcp the same call works."
                ))
                .with_kind(crate::core::ErrorCode::ToolUnavailable));
            }
            let names: Vec<String> = serving.iter().map(|s| s.name.clone()).collect();
            return Err(words::no_server(playbook, server, &names));
        };
        let offered = self.offered(found, now).await.map_err(|f| words::unavailable(found, f.because, &f.detail))?;
        Ok((found, offered))
    }

    /// The tools `server` offers: those its server lists that its entry allows, marked as the
    /// entry says. `now` is the second of the request, for the kept lists.
    pub async fn offered(&self, server: &Server, now: i64) -> Result<Vec<Listed>, Failure> {
        let entry = usable(server)?;
        let listing = self.listing(server, entry, now).await?;
        Ok(offered(entry, listing.tools()))
    }

    /// What `server` lists, as kept when it was read less than a while ago, else read anew: an
    /// MCP server's `tools/list`, or an HTTP API's document.
    async fn listing(&self, server: &Server, entry: &ServerEntry, now: i64) -> Result<Listing, Failure> {
        let source = match &entry.kind {
            ServerKind::Mcp { url } | ServerKind::OpenApi { document: Document::At(url), .. } => url.as_str(),
            ServerKind::OpenApi { document: Document::Text(_), .. } => "document_text",
        };
        let key = format!("{}\n{source}", server.name);
        if let Some((at, kept)) = self.lists.and_then(|l| l.kept.borrow().get(&key).cloned()) {
            let kept_for = if kept.is_ok() { LIST_KEPT_SECONDS } else { FAILURE_KEPT_SECONDS };
            if now >= at && now - at < kept_for {
                return kept;
            }
        }
        let credential = entry.credential.as_ref();
        let listing = match &entry.kind {
            ServerKind::Mcp { url } => {
                let client = self.client(url, credential);
                let listed = client.list_tools().await;
                self.remember(url, &client);
                listed.map(Listing::Tools)
            }
            ServerKind::OpenApi { document, base_url } => {
                let api = api_client::read_document(self.transport, document, base_url, credential).await;
                api.map(|api| Listing::Api(Rc::new(api)))
            }
        };
        if let Some(lists) = self.lists {
            lists.kept.borrow_mut().insert(key, (now, listing.clone()));
        }
        listing
    }

    /// A client of the MCP server at `url`, in the revision this isolate settled with it before.
    fn client(&self, url: &str, credential: Option<&Credential>) -> Client<'a> {
        let era = self.lists.and_then(|l| l.eras.borrow().get(url).cloned());
        Client::new(self.transport, url, credential).speaking(era)
    }

    fn remember(&self, url: &str, client: &Client<'_>) {
        if let (Some(lists), Some(era)) = (self.lists, client.era()) {
            lists.eras.borrow_mut().insert(url.to_string(), era);
        }
    }

    /// Calls one tool of `server`, which the caller has checked it offers with `schema`, its
    /// input schema as listed (an MCP server's call mirrors the arguments it marks as headers).
    pub async fn call(
        &self,
        server: &Server,
        tool: &str,
        schema: &Value,
        arguments: &Value,
        timeout: u64,
    ) -> Result<Answered, Failure> {
        let entry = usable(server)?;
        let credential = entry.credential.as_ref();
        match &entry.kind {
            ServerKind::Mcp { url } => {
                let client = self.client(url, credential);
                let answered = client.call_tool(tool, arguments, schema, timeout).await;
                self.remember(url, &client);
                answered
            }
            ServerKind::OpenApi { base_url, .. } => {
                // The operations as `offered` kept them, which the caller checked the arguments by.
                let listing = self.listing(server, entry, (self.clock)() / 1000).await?;
                let Some(op) = listing.operation(tool) else {
                    let text = format!("The API's document offers no operation {tool} now.");
                    return Ok(Answered { text, structured: None, is_error: true });
                };
                api_client::call(self.transport, op, base_url, credential, arguments, timeout).await
            }
        }
    }
}

/// A server's entry, or why it cannot be used.
fn usable(server: &Server) -> Result<&ServerEntry, Failure> {
    server.state.as_ref().map_err(|u| Failure { because: u.because, detail: u.detail.clone() })
}

#[cfg(test)]
mod tests {
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
                    body: reply.to_string(),
                })
            })
        }
    }

    fn settings(json: &str) -> ToolServers {
        ToolServers::read(|name| (name == "TOOL_SERVERS").then(|| json.to_string()), false).0
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
        assert_eq!(block_on(registry.offered(crm, 200)).unwrap().len(), 2, "each server keeps its own list");
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
            Box::pin(async move { Ok(Response { status: 200, content_type, session: None, body }) })
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
        let registry = Registry {
            lists: Some(&lists),
            settings: &servers,
            transport: &pets,
            clock: || 100_000,
            ..Registry::none()
        };

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
        let servers = settings(
            r#"{"pay": {"type": "mcp", "url": "http://127.0.0.1:9/mcp", "allowed": "*", "handles_money": true}}"#,
        );
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
}
