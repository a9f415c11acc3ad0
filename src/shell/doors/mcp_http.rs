//! Streamable HTTP without sessions: POST only; refusals keep their JSON and status; a handled
//! request answers an event stream that carries an SSE comment every 5 seconds until the
//! JSON-RPC response. An answer ready before the first comment is due goes out whole, as one
//! event, without a stream for the platform to pump (most are: a stream costs about a fifth of a
//! `tools/list`'s time, docs/performance.md). Dropping the stream (the client closed it) drops the work with it.

use std::time::Duration;

use futures::future::{select, Either, LocalBoxFuture};
use futures::stream::{self, StreamExt};
use serde_json::Value;
use worker::{Delay, Env, Response};

use crate::api::Reply;
use crate::core::{Caller, Problem, Reason};
use crate::mcp::endpoint::Endpoint;
use crate::mcp::jsonrpc;
use crate::mcp::transport::{self, Era, Item, Plan, Post};
use crate::shell::backend::Objects;
use crate::shell::env::Settings;
use crate::shell::http::send;
use crate::shell::incoming::Incoming;

const HEARTBEAT: Duration = Duration::from_secs(5);

pub async fn serve(
    req: Incoming,
    env: Env,
    settings: &Settings,
    caller: Caller,
    endpoint: Endpoint,
    own: String,
) -> worker::Result<Response> {
    if req.method() != "POST" {
        let p = Problem::new(
            Reason::MethodNotAllowed,
            "The MCP endpoint answers POST only: this server keeps no sessions and opens no stream of its own.",
        );
        return send(Reply { allow: Some("POST".into()), ..Reply::problem(&p) });
    }
    let body = match req.body(settings.max_body_bytes).await {
        Ok(b) => b,
        Err(p) => return send(Reply::problem(&p)),
    };
    let (content_type, accept, version, method, name) = (
        req.header("content-type"),
        req.header("accept"),
        req.header("mcp-protocol-version"),
        req.header("mcp-method"),
        req.header("mcp-name"),
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
                let first_beat = Box::pin(Delay::from(HEARTBEAT));
                match select(work, first_beat).await {
                    Either::Left((answer, _)) => events(Response::ok(event(&answer))?),
                    Either::Right(((), work)) => event_stream(work),
                }
            } else {
                let body = work.await;
                send(Reply { status: 200, content_type: "application/json", body, allow: None, scope: None })
            }
        }
    }
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

/// The work still running once the first heartbeat is due: that comment, then one every
/// `HEARTBEAT` until the answer.
fn event_stream(work: LocalBoxFuture<'static, String>) -> worker::Result<Response> {
    let first = stream::once(async { Ok::<Vec<u8>, worker::Error>(HEARTBEAT_COMMENT.to_vec()) });
    let rest = stream::unfold(Some(work), |state| async move {
        let mut work = state?;
        let tick = Box::pin(Delay::from(HEARTBEAT));
        match select(work.as_mut(), tick).await {
            Either::Left((answer, _)) => Some((Ok(event(&answer).into_bytes()), None)),
            Either::Right(((), _)) => Some((Ok(HEARTBEAT_COMMENT.to_vec()), Some(work))),
        }
    });
    events(Response::from_stream(first.chain(rest))?)
}

const HEARTBEAT_COMMENT: &[u8] = b": heartbeat\n\n";

/// One SSE event of a JSON-RPC answer, which is one line of JSON.
fn event(answer: &str) -> String {
    let mut event = String::with_capacity(answer.len() + 24);
    event.push_str("event: message\ndata: ");
    event.push_str(answer);
    event.push_str("\n\n");
    event
}

/// An event stream's headers, on a body whole or streamed.
fn events(mut resp: Response) -> worker::Result<Response> {
    let headers = resp.headers_mut();
    headers.set("content-type", "text/event-stream")?;
    headers.set("cache-control", "no-cache")?;
    headers.set("x-accel-buffering", "no")?;
    Ok(resp)
}
