//! The tool servers of this Worker: `TOOL_SERVERS` read once per isolate, what cannot be used
//! said in the log as it is read, the lists kept per isolate, and the transport over fetch.

use std::time::Duration;

use futures::future::LocalBoxFuture;
use worker::{Env, Method};

use super::outbound::{exchange, Outgoing, Unanswered};
use crate::core::tool_server::{mcp, Request, ToolServers};
use crate::ops::tool_client::{Response, Transport};
use crate::ops::tool_servers::{Lists, Registry};

/// The most of a server's answer that is read; a longer one fails the request.
pub const ANSWER_MAX_BYTES: usize = 4 * 1024 * 1024;

struct Fetch;

impl Transport for Fetch {
    fn send(&self, request: Request, timeout: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        Box::pin(async move {
            let headers: Vec<(&str, String)> = request.headers.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
            // An MCP request's event stream is read up to the response to it, which a server
            // may leave open after it.
            let id = request
                .body
                .as_deref()
                .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok())
                .and_then(|v| v.get("id").and_then(serde_json::Value::as_u64));
            let answered = move |content_type: Option<&str>, bytes: &[u8]| {
                let streamed = content_type.is_some_and(|t| t.trim_start().starts_with("text/event-stream"));
                streamed
                    && id.is_some_and(|id| mcp::read_reply(content_type, &String::from_utf8_lossy(bytes), id).is_ok())
            };
            let answer = exchange(Outgoing {
                method: Method::from(request.method.to_string()),
                url: &request.url,
                headers: &headers,
                body: request.body,
                timeout: Duration::from_secs(timeout),
                max_bytes: ANSWER_MAX_BYTES,
                enough: Some(&answered),
            })
            .await?;
            Ok(Response {
                status: answer.status,
                content_type: answer.content_type,
                session: answer.session,
                body: answer.body,
            })
        })
    }
}

thread_local! {
    static SERVERS: std::cell::OnceCell<&'static ToolServers> = const { std::cell::OnceCell::new() };
    static LISTS: &'static Lists = Box::leak(Box::default());
}

/// The registry of this isolate. The settings are read at its first request, which is when
/// an entry that cannot be used is said in the log; each isolate reads them once, and they
/// live as long as it does.
pub fn registry(env: &Env) -> Registry<'static> {
    let settings = SERVERS.with(|cell| {
        *cell.get_or_init(|| {
            let public = env.var("PUBLIC_URL").map(|v| v.to_string()).ok();
            let deployed = super::env::deployed(public.as_deref());
            let (servers, log) = ToolServers::read(
                |name| env.secret(name).map(|s| s.to_string()).or_else(|_| env.var(name).map(|v| v.to_string())).ok(),
                deployed,
            );
            for line in log {
                worker::console_warn!("tool servers: {line}");
            }
            Box::leak(Box::new(servers))
        })
    });
    Registry {
        settings,
        transport: &Fetch,
        lists: Some(LISTS.with(|l| *l)),
        clock: || worker::Date::now().as_millis() as i64,
        without_money: false,
    }
}
