//! The pages and redirects a sign-in answers a browser with, under the pages' headers.

use worker::Response;

use crate::api::sign_in_pages::{self, PAGE_HEADERS};
use crate::core::access::oauth::metadata::AUTHORIZE_PATH;
use crate::core::access::session;
use crate::core::{Problem, Reason};

/// The one redirect URI the provider knows the runtime by.
pub const CALLBACK_PATH: &str = "/oauth/callback";
/// Where a person's browser posts their consent.
pub const CONSENT_PATH: &str = "/oauth/consent";

/// The page of a callback opened in another browser than the one its sign-in began in: it signs
/// nobody in, since it may be someone else's sign-in sent to this person.
pub fn another_browser() -> worker::Result<Response> {
    stop(
        403,
        "This sign-in began in another browser",
        "Nothing was done: a sign-in goes on only in the browser it began in, so that nobody can sign you in as someone else. If you followed a link to get here, it was not yours. Start again from the page or app you use.",
    )
}

/// The answer to a client address past a route's rate limit: a page for a person's browser, a
/// problem document for a client.
pub fn too_many(path: &str) -> worker::Result<Response> {
    let words = "Too many requests came from this address just now; wait a minute and try again.";
    let page = [AUTHORIZE_PATH, CALLBACK_PATH, CONSENT_PATH, session::SIGN_IN_PATH].contains(&path);
    let mut resp = if page {
        stop(429, "Too many sign-ins", words)?
    } else {
        crate::shell::http::send(crate::api::Reply::problem(&Problem::new(Reason::TooManyRequests, words)))?
    };
    resp.headers_mut().set("retry-after", "60")?;
    Ok(resp)
}

pub fn stop(status: u16, title: &str, words: &str) -> worker::Result<Response> {
    page(status, sign_in_pages::message(title, words), None)
}

pub fn page(status: u16, html: String, cookie: Option<String>) -> worker::Result<Response> {
    let mut resp = Response::ok(html)?.with_status(status);
    let headers = resp.headers_mut();
    for (name, value) in PAGE_HEADERS {
        headers.set(name, value)?;
    }
    if let Some(cookie) = cookie {
        headers.set("set-cookie", &cookie)?;
    }
    Ok(resp)
}

pub fn redirect(to: &str) -> worker::Result<Response> {
    let mut resp = Response::empty()?.with_status(302);
    resp.headers_mut().set("location", to)?;
    resp.headers_mut().set("cache-control", "no-store")?;
    Ok(resp)
}

pub fn redirect_with(to: &str, cookie: &str) -> worker::Result<Response> {
    let mut resp = redirect(to)?;
    resp.headers_mut().set("set-cookie", cookie)?;
    Ok(resp)
}
