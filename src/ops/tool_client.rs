//! One MCP tool server, spoken to over a transport the shell supplies: asked `server/discover` in
//! 2026-07-28 first, which settles its revision (once more when it refuses the revision while
//! naming it); the handshake of earlier revisions when it does not speak it (once more when its
//! session is gone); every page of its tools within bounds; and a tool's call, its `x-mcp-header`
//! arguments as headers, within its deadline together with the requests that settle the revision,
//! and a legacy server's stream that ended before its answer taken up again where it broke off.
//! How a server failed is said as the `because` that `search` lists it with.

use std::cell::{Cell, RefCell};

use futures::future::LocalBoxFuture;
use futures::{Stream, StreamExt};
use serde_json::{json, Value};

use crate::core::access::oauth::form::encode;
use crate::core::protocol::MODERN;
use crate::core::tool_server::mcp::{self, Answered, Era, Listed, Post, Reply};
pub use crate::core::tool_server::TOOLS_MAX;
use crate::core::tool_server::{Because, Credential, Place, Request};
use crate::ops::outbound::Unanswered;

/// The most pages of `tools/list` read from one server.
pub const PAGES_MAX: usize = 20;
/// How long a request other than a tool's call may take.
pub const LIST_SECONDS: u64 = 15;
/// How many times a legacy server's stream that ended before its answer is taken up again, the
/// pause before each when the server names none, and the longest pause taken.
pub const RESUMES_MAX: usize = 3;
pub const RETRY_MS: u64 = 1000;
pub const RETRY_MAX_MS: u64 = 10_000;

/// What came back from one request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Response {
    pub status: u16,
    pub content_type: Option<String>,
    /// The `Mcp-Session-Id` an MCP server answered with.
    pub session: Option<String>,
    /// The `WWW-Authenticate` challenge of a server that wants a token, which says where its
    /// protected resource metadata is.
    pub www_authenticate: Option<String>,
    pub body: String,
}

/// How a request reaches a tool server: the Worker's fetch, or a stand-in in tests. An answer
/// that is an event stream is read until it holds a JSON-RPC response (`mcp::answered_in`) or
/// ends, since a stream taken up again stays open after its answer.
pub trait Transport {
    fn send(&self, request: Request, timeout_seconds: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>>;

    /// Waits `ms` milliseconds, the pause a server asks for before its stream is taken up again.
    /// A stand-in without time answers at once.
    fn pause(&self, _ms: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Milliseconds of a clock, which keeps a call's requests within its deadline together. A
    /// stand-in without one answers 0, which gives each request the whole deadline.
    fn now_ms(&self) -> u64 {
        0
    }
}

/// Reads an answer's body, chunk by chunk as it comes, until it ends or holds more than `max`
/// bytes: a longer answer is given up at the chunk that passes the bound, however much more its
/// server would send. A body streamed without a Content-Length says nothing of its size until it
/// ends, so a bound checked on the whole body would read it all first, past the isolate's memory.
/// The shell's fetch reads every answer through it.
///
/// # Errors
///
/// `Unanswered::Unreachable`, with the words of a chunk that could not be read, or
/// `Unanswered::TooLarge` for an answer over `max` bytes.
pub async fn read_within<E: std::fmt::Display>(
    chunks: impl Stream<Item = Result<Vec<u8>, E>>,
    max: usize,
    until: Option<AnswerHeld>,
) -> Result<Vec<u8>, Unanswered> {
    let mut chunks = std::pin::pin!(chunks);
    let mut body = Vec::new();
    let mut read_to = 0;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| Unanswered::Unreachable(e.to_string()))?;
        if body.len() + chunk.len() > max {
            return Err(Unanswered::TooLarge(max));
        }
        body.extend_from_slice(&chunk);
        // Whole events end in a blank line: only a chunk with a line break may complete one.
        if let (Some(answered), true) = (until, chunk.contains(&b'\n')) {
            let (done, used) = answered(&body[read_to..]);
            read_to += used;
            if done {
                break;
            }
        }
    }
    Ok(body)
}

