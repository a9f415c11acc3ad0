//! A request as the platform hands it over. `worker::Request` reads the request's `cf` properties
//! when it is made, a getter that builds an object on every call and took about 6% of a
//! `tools/list` (issue 18); the routes every agent's call takes (MCP, `/v1`, an asset's bytes) read
//! only the method, headers and body, so they read them here, and the pages make a
//! `worker::Request` of it.

use worker::{web_sys, ByteStream, Request};

use crate::core::{Problem, Reason};
use crate::ops::run::Unanswered;
use crate::ops::tool_client::read_within;

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

/// Reads a body within `max` bytes: refused at once where `Content-Length` says more, and
/// otherwise read as it arrives and refused as soon as it passes the bound, so that a body sent
/// without a length (chunked) is never held whole past it.
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
    let chunks = ByteStream::from(stream);
    match read_within(chunks, max, None).await {
        Ok(bytes) => Ok(bytes),
        Err(Unanswered::TooLarge(_)) => Err(too_large()),
        Err(_) => Err(Problem::invalid("", "The body could not be read.")),
    }
}
