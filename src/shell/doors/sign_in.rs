//! The runtime as its own OAuth 2.1 authorization server, on when `PUBLIC_URL` is set: the
//! metadata documents, client registration, the authorization endpoint that signs the person in
//! at the team's OpenID provider, the consent page, and the token and revocation endpoints.
//! Every decision is core's (`core::access::oauth`); this module carries requests to it and
//! keeps what it decides in the Access object.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;
use worker::{Env, Method, Request, Response, Url};

use super::answers::{another_browser, page, redirect, redirect_with, stop, too_many, CALLBACK_PATH, CONSENT_PATH};
use super::identity::{self, browser_binding, carried_binding, fresh_text, to_provider, Started};
use super::limits::{self, Limit};
use super::page_session;
use crate::api::sign_in_pages::{self, ConsentView};
use crate::core::access::csrf::{self, Jar};
use crate::core::access::oauth::authorize::{self, AuthorizeError};
use crate::core::access::oauth::cimd;
use crate::core::access::oauth::client::{self, Client};
use crate::core::access::oauth::error::{Code, OAuthError};
use crate::core::access::oauth::exchange::Fresh;
use crate::core::access::oauth::form::Form;
use crate::core::access::oauth::grant::Grant;
use crate::core::access::oauth::metadata::{self, AUTHORIZE_PATH, REGISTER_PATH, REVOKE_PATH, TOKEN_PATH};
use crate::core::access::oauth::{secret, token};
use crate::core::access::session::{self};
use crate::core::access::store::{
    BeginSignIn, Consent, FindClient, GetClient, IssueToken, Pending, PutClient, PutConsent, RevokeToken, RolesOf,
    SaveGrant, TakeConsent, TakePending,
};
use crate::core::Problem;
use crate::shell::do_rpc::{self, Call};
use crate::shell::env::{self, Settings, ACCESS};
use crate::shell::http::read_limited;
use crate::shell::outbound::{self, Outgoing, Redirects, Unanswered};
use crate::shell::singletons;
use crate::shell::singletons::ACCESS_NAME as NAME;

/// The cookie of the consent page's form, before the `__Host-` prefix of an https runtime.
const CONSENT_COOKIE: &str = "consent";
/// How long a person has to sign in at the provider, and then to consent.
const STEP_TTL: TimeDelta = TimeDelta::minutes(10);
const CLIENT_DOCUMENT_TIMEOUT: Duration = Duration::from_secs(5);
const REGISTRATION_MAX_BYTES: usize = 16 * 1024;

/// Whether a path is one of sign-in's.
pub fn owns(path: &str) -> bool {
    path.starts_with("/.well-known/oauth-") || path.starts_with("/oauth/")
}

pub async fn route(mut req: Request, env: &Env, settings: &Settings, url: &Url) -> worker::Result<Response> {
    let Some(public) = settings.public_url.as_deref() else {
        return problem(&Problem::not_found(
            "Sign-in is off on this runtime: its operator turns it on with PUBLIC_URL and an OpenID provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET). Connect with an API key meanwhile.",
        ));
    };
    let path = url.path();
    let method = req.method();
    if path.starts_with(metadata::RESOURCE_WELL_KNOWN) && method == Method::Get {
        return match metadata::resource_of_well_known(path) {
            Some(resource) => json(200, &metadata::protected_resource(public, &resource)),
            None => problem(&Problem::not_found(format!("{path} is not the metadata of an endpoint of this runtime."))),
        };
    }
    if path == metadata::SERVER_WELL_KNOWN && method == Method::Get {
        return json(200, &metadata::authorization_server(public));
    }
    let sign_in = SignIn { env, settings, public };
    let limit = match (path, &method) {
        (REGISTER_PATH, Method::Post) => Some(Limit::Register),
        (AUTHORIZE_PATH | CALLBACK_PATH, Method::Get) | (CONSENT_PATH | TOKEN_PATH | REVOKE_PATH, Method::Post) => {
            Some(Limit::SignIn)
        }
        _ => None,
    };
    if let Some(limit) = limit {
        if !limits::admit(env, limit, path, &req).await {
            return too_many(path);
        }
    }
    match (path, method) {
        (AUTHORIZE_PATH, Method::Get) => sign_in.authorize(&req, url).await,
        (CALLBACK_PATH, Method::Get) => sign_in.callback(&req, url).await,
        (CONSENT_PATH, Method::Post) => sign_in.consent(&mut req, url).await,
        (TOKEN_PATH, Method::Post) => sign_in.token(&mut req).await,
        (REVOKE_PATH, Method::Post) => sign_in.revoke(&mut req).await,
        (REGISTER_PATH, Method::Post) => sign_in.register(&mut req).await,
        _ => problem(&Problem::not_found(format!(
            "Nothing is at {} {path}. The authorization server's metadata, at {}, names its endpoints.",
            req.method(),
            metadata::SERVER_WELL_KNOWN
        ))),
    }
}

