//! The connect page in the browser: `GET /connect/{org}/{token}` shows what a link approves, its
//! forms post to `/connect/{org}/{token}/{approve|credential|client|start|cancel}`, and the
//! service sends the person back to `/connect/callback` after a consent. Each runs the same
//! operation as its JSON route (`read_link`, `approve`, … `finish`), as the person the page's
//! session names, with the role they hold in the org.

use serde_json::{json, Value};
use worker::{Env, Method, Request, Response, Url};

use super::answers::{redirect_with, stop};
use super::page_caller::{caller_of, run};
use super::page_forms;
use super::page_session;
use crate::api::connect_page::{
    self as view, ended, finished, Asked, Asks, ConnectView, Ended, Finish, Key, Notice, OwnClient, Playbooks,
};
use crate::core::access::csrf::{self, Jar, SameSite};
use crate::core::access::session::PagePerson;
use crate::core::caller::{Caller, Principal};
use crate::core::service_auth::CALLBACK_PATH;
use crate::core::Reason;
use crate::shell::env::Settings;

/// The cookie that carries a consent's link from `start` to the callback, in the same browser.
const FLOW_COOKIE: &str = "connect-flow";
/// How long a person has to sign in at the service.
const FLOW_SECONDS: u32 = 15 * 60;

/// Whether a path is the connect page's.
pub fn owns(path: &str) -> bool {
    path.starts_with("/connect/")
}

pub async fn route(mut req: Request, env: &Env, settings: &Settings, url: &Url) -> worker::Result<Response> {
    let base = settings.public_url.clone().unwrap_or_else(|| url.origin().ascii_serialization());
    let person = match page_session::require(&req, env, settings).await? {
        Ok(p) => p,
        Err(answer) => return Ok(answer),
    };
    let path = url.path().to_string();
    if path == CALLBACK_PATH {
        return callback(&req, env, settings, url, &base, &person).await;
    }
    let parts: Vec<&str> = path.trim_start_matches("/connect/").split('/').collect();
    let (org, token, step) = match (parts.as_slice(), req.method()) {
        ([org, token], Method::Get) => (*org, *token, None),
        ([org, token, step], Method::Post) => (*org, *token, Some(*step)),
        _ => return page(Ended::Unknown),
    };
    let caller = match caller_of(env, settings, &person, org).await {
        Ok(c) => c,
        Err(p) => return stop(p.status(), "This page cannot open", &p.detail),
    };
    let Some(step) = step else {
        return show(&req, env, &caller, &base, org, token, None).await;
    };
    let form = match page_forms::read(&mut req, url, &base).await? {
        Ok(f) => f,
        Err(answer) => return Ok(answer),
    };
    let field = |name: &str| form.one(name).ok().flatten().map(str::trim).filter(|v| !v.is_empty());
    let (tool, args) = match step {
        view::APPROVE => ("approve", json!({ "token": token })),
        view::CANCEL => ("cancel", json!({ "token": token })),
        view::START => ("start", json!({ "token": token })),
        view::CLIENT => (
            "give_client",
            json!({ "token": token, "client_id": field("client_id"), "client_secret": field("client_secret") }),
        ),
        view::CREDENTIAL => {
            let mut args = json!({ "token": token });
            for name in ["value", "client_id", "client_secret"] {
                if let Some(v) = field(name) {
                    args[name] = json!(v);
                }
            }
            ("give_credential", args)
        }
        _ => return page(Ended::Unknown),
    };
    let answer = run(env, &caller, &base, tool, args).await;
    match (step, answer) {
        (view::START, Ok(out)) => {
            let to = out.value["authorize_url"].as_str().unwrap_or_default().to_string();
            let cookie = Jar::of(&base).set(FLOW_COOKIE, &format!("{org}~{token}"), FLOW_SECONDS, SameSite::Lax);
            redirect_with(&to, &cookie)
        }
        (_, Ok(out)) => {
            let notice = match tool {
                "give_credential" if out.value["misses_pattern"] == json!(true) => {
                    Notice::key_misses_pattern(out.value["connection"]["name"].as_str().unwrap_or("the service"))
                }
                _ => Notice::done(out.summary),
            };
            show(&req, env, &caller, &base, org, token, Some(notice)).await
        }
        (_, Err(p)) => show(&req, env, &caller, &base, org, token, Some(Notice::refused(p.words()))).await,
    }
}

