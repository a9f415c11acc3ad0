//! The schemas of comments: one comment as the tools answer it, and a page of them. Written from
//! `core::comment::Comment` and `core::comment::shown`.

use serde_json::{json, Value};

use super::shapes::{page_cursor, reference, text, time, when};

fn nullable(kind: &str, description: &str) -> Value {
    json!({ "type": [kind, "null"], "description": description })
}

fn person(description: &str) -> Value {
    json!({
        "type": ["object", "null"],
        "description": description,
        "properties": { "id": text("A stable id to compare."), "name": text("A name to say.") },
        "required": ["id", "name"]
    })
}

pub(super) fn comment() -> Value {
    json!({
        "type": "object",
        "description": "What a person said in Studio about one thing of a playbook or of the organization, open until it is resolved. call names the tool that reads the thing; report: true stands in its place where no tool changes it.",
        "properties": {
            "id": { "type": "string", "pattern": "^cm_[a-z2-7]{16}$", "description": "The comment's id." },
            "playbook": text("The playbook whose comment it is; absent for the organization's own."),
            "address": text("What it is about, relative to the playbook (playbook, ledger, definitions/{type}/{name}[/{part}], runs/{run_id}[/{part}], requests/{interaction_id}) or the organization (org, connections/{id}, members/{person}, settings/{page})."),
            "anchor": { "type": ["object", "null"], "description": "Where Studio draws the comment's pin; the address already places it for an agent." },
            "body": text("What the person said, in Markdown."),
            "version": nullable("integer", "The definition's version the person read, for a definition's address; read the comment against the current document."),
            "by": person("Who made it."),
            "created_at": time("When it was made."),
            "status": { "type": "string", "enum": ["open", "resolved"] },
            "resolved_at": nullable("string", "When it was resolved."),
            "resolved_by": person("Who resolved it."),
            "how": { "type": ["string", "null"], "enum": ["acted", "dismissed", null], "description": "acted once what it asked was done, dismissed when the person said to drop it." },
            "reopened_at": nullable("string", "When a person last reopened it."),
            "reopened_by": person("Who last reopened it."),
            "call": {
                "type": "object",
                "description": "The tool that reads the thing the comment is about, with its arguments.",
                "properties": { "tool": text("The tool's name."), "arguments": { "type": "object" } },
                "required": ["tool", "arguments"]
            },
            "report": { "type": "boolean", "const": true, "description": "No tool changes the thing: report the comment to the person." },
            "studio": text("The comment's place in Studio, to give the person.")
        },
        "required": ["id", "address", "body", "by", "created_at", "status", "studio"],
        "allOf": [when("status", "resolved", &["resolved_at", "resolved_by", "how"])]
    })
}

pub(super) fn comment_page() -> Value {
    json!({
        "type": "object",
        "properties": {
            "comments": { "type": "array", "items": reference("Comment"), "description": "Newest first." },
            "next_cursor": page_cursor()
        },
        "required": ["comments", "next_cursor"]
    })
}
