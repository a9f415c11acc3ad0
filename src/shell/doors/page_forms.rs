//! The forms of the runtime's own pages (the connect page, later Studio): the proof a page
//! hands out with its forms, and the reading of a posted form that takes it only from this
//! runtime's own page (`core::access::csrf`). A page's answer carries `PAGE_HEADERS`.

use worker::{Request, Response, Url};

use super::answers::{page, stop};
use crate::core::access::csrf::{self, Jar};
use crate::core::access::oauth::form::Form;
use crate::shell::env;
use crate::shell::http::read_limited;

/// The proof cookie's name, before the `__Host-` prefix of an https runtime.
const PROOF_COOKIE: &str = "page-form";
/// How long a page's forms may be posted after it was shown.
const PROOF_SECONDS: u32 = 60 * 60;
/// A page's form is a few fields; a key or a client secret is the longest of them.
const FORM_MAX_BYTES: usize = 16 * 1024;

/// The value a page writes in its forms' `csrf` field, and the `Set-Cookie` it is sent with.
/// A proof the browser holds already is kept, so that two pages open in two tabs both post.
pub fn proof(req: &Request, base: &str) -> worker::Result<(String, String)> {
    let jar = Jar::of(base);
    let cookies = req.headers().get("cookie").ok().flatten();
    let held = csrf::cookie_value(cookies.as_deref(), &jar.name(PROOF_COOKIE))
        .filter(|v| v.len() == 43 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    let value = match held {
        Some(v) => v,
        None => csrf::token(&env::secret().map_err(|p| worker::Error::RustError(p.detail))?),
    };
    let cookie = jar.proof(PROOF_COOKIE, &value, PROOF_SECONDS);
    Ok((value, cookie))
}

/// A page's HTML with the pages' headers, and the proof's cookie where one is given.
pub fn html(status: u16, body: String, proof_cookie: Option<String>) -> worker::Result<Response> {
    page(status, body, proof_cookie)
}

/// The page that refuses a request another site's page sent to one of this runtime's pages: a
/// page, with the pages' headers, since a person's browser shows it.
pub fn from_another_site() -> worker::Result<Response> {
    stop(
        403,
        "This form was refused",
        "It was sent from another site than this runtime's own page, so nothing was done.",
    )
}

/// The form a page posted, once it is known to come from this runtime's own page: its origin
/// is this runtime's, and its `csrf` field matches the proof cookie. Otherwise the page that
/// answers the post instead, which says nothing was done.
pub async fn read(req: &mut Request, url: &Url, base: &str) -> worker::Result<Result<Form, Response>> {
    let own = url.origin().ascii_serialization();
    let origin = req.headers().get("origin").ok().flatten();
    let site = req.headers().get("sec-fetch-site").ok().flatten();
    if !csrf::same_origin(origin.as_deref(), site.as_deref(), &own) {
        return Ok(Err(from_another_site()?));
    }
    let body = match read_limited(req, FORM_MAX_BYTES).await {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(_) => return Ok(Err(stop(413, "This form could not be read", "It is larger than a page's form may be.")?)),
    };
    let Ok(form) = Form::parse(&body) else {
        return Ok(Err(stop(
            400,
            "This form could not be read",
            "Its fields are not encoded as a browser sends them.",
        )?));
    };
    let field = form.one(csrf::FIELD).ok().flatten().unwrap_or_default();
    let cookies = req.headers().get("cookie").ok().flatten();
    if !csrf::matches(cookies.as_deref(), &Jar::of(base).name(PROOF_COOKIE), field) {
        let words = "It did not come from the page this runtime showed you, or the page is over an hour old. Open the page again, and nothing was done.";
        return Ok(Err(stop(403, "This form was refused", words)?));
    }
    Ok(Ok(form))
}
