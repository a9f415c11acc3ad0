//! A request as the platform hands it over. `worker::Request` reads the request's `cf` properties
//! when it is made, a getter that builds an object on every call and took about 6% of a
//! `tools/list` (docs/performance.md); the routes every agent's call takes (MCP, `/v1`, an asset's bytes) read
//! only the method, headers and body, so they read them here, and the pages make a
//! `worker::Request` of it.

use worker::{web_sys, ByteStream, Request};

use crate::core::{Problem, Reason};
use futures::StreamExt;

pub struct Incoming {
    raw: web_sys::Request,
    /// Fetched once, as the method: a call reads them several times, each a call into JS.
    headers: web_sys::Headers,
    method: String,
}

impl Incoming {
    pub fn new(raw: web_sys::Request) -> Self {
        let headers = raw.headers();
        let method = raw.method();
        Incoming { raw, headers, method }
    }

    pub fn url(&self) -> String {
        self.raw.url()
    }

    pub fn method(&self) -> &str {
        &self.method
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).ok().flatten()
    }

    /// The body, refused when over `max` bytes before and after reading it.
    pub async fn body(&self, max: usize) -> Result<Vec<u8>, Problem> {
        limited(&self.raw, max).await
    }

    /// For the routes written against `worker::Request`: the pages and sign-in.
    pub fn into_request(self) -> Request {
        Request::from(self.raw)
    }
}

/// How much past its bound a body is still read, and dropped, before the connection is given up:
/// a body a little too large gets its 413 whole, through every proxy on the way, and a flood is
/// read no further than this.
const DRAINED_MAX: usize = 8 << 20;

/// Reads a body within `max` bytes: refused at once where `Content-Length` says more, and
/// otherwise read as it arrives, kept to `max` bytes and refused once it passes them, so that a
/// body sent without a length (chunked) is never held past its bound nor read far past it.
pub async fn limited(raw: &web_sys::Request, max: usize) -> Result<Vec<u8>, Problem> {
    let too_large = || {
        Problem::new(Reason::PayloadTooLarge, format!("The body is larger than the {max} bytes a request may carry."))
    };
    let declared = raw.headers().get("content-length").ok().flatten().and_then(|v| v.trim().parse::<usize>().ok());
    if declared.is_some_and(|n| n > max) {
        return Err(too_large());
    }
    let Some(stream) = raw.body() else {
        return Ok(Vec::new());
    };
    let mut chunks = std::pin::pin!(ByteStream::from(stream));
    let (mut body, mut seen) = (Vec::new(), 0usize);
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|_| Problem::invalid("", "The body could not be read."))?;
        seen = seen.saturating_add(chunk.len());
        if seen <= max {
            body.extend_from_slice(&chunk);
        } else if seen > max.saturating_add(DRAINED_MAX) {
            break;
        }
    }
    if seen > max {
        return Err(too_large());
    }
    Ok(body)
}
