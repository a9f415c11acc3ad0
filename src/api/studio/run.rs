//! A run's page, as `get_run` answers it: what it was given and came to, its record, its
//! workflow's steps (drawn on the workflow's picture where the runtime draws one, with a
//! timeline), and its whole history from `list_playbook_events`, tool calls whole.

use serde_json::Value;

use super::comments::{on_part, section, Thread};
use super::frame::{form, hidden, json_block, link, moment, page, status, text, Frame, Tab};
use super::run_facts;
use crate::api::sign_in_pages::escape;
use crate::core::studio;

/// The pictures of a workflow run: its steps on the workflow's picture, and its timeline.
#[derive(Debug, Clone, Default)]
pub struct Pictures {
    pub run: Option<String>,
    pub timeline: Option<String>,
}

/// `run` is `get_run`'s answer; `history` the run's events, oldest first, each whole;
/// `more` the address of the rest of its history.
pub fn render(
    f: &Frame,
    run: &Value,
    pictures: &Pictures,
    history: &[Value],
    more: Option<&str>,
    thread: &Thread,
) -> String {
    let id = text(run, "/run_id");
    let playbook = f.playbook.map(|(p, _)| p).unwrap_or_default();
    let ended = matches!(text(run, "/status"), "failed" | "cancelled");
    let steps = run["steps"].as_array().map(|s| steps_table(f, playbook, s, thread, ended)).unwrap_or_default();
    let img = |src: &Option<String>, alt: &str| {
        src.as_ref().map(|s| format!("<figure><img src=\"{}\" alt=\"{alt}\"></figure>", escape(s))).unwrap_or_default()
    };
    let drawn = format!(
        "{}{}",
        img(&pictures.run, "The workflow, each step coloured by how it went"),
        img(&pictures.timeline, "The timeline of its steps")
    );
    let record = match run.get("record") {
        Some(r) if !r.is_null() => format!("<h2>Record</h2>{}", json_block(r)),
        _ => String::new(),
    };
    let events: String = history.iter().map(event).collect();
    let history_html = match history.is_empty() {
        true => "<p class=\"hint\">No event is recorded for it.</p>".to_string(),
        false => format!("<ol class=\"history\">{events}</ol>"),
    };
    let more = more.map(|m| format!("<p>{}</p>", link(m, "More of its history"))).unwrap_or_default();
    let body = format!(
        "<h1>Run {title}</h1>{facts}{say}{drawn}{steps}{record}<h2>History</h2>{history_html}{more}\
         <p>{ledger}</p>{section}",
        title = escape(id),
        facts = run_facts(f, run),
        say = on_part(f, thread, &format!("runs/{id}/result"), "Comment on its result"),
        ledger = link(&studio::ledger("", f.org, playbook, Some(id)), "This run in the Ledger"),
        section = section(f, thread),
    );
    page(f, &format!("Run {id}"), &[(String::new(), format!("Run {id}"))], Tab::Ledger, &body)
}

/// The steps of a workflow run; where it failed or was cancelled, a person who may run it again
/// is offered a form on each step that did not succeed, to run it again from there.
fn steps_table(f: &Frame, playbook: &str, steps: &[Value], thread: &Thread, ended: bool) -> String {
    let run_id = thread.address.strip_prefix("runs/").unwrap_or_default();
    let again = |step: &str| {
        let action = format!("{}/rerun", studio::run("", f.org, playbook, run_id));
        let inner = format!("{}<button type=\"submit\">Run again from this step</button>", hidden("from_step", step));
        form(&action, f.csrf, "inline", &inner)
    };
    let rows: String = steps
        .iter()
        .map(|s| {
            let child = match s["run_id"].as_str() {
                Some(id) => link(&studio::run("", f.org, playbook, id), id),
                None => String::new(),
            };
            let why = s["waiting_for"]
                .as_str()
                .or(s["skipped_because"].as_str())
                .or(s.pointer("/error/detail").and_then(Value::as_str))
                .unwrap_or_default();
            let mut say =
                on_part(f, thread, &format!("runs/{run_id}/steps/{}", text(s, "/step")), "Comment on this step");
            if ended && f.writes && !matches!(text(s, "/status"), "succeeded" | "skipped") {
                say.push_str(&again(text(s, "/step")));
            }
            format!(
                "<tr><td>{}{say}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(text(s, "/title")),
                status(text(s, "/status")),
                moment(text(s, "/started_at")),
                moment(text(s, "/finished_at")),
                child,
                escape(why),
            )
        })
        .collect();
    format!(
        "<h2>Steps</h2><table><thead><tr><th>Step</th><th>Status</th><th>Started</th><th>Finished</th><th>Run</th><th>Why</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

/// One event of the history, its data whole.
fn event(e: &Value) -> String {
    let data = match e.get("data") {
        Some(Value::Null) | None => String::new(),
        Some(d) => json_block(d),
    };
    format!(
        "<li id=\"{id}\"><p><strong>{kind}</strong> · {at} · <code>{id}</code></p><p>{summary}</p>{data}</li>",
        id = escape(text(e, "/event_id")),
        kind = escape(text(e, "/kind")),
        at = moment(text(e, "/at")),
        summary = escape(text(e, "/summary")),
    )
}
