//! `GET /debug`: the page `api::debug` built once in this isolate, sent with its own headers.
//! It needs no key, so it is answered before the caller is resolved.

use worker::Response;

use crate::api::{debug, Reply};
use crate::core::{Problem, Reason};
use crate::shell::http::send;

pub fn owns(path: &str) -> bool {
    path == debug::PATH
}

pub fn serve(method: &str) -> worker::Result<Response> {
    if method != "GET" {
        let p = Problem::new(Reason::MethodNotAllowed, "/debug answers GET only: open it in a browser.");
        return send(Reply { allow: Some("GET".into()), ..Reply::problem(&p) });
    }
    let mut resp = Response::ok(debug::page())?;
    let headers = resp.headers_mut();
    for (name, value) in debug::headers() {
        headers.set(name, &value)?;
    }
    Ok(resp)
}
