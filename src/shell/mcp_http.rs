//! Streamable HTTP without sessions: POST only; refusals keep their JSON and status; a handled
//! request answers an event stream that carries an SSE comment every 5 seconds until the
//! JSON-RPC response. Dropping the stream (the client closed it) drops the work with it.

use std::time::Duration;

use futures::future::{select, Either, LocalBoxFuture};
use futures::stream;
use serde_json::Value;
use worker::{Delay, Env, Request, Response};

use super::backend::Objects;
use super::entry::{read_limited, send};
use super::env::Settings;
use crate::api::Reply;
use crate::core::{Caller, Problem, Reason};
use crate::mcp::endpoint::Endpoint;
use crate::mcp::jsonrpc;
use crate::mcp::transport::{self, Era, Item, Plan, Post};

const HEARTBEAT: Duration = Duration::from_secs(5);

pub async fn serve(
    mut req: Request,
    env: Env,
    settings: &Settings,
    caller: Caller,
    endpoint: Endpoint,
    own: String,
) -> worker::Result<Response> {
    if req.method() != worker::Method::Post {
        let p = Problem::new(
            Reason::MethodNotAllowed,
            "The MCP endpoint answers POST only: this server keeps no sessions and opens no stream of its own.",
        );
        return send(Reply { allow: Some("POST".into()), ..Reply::problem(&p) });
    }
    let body = match read_limited(&mut req, settings.max_body_bytes).await {
        Ok(b) => b,
        Err(p) => return send(Reply::problem(&p)),
    };
    let (content_type, accept, version, method, name) = (
        header(&req, "content-type"),
        header(&req, "accept"),
        header(&req, "mcp-protocol-version"),
        header(&req, "mcp-method"),
        header(&req, "mcp-name"),
    );
    let post = Post {
        content_type: content_type.as_deref(),
        accept: accept.as_deref(),
        protocol_version: version.as_deref(),
        mcp_method: method.as_deref(),
        mcp_name: name.as_deref(),
        body: &body,
    };
    match transport::plan(&post) {
        Plan::Refuse { status, body } => send(Reply::json(status, &body)),
        Plan::Accepted => Ok(Response::empty()?.with_status(202)),
        Plan::Handle { era, items, batch, stream } => {
            let work = answer_all(env, caller, endpoint, era, items, batch, own);
            if stream {
                event_stream(work)
            } else {
                let body = work.await;
                send(Reply { status: 200, content_type: "application/json", body, allow: None, scope: None })
            }
        }
    }
}

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The answers to every item, owning all it needs so that the stream can hold it.
fn answer_all(
    env: Env,
    caller: Caller,
    endpoint: Endpoint,
    era: Era,
    items: Vec<Item>,
    batch: bool,
    own: String,
) -> LocalBoxFuture<'static, String> {
    Box::pin(async move {
        let backend = Objects { env: &env };
        let mut answers = Vec::with_capacity(items.len());
        for item in items {
            let answer = match item {
                Item::Invalid(e) => jsonrpc::failure(&Value::Null, &e).to_string(),
                Item::Request { id, method, params } => match backend.context(&caller) {
                    Err(p) => {
                        jsonrpc::failure(&id, &jsonrpc::RpcError::new(jsonrpc::INTERNAL_ERROR, p.detail)).to_string()
                    }
                    Ok(mut ctx) => {
                        // The directory leaves out the servers that handle money, as it lists them.
                        ctx.tool_servers.without_money = endpoint == Endpoint::Directory;
                        // It serves no generation function either, nor its guide or events.
                        ctx.directory = endpoint == Endpoint::Directory;
                        ctx.connections.lists_providers = !matches!(endpoint, Endpoint::Playbook { .. });
                        if ctx.connections.base.is_empty() {
                            ctx.connections.base = own.clone();
                        }
                        crate::mcp::server::respond(&ctx, &endpoint, &era, &id, &method, &params).await
                    }
                },
            };
            answers.push(answer);
        }
        // Each answer is JSON text already: a batch is their array, as `Value::Array` would write it.
        if batch {
            format!("[{}]", answers.join(","))
        } else {
            answers.pop().unwrap_or_else(|| "null".to_string())
        }
    })
}

fn event_stream(work: LocalBoxFuture<'static, String>) -> worker::Result<Response> {
    let events = stream::unfold(Some(work), |state| async move {
        let mut work = state?;
        let tick = Box::pin(Delay::from(HEARTBEAT));
        match select(work.as_mut(), tick).await {
            Either::Left((answer, _)) => {
                Some((Ok::<Vec<u8>, worker::Error>(format!("event: message\ndata: {answer}\n\n").into_bytes()), None))
            }
            Either::Right(((), _)) => Some((Ok(b": heartbeat\n\n".to_vec()), Some(work))),
        }
    });
    let mut resp = Response::from_stream(events)?;
    let headers = resp.headers_mut();
    headers.set("content-type", "text/event-stream")?;
    headers.set("cache-control", "no-cache")?;
    headers.set("x-accel-buffering", "no")?;
    Ok(resp)
}
