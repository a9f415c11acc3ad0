//! Who a browser is on the runtime's own pages (the connect page, later Studio). In local mode it
//! is the local developer, on loopback alone, with no session. With sign-in on (`PUBLIC_URL` and
//! an OpenID provider), a page without a live session sends the person to `/pages/sign-in`,
//! which signs them in at the team's provider through sign-in's own callback and brings them
//! back to the page with a session cookie (`core::access::session`).
//!
//! Routes: `GET /pages/sign-in?to=<path>`, `POST /pages/sign-out`, and `GET /pages/me`, the
//! person as JSON, which signs a browser in first where it has no session.

use worker::{Env, Method, Request, Response, Url};

use super::answers::{self, page, redirect, redirect_with, stop};
use super::identity::{self, fresh_text};
use crate::api::sign_in_pages;
use crate::api::Reply;
use crate::core::access::csrf::{self, Jar, SameSite};
use crate::core::access::oauth::form::Form;
use crate::core::access::oauth::secret;
use crate::core::access::session::{
    self, BeginPageSignIn, EndSession, FindSession, OpenSession, PagePerson, PageSignIn, Session, TakePageSignIn,
    COOKIE, ME_PATH, SESSION_PREFIX, SESSION_TTL, SIGN_IN_PATH, SIGN_IN_TTL, SIGN_OUT_PATH,
};
use crate::core::{Problem, Reason};
use crate::shell::do_rpc::{self, Call};
use crate::shell::env::{self, Settings, ACCESS};
use crate::shell::http::send;
use crate::shell::singletons;
use crate::shell::singletons::ACCESS_NAME as NAME;

/// Whether a path is one of the page sessions' own.
pub fn owns(path: &str) -> bool {
    path.starts_with("/pages/")
}

pub async fn route(req: Request, env: &Env, settings: &Settings, url: &Url) -> worker::Result<Response> {
    match (url.path(), req.method()) {
        (SIGN_IN_PATH, Method::Get) => {
            if !super::limits::admit(env, super::limits::Limit::SignIn, SIGN_IN_PATH, &req).await {
                return answers::too_many(SIGN_IN_PATH);
            }
            let form = Form::parse(url.query().unwrap_or_default()).unwrap_or_default();
            let to = form.one("to").ok().flatten().unwrap_or("/");
            begin(&req, env, settings, url, to).await
        }
        (SIGN_OUT_PATH, Method::Post) => sign_out(&req, env, settings, url).await,
        (ME_PATH, Method::Get) => match require(&req, env, settings).await? {
            Ok(p) => send(Reply::json(200, &serde_json::json!(p))),
            Err(answer) => Ok(answer),
        },
        (path @ (SIGN_IN_PATH | SIGN_OUT_PATH | ME_PATH), _) => {
            let allow = if path == SIGN_OUT_PATH { "POST" } else { "GET" };
            let mut reply =
                Reply::problem(&Problem::new(Reason::MethodNotAllowed, format!("{path} takes {allow} alone.")));
            reply.allow = Some(allow.into());
            send(reply)
        }
        (path, _) => send(Reply::problem(&Problem::not_found(format!("Nothing is at {path}.")))),
    }
}

