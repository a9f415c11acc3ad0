//! The Worker's fetch handler: the route table, and the caller resolved once per request.

use worker::{event, web_sys, Context, Env, Response};

use super::{caller, connect_page, cors, debug_page, mcp_http, page_forms, page_session, sign_in, studio};
use crate::api::{self, HttpRequest, Reply};
use crate::core::address::Address;
use crate::core::Problem;
use crate::mcp::endpoint::Endpoint;
use crate::mcp::transport::origin_allowed;
use crate::shell::backend::Objects;
use crate::shell::env::Settings;
use crate::shell::http::{challenged, send};
use crate::shell::incoming::Incoming;

#[event(fetch)]
async fn fetch(req: web_sys::Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let settings = Settings::of(&env);
    let req = Incoming::new(req);
    let origin = req.header("origin");
    let mut resp = route(req, &env, settings, origin.as_deref()).await?;
    // A browser MCP client of an allowed origin may read the challenge and send a credential.
    if let Some(origin) =
        origin.filter(|o| settings.allowed_origins.iter().any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(o)))
    {
        cors::allow(resp.headers_mut(), &origin)?;
    }
    Ok(resp)
}

/// The request's URL read whole, for the pages, which read more of it than the routes do.
fn parse(req: &Incoming) -> worker::Result<worker::Url> {
    req.url().parse().map_err(|e| worker::Error::RustError(format!("the request's URL does not parse: {e}")))
}

/// The parts the routes read, of an address `Address::of` leaves to a full parse.
fn full(url: &worker::Url) -> Address {
    Address {
        origin: url.origin().ascii_serialization(),
        host: url.host_str().unwrap_or_default().to_string(),
        path: url.path().to_string(),
        query: url.query().map(str::to_string),
    }
}

async fn route(req: Incoming, env: &Env, settings: &Settings, origin: Option<&str>) -> worker::Result<Response> {
    let address = match Address::of(&req.url()) {
        Some(address) => address,
        None => full(&parse(&req)?),
    };
    // A browser page of another origin must not drive the runtime (DNS rebinding, CSRF).
    let own = address.origin.clone();
    let path = address.path.as_str();
    if !origin_allowed(origin, &own, &settings.allowed_origins) {
        // A person's browser shows the refusal of a page's request: a page that may not be framed.
        if connect_page::owns(path) || page_session::owns(path) || studio::owns(path) {
            return page_forms::from_another_site();
        }
        return send(Reply::problem(&Problem::forbidden(format!(
            "Requests from the browser origin {} are refused, to protect this runtime from DNS rebinding. List the origin in ALLOWED_ORIGINS to allow it.",
            origin.unwrap_or_default()
        ))));
    }
    if req.method() == "OPTIONS" {
        return cors::preflight();
    }
    // The page of what an agent is given needs no key: it shows no one's data.
    if debug_page::owns(path) {
        return debug_page::serve(req.method());
    }
    // Signing in is what a caller does before it has a credential.
    if sign_in::owns(path) {
        let url = parse(&req)?;
        return sign_in::route(req.into_request(), env, settings, &url).await;
    }
    // The runtime's own pages carry a browser's session cookie, not a bearer credential.
    if page_session::owns(path) {
        let url = parse(&req)?;
        return page_session::route(req.into_request(), env, settings, &url).await;
    }
    if connect_page::owns(path) {
        let url = parse(&req)?;
        return connect_page::route(req.into_request(), env, settings, &url).await;
    }
    if studio::owns(path) {
        let url = parse(&req)?;
        return studio::route(req.into_request(), env, settings, &url).await;
    }
    let authorization = req.header("authorization");
    let caller = match caller::resolve(env, settings, &address, authorization.as_deref()).await {
        Ok(c) => c,
        Err(p) => {
            let challenge = caller::challenge(settings, path, p.status(), None, authorization.is_some(), &p.detail);
            return challenged(Reply::problem(&p), challenge);
        }
    };
    let path = path.to_string();
    if let Some(endpoint) = Endpoint::from_path(&path) {
        if let Err(p) = endpoint.admit(&caller) {
            return send(Reply::problem(&p));
        }
        return mcp_http::serve(req, env.clone(), settings, caller, endpoint, own).await;
    }
    if let Some(named) = api::asset_content_path(&path) {
        return super::assets::serve(&req, &path, env, settings, &caller, named).await;
    }
    match path.as_str() {
        "/" => send(Reply::json(200, &index())),
        p if p.starts_with("/v1/") => {
            let body = match req.body(settings.max_body_bytes).await {
                Ok(b) => b,
                Err(p) => return send(Reply::problem(&p)),
            };
            let backend = Objects { env };
            let mut ctx = match backend.context(&caller) {
                Ok(ctx) => ctx,
                Err(p) => return send(Reply::problem(&p)),
            };
            if ctx.connections.base.is_empty() {
                ctx.connections.base = own.clone();
            }
            let method = req.method();
            let content_type = req.header("content-type");
            let reply = api::handle(
                &ctx,
                &HttpRequest {
                    method,
                    path: &path,
                    query: address.query.as_deref().unwrap_or_default(),
                    content_type: content_type.as_deref(),
                    body: &body,
                },
            )
            .await;
            let challenge = caller::challenge(settings, &path, reply.status, reply.scope.as_deref(), true, "");
            challenged(reply, challenge)
        }
        _ => send(Reply::problem(&Problem::not_found(format!(
            "Nothing is at {path}. MCP clients connect to /mcp; the HTTP API is under /v1."
        )))),
    }
}

fn index() -> serde_json::Value {
    serde_json::json!({
        "name": crate::mcp::SERVER_TITLE,
        "version": crate::mcp::SERVER_VERSION,
        "mcp": "/mcp",
        "http": { "playbooks": "/v1/orgs/{org}/playbooks", "guides": "/v1/guides", "openapi": "/v1/openapi.json" }
    })
}
