//! The runtime's own Studio, as pure views: each page is HTML made from what the tools answered
//! (their JSON, as the shell got it through `tools::call` as the person), one file per page, in
//! one frame with breadcrumbs and a playbook's tabs. Every value someone wrote is escaped, and
//! Markdown goes through `api::markdown` alone; forms post with the page's proof and need no
//! script. Addresses come from `core::studio`, written relative to this runtime (base `""`).

pub mod comments;
pub mod definition;
pub mod frame;
pub mod home;
pub mod ledger;
pub mod playbook;
pub mod requests;
pub mod route;
pub mod run;
#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::api::markdown::to_html;
use crate::api::sign_in_pages::escape;
use crate::core::studio;
use frame::{actor, json_block, link, moment, status, text, Frame};

/// The headers of every Studio page: nothing loaded from another server but this runtime's own
/// pictures (and a diagram drawn into the page as `data:`), forms only to itself, no framing.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The headers of a picture served alone: an SVG that may style itself, and nothing else.
pub const PICTURE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/// A table of runs from `list_runs`' answer. With `ledger` (the Ledger's query and its chosen
/// run), a run links to itself chosen in the Ledger; otherwise to its own page.
pub fn runs_table(f: &Frame, runs: &Value, ledger: Option<(&str, Option<&str>)>) -> String {
    let playbook = f.playbook.map(|(id, _)| id).unwrap_or_default();
    let list = runs["runs"].as_array().map(Vec::as_slice).unwrap_or_default();
    if list.is_empty() {
        return "<p>No run is on this page.</p>".to_string();
    }
    let rows: String = list
        .iter()
        .map(|r| {
            let id = text(r, "/run_id");
            let (kind, name) = (text(r, "/definition/type"), text(r, "/definition/name"));
            let (href, current) = match ledger {
                Some((query, chosen)) => {
                    let base = studio::ledger("", f.org, playbook, Some(id));
                    let href = if query.is_empty() { base } else { format!("{base}&{query}") };
                    (href, chosen == Some(id))
                }
                None => (studio::run("", f.org, playbook, id), false),
            };
            let mark = if current { " aria-current=\"true\"" } else { "" };
            format!(
                "<tr{mark}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                link(&href, id),
                link(&studio::definition("", f.org, playbook, kind, name), &format!("{kind}/{name}")),
                status(text(r, "/status")),
                moment(text(r, "/started_at")),
                moment(text(r, "/finished_at")),
            )
        })
        .collect();
    format!(
        "<table><thead><tr><th>Run</th><th>Of</th><th>Status</th><th>Started</th><th>Finished</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

/// What a run was given and came to, from `get_run`'s answer: who started it, its input, its
/// output or error, the question it waits on, and its page as it stood when it ended.
pub fn run_facts(f: &Frame, run: &Value) -> String {
    let playbook = f.playbook.map(|(id, _)| id).unwrap_or_default();
    let (kind, name) = (text(run, "/definition/type"), text(run, "/definition/name"));
    // A rehearsal says so before anything else it shows, wherever it is shown.
    let banner = match run["rehearsal"].as_bool() {
        Some(true) => "<p class=\"notice rehearsal\" role=\"note\"><strong>A rehearsal.</strong> Nothing it did reached outside the runtime: its tools, models and people were answered by the stand-ins it was given. It counts in no figure, started no trigger and asked no one.</p>",
        _ => "",
    };
    let mut facts = format!(
        "{banner}<dl><dt>Of</dt><dd>{of}, version {version}</dd><dt>Status</dt><dd>{status}</dd><dt>Started</dt><dd>{started}</dd>",
        of = link(&studio::definition("", f.org, playbook, kind, name), &format!("{kind}/{name}")),
        version = run["version"].as_u64().unwrap_or_default(),
        status = status(text(run, "/status")),
        started = moment(text(run, "/started_at")),
    );
    if let Some(at) = run["finished_at"].as_str() {
        facts.push_str(&format!("<dt>Finished</dt><dd>{}</dd>", moment(at)));
    }
    if let Some(by) = run.get("started_by") {
        facts.push_str(&format!("<dt>Started by</dt><dd>{}</dd>", actor(by)));
    }
    if let Some(by) = run.get("answered_by") {
        facts.push_str(&format!("<dt>Answered by</dt><dd>{}</dd>", actor(by)));
    }
    if let Some(parent) = run.pointer("/within/run_id").and_then(Value::as_str) {
        let step = text(run, "/within/step");
        facts.push_str(&format!(
            "<dt>Within</dt><dd>{} at the step {}</dd>",
            link(&studio::run("", f.org, playbook, parent), parent),
            escape(step)
        ));
    }
    facts.push_str("</dl>");
    if let Some(question) = run.pointer("/waiting/question").and_then(Value::as_str) {
        facts.push_str(&format!(
            "<h3>It waits for an answer</h3><div class=\"page\">{}</div><p>{}</p>",
            to_html(question),
            link(&studio::requests("", f.org, playbook), "Answer it among the open requests")
        ));
    }
    facts.push_str(&format!("<h3>Input</h3>{}", json_block(&run["input"])));
    if let Some(output) = run.get("output") {
        facts.push_str(&format!("<h3>Output</h3>{}", json_block(output)));
    }
    if let Some(error) = run.get("error") {
        facts.push_str(&format!(
            "<h3>Error</h3><p class=\"notice refused\">{}: {}</p>",
            escape(text(error, "/reason")),
            escape(text(error, "/detail"))
        ));
    }
    if let Some(result) = run.pointer("/page/result").and_then(Value::as_str) {
        facts.push_str(&format!(
            "<h3>Its page, as it stood when the run ended</h3><div class=\"page\">{}</div>",
            to_html(result)
        ));
    }
    facts
}

/// An SVG drawn into the page as an image's `data:` address: an image runs no script, and the
/// page loads nothing for it.
pub fn svg_data(svg: &str) -> String {
    use base64::Engine;
    format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(svg))
}
