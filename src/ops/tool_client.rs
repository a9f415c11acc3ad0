//! One MCP tool server, spoken to over a transport the shell supplies: 2026-07-28 first, the
//! handshake of earlier revisions when the server refuses it (once more when its session is
//! gone), every page of its tools within bounds, and a tool's call within its deadline. How a
//! server failed is said as the `because` that `search` lists it with.

use std::cell::{Cell, RefCell};

use futures::future::LocalBoxFuture;
use futures::{Stream, StreamExt};
use serde_json::{json, Value};

use crate::core::access::oauth::form::encode;
use crate::core::tool_server::mcp::{self, Answered, Era, Listed, Post, Reply};
pub use crate::core::tool_server::TOOLS_MAX;
use crate::core::tool_server::{Because, Credential, Place, Request};
use crate::ops::run::Unanswered;

/// The most pages of `tools/list` read from one server.
pub const PAGES_MAX: usize = 20;
/// How long a request other than a tool's call may take.
pub const LIST_SECONDS: u64 = 15;

/// What came back from one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Response {
    pub status: u16,
    pub content_type: Option<String>,
    /// The `Mcp-Session-Id` an MCP server answered with.
    pub session: Option<String>,
    pub body: String,
}

/// How a request reaches a tool server: the Worker's fetch, or a stand-in in tests.
pub trait Transport {
    fn send(&self, request: Request, timeout_seconds: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>>;
}

/// Reads an answer's body, chunk by chunk as it comes, until it ends or holds more than `max`
/// bytes: a longer answer is given up at the chunk that passes the bound, however much more its
/// server would send. A body streamed without a Content-Length says nothing of its size until it
/// ends, so a bound checked on the whole body would read it all first, past the isolate's memory.
/// The shell's fetch reads every answer through it.
///
/// # Errors
///
/// `Unanswered::Unreachable`, with the words of a chunk that could not be read, or saying that
/// the answer is over `max` bytes.
pub async fn read_within<E: std::fmt::Display>(
    chunks: impl Stream<Item = Result<Vec<u8>, E>>,
    max: usize,
) -> Result<Vec<u8>, Unanswered> {
    let mut chunks = std::pin::pin!(chunks);
    let mut body = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| Unanswered::Unreachable(e.to_string()))?;
        if body.len() + chunk.len() > max {
            return Err(Unanswered::Unreachable(format!("its answer is over {max} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Why a server could not be used, with words that say what happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub because: Because,
    pub detail: String,
}

impl Failure {
    pub fn new(because: Because, detail: impl Into<String>) -> Failure {
        Failure { because, detail: detail.into() }
    }
}

pub struct Client<'a> {
    transport: &'a dyn Transport,
    url: String,
    credential: Option<(String, String)>,
    /// A secret the address carries in its query, as written there and as given, kept out of
    /// every failure's words.
    in_address: Vec<String>,
    era: RefCell<Option<Era>>,
    next_id: Cell<u64>,
}

impl<'a> Client<'a> {
    pub fn new(transport: &'a dyn Transport, url: &str, credential: Option<&Credential>) -> Client<'a> {
        let mut url = url.to_string();
        let in_address = match credential {
            Some(c) if matches!(c.place, Place::Query { .. }) => vec![encode(&c.secret.0), c.secret.0.clone()],
            _ => Vec::new(),
        };
        let header = credential.and_then(|c| match &c.place {
            Place::Header { name, scheme } => {
                let value = scheme.as_ref().map_or_else(|| c.secret.0.clone(), |s| format!("{s} {}", c.secret.0));
                Some((name.clone(), value))
            }
            Place::Query { name } => {
                let joiner = if url.contains('?') { '&' } else { '?' };
                url = format!("{url}{joiner}{}={}", encode(name), encode(&c.secret.0));
                None
            }
        });
        Client { transport, url, credential: header, in_address, era: RefCell::new(None), next_id: Cell::new(1) }
    }

    /// Starts in the revision, and with the session, an earlier client settled with the server, so
    /// that a server of earlier revisions is not asked for a handshake on every request.
    pub fn speaking(self, era: Option<Era>) -> Client<'a> {
        *self.era.borrow_mut() = era;
        self
    }

    /// The revision and session settled with the server, once one is.
    pub fn era(&self) -> Option<Era> {
        self.era.borrow().clone()
    }

    /// Every tool the server lists, page after page, within `PAGES_MAX` and `TOOLS_MAX`.
    pub async fn list_tools(&self) -> Result<Vec<Listed>, Failure> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..PAGES_MAX {
            let params = cursor.as_ref().map_or_else(|| json!({}), |c| json!({ "cursor": c }));
            let result = self.send("tools/list", params, None, LIST_SECONDS).await?;
            let (page, next) = mcp::read_tools(&result).map_err(|why| Failure::new(Because::Failing, why))?;
            tools.extend(page);
            if tools.len() >= TOOLS_MAX {
                tools.truncate(TOOLS_MAX);
                return Ok(tools);
            }
            match next {
                Some(next) if Some(&next) != cursor.as_ref() => cursor = Some(next),
                _ => return Ok(tools),
            }
        }
        Ok(tools)
    }

    /// Calls one tool. A tool that says it failed answers `is_error`; a server that fails is a
    /// `Failure`.
    pub async fn call_tool(&self, name: &str, arguments: &Value, timeout_seconds: u64) -> Result<Answered, Failure> {
        let params = json!({ "name": name, "arguments": arguments });
        let result = self.send("tools/call", params, Some(name), timeout_seconds).await?;
        mcp::read_call(&result).map_err(|why| Failure::new(Because::Failing, why))
    }

    async fn send(&self, method: &str, params: Value, name: Option<&str>, timeout: u64) -> Result<Value, Failure> {
        let mut renegotiated = false;
        loop {
            let era = self.era.borrow().clone().unwrap_or(Era::Modern);
            let id = self.id();
            let response = self.post(mcp::request(&era, id, method, params.clone(), name), timeout).await?;
            let reply = mcp::read_reply(response.content_type.as_deref(), &response.body, id);
            let modern_refused = era == Era::Modern && mcp::refuses_modern(response.status, reply.as_ref().ok());
            let session_gone = matches!(&era, Era::Legacy { session: Some(_), .. }) && response.status == 404;
            if (modern_refused || session_gone) && !renegotiated {
                renegotiated = true;
                self.handshake().await?;
                continue;
            }
            return answer(&response, reply);
        }
    }

    /// The handshake of earlier revisions: `initialize`, its session, `notifications/initialized`.
    async fn handshake(&self) -> Result<(), Failure> {
        let id = self.id();
        let response = self.post(mcp::initialize(id), LIST_SECONDS).await?;
        let reply = mcp::read_reply(response.content_type.as_deref(), &response.body, id);
        let result = answer(&response, reply)?;
        let (era, note) =
            mcp::initialized(&result, response.session.clone()).map_err(|why| Failure::new(Because::Failing, why))?;
        *self.era.borrow_mut() = Some(era);
        let noted = self.post(note, LIST_SECONDS).await?;
        if !(200..300).contains(&noted.status) {
            return Err(Failure::new(
                Because::Failing,
                format!("it refused notifications/initialized with HTTP {}", noted.status),
            ));
        }
        Ok(())
    }

    async fn post(&self, mut post: Post, timeout: u64) -> Result<Response, Failure> {
        if let Some(header) = &self.credential {
            post.headers.push(header.clone());
        }
        let request = Request { method: "POST", url: self.url.clone(), headers: post.headers, body: Some(post.body) };
        self.transport.send(request, timeout).await.map_err(|u| unanswered(u, timeout, &self.in_address))
    }

    fn id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }
}

/// A request that got no answer, as a failure whose words hold none of `hidden` (a secret as
/// written into an address, and as given), since a failed fetch may repeat the address.
pub fn unanswered(u: Unanswered, timeout: u64, hidden: &[String]) -> Failure {
    match u {
        Unanswered::Timeout => {
            let within = crate::core::text::count(usize::try_from(timeout).unwrap_or(usize::MAX), "second");
            Failure::new(Because::Unreachable, format!("it gave no answer within {within}"))
        }
        Unanswered::Unreachable(why) => {
            let why = hidden
                .iter()
                .filter(|secret| !secret.is_empty())
                .fold(why, |why, secret| why.replace(secret.as_str(), "[hidden]"));
            Failure::new(Because::Unreachable, format!("it could not be reached: {why}"))
        }
    }
}

/// The result of a request, or how the server failed it.
fn answer(response: &Response, reply: Result<Reply, String>) -> Result<Value, Failure> {
    match response.status {
        401 | 403 => {
            return Err(Failure::new(
                Because::KeyRefused,
                format!("it refused the runtime's credential with HTTP {}", response.status),
            ))
        }
        429 => return Err(Failure::new(Because::RateLimited, "it asked the runtime to slow down (HTTP 429)")),
        _ => {}
    }
    match reply {
        Ok(Reply::Result(result)) => Ok(result),
        Ok(Reply::Error { code, message, .. }) => {
            Err(Failure::new(Because::Failing, format!("it answered the error {code}: {message}")))
        }
        Err(why) if (200..300).contains(&response.status) => Err(Failure::new(Because::Failing, why)),
        Err(_) => Err(Failure::new(Because::Failing, format!("it answered HTTP {}", response.status))),
    }
}

#[cfg(test)]
#[path = "tool_client_tests.rs"]
mod tests;
