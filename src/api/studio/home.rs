//! The org's home: its playbooks, as `list_playbooks` answers them, each linking to its page.

use serde_json::Value;

use super::comments::{section, Thread};
use super::frame::{link, moment, page, status, text, Frame, Tab};
use crate::api::sign_in_pages::escape;
use crate::core::studio;

/// `playbooks` is `list_playbooks`' answer; `more` the address of the next page, if any.
pub fn render(f: &Frame, playbooks: &Value, more: Option<&str>, thread: &Thread) -> String {
    let list = playbooks["playbooks"].as_array().map(Vec::as_slice).unwrap_or_default();
    let rows: String = list
        .iter()
        .map(|p| {
            let id = text(p, "/id");
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                link(&studio::playbook("", f.org, id), text(p, "/name")),
                escape(text(p, "/description")),
                status(text(p, "/status")),
                moment(text(p, "/updated_at")),
            )
        })
        .collect();
    let table = match list.is_empty() {
        true => "<p>This org has no playbook yet. An agent makes one with create_playbook.</p>".to_string(),
        false => format!(
            "<table><thead><tr><th>Playbook</th><th>What it does</th><th>Standing</th><th>Changed</th></tr></thead><tbody>{rows}</tbody></table>"
        ),
    };
    let more = more.map(|m| format!("<p>{}</p>", link(m, "More playbooks"))).unwrap_or_default();
    let body = format!(
        "<h1>Playbooks of {org}</h1>{table}{more}<p>{comments}</p>{section}",
        org = escape(f.org),
        comments = link(&studio::org_comments("", f.org), "The org's own comments"),
        section = section(f, thread),
    );
    page(f, &format!("Playbooks of {}", f.org), &[], Tab::None, &body)
}
