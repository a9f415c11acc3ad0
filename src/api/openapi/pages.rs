//! The schemas of what a definition's page and a workflow's glance answer: `standing`, the page
//! rendered, the glance rendered, and a run's `page.result`. Written from `core::definition::page`.

use serde_json::{json, Value};

use super::components::text;

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
            "over": { "type": "string", "enum": ["runs", "sample_output"], "description": "What it was rendered over." },
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