/// Tells, of the whole events at the start of part of an event stream, whether they hold what a
/// reader waits for, and how many bytes they take (`mcp::answered_in`).
pub type AnswerHeld = fn(&[u8]) -> (bool, usize);

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
            let result = self.send("tools/list", params, None, &[], LIST_SECONDS).await?;
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

    /// Calls one tool, whose input schema is `schema`, as it was listed. A tool that says it
    /// failed answers `is_error`; a server that fails is a `Failure`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: &Value,
        schema: &Value,
        timeout_seconds: u64,
    ) -> Result<Answered, Failure> {
        let params = json!({ "name": name, "arguments": arguments });
        let mirrored = mcp::param_headers(schema, arguments);
        let result = self.send("tools/call", params, Some(name), &mirrored, timeout_seconds).await?;
        mcp::read_call(&result).map_err(|why| Failure::new(Because::Failing, why))
    }

    /// One request, with what it takes: settling the revision first, asking again once when the
    /// server names it after refusing it, and a handshake when a 2026-07-28 server turns out to
    /// speak earlier revisions or a session is gone. `modern_headers` go with it in 2026-07-28.
    /// Every request it takes keeps within `timeout` seconds together.
    async fn send(
        &self,
        method: &str,
        params: Value,
        name: Option<&str>,
        modern_headers: &[(String, String)],
        timeout: u64,
    ) -> Result<Value, Failure> {
        let deadline = Deadline { at: self.transport.now_ms() + timeout * 1000, seconds: timeout };
        let mut renegotiated = false;
        let mut asked_again = false;
        loop {
            let era = match self.era() {
                Some(era) => era,
                None => self.settle(deadline).await?,
            };
            let id = self.id();
            let mut post = mcp::request(&era, id, method, params.clone(), name);
            if era == Era::Modern {
                post.headers.extend(modern_headers.iter().cloned());
            }
            let response = self.post(post, deadline).await?;
            let response = self.resumed(&era, response, id, deadline).await?;
            let reply = mcp::read_reply(response.content_type.as_deref(), &response.body, id);
            if era == Era::Modern && !asked_again && mcp::asks_again(reply.as_ref().ok()) {
                asked_again = true;
                continue;
            }
            let modern_refused = era == Era::Modern && mcp::refuses_modern(response.status, reply.as_ref().ok());
            let session_gone = matches!(&era, Era::Legacy { session: Some(_), .. }) && response.status == 404;
            if (modern_refused || session_gone) && !renegotiated {
                renegotiated = true;
                self.handshake(deadline).await?;
                continue;
            }
            return answer(&response, reply);
        }
    }

    /// Settles the revision of a server not yet spoken to: `server/discover` in 2026-07-28, asked
    /// again once if the server refuses the revision while naming it; the handshake if the answer
    /// tells a server of earlier revisions.
    async fn settle(&self, deadline: Deadline) -> Result<Era, Failure> {
        let deadline = deadline.within(self.transport.now_ms(), LIST_SECONDS);
        for _ in 0..2 {
            let id = self.id();
            let response =
                self.post(mcp::request(&Era::Modern, id, "server/discover", json!({}), None), deadline).await?;
            refused(&response)?;
            let reply = mcp::read_reply(response.content_type.as_deref(), &response.body, id);
            match mcp::discovered(response.status, reply.as_ref().ok()) {
                Some(mcp::Discovered::Modern) => {
                    *self.era.borrow_mut() = Some(Era::Modern);
                    return Ok(Era::Modern);
                }
                Some(mcp::Discovered::Again) => continue,
                Some(mcp::Discovered::Legacy) => return self.handshake(deadline).await,
                None => {
                    return Err(answer(&response, reply).err().unwrap_or_else(|| {
                        Failure::new(
                            Because::Failing,
                            "it answered server/discover with what no server of any revision answers",
                        )
                    }))
                }
            }
        }
        Err(Failure::new(
            Because::Failing,
            format!("it refused the revision {MODERN} twice while naming it among those it speaks"),
        ))
    }

    /// The handshake of earlier revisions: `initialize`, its session, `notifications/initialized`.
    async fn handshake(&self, deadline: Deadline) -> Result<Era, Failure> {
        let deadline = deadline.within(self.transport.now_ms(), LIST_SECONDS);
        let id = self.id();
        let response = self.post(mcp::initialize(id), deadline).await?;
        let reply = mcp::read_reply(response.content_type.as_deref(), &response.body, id);
        let result = answer(&response, reply)?;
        let (era, note) =
            mcp::initialized(&result, response.session.clone()).map_err(|why| Failure::new(Because::Failing, why))?;
        *self.era.borrow_mut() = Some(era.clone());
        let noted = self.post(note, deadline).await?;
        if !(200..300).contains(&noted.status) {
            return Err(Failure::new(
                Because::Failing,
                format!("it refused notifications/initialized with HTTP {}", noted.status),
            ));
        }
        Ok(era)
    }

    /// A legacy server's event stream that ended before the answer to request `id`, taken up
    /// again where it broke off: after the pause the server asked for, a GET with the id of its
    /// last event, as the revisions before 2026-07-28 resume a stream, so that a call is answered
    /// without being made twice. 2026-07-28 resumes no stream, and a call is not made again.
    async fn resumed(
        &self,
        era: &Era,
        mut response: Response,
        id: u64,
        deadline: Deadline,
    ) -> Result<Response, Failure> {
        if *era == Era::Modern {
            return Ok(response);
        }
        for _ in 0..RESUMES_MAX {
            let streamed = response.content_type.as_deref().is_some_and(mcp::is_stream);
            if !streamed || !(200..300).contains(&response.status) {
                return Ok(response);
            }
            if mcp::read_reply(response.content_type.as_deref(), &response.body, id).is_ok() {
                return Ok(response);
            }
            let Some(resume) = mcp::resumption(&response.body) else { return Ok(response) };
            let pause = resume.retry_ms.unwrap_or(RETRY_MS).min(RETRY_MAX_MS);
            if self.transport.now_ms() + pause >= deadline.at {
                return Err(deadline.missed());
            }
            self.transport.pause(pause).await;
            let headers = mcp::resume(era, &resume.last_event_id);
            response = self.exchange("GET", headers, None, deadline).await?;
        }
        Ok(response)
    }

    async fn post(&self, post: Post, deadline: Deadline) -> Result<Response, Failure> {
        self.exchange("POST", post.headers, Some(post.body), deadline).await
    }

    async fn exchange(
        &self,
        method: &'static str,
        mut headers: Vec<(String, String)>,
        body: Option<String>,
        deadline: Deadline,
    ) -> Result<Response, Failure> {
        if let Some(header) = &self.credential {
            headers.push(header.clone());
        }
        let now = self.transport.now_ms();
        if now >= deadline.at {
            return Err(deadline.missed());
        }
        let seconds = (deadline.at - now).div_ceil(1000);
        let request = Request { method, url: self.url.clone(), headers, body };
        self.transport.send(request, seconds).await.map_err(|u| unanswered(u, deadline.seconds, &self.in_address))
    }

    fn id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }
}

