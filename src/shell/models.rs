//! Calls to model providers through the Worker's outbound fetch: the settings read from the
//! environment, and one request sent with a deadline. What is sent and read is built in
//! `core::model::wire`; keys travel only in the headers of the request to their provider.

use std::rc::Rc;
use std::time::Duration;

use worker::{Env, Method};

use crate::shell::outbound::Outgoing;

use crate::core::model::wire::Outbound;
use crate::core::model::ModelSettings;

thread_local! {
    static SETTINGS: std::cell::OnceCell<Rc<ModelSettings>> = const { std::cell::OnceCell::new() };
}

/// The model settings of this Worker, from its variables and secrets: read at the isolate's first
/// request, which is when what cannot be used is said in the log, since they change only with a
/// deploy, which starts new isolates.
pub fn settings(env: &Env) -> Rc<ModelSettings> {
    SETTINGS.with(|cell| {
        cell.get_or_init(|| {
            let settings = ModelSettings::read(|name| {
                env.secret(name).map(|s| s.to_string()).or_else(|_| env.var(name).map(|v| v.to_string())).ok()
            });
            for warning in &settings.warnings {
                worker::console_warn!("model settings: {warning}");
            }
            Rc::new(settings)
        })
        .clone()
    })
}

pub use crate::shell::outbound::Unanswered;

/// The most of a provider's answer that is read.
const ANSWER_MAX: usize = 16 * 1024 * 1024;

/// Sends one request to a provider and reads its status and body, or gives up at the deadline.
pub async fn send(out: &Outbound, timeout_seconds: u64) -> Result<(u16, String), Unanswered> {
    let headers: Vec<(&str, String)> = out.headers.iter().map(|(n, v)| (*n, v.clone())).collect();
    crate::shell::outbound::send(Outgoing {
        method: if out.method == "GET" { Method::Get } else { Method::Post },
        url: &out.url,
        headers: &headers,
        body: out.body.as_ref().map(|b| b.to_string()),
        timeout: Duration::from_secs(timeout_seconds),
        max_bytes: ANSWER_MAX,
        // A provider's answer is its own: a redirect of a request that carries its key is none.
        redirects: crate::shell::outbound::Redirects::Refuse,
    })
    .await
}

/// Sends one generation request to a gateway and reads its answer's bytes, or gives up at the
/// deadline; an answer past `wire::ANSWER_MAX_BYTES` is refused as it passes the bound.
pub async fn generate(
    request: &crate::core::generation::wire::Request,
    timeout_seconds: u64,
) -> Result<crate::shell::outbound::Fetched, Unanswered> {
    let headers: Vec<(&str, String)> = request.headers.iter().map(|(n, v)| (*n, v.clone())).collect();
    let out = Outgoing {
        method: Method::Post,
        url: &request.url,
        headers: &headers,
        body: None,
        timeout: Duration::from_secs(timeout_seconds),
        max_bytes: crate::core::generation::wire::ANSWER_MAX_BYTES,
        redirects: crate::shell::outbound::Redirects::Refuse,
    };
    crate::shell::outbound::exchange_bytes(out, &request.body).await
}
