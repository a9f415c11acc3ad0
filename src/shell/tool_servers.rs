//! The tool servers of this Worker: `TOOL_SERVERS` read once per isolate, what cannot be used
//! said in the log as it is read, the lists kept per isolate, and the transport over fetch.

use std::time::Duration;

use futures::future::LocalBoxFuture;
use worker::{Delay, Env, Method};

use crate::core::tool_server::{mcp, Request, ToolServers};
use crate::ops::tool_client::{Response, Transport};
use crate::ops::tool_servers::{Lists, Registry};
use crate::shell::outbound::{exchange_until, Outgoing, Redirects, Unanswered};

/// The most of a server's answer that is read; a longer one fails the request.
pub const ANSWER_MAX_BYTES: usize = 4 * 1024 * 1024;

/// Fetch, following the redirects the address rules of a runtime `deployed` or not allow.
struct Fetch {
    deployed: bool,
}

static DEPLOYED: Fetch = Fetch { deployed: true };
static ON_ONE_MACHINE: Fetch = Fetch { deployed: false };

impl Transport for Fetch {
    fn send(&self, request: Request, timeout: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        Box::pin(async move {
            let headers: Vec<(&str, String)> = request.headers.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
            let answer = exchange_until(
                Outgoing {
                    method: Method::from(request.method.to_string()),
                    url: &request.url,
                    headers: &headers,
                    body: request.body,
                    timeout: Duration::from_secs(timeout),
                    max_bytes: ANSWER_MAX_BYTES,
                    redirects: Redirects::Follow { deployed: self.deployed },
                },
                Some(mcp::answered_in),
            )
            .await?;
            Ok(Response {
                status: answer.status,
                content_type: answer.content_type,
                session: answer.session,
                www_authenticate: answer.www_authenticate,
                body: answer.body,
            })
        })
    }

    fn pause(&self, ms: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(Delay::from(Duration::from_millis(ms)))
    }

    fn now_ms(&self) -> u64 {
        worker::Date::now().as_millis()
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
            let deployed = crate::shell::env::Settings::of(env).deployed();
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
        connections: &[],
        transport: if crate::shell::env::Settings::of(env).deployed() { &DEPLOYED } else { &ON_ONE_MACHINE },
        lists: Some(LISTS.with(|l| *l)),
        clock: || worker::Date::now().as_millis() as i64,
        without_money: false,
        renew: None,
    }
}
