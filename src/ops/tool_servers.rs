//! The tool servers a playbook may use, as one registry over their sources (the operator's
//! settings now; the org's connections in a later issue): whom each serves, the tools it offers,
//! kept per isolate for a stated time, and one call to one of them.

use std::cell::RefCell;
use std::collections::BTreeMap;

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::tool_client::{Client, Failure, Response, Transport};
use crate::core::tool_server::mcp::{Answered, Listed};
use crate::core::tool_server::offer::offered;
use crate::core::tool_server::settings::{Server, ServerKind, ToolServers};
use crate::core::tool_server::{Because, Request};
use crate::ops::run::Unanswered;

/// How long a server's list of tools is kept before it is asked again, and how long a failure
/// to list is, so that a server that came back is seen soon.
pub const LIST_KEPT_SECONDS: i64 = 60;
pub const FAILURE_KEPT_SECONDS: i64 = 5;

pub struct Registry<'a> {
    pub settings: &'a ToolServers,
    pub transport: &'a dyn Transport,
    /// The lists this isolate keeps; none keeps nothing.
    pub lists: Option<&'a Lists>,
    /// Milliseconds of a clock, to say how long a call took.
    pub clock: fn() -> i64,
    /// Leaves out the servers that handle money, as `/directory` does.
    pub without_money: bool,
}

/// The tool lists one isolate keeps, by server and address, with the second each was read.
#[derive(Default)]
pub struct Lists {
    kept: RefCell<BTreeMap<String, Kept>>,
}

/// A server's list as it was read, or how reading it failed, and the second it was.
type Kept = (i64, Result<Vec<Listed>, Failure>);

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
        Registry { settings: &NO_SERVERS, transport: &Nowhere, lists: None, clock: || 0, without_money: false }
    }

    /// The servers that serve `org`, and `playbook` where one is named, by name. A caller kept to
    /// some playbooks sees, with no playbook named, the servers of those alone.
    pub fn serving(&self, org: &str, playbook: Option<&str>, kept_to: Option<&[String]>) -> Vec<&'a Server> {
        self.settings
            .servers
            .iter()
            .filter(|s| !(self.without_money && s.state.as_ref().is_ok_and(|e| e.handles_money)))
            .filter(|s| match (playbook, kept_to) {
                (None, Some(kept)) => kept.iter().any(|p| s.serves(org, Some(p))),
                _ => s.serves(org, playbook),
            })
            .collect()
    }

    /// The tools `server` offers: those its server lists that its entry allows, marked as the
    /// entry says. `now` is the second of the request, for the kept lists.
    pub async fn offered(&self, server: &Server, now: i64) -> Result<Vec<Listed>, Failure> {
        let entry = server.state.as_ref().map_err(|u| Failure { because: u.because, detail: u.detail.clone() })?;
        let url = match &entry.kind {
            ServerKind::Mcp { url } => url,
            ServerKind::OpenApi { .. } => {
                return Err(Failure {
                    because: Because::SettingsInvalid,
                    detail: "it is an HTTP API, and this runtime does not read OpenAPI documents yet; list it as an MCP server, or leave it out until it does".into(),
                })
            }
        };
        let key = format!("{}\n{url}", server.name);
        if let Some((at, kept)) = self.lists.and_then(|l| l.kept.borrow().get(&key).cloned()) {
            let kept_for = if kept.is_ok() { LIST_KEPT_SECONDS } else { FAILURE_KEPT_SECONDS };
            if now >= at && now - at < kept_for {
                return kept.map(|listed| offered(entry, listed));
            }
        }
        let listed = Client::new(self.transport, url, entry.credential.as_ref()).list_tools().await;
        if let Some(lists) = self.lists {
            lists.kept.borrow_mut().insert(key, (now, listed.clone()));
        }
        listed.map(|listed| offered(entry, listed))
    }

    /// Calls one tool of `server`, which the caller has checked it offers.
    pub async fn call(
        &self,
        server: &Server,
        tool: &str,
        arguments: &Value,
        timeout: u64,
    ) -> Result<Answered, Failure> {
        let entry = server.state.as_ref().map_err(|u| Failure { because: u.because, detail: u.detail.clone() })?;
        match &entry.kind {
            ServerKind::Mcp { url } => {
                Client::new(self.transport, url, entry.credential.as_ref()).call_tool(tool, arguments, timeout).await
            }
            ServerKind::OpenApi { .. } => Err(Failure {
                because: Because::SettingsInvalid,
                detail: "it is an HTTP API, and this runtime does not read OpenAPI documents yet".into(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use futures::executor::block_on;
    use serde_json::json;

    use super::*;

    /// A modern server of two tools that counts the lists it was asked for.
    struct Two {
        asked: Cell<usize>,
        down: Cell<bool>,
    }

    impl Transport for Two {
        fn send(&self, request: Request, _: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
            self.asked.set(self.asked.get() + 1);
            let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("")).unwrap_or_default();
            let tools = json!([{ "name": "read", "inputSchema": { "type": "object" }, "annotations": { "readOnlyHint": true } },
                               { "name": "write", "inputSchema": { "type": "object" } }]);
            let down = self.down.get();
            Box::pin(async move {
                if down {
                    return Err(Unanswered::Timeout);
                }
                let reply = json!({ "jsonrpc": "2.0", "id": body["id"], "result": { "tools": tools } });
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

    #[test]
    fn an_unusable_entry_and_no_servers_offer_nothing() {
        let servers = settings(r#"{"files": {"type": "mcp", "url": "ftp://x"}}"#);
        let registry = Registry { settings: &servers, ..Registry::none() };
        let failed = block_on(registry.offered(&servers.servers[0], 0)).unwrap_err();
        assert_eq!(failed.because, Because::SettingsInvalid);
        assert!(Registry::none().serving("acme", None, None).is_empty());
    }
}
