//! Studio's pages on `GET`: each runs the operations it shows through the tools, as the
//! person, and hands their answers to its view. Nothing here changes anything.

use serde_json::{json, Value};
use worker::Response;

use super::{Place, Said, Visit};
use crate::api::studio::comments::{self, Thread};
use crate::api::studio::definition::{self, Drawing};
use crate::api::studio::frame::refused;
use crate::api::studio::home;
use crate::api::studio::ledger::{self, Filters};
use crate::api::studio::playbook::{self, OfType};
use crate::api::studio::requests::{self, Refusal};
use crate::api::studio::route::Page;
use crate::api::studio::run::{self, Pictures};
use crate::core::definition::Kind;
use crate::core::{studio, Problem};

/// How many of a run's events one page of its history shows.
const HISTORY_PAGE: usize = 100;
/// How many definitions a playbook's page reads for their standing and glance.
const READS_MAX: usize = 40;
/// How many large events of one page are read whole with `get_event`.
const WHOLE_EVENTS_MAX: usize = 25;

pub(super) async fn show(v: &Visit<'_>, page: Page) -> worker::Result<Response> {
    match page {
        Page::Root | Page::DefinitionPicture { .. } | Page::RunPicture { .. } => {
            super::stop(404, "No such page", "Studio has no page at this address.")
        }
        Page::Home { .. } => show_home(v).await,
        Page::OrgComments { .. } => comments_page(v, None).await,
        Page::Playbook { playbook, .. } => show_playbook(v, &playbook).await,
        Page::Definition { playbook, kind, name, .. } => show_definition(v, &playbook, &kind, &name).await,
        Page::Ledger { playbook, .. } => show_ledger(v, &playbook).await,
        Page::Run { playbook, run_id, .. } => show_run(v, &playbook, &run_id).await,
        Page::Requests { playbook, .. } => show_requests(v, &playbook, None, 200).await,
        Page::PlaybookComments { playbook, .. } => comments_page(v, Some(&playbook)).await,
    }
}

/// The page of an operation that refused, in the frame of the org.
fn refusal(v: &Visit<'_>, title: &str, p: &Problem) -> worker::Result<Response> {
    v.html(p.status(), refused(&v.frame(None), title, &super::said(p), None))
}

/// The playbook's name, read as the person; its refusal is the page's.
async fn playbook_of(v: &Visit<'_>, playbook: &str) -> Result<Value, Problem> {
    Ok(v.run("get_playbook", json!({ "playbook": playbook })).await?.value)
}

async fn show_home(v: &Visit<'_>) -> worker::Result<Response> {
    let mut args = json!({ "include_retired": true });
    if let Some(cursor) = v.arg("cursor") {
        args["cursor"] = cursor.into();
    }
    let listed = match v.run("list_playbooks", args).await {
        Ok(out) => out.value,
        Err(p) => return refusal(v, "The playbooks cannot be listed", &p),
    };
    let here = studio::home("", &v.caller.org);
    let more = listed["next_cursor"].as_str().map(|c| format!("{here}?cursor={}", studio::seg(c)));
    let said = v.comments(None, Place::At("org")).await;
    let f = v.frame(None);
    let thread = Thread { comments: said.view(), address: "org", back: &here };
    v.html(200, home::render(&f, &listed, more.as_deref(), &thread))
}

async fn show_playbook(v: &Visit<'_>, id: &str) -> worker::Result<Response> {
    let pb = match playbook_of(v, id).await {
        Ok(pb) => pb,
        Err(p) => return refusal(v, "This playbook cannot be shown", &p),
    };
    let mut listed = Vec::new();
    for kind in Kind::ALL.into_iter().filter(|k| k.served()) {
        let args = json!({ "playbook": id, "type": kind.as_str(), "include_retired": true, "limit": 100 });
        match v.run("list_definitions", args).await {
            Ok(out) => listed.push((kind.as_str(), out.value)),
            Err(p) => return refusal(v, "This playbook's definitions cannot be listed", &p),
        }
    }
    // Each definition's read says how its runs stand, and a workflow's its glance.
    let mut reads = Vec::new();
    let all =
        listed.iter().flat_map(|(kind, l)| l["definitions"].as_array().into_iter().flatten().map(move |d| (*kind, d)));
    for (kind, d) in all.take(READS_MAX) {
        let name = d["name"].as_str().unwrap_or_default();
        let args = json!({ "playbook": id, "type": kind, "name": name });
        if let Ok(out) = v.run("get_definition", args).await {
            reads.push((format!("{kind}/{name}"), out.value));
        }
    }
    // The week's success rate and durations against the week before; a page that cannot count
    // them still shows the rest.
    let went = v.run("get_stats", json!({ "playbook": id, "window": "7d" })).await.ok().map(|out| out.summary);
    let types: Vec<OfType> = listed.iter().map(|(kind, l)| OfType { kind, listed: l }).collect();
    let said = v.comments(Some(id), Place::At("playbook")).await;
    let here = studio::playbook("", &v.caller.org, id);
    let name = pb["name"].as_str().unwrap_or(id);
    let f = v.frame(Some((id, name)));
    let thread = Thread { comments: said.view(), address: "playbook", back: &here };
    v.html(200, playbook::render(&f, &pb, &types, &reads, went.as_deref(), &thread))
}

