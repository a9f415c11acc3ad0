//! One outbound request through the Worker's fetch, with a deadline and a bound on what is read.

use std::time::Duration;

use futures::future::{select, Either};
use worker::{AbortController, Delay, Fetch, Headers, Method, Request, RequestInit};

pub use crate::ops::run::Unanswered;
use crate::ops::tool_client::read_within;

pub struct Outgoing<'a> {
    pub method: Method,
    pub url: &'a str,
    pub headers: &'a [(&'a str, String)],
    pub body: Option<String>,
    pub timeout: Duration,
    /// The most of an answer's body that is read; a longer one is refused once it passes this.
    pub max_bytes: usize,
}

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
    let max = out.max_bytes;
    let exchange = Box::pin(async move {
        let mut resp = Fetch::Request(request).send_with_signal(&signal).await.map_err(unreachable)?;
        let declared = resp.headers().get("content-length").ok().flatten().and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > max) {
            return Err(Unanswered::Unreachable(format!("its answer is over {max} bytes")));
        }
        // Read as it comes, so that an answer without a Content-Length is given up at the bound.
        let bytes = match resp.stream() {
            Ok(chunks) => read_within(chunks, max).await?,
            // A body held whole, or none: there is nothing more to read.
            Err(_) => resp.bytes().await.map_err(unreachable)?,
        };
        let header = |name: &str| resp.headers().get(name).ok().flatten();
        Ok(Answer {
            status: resp.status_code(),
            content_type: header("content-type"),
            session: header("mcp-session-id"),
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    });
    match select(exchange, Box::pin(Delay::from(out.timeout))).await {
        Either::Left((answer, _)) => {
            // An answer given up part-way is not read on: its server is told to stop.
            if answer.is_err() {
                controller.abort();
            }
            answer
        }
        Either::Right(((), _)) => {
            controller.abort();
            Err(Unanswered::Timeout)
        }
    }
}
