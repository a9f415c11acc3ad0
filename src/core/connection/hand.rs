//! The input of `add_connection` for a server given by hand: its name, its type, its entry and,
//! where it takes one, its credential, each refused at its pointer.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::given::by_hand;
use super::plan::{check_name, rules, Plan};
use super::{Document, Target};
use crate::core::text::{pointer_segment, quote};
use crate::core::tool_server::openapi;
use crate::core::tool_server::settings::{check_address, DOCUMENT_TEXT_MAX};
use crate::core::{FieldError, Problem};

pub(super) fn from_hand(a: &Map<String, Value>, deployed: bool, errors: &mut Vec<FieldError>) -> Result<Plan, Problem> {
    let name = a.get("name").and_then(Value::as_str).unwrap_or_default().to_string();
    if a.get("name").is_none() {
        errors.push(FieldError::new(
            "/name",
            "is required for a server given by hand: the name a function gives it, as name/tool",
        ));
    } else {
        check_name(&name, errors);
    }
    for field in ["placeholders", "more"] {
        if a.contains_key(field) {
            errors.push(FieldError::new(format!("/{field}"), "is taken only with provider"));
        }
    }
    let c = a.get("credential").and_then(Value::as_object);
    let entry = a.get("entry").and_then(Value::as_object).cloned().unwrap_or_default();
    let url = |field: &str, errors: &mut Vec<FieldError>| -> String {
        match entry.get(field).and_then(Value::as_str) {
            Some(text) => {
                if let Err(why) = check_address(text, deployed) {
                    errors.push(FieldError::new(format!("/entry/{field}"), why));
                }
                text.to_string()
            }
            None => {
                errors.push(FieldError::new(format!("/entry/{field}"), "is required"));
                String::new()
            }
        }
    };
    let refuse = |fields: &[&str], why: &str, errors: &mut Vec<FieldError>| {
        for f in fields.iter().filter(|f| entry.contains_key(**f)) {
            errors.push(FieldError::new(format!("/entry/{f}"), why.to_string()));
        }
    };
    let known = ["url", "document", "document_text", "base_url", "playbooks", "allowed", "record_content"];
    for k in entry.keys().filter(|k| !known.contains(&k.as_str())) {
        errors.push(FieldError::new(
            format!("/entry/{}", pointer_segment(k)),
            format!("is not a field of an entry, which takes {}", known.join(", ")),
        ));
    }
    let target = match a.get("type").and_then(Value::as_str) {
        Some("mcp") => {
            refuse(&["document", "document_text", "base_url"], "is a field of an HTTP API, where type is mcp", errors);
            Target::Mcp { url: url("url", errors) }
        }
        Some("openapi") => {
            refuse(&["url"], "is a field of an MCP server, where type is openapi: give base_url", errors);
            let document = match (
                entry.get("document").and_then(Value::as_str),
                entry.get("document_text").and_then(Value::as_str),
            ) {
                (Some(_), None) => Document::At(url("document", errors)),
                (None, Some(text)) => document_text(text, errors),
                (Some(_), Some(_)) => {
                    errors.push(FieldError::new("/entry/document_text", "is given beside document; give one of them"));
                    Document::At(String::new())
                }
                (None, None) => {
                    errors.push(FieldError::new("/entry/document", "is required: the address of the API's OpenAPI document, or the document itself as document_text"));
                    Document::At(String::new())
                }
            };
            Target::Openapi { document, base_url: url("base_url", errors) }
        }
        Some(other) => {
            errors.push(FieldError::new("/type", format!("is {}, where mcp and openapi are taken", quote(other))));
            Target::Mcp { url: String::new() }
        }
        None => {
            errors.push(FieldError::new(
                "/type",
                "is required for a server given by hand: mcp for a remote MCP server, openapi for an HTTP API",
            ));
            Target::Mcp { url: String::new() }
        }
    };
    if a.get("entry").is_none() && a.contains_key("type") {
        errors.push(FieldError::new(
            "/entry",
            "is required for a server given by hand: the server, without its credential",
        ));
    }
    let http_api = matches!(target, Target::Openapi { .. });
    let credential = match c {
        Some(c) => by_hand(c, http_api, errors),
        None if http_api => {
            errors.push(FieldError::new(
                "/credential",
                "is required for an HTTP API: the kind of credential it takes, or kind none where it needs nothing",
            ));
            None
        }
        None => None,
    };
    Ok(Plan {
        name,
        provider: None,
        placeholders: BTreeMap::new(),
        target,
        credential,
        rules: rules(a, errors),
        handles_money: false,
        more: None,
        asked_scopes: Vec::new(),
        fingerprint: String::new(),
    })
}

fn document_text(text: &str, errors: &mut Vec<FieldError>) -> Document {
    if text.len() > DOCUMENT_TEXT_MAX {
        errors.push(FieldError::new(
            "/entry/document_text",
            format!(
                "holds {} bytes, over the {DOCUMENT_TEXT_MAX} it may; give the document's address as document instead",
                text.len()
            ),
        ));
        return Document::At(String::new());
    }
    match openapi::read(text) {
        Ok(api) if !api.tools().is_empty() => Document::Text {
            text: text.to_string(),
            sha256: crate::core::access::oauth::secret::digest(text),
            tools: api.tools().len(),
        },
        Ok(_) => {
            errors.push(FieldError::new(
                "/entry/document_text",
                "offers no tool: it holds no operation the runtime can call",
            ));
            Document::At(String::new())
        }
        Err(refusal) => {
            errors.push(FieldError::new(format!("/entry/document_text{}", refusal.pointer), refusal.words()));
            Document::At(String::new())
        }
    }
}
