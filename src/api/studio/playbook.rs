//! A playbook's page: its own page (Markdown), its definitions by type with how each stands,
//! each workflow at a glance where the runtime answers one, and the ways to its Ledger,
//! requests and comments.

use serde_json::Value;

use super::comments::{section, Thread};
use super::frame::{link, moment, page, status, text, Frame, Tab};
use crate::api::markdown::to_html;
use crate::api::sign_in_pages::escape;
use crate::core::studio;

/// The definitions of one type, as `list_definitions` answered them.
#[derive(Debug, Clone)]
pub struct OfType<'a> {
    pub kind: &'a str,
    pub listed: &'a Value,
}

/// `playbook` is `get_playbook`'s answer; `reads` each definition's `get_definition` answer by
/// `type/name`, for its standing and a workflow's glance, where it was read; `went` the sentence
/// `get_stats` says of the last 7 days, where it could count them.
pub fn render(
    f: &Frame,
    playbook: &Value,
    types: &[OfType],
    reads: &[(String, Value)],
    went: Option<&str>,
    thread: &Thread,
) -> String {
    let id = text(playbook, "/id");
    let own = match text(playbook, "/page") {
        "" => "<p class=\"hint\">It has no page yet.</p>".to_string(),
        markdown => format!("<div class=\"page\">{}</div>", to_html(markdown)),
    };
    let mut defs = String::new();
    for t in types {
        let list = t.listed["definitions"].as_array().map(Vec::as_slice).unwrap_or_default();
        if list.is_empty() {
            continue;
        }
        let rows: String = list.iter().map(|d| row(f, id, t.kind, d, reads)).collect();
        defs.push_str(&format!(
            "<h3>{}</h3><table><thead><tr><th>Name</th><th>What it does</th><th>Version</th><th>Standing</th><th>Changed</th></tr></thead><tbody>{rows}</tbody></table>",
            escape(&heading(t.kind))
        ));
    }
    if defs.is_empty() {
        defs = "<p>It holds no definition yet.</p>".to_string();
    }
    let body = format!(
        "<h1>{name}</h1><p>{description}</p><p>{standing}</p>\
         <p>{ledger} · {requests} · {comments}</p>\
         {went}<h2>Its page</h2>{own}<h2>Definitions</h2>{defs}{section}",
        name = escape(text(playbook, "/name")),
        description = escape(text(playbook, "/description")),
        standing = status(text(playbook, "/status")),
        ledger = link(&studio::ledger("", f.org, id, None), "Ledger: its runs"),
        requests = link(&studio::requests("", f.org, id), "Open requests"),
        comments = link(&studio::playbook_comments("", f.org, id), "Comments"),
        went = went.map(|w| format!("<h2>How its runs went</h2><p>{}</p>", escape(w))).unwrap_or_default(),
        section = section(f, thread),
    );
    page(f, text(playbook, "/name"), &[], Tab::Playbook, &body)
}

fn row(f: &Frame, playbook: &str, kind: &str, d: &Value, reads: &[(String, Value)]) -> String {
    let name = text(d, "/name");
    let key = format!("{kind}/{name}");
    let read = reads.iter().find(|(k, _)| *k == key).map(|(_, r)| r);
    let glance = read.and_then(|r| r.get("glance")).filter(|g| !g.is_null()).map(glance).unwrap_or_default();
    let standing = read
        .and_then(super::definition::standing)
        .map(|s| format!("<p class=\"hint\">{}</p>", escape(s)))
        .unwrap_or_default();
    format!(
        "<tr><td>{}</td><td>{}{glance}</td><td>{}</td><td>{}{standing}</td><td>{}</td></tr>",
        link(&studio::definition("", f.org, playbook, kind, name), name),
        escape(text(d, "/description")),
        d["version"].as_u64().unwrap_or_default(),
        status(text(d, "/status")),
        moment(text(d, "/updated_at")),
    )
}

/// A workflow at a glance: its headline, up to four figures, and what needs attention.
fn glance(g: &Value) -> String {
    let figures: String = g["figures"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .map(|x| {
                    let value = match &x["value"] {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    format!("<dt>{}</dt><dd>{}</dd>", escape(text(x, "/label")), escape(&value))
                })
                .collect()
        })
        .unwrap_or_default();
    if let Some(error) = g.get("error") {
        let why = error["detail"].as_str().unwrap_or("it could not be rendered");
        return format!("<p class=\"hint\">Its glance cannot be shown: {}</p>", escape(why));
    }
    let attention = match &g["attention"] {
        Value::Null | Value::Bool(false) => String::new(),
        Value::String(s) if s.is_empty() => String::new(),
        Value::String(s) => format!("<p class=\"notice caution\">{}</p>", escape(s)),
        _ => "<p class=\"notice caution\">Needs attention.</p>".to_string(),
    };
    format!(
        "<div class=\"glance\"><p><strong>{}</strong></p><dl>{figures}</dl>{attention}</div>",
        escape(text(g, "/headline"))
    )
}

fn heading(kind: &str) -> String {
    match kind {
        "workflow" => "Workflows".to_string(),
        k => {
            let mut chars = k.chars();
            let first: String = chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
            format!("{first}{} functions", chars.as_str())
        }
    }
}
