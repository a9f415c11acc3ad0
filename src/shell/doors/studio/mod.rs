//! The runtime's own Studio in the browser, under `/studio` (`core::studio`): who the browser
//! is (`page_session`), the caller they are in the page's org with the scopes of their role
//! (`page_caller`), and for each page or form one or a few operations run through `tools::call`
//! as that caller, so a page shows what the tools answer, with the same checks. The views are
//! `api::studio`; pages go out with Studio's CSP. `GET`s read; forms post with the page's proof.

mod actions;
mod pages;
mod pictures;

use serde_json::Value;
use worker::{Env, Method, Request, Response, Url};

use super::page_caller::{self, caller_of};
use super::page_forms;
use super::page_session;
use crate::api::studio::comments::Comments;
use crate::api::studio::frame::Frame;
use crate::api::studio::route::{self, Page};
use crate::api::studio::CSP;
use crate::core::access::oauth::form::Form;
use crate::core::access::session::PagePerson;
use crate::core::caller::{Caller, Scope};
use crate::core::{studio, Problem};
use crate::shell::doors::answers::redirect;
use crate::shell::env::Settings;
use crate::tools::Output;

pub use route::owns;

/// One visit of a Studio page: the person as the caller of the page's org, and the proof its
/// forms carry.
pub(super) struct Visit<'a> {
    env: &'a Env,
    /// The runtime's own address, for the links tools answer.
    base: String,
    caller: Caller,
    person: PagePerson,
    csrf: String,
    cookie: String,
    query: Form,
}

impl Visit<'_> {
    async fn run(&self, name: &str, args: Value) -> Result<Output, Problem> {
        page_caller::run(self.env, &self.caller, &self.base, name, args).await
    }

    fn frame<'v>(&'v self, playbook: Option<(&'v str, &'v str)>) -> Frame<'v> {
        Frame {
            org: &self.caller.org,
            playbook,
            person: &self.person.name,
            csrf: &self.csrf,
            writes: self.caller.scopes.contains(if playbook.is_some() {
                &Scope::PlaybookWrite
            } else {
                &Scope::OrgWrite
            }),
            signed_in: self.person.id != "local",
            notice: None,
        }
    }

    fn arg(&self, name: &str) -> Option<&str> {
        self.query.one(name).ok().flatten().map(str::trim).filter(|v| !v.is_empty())
    }

    /// A page with Studio's headers, and the proof's cookie.
    fn html(&self, status: u16, body: String) -> worker::Result<Response> {
        html(status, body, Some(self.cookie.clone()))
    }

    /// The comments of a place: `address` exactly, or everything `under` it.
    async fn comments(&self, playbook: Option<&str>, place: Place<'_>) -> Said {
        let mut args = serde_json::json!({ "open": false, "limit": 100 });
        if let Some(pb) = playbook {
            args["playbook"] = pb.into();
        }
        match place {
            Place::At(a) => args["address"] = a.into(),
            Place::Under(u) => args["under"] = u.into(),
            Place::All => {}
        }
        match self.run("list_comments", args).await {
            Ok(out) => Said::Read(out.value),
            Err(p) => Said::Refused(said(&p)),
        }
    }
}

/// Which comments a page lists.
#[derive(Clone, Copy)]
enum Place<'a> {
    At(&'a str),
    Under(&'a str),
    All,
}

/// The comments a page read, owned.
enum Said {
    Refused(String),
    Read(Value),
}

impl Said {
    fn view(&self) -> Comments<'_> {
        match self {
            Said::Refused(w) => Comments::Refused(w),
            Said::Read(v) => Comments::Listed(v),
        }
    }
}

pub async fn route(mut req: Request, env: &Env, settings: &Settings, url: &Url) -> worker::Result<Response> {
    let base = settings.public_url.clone().unwrap_or_else(|| url.origin().ascii_serialization());
    let person = match page_session::require(&req, env, settings).await? {
        Ok(p) => p,
        Err(answer) => return Ok(answer),
    };
    let path = url.path().to_string();
    let method = req.method();
    let org = match method {
        Method::Get => route::page(&path).map(|p| p.org().map(str::to_string)),
        Method::Post => route::post(&path).map(|p| Some(p.org().to_string())),
        _ => return stop(405, "Not a way to use this page", "Studio's pages are read with GET, and their forms post."),
    };
    let Some(org) = org else {
        return stop(404, "No such page", "Studio has no page at this address.");
    };
    let Some(org) = org else {
        return to_home(env, settings, &person).await;
    };
    let caller = match caller_of(env, settings, &person, &org).await {
        Ok(c) => c,
        Err(p) => return stop(p.status(), "This page cannot open", &p.detail),
    };
    let (csrf, cookie) = page_forms::proof(&req, &base)?;
    let query = Form::parse(url.query().unwrap_or_default()).unwrap_or_default();
    let visit = Visit { env, base: base.clone(), caller, person, csrf, cookie, query };
    if method == Method::Post {
        let form = match page_forms::read(&mut req, url, &base).await? {
            Ok(f) => f,
            Err(answer) => return Ok(answer),
        };
        return match route::post(&path) {
            Some(post) => actions::post(&visit, post, &form).await,
            None => stop(404, "No such page", "Studio takes no form at this address."),
        };
    }
    match route::page(&path) {
        Some(Page::DefinitionPicture { playbook, name, .. }) => pictures::definition(&visit, &playbook, &name).await,
        Some(Page::RunPicture { playbook, run_id, .. }) => pictures::run(&visit, &playbook, &run_id).await,
        Some(page) => pages::show(&visit, page).await,
        None => stop(404, "No such page", "Studio has no page at this address."),
    }
}

/// `/studio` sends the person to their org's home: `local` in local mode, else the first org
/// they hold a role in.
async fn to_home(env: &Env, settings: &Settings, person: &PagePerson) -> worker::Result<Response> {
    if settings.local {
        return redirect(&studio::home("", "local"));
    }
    match page_caller::roles_of(env, settings, person).await {
        Ok(roles) => match roles.first() {
            Some((org, _)) => redirect(&studio::home("", org)),
            None => stop(
                403,
                "You have no role here yet",
                "You hold no role in any org of this runtime, so Studio has nothing to show you. Ask an owner or admin of your team's org for one.",
            ),
        },
        Err(p) => stop(p.status(), "This page cannot open", &p.detail),
    }
}

/// A Studio page with the pages' headers and Studio's CSP, which lets its own pictures load.
pub(super) fn html(status: u16, body: String, cookie: Option<String>) -> worker::Result<Response> {
    let mut resp = page_forms::html(status, body, cookie)?;
    resp.headers_mut().set("content-security-policy", CSP)?;
    Ok(resp)
}

/// A page that says why Studio stops here, with Studio's headers like its other pages.
fn stop(status: u16, title: &str, words: &str) -> worker::Result<Response> {
    html(status, crate::api::sign_in_pages::message(title, words), None)
}

/// After a form: back to a page with `GET` (303), so a reload does not post again.
fn see_other(to: &str) -> worker::Result<Response> {
    let mut resp = Response::empty()?.with_status(303);
    resp.headers_mut().set("location", to)?;
    resp.headers_mut().set("cache-control", "no-store")?;
    Ok(resp)
}

/// A refusal in words a person reads: the tool's words, and each field it names with why.
fn said(p: &Problem) -> String {
    let fields: Vec<String> = p.errors.iter().map(|e| format!("{}: {}", e.pointer, e.detail)).collect();
    match fields.is_empty() {
        true => p.words(),
        false => format!("{} ({})", p.words(), fields.join("; ")),
    }
}
