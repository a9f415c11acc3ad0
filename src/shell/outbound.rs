//! One outbound request through the Worker's fetch, with a deadline and a bound on what is read.
//! The platform never follows a redirect itself: each one is checked here (`core::redirect`), so
//! the address rules hold for every hop and a credential stays on its origin.

use std::time::Duration;

use futures::future::{select, Either};
use worker::js_sys::Uint8Array;
use worker::wasm_bindgen::JsValue;
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit, RequestRedirect};

pub use crate::ops::outbound::{Fetched, Unanswered};
use crate::ops::tool_client::read_within;
pub use crate::ops::tool_client::AnswerHeld as Answered;

pub struct Outgoing<'a> {
    pub method: Method,
    pub url: &'a str,
    pub headers: &'a [(&'a str, String)],
    pub body: Option<String>,
    pub timeout: Duration,
    /// The most of an answer's body that is read; a longer one is refused once it passes this.
    pub max_bytes: usize,
    pub redirects: Redirects,
}

/// What a fetch does with a redirect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirects {
    /// None is followed: the caller reads the redirect's own status.
    Refuse,
    /// Followed, `core::redirect::MAX_HOPS` at most, each `Location` checked by the address rules
    /// of a runtime `deployed` or not.
    Follow { deployed: bool },
}

/// What came back: the status, the headers a caller reads, and the body.
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    /// The `Mcp-Session-Id` an MCP server answered with.
    pub session: Option<String>,
    /// The `WWW-Authenticate` challenge of a server that wants a token.
    pub www_authenticate: Option<String>,
    pub body: String,
}

/// Sends one request and reads its status and body, or gives up at the deadline.
pub async fn send(out: Outgoing<'_>) -> Result<(u16, String), Unanswered> {
    exchange(out).await.map(|a| (a.status, a.body))
}

/// Sends one request and reads its answer, or gives up at the deadline.
pub async fn exchange(out: Outgoing<'_>) -> Result<Answer, Unanswered> {
    exchange_until(out, None).await
}

/// Sends one request and reads its answer, or gives up at the deadline. An answer that is an
/// event stream is read piece by piece when `answered` is given, and no further once the whole
/// events read so far hold what the caller waits for (`answered` tells it of the events at the
/// start of what it is given, and how many bytes they take): a stream a server keeps open after
/// its answer is then not waited on to its end.
pub async fn exchange_until(out: Outgoing<'_>, answered: Option<Answered>) -> Result<Answer, Unanswered> {
    let body = out.body.clone().map(JsValue::from);
    let raw = exchange_raw(&out, body, answered).await?;
    Ok(Answer {
        status: raw.status,
        content_type: raw.content_type,
        session: raw.session,
        www_authenticate: raw.www_authenticate,
        body: String::from_utf8_lossy(&raw.bytes).into_owned(),
    })
}

/// Sends one request whose body is `bytes` (`out.body` is not sent) and reads its answer's
/// bytes as they are, or gives up at the deadline: a generation gateway's images and speech.
pub async fn exchange_bytes(out: Outgoing<'_>, bytes: &[u8]) -> Result<Fetched, Unanswered> {
    let body = JsValue::from(Uint8Array::from(bytes));
    let raw = exchange_raw(&out, Some(body), None).await?;
    Ok(Fetched { status: raw.status, content_type: raw.content_type, body: raw.bytes })
}

/// What came back, its body as bytes.
struct Raw {
    status: u16,
    content_type: Option<String>,
    session: Option<String>,
    www_authenticate: Option<String>,
    bytes: Vec<u8>,
}

async fn exchange_raw(
    out: &Outgoing<'_>,
    body: Option<JsValue>,
    answered: Option<Answered>,
) -> Result<Raw, Unanswered> {
    let controller = AbortController::default();
    let signal = controller.signal();
    let exchange = Box::pin(follow(out, body, answered, &signal));
    let answer = match select(exchange, Box::pin(Delay::from(out.timeout))).await {
        Either::Left((answer, _)) => answer,
        Either::Right(((), _)) => Err(Unanswered::Timeout),
    };
    // Whatever the server still sends, nobody reads: a stream read to its answer, an answer given
    // up part-way or past its deadline, its server is told to stop.
    controller.abort();
    answer
}