struct SignIn<'a> {
    env: &'a Env,
    settings: &'a Settings,
    public: &'a str,
}

impl SignIn<'_> {
    async fn authorize(&self, req: &Request, url: &Url) -> worker::Result<Response> {
        let form = match Form::parse(url.query().unwrap_or_default()) {
            Ok(f) => f,
            Err(e) => return stop(400, "This sign-in cannot start", &e.description),
        };
        let client_id = match authorize::client_id(&form) {
            Ok(id) => id.to_string(),
            Err(e) => return refused(e),
        };
        let client = match self.client(&client_id).await {
            Ok(c) => c,
            Err(why) => return stop(400, "This app cannot sign you in", &why),
        };
        let request = match authorize::check(&form, &client, self.public) {
            Ok(r) => r,
            Err(e) => return refused(e),
        };
        let Some(oidc) = self.settings.oidc.as_ref() else {
            return stop(503, "Sign-in is not set up", "This runtime's operator has not named an identity provider (OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET), so nobody can sign in yet.");
        };
        let provider = match identity::provider(self.settings).await {
            Ok(p) => p,
            Err(why) => return stop(503, "The identity provider cannot be reached", &why),
        };
        let (state, verifier, nonce, fresh) = match (fresh_text(), fresh_text(), fresh_text(), fresh_text()) {
            (Ok(s), Ok(v), Ok(n), Ok(b)) => (s, v, n, b),
            _ => return stop(503, "Sign-in cannot start just now", "No randomness was available; try again."),
        };
        let binding = browser_binding(req, self.public, fresh);
        let pending = Pending {
            request,
            client_name: client.client_name.clone(),
            verifier: verifier.clone(),
            nonce: nonce.clone(),
            expires_at: now() + STEP_TTL,
            browser: secret::digest(&binding),
        };
        if let Err(p) = singletons::sign_in(self.env, &BeginSignIn { state: state.clone(), pending }).await {
            return stop(503, "Sign-in cannot start just now", &p.detail);
        }
        to_provider(self.public, oidc, &provider, &Started { state, nonce, verifier, binding })
    }

    async fn callback(&self, req: &Request, url: &Url) -> worker::Result<Response> {
        let form = Form::parse(url.query().unwrap_or_default()).unwrap_or_default();
        let state = form.one("state").ok().flatten().unwrap_or_default().to_string();
        let browser = carried_binding(req, self.public);
        // The provider has one redirect URI here; a page's sign-in marks its state.
        if session::is_page_state(&state) {
            return page_session::callback(self.env, self.settings, self.public, &form, &state, browser.as_deref())
                .await;
        }
        let taken = singletons::sign_in(self.env, &TakePending { state, now: now() }).await;
        let Ok(Some(pending)) = taken else {
            return stop(
                400,
                "This sign-in has ended",
                "It took too long or was used already. Start again from your app.",
            );
        };
        if !session::same_browser(&pending.browser, browser.as_deref()) {
            return another_browser();
        }
        let back = |code: Code, why: &str| {
            let error = OAuthError::new(code, why);
            redirect(&authorize::error_url(
                &pending.request.redirect_uri,
                &error,
                pending.request.state.as_deref(),
                self.public,
            ))
        };
        if form.one("error").ok().flatten().is_some() {
            return back(Code::AccessDenied, "The identity provider did not sign the person in.");
        }
        let Some(code) = form.one("code").ok().flatten() else {
            return back(Code::InvalidRequest, "The identity provider sent no code.");
        };
        let person = match identity::person(self.settings, self.public, code, &pending.verifier, &pending.nonce).await {
            Ok(p) => p,
            Err(why) => {
                worker::console_warn!("sign-in: the identity provider's answer was refused: {why}");
                return stop(502, "Your sign-in could not be read", &format!("The identity provider's answer could not be used: {why}. Try again, or tell this runtime's operator."));
            }
        };
        let roles =
            self.call(&RolesOf { person: person.clone(), owners: self.settings.owners.clone(), now: now() }).await;
        let mut orgs = match roles {
            Ok(r) => r,
            Err(p) => return stop(503, "Sign-in cannot go on just now", &p.detail),
        };
        if let Some(org) = pending.request.resource.org() {
            orgs.retain(|(o, _)| o == org);
        }
        if orgs.is_empty() {
            return page(403, sign_in_pages::no_role(&person.name, &person.id()), None);
        }
        let (Ok(csrf), Ok(id)) = (fresh_text(), fresh_text()) else {
            return stop(503, "Sign-in cannot go on just now", "No randomness was available; try again.");
        };
        let consent = Consent {
            request: pending.request.clone(),
            client_name: pending.client_name.clone(),
            person: person.clone(),
            orgs: orgs.clone(),
            csrf: secret::digest(&csrf),
            expires_at: now() + STEP_TTL,
        };
        if let Err(p) = singletons::sign_in(self.env, &PutConsent { id: id.clone(), consent }).await {
            return stop(503, "Sign-in cannot go on just now", &p.detail);
        }
        let host = worker::Url::parse(&pending.request.redirect_uri)
            .ok()
            .map(|u| {
                u.host_str()
                    .map(|h| format!("{h}{}", u.port().map(|p| format!(":{p}")).unwrap_or_default()))
                    .unwrap_or_else(|| u.scheme().to_string())
            })
            .unwrap_or_default();
        let html = sign_in_pages::consent(&ConsentView {
            client_name: &pending.client_name,
            redirect_host: &host,
            endpoint: &pending.request.resource.path(),
            person: &person.name,
            scopes: &pending.request.scopes,
            orgs: &orgs,
            consent_id: &id,
            csrf: &csrf,
        });
        page(200, html, Some(self.cookie(&csrf, 600)))
    }

    async fn consent(&self, req: &mut Request, url: &Url) -> worker::Result<Response> {
        // Only this runtime's own page may post a consent: another site's form is refused.
        let own = url.origin().ascii_serialization();
        let origin = req.headers().get("origin").ok().flatten();
        let site = req.headers().get("sec-fetch-site").ok().flatten();
        if !csrf::same_origin(origin.as_deref(), site.as_deref(), &own) {
            return stop(
                403,
                "This consent was refused",
                "It was sent from another site than this runtime's own page.",
            );
        }
        let body = match read_limited(req, REGISTRATION_MAX_BYTES).await {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(_) => return stop(400, "This consent could not be read", "Its form is too large."),
        };
        let form = Form::parse(&body).unwrap_or_default();
        let field = |name: &str| form.one(name).ok().flatten().unwrap_or_default().to_string();
        let csrf = field(csrf::FIELD);
        let cookies = req.headers().get("cookie").ok().flatten();
        if !csrf::matches(cookies.as_deref(), &Jar::of(self.public).name(CONSENT_COOKIE), &csrf) {
            return stop(
                403,
                "This consent was refused",
                "It did not come from the page this runtime showed you. Start again from your app.",
            );
        }
        let taken = singletons::sign_in(self.env, &TakeConsent { id: field("consent"), csrf, now: now() }).await;
        let Ok(Some(consent)) = taken else {
            return stop(
                400,
                "This consent has ended",
                "It took too long or was answered already. Start again from your app.",
            );
        };
        let clear = self.cookie("", 0);
        if field("decision") != "allow" {
            return redirect_with(&authorize::denied_url(&consent.request, self.public), &clear);
        }
        let org = field("org");
        let Some((_, role)) = consent.orgs.iter().find(|(o, _)| *o == org) else {
            return stop(400, "This consent was refused", "It names an org you hold no role in.");
        };
        let (Ok(id), Ok(code)) = (env::random(), env::secret()) else {
            return stop(503, "Access cannot be given just now", "No randomness was available; try again.");
        };
        let made = Grant::new(&id, &consent.request, consent.person.clone(), &org, role.scopes(), now(), &code);
        let (grant, code) = match made {
            Ok(g) => g,
            Err(e) => {
                let to = authorize::error_url(
                    &consent.request.redirect_uri,
                    &e,
                    consent.request.state.as_deref(),
                    self.public,
                );
                return redirect_with(&to, &clear);
            }
        };
        if let Err(p) = self.call(&SaveGrant { grant }).await {
            return stop(503, "Access cannot be given just now", &p.detail);
        }
        redirect_with(&authorize::success_url(&consent.request, &code, self.public), &clear)
    }

    async fn token(&self, req: &mut Request) -> worker::Result<Response> {
        let (body, authorization) = match form_body(req).await {
            Ok(b) => b,
            Err(e) => return oauth_error(&e),
        };
        let (auth, request) = match token::parse(&body, authorization.as_deref(), self.public) {
            Ok(parsed) => parsed,
            Err(e) => return oauth_error(&e),
        };
        let (Ok(access), Ok(refresh)) = (env::secret(), env::secret()) else {
            return oauth_error(&OAuthError::invalid_request("No randomness was available; try again."));
        };
        let client = match self.kept_client(&auth.client_id).await {
            Ok(c) => c,
            Err(p) => return problem(&p),
        };
        let issue = IssueToken { client, auth, request, now: now(), fresh: Fresh { access, refresh } };
        match self.call(&issue).await {
            Ok(Ok(answer)) => match crate::core::error::encoded(&answer) {
                Ok(value) => json(200, &value),
                Err(p) => problem(&p),
            },
            Ok(Err(e)) => oauth_error(&e),
            Err(p) => problem(&p),
        }
    }

    async fn revoke(&self, req: &mut Request) -> worker::Result<Response> {
        let (body, authorization) = match form_body(req).await {
            Ok(b) => b,
            Err(e) => return oauth_error(&e),
        };
        let (auth, token) = match token::parse_revoke(&body, authorization.as_deref()) {
            Ok(parsed) => parsed,
            Err(e) => return oauth_error(&e),
        };
        let client = match self.kept_client(&auth.client_id).await {
            Ok(c) => c,
            Err(p) => return problem(&p),
        };
        match self.call(&RevokeToken { client, auth, token, now: now() }).await {
            Ok(Ok(())) => Ok(Response::empty()?.with_status(200)),
            Ok(Err(e)) => oauth_error(&e),
            Err(p) => problem(&p),
        }
    }

    async fn register(&self, req: &mut Request) -> worker::Result<Response> {
        let body = match read_limited(req, REGISTRATION_MAX_BYTES).await {
            Ok(b) => b,
            Err(p) => return problem(&p),
        };
        let Ok(doc) = serde_json::from_slice::<Value>(&body) else {
            return oauth_error(&OAuthError::new(Code::InvalidClientMetadata, "The registration is not JSON."));
        };
        let (Ok(id), Ok(random)) = (env::random(), env::secret()) else {
            return oauth_error(&OAuthError::invalid_request("No randomness was available; try again."));
        };
        let made = match client::register(&doc, &id, &random, now()) {
            Ok(r) => r,
            Err(refusal) => return oauth_error(&refusal.error()),
        };
        match singletons::sign_in(self.env, &PutClient { client: made.client, now: now() }).await {
            Ok(_) => json(201, &made.response),
            Err(p) => problem(&p),
        }
    }

    /// The client the sign-in store keeps under this id; one the Access object kept before the
    /// store did is moved there as it is read.
    async fn kept_client(&self, client_id: &str) -> Result<Option<Client>, Problem> {
        let find = FindClient { client_id: client_id.to_string() };
        if let Some(kept) = singletons::sign_in(self.env, &find).await? {
            return Ok(Some(kept.client));
        }
        let Some(legacy) = self.call(&GetClient { client_id: client_id.to_string() }).await? else {
            return Ok(None);
        };
        singletons::sign_in(self.env, &PutClient { client: legacy.clone(), now: now() }).await?;
        Ok(Some(legacy))
    }

    /// The client a request names: registered here, or described by the document its URL serves,
    /// read again once what was read is `cimd::FRESH_FOR` old.
    async fn client(&self, client_id: &str) -> Result<Client, String> {
        if !cimd::is_metadata_url(client_id) {
            return match self.kept_client(client_id).await {
                Ok(Some(c)) => Ok(c),
                Ok(None) => {
                    Err("The app names a client this runtime does not know. It registers again, then signs you in."
                        .into())
                }
                Err(p) => Err(p.detail),
            };
        }
        let deployed = self.settings.deployed();
        cimd::check_metadata_url(client_id, deployed).map_err(|why| format!("The app's client id {why}."))?;
        let find = FindClient { client_id: client_id.to_string() };
        if let Ok(Some(kept)) = singletons::sign_in(self.env, &find).await {
            if now() < kept.kept_at + cimd::FRESH_FOR {
                return Ok(kept.client);
            }
        }
        let answer = outbound::send(Outgoing {
            method: Method::Get,
            url: client_id,
            headers: &[("accept", "application/json".into())],
            body: None,
            timeout: CLIENT_DOCUMENT_TIMEOUT,
            max_bytes: cimd::MAX_DOCUMENT_BYTES,
            redirects: Redirects::Refuse,
        })
        .await;
        let body = match answer {
            Ok((200, body)) => body,
            Ok((status @ 300..=399, _)) => {
                return Err(format!(
                    "The app's client document at {client_id} answered {status}, a redirect, which this runtime does not follow for a client's document."
                ))
            }
            Ok((status, _)) => return Err(format!("The app's client document at {client_id} answered {status}.")),
            Err(Unanswered::Timeout) => {
                return Err(format!("The app's client document at {client_id} did not answer in time."))
            }
            Err(Unanswered::Unreachable(why)) => {
                return Err(format!("The app's client document at {client_id} could not be read: {why}."))
            }
            Err(Unanswered::TooLarge(max)) => {
                return Err(format!("The app's client document at {client_id} is over {max} bytes."))
            }
        };
        let client = cimd::client_from_document(client_id, body.as_bytes()).map_err(|r| r.error().description)?;
        // Kept, so that the token endpoint knows the client the code was given to.
        singletons::sign_in(self.env, &PutClient { client: client.clone(), now: now() }).await.map_err(|p| p.detail)?;
        Ok(client)
    }

    async fn call<C: Call>(&self, request: &C) -> Result<C::Reply, Problem> {
        let stub = self.env.durable_object(ACCESS).and_then(|ns| ns.get_by_name(NAME)).map_err(|e| {
            worker::console_error!("binding {ACCESS}: {e}");
            Problem::unavailable("Sign-in's store is not reachable just now; try again.")
        })?;
        do_rpc::send(&stub, request).await
    }

    /// The cookie that proves a consent's form came from the page: strict, unreadable to script.
    fn cookie(&self, value: &str, max_age: u32) -> String {
        Jar::of(self.public).proof(CONSENT_COOKIE, value, max_age)
    }
}

