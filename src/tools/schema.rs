//! Schema pieces the tools share: the playbook argument, a playbook's fields, and the limit and
//! cursor of a list.

use serde_json::{json, Value};

use crate::core::playbook::{DESCRIPTION_MAX_CHARS, NAME_MAX_CHARS, PAGE_MAX_BYTES};

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

/// The `limit` of a list of `what`, between 1 and `max`.
pub fn limit_arg(max: usize, default: usize, what: &str) -> Value {
    json!({
        "type": "integer",
        "minimum": 1,
        "maximum": max,
        "default": default,
        "description": format!("The most {what} on one page."),
    })
}

/// The `cursor` of a list: the `next_cursor` of the page before, as it came.
pub fn cursor_arg(max_length: usize) -> Value {
    json!({ "type": "string", "maxLength": max_length, "description": "The next_cursor of the page before." })
}