/// The platform's words, without the "Error: " its JavaScript errors begin with.
fn unreachable(e: worker::Error) -> Unanswered {
    let said = e.to_string();
    Unanswered::Unreachable(said.strip_prefix("Error: ").map(str::to_string).unwrap_or(said))
}

/// Sends the request, and each redirect its rules let it follow, then reads the last answer.
async fn follow(
    out: &Outgoing<'_>,
    mut body: Option<JsValue>,
    answered: Option<Answered>,
    signal: &worker::AbortSignal,
) -> Result<Raw, Unanswered> {
    let mut url = out.url.to_string();
    let mut method = out.method.clone();
    let mut headers: Vec<(&str, String)> = out.headers.to_vec();
    let mut hops = 0;
    loop {
        let resp = send_once(&url, &method, &headers, body.clone(), signal).await?;
        let status = resp.status_code();
        let location = resp.headers().get("location").ok().flatten();
        let (Redirects::Follow { deployed }, Some(location), 300..=399) = (out.redirects, location, status) else {
            return read(resp, out.max_bytes, answered).await;
        };
        if hops == crate::core::redirect::MAX_HOPS {
            return Err(Unanswered::Unreachable(format!(
                "it redirected more than {} times",
                crate::core::redirect::MAX_HOPS
            )));
        }
        let next = worker::Url::parse(&url)
            .and_then(|base| base.join(&location))
            .map_err(|_| Unanswered::Unreachable(format!("it redirected to {location}, which is no address")))?
            .to_string();
        let hop = crate::core::redirect::follow(status, method.as_ref(), &url, &next, deployed)
            .map_err(|why| Unanswered::Unreachable(format!("it redirected to {next}, which {why}")))?;
        if hop.as_get {
            method = Method::Get;
            body = None;
            headers.retain(|(name, _)| !name.eq_ignore_ascii_case("content-type"));
        }
        if hop.cross_origin {
            headers.retain(|(name, _)| crate::core::redirect::kept_across(name));
        }
        url = next;
        hops += 1;
    }
}

async fn send_once(
    url: &str,
    method: &Method,
    headers: &[(&str, String)],
    body: Option<JsValue>,
    signal: &worker::AbortSignal,
) -> Result<worker::Response, Unanswered> {
    let set = Headers::new();
    for (name, value) in headers {
        set.set(name, value).map_err(unreachable)?;
    }
    let mut init = RequestInit::new();
    init.with_method(method.clone()).with_headers(set).with_redirect(RequestRedirect::Manual);
    if body.is_some() {
        init.with_body(body);
    }
    let request = Request::new_with_init(url, &init).map_err(unreachable)?;
    Fetch::Request(request).send_with_signal(signal).await.map_err(unreachable)
}

/// Reads an answer's status, the headers callers read, and its body within `max` bytes.
async fn read(mut resp: worker::Response, max: usize, answered: Option<Answered>) -> Result<Raw, Unanswered> {
    let over = || Unanswered::TooLarge(max);
    let header = |name: &str| resp.headers().get(name).ok().flatten();
    let (content_type, session) = (header("content-type"), header("mcp-session-id"));
    let www_authenticate = header("www-authenticate");
    let declared = header("content-length").and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > max) {
        return Err(over());
    }
    let streamed =
        content_type.as_deref().is_some_and(|t| t.trim_start().to_ascii_lowercase().starts_with("text/event-stream"));
    // Read as it comes, so that a body past the bound is refused before it is all held, and
    // an event stream is read no further than the events that hold what the caller waits for.
    let bytes = match resp.stream() {
        Ok(chunks) => read_within(chunks, max, answered.filter(|_| streamed)).await?,
        // A body held whole, or none: there is nothing more to read.
        Err(_) => resp.bytes().await.map_err(unreachable)?,
    };
    if bytes.len() > max {
        return Err(over());
    }
    Ok(Raw { status: resp.status_code(), content_type, session, www_authenticate, bytes })
}
