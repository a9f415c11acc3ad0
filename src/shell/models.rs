//! Calls to model providers through the Worker's outbound fetch: the settings read from the
//! environment, and one request sent with a deadline. What is sent and read is built in
//! `core::model::wire`; keys travel only in the headers of the request to their provider.

use std::time::Duration;

use futures::future::{select, Either};
use worker::{AbortController, Delay, Env, Fetch, Headers, Method, Request, RequestInit};

use crate::core::model::wire::Outbound;
use crate::core::model::ModelSettings;

/// The model settings of this Worker, from its variables and secrets.
pub fn settings(env: &Env) -> ModelSettings {
    let settings = ModelSettings::read(|name| {
        env.secret(name).map(|s| s.to_string()).or_else(|_| env.var(name).map(|v| v.to_string())).ok()
    });
    for warning in &settings.warnings {
        worker::console_warn!("model settings: {warning}");
    }
    settings
}

/// Why a request got no answer.
pub enum Unanswered {
    /// No answer within the deadline.
    Timeout,
    /// The provider could not be reached; the words are the platform's.
    Unreachable(String),
}

/// Sends one request and reads its status and body, or gives up at the deadline.
pub async fn send(out: &Outbound, timeout_seconds: u64) -> Result<(u16, String), Unanswered> {
    let headers = Headers::new();
    for (name, value) in &out.headers {
        headers.set(name, value).map_err(|e| Unanswered::Unreachable(e.to_string()))?;
    }
    let mut init = RequestInit::new();
    init.with_method(if out.method == "GET" { Method::Get } else { Method::Post }).with_headers(headers);
    if let Some(body) = &out.body {
        init.with_body(Some(body.to_string().into()));
    }
    let request = Request::new_with_init(&out.url, &init).map_err(|e| Unanswered::Unreachable(e.to_string()))?;
    let controller = AbortController::default();
    let signal = controller.signal();
    let exchange = Box::pin(async move {
        let mut resp = Fetch::Request(request).send_with_signal(&signal).await?;
        let text = resp.text().await?;
        Ok::<_, worker::Error>((resp.status_code(), text))
    });
    let deadline = Delay::from(Duration::from_secs(timeout_seconds));
    match select(exchange, deadline).await {
        Either::Left((Ok(answer), _)) => Ok(answer),
        Either::Left((Err(e), _)) => Err(Unanswered::Unreachable(e.to_string())),
        Either::Right(((), _)) => {
            controller.abort();
            Err(Unanswered::Timeout)
        }
    }
}