async fn show_definition(v: &Visit<'_>, id: &str, kind: &str, name: &str) -> worker::Result<Response> {
    let pb = match playbook_of(v, id).await {
        Ok(pb) => pb,
        Err(p) => return refusal(v, "This playbook cannot be shown", &p),
    };
    let args = json!({ "playbook": id, "type": kind, "name": name, "render": true });
    let def = match v.run("get_definition", args).await {
        Ok(out) => out.value,
        Err(p) => return refusal(v, "This definition cannot be shown", &p),
    };
    let diagram = def["diagram"].as_str().filter(|d| !d.trim().is_empty());
    let drawing = match (kind, diagram) {
        ("workflow", _) => Drawing::Image {
            src: studio::definition_picture("", &v.caller.org, id, name),
            alt: format!("The workflow {name}, drawn from its steps"),
        },
        (_, Some(source)) => super::pictures::mermaid(source),
        (_, None) => Drawing::None,
    };
    let runs = v
        .run("list_runs", json!({ "playbook": id, "type": kind, "name": name, "limit": 20 }))
        .await
        .map(|o| o.value)
        .unwrap_or_else(|p| json!({ "runs": [], "refused": super::said(&p) }));
    let under = format!("definitions/{kind}/{name}");
    let said = v.comments(Some(id), Place::Under(&under)).await;
    let here = studio::definition("", &v.caller.org, id, kind, name);
    let f = v.frame(Some((id, pb["name"].as_str().unwrap_or(id))));
    let thread = Thread { comments: said.view(), address: &under, back: &here };
    v.html(200, definition::render(&f, &def, &drawing, &runs, &thread))
}

async fn show_ledger(v: &Visit<'_>, id: &str) -> worker::Result<Response> {
    let pb = match playbook_of(v, id).await {
        Ok(pb) => pb,
        Err(p) => return refusal(v, "This playbook cannot be shown", &p),
    };
    let filters = Filters {
        definition: v.arg("definition").unwrap_or(""),
        status: v.arg("status").unwrap_or(""),
        rehearsal: v.arg("rehearsal") == Some("1"),
    };
    let mut args = json!({ "playbook": id });
    if let Some((kind, name)) = filters.definition.split_once('/') {
        args["type"] = kind.into();
        args["name"] = name.into();
    } else if !filters.definition.is_empty() {
        args["type"] = filters.definition.into();
    }
    if !filters.status.is_empty() {
        args["status"] = filters.status.into();
    }
    if let Some(cursor) = v.arg("cursor") {
        args["cursor"] = cursor.into();
    }
    if filters.rehearsal {
        args["rehearsal"] = true.into();
    }
    let (runs, refused_words) = match v.run("list_runs", args).await {
        Ok(out) => (Some(out.value), None),
        Err(p) => (None, Some(super::said(&p))),
    };
    let chosen = match v.arg("run") {
        Some(run_id) => Some(v.run("get_run", json!({ "playbook": id, "run_id": run_id })).await.map(|o| o.value)),
        None => None,
    };
    let chosen_words = chosen.as_ref().and_then(|c| c.as_ref().err()).map(super::said);
    let chosen_view = match (&chosen, &chosen_words) {
        (Some(Ok(run)), _) => Some(Ok(run)),
        (Some(Err(_)), Some(words)) => Some(Err(words.as_str())),
        _ => None,
    };
    let said = v.comments(Some(id), Place::At("ledger")).await;
    let here = studio::ledger("", &v.caller.org, id, None);
    let f = v.frame(Some((id, pb["name"].as_str().unwrap_or(id))));
    let thread = Thread { comments: said.view(), address: "ledger", back: &here };
    v.html(200, ledger::render(&f, runs.as_ref(), refused_words.as_deref(), &filters, chosen_view, &thread))
}

