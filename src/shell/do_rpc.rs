//! How the Worker and the Durable Objects talk: one request type per endpoint (`Call`, their list
//! in `calls`), sent as JSON, and a reply that is the value its type names or the problem document
//! of a refusal.

use futures::future::LocalBoxFuture;
use serde::de::DeserializeOwned;
use serde::Serialize;
use worker::js_sys::Reflect;
use worker::wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;
use worker::{Method, Request, RequestInit, Response, ResponseBuilder, Stub};

use crate::core::{json, Problem};

/// One request to an object's endpoint, typed on both sides: the caller sends it with `send`, the
/// object reads it with `read`, and both name the endpoint and the reply by the request's type.
pub trait Call: Serialize + DeserializeOwned {
    const PATH: &'static str;
    type Reply: Serialize + DeserializeOwned;
}

/// Sends a typed request to its endpoint and reads the reply its type names.
pub async fn send<C: Call>(stub: &Stub, request: &C) -> Result<C::Reply, Problem> {
    call(stub, C::PATH, request).await
}

/// Reads a typed request the object's endpoint was sent.
pub async fn read<C: Call>(req: &mut Request) -> Result<C, Problem> {
    let text = body(req).await?;
    json::from_str(&text).map_err(unreadable)
}

/// The text of a call: one future for every endpoint, boxed so that each endpoint's `read` calls
/// it rather than carrying a copy.
fn body(req: &mut Request) -> LocalBoxFuture<'_, Result<String, Problem>> {
    Box::pin(async move { req.text().await.map_err(|e| Problem::internal(format!("could not read a call: {e}"))) })
}

#[inline(never)]
fn unreadable(e: serde_json::Error) -> Problem {
    Problem::internal(format!("a call could not be read: {e}"))
}

/// The object side of one endpoint: reads the request, has `handle` answer it, and replies with
/// the answer or the refusal.
pub async fn serve<C: Call>(
    req: &mut Request,
    handle: impl AsyncFnOnce(C) -> Result<C::Reply, Problem>,
) -> worker::Result<Response> {
    let answer = match read::<C>(req).await {
        Ok(request) => handle(request).await,
        Err(p) => Err(p),
    };
    reply(answer)
}

/// Sends `body` to the object's `endpoint` and reads its reply. Only `send` and the Run object's
/// outbox (until it sends its writes as `Call`s) use it.
async fn call<T: DeserializeOwned>(stub: &Stub, endpoint: &str, body: &impl Serialize) -> Result<T, Problem> {
    let text = serde_json::to_string(body).map_err(|e| Problem::internal(format!("could not encode a call: {e}")))?;
    let reply = exchange(stub, endpoint, text).await?;
    json::from_str(&reply).map_err(|e| Problem::internal(format!("an object answered what could not be read: {e}")))
}

/// The part of `call` that is the same for every type: the request, the object's answer, and a
/// refusal read as the problem it is. Boxed, so that each `call::<T>` calls it rather than
/// carrying a copy.
fn exchange<'a>(stub: &'a Stub, endpoint: &'a str, text: String) -> LocalBoxFuture<'a, Result<String, Problem>> {
    Box::pin(async move {
        let mut init = RequestInit::new();
        init.with_method(Method::Post).with_body(Some(text.into()));
        let req = Request::new_with_init(&format!("https://object{endpoint}"), &init).map_err(unavailable)?;
        let resp = stub.fetch_with_request(req).await.map_err(cut_off)?;
        let status = resp.status_code();
        let reply = whole_text(resp.into()).await.map_err(cut_off)?;
        if status == 200 {
            Ok(reply)
        } else {
            Err(json::from_str::<Problem>(&reply)
                .unwrap_or_else(|_| Problem::unavailable("Storage did not answer just now; try again.")))
        }
    })
}

/// The body of a reply, read by the platform in one piece: `worker::Response::text` reads an
/// object's reply as a stream, chunk by chunk through wasm, which cost more than the call.
async fn whole_text(resp: worker::web_sys::Response) -> worker::Result<String> {
    let text = JsFuture::from(resp.text()?).await?;
    text.as_string().ok_or_else(|| worker::Error::RustError("an object's reply is not text".into()))
}

/// A call that did not come back whole. workerd marks the error of an object reset while it held
/// the call (a deploy, an eviction for its limits, `ctx.abort`) with `durableObjectReset`, and a
/// call whose connection to the object broke, as when the object's runtime stopped, fails with
/// "Network connection lost.": either way the object may have done what it was asked, and the
/// request is answered as stopped. An object overloaded refused the call before it began.
fn cut_off(e: worker::Error) -> Problem {
    if was_cut_off(&e) {
        worker::console_error!("durable object call cut off: {e}");
        return Problem::stopped();
    }
    unavailable(e)
}

fn was_cut_off(e: &worker::Error) -> bool {
    let worker::Error::UnknownJsError { original, message, .. } = e else { return false };
    let flag =
        |name: &str| Reflect::get(original, &JsValue::from_str(name)).ok().and_then(|v| v.as_bool()) == Some(true);
    !flag("overloaded") && (flag("durableObjectReset") || message.starts_with("Network connection lost"))
}

fn unavailable(e: worker::Error) -> Problem {
    worker::console_error!("durable object call failed: {e}");
    Problem::unavailable("Storage did not answer just now, so nothing was changed; try again.")
}

/// The object side: a value, or a refusal as the problem it is.
pub fn reply<T: Serialize>(result: Result<T, Problem>) -> worker::Result<Response> {
    answer(result.map(|v| serde_json::to_string(&v)))
}

/// All of `reply` but the encoding of its value, out of line: each endpoint of each object has a
/// `reply` of its own, and this part is the same for all of them.
#[inline(never)]
fn answer(result: Result<serde_json::Result<String>, Problem>) -> worker::Result<Response> {
    match result {
        Ok(Ok(json)) => Ok(ResponseBuilder::new().with_header("content-type", "application/json")?.fixed(json.into())),
        Ok(Err(_)) => Err(worker::Error::Json(("Failed to encode data to json".into(), 500))),
        Err(p) => {
            if p.reason == crate::core::Reason::Internal {
                worker::console_error!("internal, in an object: {}", p.detail);
            }
            Ok(Response::from_json(&p)?.with_status(p.status().max(400)))
        }
    }
}
