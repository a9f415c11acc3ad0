//! The answers every door sends and the bodies they read: a `Reply` made a response, with the
//! challenge that tells a client how to authenticate, and a body read to its bound.

use worker::{Request, Response};

use crate::api::Reply;
use crate::core::Problem;
use crate::shell::incoming;

/// Reads a body, refusing one over the limit before and after reading it.
pub async fn read_limited(req: &mut Request, max: usize) -> Result<Vec<u8>, Problem> {
    incoming::limited(req.inner(), max).await
}

/// A refusal with the challenge that tells a client how to authenticate, if it has one.
pub fn challenged(reply: Reply, challenge: Option<String>) -> worker::Result<Response> {
    let mut resp = send(reply)?;
    if let Some(challenge) = challenge {
        resp.headers_mut().set("www-authenticate", &challenge)?;
    }
    Ok(resp)
}

pub fn send(reply: Reply) -> worker::Result<Response> {
    let mut resp = Response::ok(reply.body)?.with_status(reply.status);
    let headers = resp.headers_mut();
    headers.set("content-type", reply.content_type)?;
    if let Some(allow) = reply.allow {
        headers.set("allow", &allow)?;
    }

    Ok(resp)
}
