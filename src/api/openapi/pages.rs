//! The schemas of what a definition's page and a workflow's glance answer: `standing`, the page
//! rendered, the glance rendered, and a run's `page.result`. Written from `core::definition::page`.

use serde_json::{json, Value};

use super::shapes::text;

fn count(description: &str) -> Value {
    json!({ "type": "integer", "minimum": 0, "description": description })
}

fn failed() -> Value {
    json!({
        "type": "object",
        "description": "Why the page or the glance did not render, and the part that failed.",
        "properties": { "pointer": text("The part of the document, as /page or /glance/figures/0/value."), "detail": text("The engine's words.") },
        "required": ["pointer", "detail"]
    })
}

pub(super) fn standing() -> Value {
    json!({
        "type": "object",
        "description": "How the definition's runs stand, counted over its newest 100 runs.",
        "properties": {
            "runs": count("How many runs."),
            "succeeded": count("How many succeeded."),
            "failed": count("How many failed."),
            "cancelled": count("How many were cancelled."),
            "running": count("How many are started and not ended yet."),
            "latest_status": { "type": ["string", "null"], "description": "How the run that ended last ended." },
            "last_run_at": { "type": ["string", "null"], "description": "When its newest run started." },
            "says": text("The same in one sentence for a person.")
        },
        "required": ["runs", "succeeded", "failed", "cancelled", "running", "latest_status", "last_run_at", "says"]
    })
}

pub(super) fn rendered_page() -> Value {
    json!({
        "type": "object",
        "description": "The definition's page rendered now (get_definition with render: true). markdown is null where it has no page or did not render; says then gives the words.",
        "properties": {
            "markdown": { "type": ["string", "null"], "description": "The page's Markdown." },
            "over": { "type": "string", "enum": ["runs", "sample_output", "run"], "description": "What it was rendered over: its runs, sample_output, or (render_page with run_id) the runs as they stood when that run ended." },
            "run_id": text("With render_page's run_id: the run whose page it is."),
            "says": text("Where there is no Markdown: why."),
            "error": failed()
        },
        "required": ["markdown", "over"]
    })
}

pub(super) fn glance() -> Value {
    json!({
        "type": "object",
        "description": "A workflow's glance rendered now, or error where a part did not render.",
        "properties": {
            "headline": text("The headline."),
            "figures": {
                "type": "array",
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "properties": { "label": text("What the figure counts."), "value": { "description": "The figure's value." } },
                    "required": ["label", "value"]
                }
            },
            "attention": { "type": "boolean", "description": "Whether a person should look now." },
            "error": failed()
        }
    })
}

pub(super) fn run_page() -> Value {
    json!({
        "type": "object",
        "description": "The run as its definition's page shows it, as it stood when the run ended; only for a run that ended, of a definition with a page.",
        "properties": {
            "result": { "type": ["string", "null"], "description": "The page's Markdown; null where it did not render." },
            "error": failed()
        },
        "required": ["result"]
    })
}

/// A definition as `render_playbook_page` and `get_playbook_analytics` list it.
fn standing_row() -> Value {
    json!({
        "type": "object",
        "properties": {
            "type": super::shapes::reference("Kind"),
            "name": text("Its name."),
            "version": { "type": "integer", "minimum": 1 },
            "description": text("What it does."),
            "status": { "type": "string", "enum": ["active", "paused"] },
            "standing": super::shapes::reference("Standing"),
            "glance": super::shapes::reference("Glance")
        },
        "required": ["type", "name", "version", "description", "status", "standing"]
    })
}

pub(super) fn playbook_page() -> Value {
    json!({
        "type": "object",
        "description": "A playbook's page as Studio presents it.",
        "properties": {
            "playbook": { "type": "object", "description": "Its id, name, description and status." },
            "markdown": text("The Markdown of the playbook's page; empty where it has none."),
            "definitions": { "type": "array", "maxItems": 100, "items": standing_row(), "description": "Its active and paused definitions, by type, each with its standing; a workflow with its glance." },
            "more": { "type": "boolean", "description": "Whether more definitions were left out than the 100 shown." }
        },
        "required": ["playbook", "markdown", "definitions", "more"]
    })
}

pub(super) fn analytics() -> Value {
    json!({
        "type": "object",
        "description": "How the playbook's runs stand, by definition and together.",
        "properties": {
            "totals": { "type": "object", "description": "runs, succeeded, failed, cancelled and running, of every definition together." },
            "definitions": { "type": "array", "maxItems": 100, "items": standing_row() },
            "window": text("Which runs are counted."),
            "more": { "type": "boolean", "description": "Whether more definitions were left out than the 100 counted." },
            "as_of": text("When it was counted.")
        },
        "required": ["totals", "definitions", "window", "more", "as_of"]
    })
}
