//! One outbound request through the Worker's fetch, with a deadline and a bound on what is read.

use std::time::Duration;

use futures::future::{select, Either};
use futures::StreamExt;
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit};

pub use crate::ops::run::Unanswered;

pub struct Outgoing<'a> {
    pub method: Method,
    pub url: &'a str,
    pub headers: &'a [(&'a str, String)],
    pub body: Option<String>,
    pub timeout: Duration,
    /// The most of an answer's body that is read; a longer one is refused.
    pub max_bytes: usize,
    /// Whether what was read of the body so far, given the answer's content type, is all the
    /// caller needs: reading stops there, as it does for an event stream that carried the
    /// response a server leaves open after it.
    pub enough: Option<&'a Enough>,
}

/// Whether a body read so far, of the content type given, is all a caller needs.
pub type Enough = dyn Fn(Option<&str>, &[u8]) -> bool;

/// What came back: the status, the headers a caller reads, and the body.
pub struct Answer {
    pub status: u16,
    pub content_type: Option<String>,
    /// The `Mcp-Session-Id` an MCP server answered with.
    pub session: Option<String>,
    pub body: String,
}

/// Sends one request and reads its status and body, or gives up at the deadline.
pub async fn send(out: Outgoing<'_>) -> Result<(u16, String), Unanswered> {
    exchange(out).await.map(|a| (a.status, a.body))
}

/// Sends one request and reads its answer, or gives up at the deadline.
pub async fn exchange(out: Outgoing<'_>) -> Result<Answer, Unanswered> {
    let unreachable = |e: worker::Error| Unanswered::Unreachable(e.to_string());
    let headers = Headers::new();
    for (name, value) in out.headers {
        headers.set(name, value).map_err(unreachable)?;
    }
    let mut init = RequestInit::new();
    init.with_method(out.method).with_headers(headers);
    if let Some(body) = out.body {
        init.with_body(Some(body.into()));
    }
    let request = Request::new_with_init(out.url, &init).map_err(unreachable)?;
    let controller = AbortController::default();
    let signal = controller.signal();
    let (max, enough) = (out.max_bytes, out.enough);
    let over = || Unanswered::Unreachable(format!("its answer is over {max} bytes"));
    let exchange = Box::pin(async move {
        let mut resp = Fetch::Request(request).send_with_signal(&signal).await.map_err(unreachable)?;
        let header = |name: &str| resp.headers().get(name).ok().flatten();
        let (content_type, session) = (header("content-type"), header("mcp-session-id"));
        let declared = header("content-length").and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > max) {
            return Err(over());
        }
        // Read as it comes, so that a body past the bound is refused before it is all held, and
        // reading stops once the caller has what it needs.
        let mut bytes = Vec::new();
        match resp.stream() {
            Ok(mut stream) => {
                while let Some(chunk) = stream.next().await {
                    bytes.extend_from_slice(&chunk.map_err(unreachable)?);
                    if bytes.len() > max {
                        return Err(over());
                    }
                    if enough.is_some_and(|done| done(content_type.as_deref(), &bytes)) {
                        break;
                    }
                }
            }
            Err(_) => bytes = resp.bytes().await.map_err(unreachable)?,
        }
        if bytes.len() > max {
            return Err(over());
        }
        Ok(Answer {
            status: resp.status_code(),
            content_type,
            session,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    });
    let answer = match select(exchange, Box::pin(Delay::from(out.timeout))).await {
        Either::Left((answer, _)) => answer,
        Either::Right(((), _)) => Err(Unanswered::Timeout),
    };
    // Whatever the server still sends, nobody reads: the connection is let go.
    controller.abort();
    answer
}
