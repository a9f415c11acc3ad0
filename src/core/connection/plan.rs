//! A connection to add, checked: the plan both ways of adding one end in (from a provider, or
//! given by hand), and the parts of the input they read alike.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Credential, Rules, Target};
use crate::core::tool_server::is_server_name;
use crate::core::FieldError;

/// The most playbooks an entry names.
pub const PLAYBOOKS_MAX: usize = 100;
/// The most tools an entry allows by name.
pub const ALLOWED_MAX: usize = 1000;

/// A connection to add, checked, before its id and link are made.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub name: String,
    pub provider: Option<String>,
    pub placeholders: BTreeMap<String, String>,
    pub target: Target,
    /// `None` for an MCP server given by hand whose credential was left out: the server says.
    pub credential: Option<Credential>,
    pub rules: Rules,
    pub handles_money: bool,
    pub more: Option<String>,
    /// The scopes the first consent asks, with those of `more`.
    pub asked_scopes: Vec<String>,
    /// A digest of the input, so that the same call again is known for a retry.
    pub fingerprint: String,
}

/// The entry's rules: which playbooks may use the connection, which of its tools, and whether
/// what they answer is kept in records.
pub fn rules(a: &Map<String, Value>, errors: &mut Vec<FieldError>) -> Rules {
    let mut rules = Rules::default();
    let Some(entry) = a.get("entry").and_then(Value::as_object) else { return rules };
    if let Some(list) = entry.get("playbooks") {
        match crate::core::json::from_value::<Vec<String>>(list.clone()) {
            Ok(list) if !list.is_empty() && list.len() <= PLAYBOOKS_MAX => rules.playbooks = Some(list),
            _ => errors.push(FieldError::new(
                "/entry/playbooks",
                format!("must list 1 to {PLAYBOOKS_MAX} playbook ids; leave it out to serve every playbook of the org"),
            )),
        }
    }
    match entry.get("allowed") {
        None => {}
        Some(Value::String(star)) if star == "*" => {}
        Some(list) => match crate::core::json::from_value::<Vec<String>>(list.clone()) {
            Ok(list) if list.len() <= ALLOWED_MAX => rules.allowed = Some(list),
            _ => errors.push(FieldError::new("/entry/allowed", "must be \"*\" or a list of the tools' names")),
        },
    }
    match entry.get("record_content") {
        None => {}
        Some(Value::Bool(b)) => rules.record_content = *b,
        Some(_) => errors.push(FieldError::new("/entry/record_content", "must be true or false")),
    }
    rules
}

/// The connection's name, the `name` of `name/tool` in a function.
pub fn check_name(name: &str, errors: &mut Vec<FieldError>) {
    if !is_server_name(name) {
        errors.push(FieldError::new(
            "/name",
            "must be lowercase letters, digits, - and _, starting with a letter, at most 64 characters: a function names its tools name/tool",
        ));
    }
}