/// The page of a link as it stands, with what the last form did where there was one.
async fn show(
    req: &Request,
    env: &Env,
    caller: &Caller,
    base: &str,
    org: &str,
    token: &str,
    notice: Option<Notice>,
) -> worker::Result<Response> {
    let read = match run(env, caller, base, "read_link", json!({ "token": token })).await {
        Ok(out) => out.value,
        Err(p) if p.reason == Reason::Forbidden => return page(Ended::NotYours),
        Err(p) if p.reason == Reason::NotFound || p.reason == Reason::InvalidInput => return page(Ended::Unknown),
        Err(p) => return stop(p.status(), "This page cannot open", &p.detail),
    };
    let connection = &read["connection"];
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let name = text(&connection["name"]);
    let provider = read["provider"]["title"].as_str().map(str::to_string);
    let title = provider.clone().unwrap_or_else(|| name.clone());
    let status = text(&connection["status"]);
    match (read["link"]["state"].as_str().unwrap_or_default(), status.as_str()) {
        (_, "removed") => return page(Ended::Cancelled { title: &title }),
        ("expired", _) => return page(Ended::Expired { title: &title }),
        ("replaced", _) => return page(Ended::Replaced { title: &title }),
        ("used", "connected") => return page(Ended::Connected { title: &title }),
        ("used", _) => return page(Ended::Removed { title: &title }),
        _ => {}
    }
    let playbooks: Option<Vec<String>> = crate::core::json::from_value(read["playbooks"].clone()).unwrap_or(None);
    let server =
        text(connection.pointer("/entry/url").or(connection.pointer("/entry/base_url")).unwrap_or(&Value::Null));
    let asks = &read["asks"];
    let given = &read["given"];
    let scope_list: Vec<(String, Option<String>)> = asks["consent"]["scopes"]
        .as_array()
        .map(|a| a.iter().map(|s| (text(&s["scope"]), s["says"].as_str().map(str::to_string))).collect())
        .unwrap_or_default();
    let scopes: Vec<Asked> = scope_list.iter().map(|(s, says)| Asked { scope: s, says: says.as_deref() }).collect();
    let key = &asks["key"];
    let cc = &asks["client_credentials"];
    let service = provider.clone().unwrap_or_else(|| host_of(&server));
    let own_id = text(&given["client_id"]);
    let issuer = text(&cc["issuer"]);
    let asks = match asks["kind"].as_str().unwrap_or_default() {
        "secret" => Asks::Key {
            key: Key {
                instructions: key["instructions"].as_str().unwrap_or_default(),
                key_page: key["key_page"].as_str().unwrap_or_default(),
                example: key["example"].as_str(),
                pattern: key["pattern"].as_str(),
            },
            given: given["credential"] == json!(true),
        },
        "client_credentials" => Asks::Client {
            issuer: &issuer,
            client_id: cc["client_id"].as_str(),
            given: given["credential"] == json!(true),
        },
        "authorization" => Asks::Consent {
            service: &service,
            own_client: (asks["consent"]["oauth_client"] == json!("own"))
                .then_some(OwnClient { client_id: (!own_id.is_empty()).then_some(own_id.as_str()) }),
            granted: given["consent_finished"] == json!(true),
        },
        _ => Asks::Nothing,
    };
    let broken = connection["broken"]["detail"].as_str().map(str::to_string);
    let expires = read["link"]["expires_at"]
        .as_str()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| view::moment(t.to_utc()));
    let (csrf, cookie) = page_forms::proof(req, base)?;
    let page_path = format!("/connect/{org}/{token}");
    let person = match &caller.principal {
        Principal::Person { name, .. } => name.clone(),
        Principal::LocalDeveloper { account } => account.clone().unwrap_or_else(|| "the local developer".into()),
        _ => caller.id.clone(),
    };
    let v = ConnectView {
        page: &page_path,
        org,
        name: &name,
        title: &title,
        provider: provider.as_deref(),
        server: &server,
        playbooks: playbooks.as_deref().map_or(Playbooks::All, Playbooks::Named),
        person: &person,
        asks,
        scopes: &scopes,
        broken: broken.as_deref(),
        expires: expires.as_deref(),
        notice: notice.as_ref(),
        csrf: &csrf,
    };
    page_forms::html(200, view::render(&v), Some(cookie))
}

/// The service sends the person back here after a consent: the link comes from the cookie
/// `start` set in this browser, so a redirect that did not start here finishes nothing.
async fn callback(
    req: &Request,
    env: &Env,
    settings: &Settings,
    url: &Url,
    base: &str,
    person: &PagePerson,
) -> worker::Result<Response> {
    let cookies = req.headers().get("cookie").ok().flatten();
    let flow = csrf::cookie_value(cookies.as_deref(), &Jar::of(base).name(FLOW_COOKIE));
    let Some((org, token)) = flow.as_deref().and_then(|f| f.split_once('~')) else {
        return stop(
            400,
            "This sign-in did not start here",
            "The service sent you back, but this browser did not start a sign-in at it from a connect page, or it started over 15 minutes ago. Open the connection's link again and sign in from there.",
        );
    };
    let caller = match caller_of(env, settings, person, org).await {
        Ok(c) => c,
        Err(p) => return stop(p.status(), "This page cannot open", &p.detail),
    };
    let query = url.query().unwrap_or_default();
    let forget = Jar::of(base).set(FLOW_COOKIE, "", 0, SameSite::Lax);
    let page_path = format!("/connect/{org}/{token}");
    match run(env, &caller, base, "finish", json!({ "token": token, "query": query })).await {
        Ok(_) => redirect_with(&page_path, &forget),
        Err(p) => {
            let read = run(env, &caller, base, "read_link", json!({ "token": token })).await.ok();
            let title = read
                .as_ref()
                .and_then(|r| r.value["provider"]["title"].as_str().or(r.value["connection"]["name"].as_str()))
                .unwrap_or("the service")
                .to_string();
            let words = p.words();
            // A service that refused is told apart from one the runtime could not finish with.
            let html = match p.reason {
                Reason::Unavailable | Reason::Internal => {
                    finished(&Finish::Failed { title: &title, service: &title, words: &words, page: Some(&page_path) })
                }
                _ => finished(&Finish::Refused {
                    title: &title,
                    service: &title,
                    words: Some(&words),
                    page: Some(&page_path),
                }),
            };
            let mut resp = page_forms::html(p.status().max(400), html, None)?;
            resp.headers_mut().append("set-cookie", &forget)?;
            Ok(resp)
        }
    }
}

fn page(state: Ended) -> worker::Result<Response> {
    page_forms::html(state.status(), ended(&state), None)
}

fn host_of(address: &str) -> String {
    Url::parse(address).ok().and_then(|u| u.host_str().map(str::to_string)).unwrap_or_else(|| "the service".into())
}
