//! Words and schema pieces the playbook tools share.

use serde_json::{json, Value};

use crate::core::playbook::{Playbook, DESCRIPTION_MAX_CHARS, NAME_MAX_CHARS, PAGE_MAX_BYTES};
use crate::core::text::{cap, quote, SUMMARY_MAX};

/// `“Monthly close” (pb_…)`
pub fn named(p: &Playbook) -> String {
    format!("{} ({})", quote(&p.name), p.id)
}

pub fn fits(summary: String) -> String {
    cap(&summary, SUMMARY_MAX)
}

pub fn playbook_arg() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "description": "The playbook's id, such as pb_3kq7z2m4x8c5v6b1, as create_playbook or list_playbooks gave it."
    })
}

/// The arguments of a tool that names one playbook and nothing else.
pub fn only_playbook() -> Value {
    json!({
        "type": "object",
        "properties": { "playbook": playbook_arg() },
        "required": ["playbook"],
        "additionalProperties": false
    })
}

#[derive(serde::Deserialize)]
pub struct PlaybookArg {
    pub playbook: String,
}

pub fn name_arg() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": NAME_MAX_CHARS,
        "description": format!("The playbook's name: 1 to {NAME_MAX_CHARS} characters, no line breaks or control characters, no white space at either end. Unique among the org's active playbooks, ignoring case.")
    })
}

pub fn description_arg() -> Value {
    json!({
        "type": "string",
        "maxLength": DESCRIPTION_MAX_CHARS,
        "description": format!("What the playbook is for, in a sentence or two: at most {DESCRIPTION_MAX_CHARS} characters.")
    })
}

pub fn page_arg() -> Value {
    json!({
        "type": "string",
        "description": format!("The Markdown source of the playbook's page: at most {PAGE_MAX_BYTES} bytes.")
    })
}