async fn show_run(v: &Visit<'_>, id: &str, run_id: &str) -> worker::Result<Response> {
    let pb = match playbook_of(v, id).await {
        Ok(pb) => pb,
        Err(p) => return refusal(v, "This playbook cannot be shown", &p),
    };
    let mut args = json!({ "playbook": id, "run_id": run_id });
    // Just after an answer, the page waits a little for the run to take it and end.
    if v.arg("answered").is_some() {
        args["wait_seconds"] = 5.into();
    }
    let run = match v.run("get_run", args).await {
        Ok(out) => out.value,
        Err(p) => return refusal(v, "This run cannot be shown", &p),
    };
    let mut events_args = json!({ "playbook": id, "run_id": run_id, "limit": HISTORY_PAGE });
    if let Some(cursor) = v.arg("events") {
        events_args["cursor"] = cursor.into();
    }
    let (mut history, next) = match v.run("list_playbook_events", events_args).await {
        Ok(out) => {
            let next = out.value["next_cursor"].as_str().map(str::to_string);
            (out.value["events"].as_array().cloned().unwrap_or_default(), next)
        }
        Err(_) => (Vec::new(), None),
    };
    // A list leaves a large field out: each such event is read whole.
    for e in history.iter_mut().filter(|e| e.get("data_size").is_some()).take(WHOLE_EVENTS_MAX) {
        let event_id = e["event_id"].as_str().unwrap_or_default().to_string();
        if let Ok(out) = v.run("get_event", json!({ "playbook": id, "event_id": event_id })).await {
            *e = out.value;
        }
    }
    let here = studio::run("", &v.caller.org, id, run_id);
    let more = next.map(|c| format!("{here}?events={}", studio::seg(&c)));
    let pictures = match run["steps"].is_array() {
        true => Pictures {
            run: Some(studio::run_picture("", &v.caller.org, id, run_id)),
            timeline: super::pictures::timeline(&run),
        },
        false => Pictures::default(),
    };
    let under = format!("runs/{run_id}");
    let said = v.comments(Some(id), Place::Under(&under)).await;
    let f = v.frame(Some((id, pb["name"].as_str().unwrap_or(id))));
    let thread = Thread { comments: said.view(), address: &under, back: &here };
    v.html(200, run::render(&f, &run, &pictures, &history, more.as_deref(), &thread))
}

/// The open requests, with a refused answer shown beside its form.
pub(super) async fn show_requests(
    v: &Visit<'_>,
    id: &str,
    refusal_of: Option<&Refusal<'_>>,
    status: u16,
) -> worker::Result<Response> {
    let pb = match playbook_of(v, id).await {
        Ok(pb) => pb,
        Err(p) => return refusal(v, "This playbook cannot be shown", &p),
    };
    let mut args = json!({ "playbook": id });
    if let Some(cursor) = v.arg("cursor") {
        args["cursor"] = cursor.into();
    }
    let listed = match v.run("list_interactions", args).await {
        Ok(out) => out.value,
        Err(p) => return refusal(v, "The requests cannot be listed", &p),
    };
    let here = studio::requests("", &v.caller.org, id);
    let more = listed["next_cursor"].as_str().map(|c| format!("{here}?cursor={}", studio::seg(c)));
    let said = v.comments(Some(id), Place::Under("requests")).await;
    let f = v.frame(Some((id, pb["name"].as_str().unwrap_or(id))));
    v.html(status, requests::render(&f, &listed, refusal_of, more.as_deref(), said.view()))
}

async fn comments_page(v: &Visit<'_>, playbook: Option<&str>) -> worker::Result<Response> {
    let (name, here) = match playbook {
        Some(id) => match playbook_of(v, id).await {
            Ok(pb) => (pb["name"].as_str().unwrap_or(id).to_string(), studio::playbook_comments("", &v.caller.org, id)),
            Err(p) => return refusal(v, "This playbook cannot be shown", &p),
        },
        None => (String::new(), studio::org_comments("", &v.caller.org)),
    };
    let said = v.comments(playbook, Place::All).await;
    let address = if playbook.is_some() { "playbook" } else { "org" };
    let f = v.frame(playbook.map(|id| (id, name.as_str())));
    let thread = Thread { comments: said.view(), address, back: &here };
    let status = if matches!(said, Said::Refused(_)) { 403 } else { 200 };
    v.html(status, comments::page_of(&f, &thread))
}
