//! The identity provider both sign-ins go to, a client's and a page's: its endpoints, the person
//! it signed in, and the browser's binding to the sign-in it began there.

use std::cell::RefCell;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use worker::{Method, Request, Response};

use super::answers::redirect_with;
use super::answers::CALLBACK_PATH;
use crate::core::access::csrf::{self, Jar};
use crate::core::access::oauth::person::Person;
use crate::core::access::oauth::pkce;
use crate::core::access::oidc::{self, Provider};
use crate::core::access::session::{self, BROWSER_COOKIE, BROWSER_TTL};
use crate::core::Problem;
use crate::shell::env::{self, Settings};
use crate::shell::outbound::{self, Outgoing, Redirects};

const PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);
/// The provider's discovery document is read again after this long.
const DISCOVERY_FRESH_MS: f64 = 600_000.0;

thread_local! {
    static DISCOVERED: RefCell<Option<(Provider, f64)>> = const { RefCell::new(None) };
}

/// The provider's endpoints, from its discovery document, read once every ten minutes.
pub async fn provider(settings: &Settings) -> Result<Provider, String> {
    let now_ms = worker::Date::now().as_millis() as f64;
    let kept = DISCOVERED
        .with(|d| d.borrow().as_ref().filter(|(_, at)| now_ms - at < DISCOVERY_FRESH_MS).map(|(p, _)| p.clone()));
    if let Some(p) = kept {
        return Ok(p);
    }
    let oidc = settings.oidc.as_ref().ok_or("no identity provider is set up")?;
    let answer = outbound::send(Outgoing {
        method: Method::Get,
        url: &oidc::discovery_url(&oidc.issuer),
        headers: &[("accept", "application/json".into())],
        body: None,
        timeout: PROVIDER_TIMEOUT,
        max_bytes: 256 * 1024,
        redirects: Redirects::Refuse,
    })
    .await;
    let body = match answer {
        Ok((200, body)) => body,
        Ok((status, _)) => return Err(format!("Its discovery document answered {status}.")),
        Err(_) => return Err(format!("{} did not answer.", oidc.issuer)),
    };
    let provider = oidc::provider(&body, &oidc.issuer)?;
    DISCOVERED.with(|d| *d.borrow_mut() = Some((provider.clone(), now_ms)));
    Ok(provider)
}

/// The person the provider signed in, from its token endpoint, in answer to the code.
pub async fn person(
    settings: &Settings,
    public: &str,
    code: &str,
    verifier: &str,
    nonce: &str,
) -> Result<Person, String> {
    let oidc = settings.oidc.as_ref().ok_or("no identity provider is set up")?;
    let provider = provider(settings).await?;
    let callback = format!("{}{CALLBACK_PATH}", public);
    let answer = outbound::send(Outgoing {
        method: Method::Post,
        url: &provider.token_endpoint,
        headers: &[("content-type", "application/x-www-form-urlencoded".into()), ("accept", "application/json".into())],
        body: Some(oidc::token_body(code, &callback, verifier, &oidc.client_id, &oidc.client_secret)),
        timeout: PROVIDER_TIMEOUT,
        max_bytes: 256 * 1024,
        redirects: Redirects::Refuse,
    })
    .await;
    let body = match answer {
        Ok((200, body)) => body,
        Ok((status, _)) => return Err(format!("its token endpoint answered {status}")),
        Err(_) => return Err("its token endpoint did not answer".into()),
    };
    let person = oidc::person(&body, &oidc.issuer, &oidc.client_id, nonce, env::instant().timestamp())?;
    let (Some(userinfo), Some(token)) = (provider.userinfo_endpoint.as_deref(), oidc::access_token(&body)) else {
        return Ok(person);
    };
    if !oidc::lacks_claims(&person) {
        return Ok(person);
    }
    let info = outbound::send(Outgoing {
        method: Method::Get,
        url: userinfo,
        headers: &[("authorization", format!("Bearer {token}")), ("accept", "application/json".into())],
        body: None,
        timeout: PROVIDER_TIMEOUT,
        max_bytes: 64 * 1024,
        redirects: Redirects::Refuse,
    })
    .await;
    Ok(match info {
        Ok((200, body)) => oidc::with_userinfo(person, &body),
        _ => person,
    })
}

/// 32 random bytes as base64url: a state, a verifier, a nonce or a form's value.
pub fn fresh_text() -> Result<String, Problem> {
    env::secret().map(|b| URL_SAFE_NO_PAD.encode(b))
}

/// What a sign-in begun here sends the provider and keeps in the browser.
pub struct Started {
    pub state: String,
    pub nonce: String,
    pub verifier: String,
    pub binding: String,
}

/// Sends the browser to sign in at the provider, bound to it by its binding cookie; the provider
/// sends it back to the runtime's one callback.
pub fn to_provider(public: &str, oidc: &env::Oidc, provider: &Provider, started: &Started) -> worker::Result<Response> {
    let callback = format!("{public}{CALLBACK_PATH}");
    let to = oidc::authorization_url(
        provider,
        &oidc::Request {
            client_id: &oidc.client_id,
            redirect_uri: &callback,
            state: &started.state,
            nonce: &started.nonce,
            challenge: &pkce::challenge_of(&started.verifier),
        },
    );
    redirect_with(&to, &binding_cookie(public, &started.binding))
}

/// The binding value of the browser a sign-in begins in: the one it carries, or `fresh`.
pub fn browser_binding(req: &Request, public: &str, fresh: String) -> String {
    session::browser_binding(carried_binding(req, public).as_deref(), fresh)
}

/// The binding cookie the browser carries, if any.
pub fn carried_binding(req: &Request, public: &str) -> Option<String> {
    let cookies = req.headers().get("cookie").ok().flatten();
    csrf::cookie_value(cookies.as_deref(), &Jar::of(public).name(BROWSER_COOKIE))
}

/// The `Set-Cookie` of a browser's binding, for as long as a sign-in may take.
pub fn binding_cookie(public: &str, binding: &str) -> String {
    let max_age = u32::try_from(BROWSER_TTL.num_seconds()).unwrap_or(600);
    Jar::of(public).set(BROWSER_COOKIE, binding, max_age, csrf::SameSite::Lax)
}