fn now() -> DateTime<Utc> {
    env::instant()
}

/// A token or revocation request's form body and its `Authorization` header.
async fn form_body(req: &mut Request) -> Result<(String, Option<String>), OAuthError> {
    let content_type = req.headers().get("content-type").ok().flatten().unwrap_or_default();
    if !content_type.to_ascii_lowercase().starts_with("application/x-www-form-urlencoded") {
        return Err(OAuthError::invalid_request("Send the request as application/x-www-form-urlencoded."));
    }
    let body = read_limited(req, REGISTRATION_MAX_BYTES).await.map_err(|p| OAuthError::invalid_request(p.detail))?;
    let body = String::from_utf8(body).map_err(|_| OAuthError::invalid_request("The body is not UTF-8."))?;
    Ok((body, req.headers().get("authorization").ok().flatten()))
}

fn refused(e: AuthorizeError) -> worker::Result<Response> {
    match e {
        AuthorizeError::Show(e) => stop(400, "This sign-in cannot start", &e.description),
        AuthorizeError::Redirect { to, .. } => redirect(&to),
    }
}

fn json(status: u16, value: &Value) -> worker::Result<Response> {
    let mut resp = Response::ok(value.to_string())?.with_status(status);
    resp.headers_mut().set("content-type", "application/json")?;
    resp.headers_mut().set("cache-control", "no-store")?;
    Ok(resp)
}

fn oauth_error(e: &OAuthError) -> worker::Result<Response> {
    json(e.status(), &e.body())
}

fn problem(p: &Problem) -> worker::Result<Response> {
    crate::shell::http::send(crate::api::Reply::problem(p))
}