/// The person a page request comes from: the local developer on loopback in local mode, the
/// person of the browser's live session with sign-in on, or none without one (send them to
/// `sign_in_redirect`).
///
/// # Errors
/// A page that nobody can open here: local mode off loopback, or a runtime that signs nobody in
/// (`PUBLIC_URL` without an OpenID provider); or the Access object not answering.
pub async fn person(req: &Request, env: &Env, settings: &Settings) -> Result<Option<PagePerson>, Problem> {
    let url = req.url().map_err(|_| Problem::invalid("", "The request's address could not be read."))?;
    let Some(public) = settings.public_url.as_deref() else {
        if !settings.local {
            return Err(no_sign_in());
        }
        if session::loopback(url.host_str().unwrap_or_default()) {
            return Ok(Some(PagePerson::local(settings.local_user.as_deref())));
        }
        return Err(Problem::new(
            Reason::Unauthorized,
            "In local mode this runtime's pages open only on the computer that runs it, at 127.0.0.1.",
        ));
    };
    if settings.oidc.is_none() {
        return Err(no_sign_in());
    }
    let cookies = req.headers().get("cookie").ok().flatten();
    let Some(token) = csrf::cookie_value(cookies.as_deref(), &Jar::of(public).name(COOKIE)) else {
        return Ok(None);
    };
    if !token.starts_with(SESSION_PREFIX) || token.len() > 128 {
        return Ok(None);
    }
    let found = call(env, &FindSession { digest: secret::digest(&token), now: env::instant() }).await?;
    Ok(found.map(|s| PagePerson::of(&s.person)))
}

/// The person of a page request, or the response that answers it instead: for a `GET` without
/// a session, the way to sign in and come back; otherwise a page that says why it stops.
pub async fn require(req: &Request, env: &Env, settings: &Settings) -> worker::Result<Result<PagePerson, Response>> {
    match person(req, env, settings).await {
        Ok(Some(p)) => Ok(Ok(p)),
        Ok(None) if req.method() == Method::Get => {
            let url = req.url()?;
            let path = match url.query() {
                Some(q) => format!("{}?{q}", url.path()),
                None => url.path().to_string(),
            };
            Ok(Err(sign_in_redirect(settings, &path)?))
        }
        Ok(None) => Ok(Err(stop(
            401,
            "Your sign-in here has ended",
            "Nothing was done. Open the page again: it asks you to sign in first.",
        )?)),
        Err(p) => Ok(Err(stop(p.status(), "This page cannot open", &p.detail)?)),
    }
}

/// Sends the browser to sign in, and back to `path` of this runtime once signed in.
pub fn sign_in_redirect(settings: &Settings, path: &str) -> worker::Result<Response> {
    let base = settings.public_url.as_deref().unwrap_or_default();
    redirect(&session::sign_in_url(base, session::return_path(path).unwrap_or("/")))
}

/// Starts a page's sign-in at the provider.
async fn begin(req: &Request, env: &Env, settings: &Settings, url: &Url, to: &str) -> worker::Result<Response> {
    let (Some(public), Some(oidc)) = (settings.public_url.as_deref(), settings.oidc.as_ref()) else {
        let local = settings.local && session::loopback(url.host_str().unwrap_or_default());
        return match local {
            // Nothing to sign in to: the local developer is already the person.
            true => redirect(session::return_path(to).unwrap_or("/")),
            false => stop(503, "Sign-in is not set up", &no_sign_in().detail),
        };
    };
    let Some(return_to) = session::return_path(to) else {
        return stop(400, "This sign-in cannot start", "It names a page that is not one of this runtime's.");
    };
    let provider = match identity::provider(settings).await {
        Ok(p) => p,
        Err(why) => return stop(503, "The identity provider cannot be reached", &why),
    };
    let (Ok(state), Ok(verifier), Ok(nonce), Ok(fresh)) = (fresh_text(), fresh_text(), fresh_text(), fresh_text())
    else {
        return stop(503, "Sign-in cannot start just now", "No randomness was available; try again.");
    };
    let state = session::page_state(&state);
    let binding = identity::browser_binding(req, public, fresh);
    let sign_in = PageSignIn {
        return_to: return_to.to_string(),
        verifier: verifier.clone(),
        nonce: nonce.clone(),
        expires_at: env::instant() + SIGN_IN_TTL,
        browser: secret::digest(&binding),
    };
    if let Err(p) = singletons::sign_in(env, &BeginPageSignIn { state: state.clone(), sign_in }).await {
        return stop(503, "Sign-in cannot start just now", &p.detail);
    }
    identity::to_provider(public, oidc, &provider, &identity::Started { state, nonce, verifier, binding })
}

