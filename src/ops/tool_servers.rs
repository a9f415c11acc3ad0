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
use crate::core::tool_server::offer::{offered, sorted};
use crate::core::tool_server::openapi::{Api, Operation};
use crate::core::tool_server::settings::{Credential, Document, Server, ServerEntry, ServerKind, ToolServers};
use crate::core::tool_server::{words, Request};
use crate::core::Problem;
use crate::ops::outbound::Unanswered;

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
    /// Gives a connection whose server refused its credential a new one, once, before the
    /// refusal stands; none where nothing is renewed.
    pub renew: Option<&'a dyn Renew>,
}

/// Renews the credential of a connection's server after its server answered 401: its tokens
/// refreshed, or its client credentials asked again. Answers the server as it is to be used now
/// (unusable where the renewal failed, in words that say why), or none where the connection has
/// nothing to renew, so the refusal stands.
pub trait Renew {
    fn renew<'r>(&'r self, server: &'r Server) -> LocalBoxFuture<'r, Option<Server>>;
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
    Tools(Rc<[Listed]>),
    Api(Rc<Api>, Rc<[Listed]>),
}

impl Listing {
    fn tools(&self) -> &Rc<[Listed]> {
        match self {
            Listing::Tools(tools) | Listing::Api(_, tools) => tools,
        }
    }

    fn operation(&self, tool: &str) -> Option<&Operation> {
        match self {
            Listing::Tools(_) => None,
            Listing::Api(api, _) => api.operation(tool),
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
            renew: None,
        }
    }

    /// This registry with the org's connections beside the servers of the settings.
    pub fn with<'b>(&self, connections: &'b [Server]) -> Registry<'b>
    where
        'a: 'b,
    {
        Registry { connections, ..*self }
    }

    /// Whether each `server/tool` name (or bare server name) is of a server of the settings that
    /// serves `org` and `playbook`: those come before the org's connections wherever a name is
    /// looked up, so the connections, a call to the org's object, need not be read to bind or
    /// call them.
    pub fn settings_serve<'n>(&self, org: &str, playbook: &str, names: impl IntoIterator<Item = &'n str>) -> bool {
        let settings = Registry { connections: &[], ..*self };
        let serving = settings.serving(org, Some(playbook), None);
        names.into_iter().all(|name| {
            let server = name.split_once('/').map_or(name, |(server, _)| server);
            serving.iter().any(|s| s.name == server)
        })
    }

    /// This registry, renewing the credential of a connection its server refused.
    pub fn renewing<'b>(&self, renew: &'b dyn Renew) -> Registry<'b>
    where
        'a: 'b,
    {
        Registry { renew: Some(renew), ..*self }
    }

    /// The server renewed after its credential was refused, where there is one to try again with.
    async fn renewed(&self, server: &Server, failure: &Failure) -> Option<Server> {
        // A 403 refuses what the token may do, not the token: a new one would not be let further.
        let refused =
            failure.because == crate::core::tool_server::Because::KeyRefused && !failure.detail.contains("HTTP 403");
        if !refused || server.connection.is_none() {
            return None;
        }
        self.renew?.renew(server).await
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
    ) -> Result<(&'a Server, Rc<[Listed]>), Problem> {
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
    pub async fn offered(&self, server: &Server, now: i64) -> Result<Rc<[Listed]>, Failure> {
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
        let mut listing = self.read_listing(entry).await;
        if let Err(failure) = &listing {
            if let Some(renewed) = self.renewed(server, failure).await {
                listing = match usable(&renewed) {
                    Ok(entry) => self.read_listing(entry).await,
                    Err(failure) => Err(failure),
                };
            }
        }
        // A connection whose credential could not be renewed is not its server failing: the next
        // call asks again.
        let of_connection = listing.as_ref().is_err_and(|f| f.because.as_str().starts_with("connection_"));
        if let (Some(lists), false) = (self.lists, of_connection) {
            lists.kept.borrow_mut().insert(key, (now, listing.clone()));
        }
        listing
    }

    /// Reads what a server lists, with the credential its entry carries.
    async fn read_listing(&self, entry: &ServerEntry) -> Result<Listing, Failure> {
        let credential = entry.credential.as_ref();
        match &entry.kind {
            ServerKind::Mcp { url } => {
                let client = self.client(url, credential);
                let listed = client.list_tools().await;
                self.remember(url, &client);
                listed.map(|tools| Listing::Tools(sorted(tools)))
            }
            ServerKind::OpenApi { document, base_url } => {
                let api = api_client::read_document(self.transport, document, base_url, credential).await;
                api.map(|api| {
                    let tools = sorted(api.tools());
                    Listing::Api(Rc::new(api), tools)
                })
            }
        }
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
        let first = self.call_once(server, tool, schema, arguments, timeout).await;
        let Err(failure) = &first else { return first };
        match self.renewed(server, failure).await {
            Some(renewed) => self.call_once(&renewed, tool, schema, arguments, timeout).await,
            None => first,
        }
    }

    async fn call_once(
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
                    return Ok(Answered { text, structured: None, is_error: true, images: Vec::new() });
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
#[path = "tool_servers_tests.rs"]
mod tests;