/// When the requests of one call or list must be done by: `at`, in the transport's clock's
/// milliseconds, and the seconds they were given, which a failure names.
#[derive(Debug, Clone, Copy)]
struct Deadline {
    at: u64,
    seconds: u64,
}

impl Deadline {
    /// This deadline, or `seconds` from `now` if that comes first.
    fn within(self, now: u64, seconds: u64) -> Deadline {
        let at = now + seconds * 1000;
        if at < self.at {
            Deadline { at, seconds }
        } else {
            self
        }
    }

    fn missed(self) -> Failure {
        unanswered(Unanswered::Timeout, self.seconds, &[])
    }
}

/// A refusal an answer's status says: of the credential, or of the pace.
fn refused(response: &Response) -> Result<(), Failure> {
    match response.status {
        401 | 403 => Err(Failure::new(
            Because::KeyRefused,
            format!("it refused the runtime's credential with HTTP {}", response.status),
        )),
        429 => Err(Failure::new(Because::RateLimited, "it asked the runtime to slow down (HTTP 429)")),
        _ => Ok(()),
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
        // It was reached and answered, more than a call may: it fails, rather than is away.
        Unanswered::TooLarge(max) => Failure::new(
            Because::Failing,
            format!("it answered more than {max} bytes, the most the runtime reads of an answer"),
        ),
    }
}

/// The result of a request, or how the server failed it.
fn answer(response: &Response, reply: Result<Reply, String>) -> Result<Value, Failure> {
    refused(response)?;
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