/// The provider's answer to a page's sign-in, at sign-in's callback: a session, and back to the
/// page.
pub(super) async fn callback(
    env: &Env,
    settings: &Settings,
    public: &str,
    form: &Form,
    state: &str,
    browser: Option<&str>,
) -> worker::Result<Response> {
    let taken = singletons::sign_in(env, &TakePageSignIn { state: state.to_string(), now: env::instant() }).await;
    let Ok(Some(sign_in)) = taken else {
        return stop(400, "This sign-in has ended", "It took too long or was used already. Open the page again.");
    };
    if !session::same_browser(&sign_in.browser, browser) {
        return answers::another_browser();
    }
    if form.one("error").ok().flatten().is_some() {
        return stop(
            403,
            "You were not signed in",
            "The identity provider did not sign you in. Open the page again to try once more.",
        );
    }
    let Some(code) = form.one("code").ok().flatten() else {
        return stop(400, "You were not signed in", "The identity provider sent no code. Open the page again.");
    };
    let person = match identity::person(settings, public, code, &sign_in.verifier, &sign_in.nonce).await {
        Ok(p) => p,
        Err(why) => {
            worker::console_warn!("page sign-in: the identity provider's answer was refused: {why}");
            return stop(502, "Your sign-in could not be read", &format!("The identity provider's answer could not be used: {why}. Try again, or tell this runtime's operator."));
        }
    };
    let Ok(random) = env::secret() else {
        return stop(503, "Sign-in cannot go on just now", "No randomness was available; try again.");
    };
    let token = session::mint(&random);
    let opened = OpenSession { digest: secret::digest(&token), session: Session::open(person, env::instant()) };
    if let Err(p) = call(env, &opened).await {
        return stop(503, "Sign-in cannot go on just now", &p.detail);
    }
    let max_age = u32::try_from(SESSION_TTL.num_seconds()).unwrap_or(0);
    let cookie = Jar::of(public).set(COOKIE, &token, max_age, SameSite::Lax);
    let back = session::return_path(&sign_in.return_to).unwrap_or("/");
    redirect_with(&format!("{public}{back}"), &cookie)
}

/// Ends the browser's session, here and in the Access object.
async fn sign_out(req: &Request, env: &Env, settings: &Settings, url: &Url) -> worker::Result<Response> {
    let own = url.origin().ascii_serialization();
    let origin = req.headers().get("origin").ok().flatten();
    let site = req.headers().get("sec-fetch-site").ok().flatten();
    if !csrf::same_origin(origin.as_deref(), site.as_deref(), &own) {
        return stop(403, "Not signed out", "The request came from another site than this runtime's own page.");
    }
    let Some(public) = settings.public_url.as_deref() else {
        return stop(400, "Nothing to sign out of", "In local mode nobody signs in to this runtime's pages.");
    };
    let jar = Jar::of(public);
    let cookies = req.headers().get("cookie").ok().flatten();
    if let Some(token) = csrf::cookie_value(cookies.as_deref(), &jar.name(COOKIE)) {
        if let Err(p) = call(env, &EndSession { digest: secret::digest(&token) }).await {
            return stop(503, "Not signed out", &p.detail);
        }
    }
    let html = sign_in_pages::message("Signed out", "You are signed out of this runtime's pages in this browser.");
    page(200, html, Some(jar.set(COOKIE, "", 0, SameSite::Lax)))
}

fn no_sign_in() -> Problem {
    Problem::unavailable(
        "This runtime signs nobody in, so its pages open for nobody: its operator sets an OpenID provider (OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET) beside PUBLIC_URL.",
    )
}

async fn call<C: Call>(env: &Env, request: &C) -> Result<C::Reply, Problem> {
    let stub = env.durable_object(ACCESS).and_then(|ns| ns.get_by_name(NAME)).map_err(|e| {
        worker::console_error!("binding {ACCESS}: {e}");
        Problem::unavailable("The store of sessions is not reachable just now; try again.")
    })?;
    do_rpc::send(&stub, request).await
}
