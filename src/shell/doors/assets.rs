//! `GET` of an asset's `url`: its bytes, to a caller who may read its playbook.

use worker::{Env, Response};

use crate::api::Reply;
use crate::core::{Caller, Problem};
use crate::shell::backend::Objects;
use crate::shell::env::Settings;
use crate::shell::http;
use crate::shell::incoming::Incoming;

/// Serves the bytes of an asset at its `url` to a caller permitted `get_asset` on its playbook,
/// as the asset's media type, shown inline and never run: `nosniff`, and a policy that allows
/// nothing and sandboxes the document, should a browser open it as one.
pub async fn serve(
    req: &Incoming,
    path: &str,
    env: &Env,
    settings: &Settings,
    caller: &Caller,
    (org, playbook, asset_id): (String, String, String),
) -> worker::Result<Response> {
    let refused = |p: Problem| {
        let challenge = super::caller::challenge(settings, path, p.status(), p.scope.as_deref(), true, "");
        http::challenged(Reply::problem(&p), challenge)
    };
    if req.method() != "GET" {
        let p = Problem::new(crate::core::Reason::MethodNotAllowed, "This route answers GET only.");
        let mut resp = http::send(Reply::problem(&p))?;
        resp.headers_mut().set("allow", "GET")?;
        return Ok(resp);
    }
    let backend = Objects { env };
    let found = match backend.context(caller) {
        Ok(ctx) => crate::tools::asset_content(&ctx, &org, &playbook, &asset_id).await,
        Err(p) => Err(p),
    };
    let (asset, bytes) = match found {
        Ok(found) => found,
        Err(p) => return refused(p),
    };
    let mut resp = Response::from_bytes(bytes)?;
    let headers = resp.headers_mut();
    headers.set("content-type", &asset.media_type)?;
    headers.set("x-content-type-options", "nosniff")?;
    headers.set("content-disposition", &format!("inline; filename=\"{}\"", asset.id))?;
    headers.set("content-security-policy", "default-src 'none'; sandbox")?;
    headers.set("cross-origin-resource-policy", "same-origin")?;
    headers.set("referrer-policy", "no-referrer")?;
    // The bytes of an id never change, but who may read them can: a browser keeps them a while,
    // for this caller alone.
    headers.set("cache-control", "private, max-age=3600")?;
    headers.set("etag", &format!("\"{}\"", asset.sha256))?;
    Ok(resp)
}
