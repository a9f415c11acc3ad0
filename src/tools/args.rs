//! Arguments are checked against the tool's input schema, the one statement of their rules,
//! and every violation comes back with a JSON pointer at the field.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Tool;
use crate::core::schema::{Invalid, InvalidKind, Schema};
use crate::core::{FieldError, Problem};

thread_local! {
    // Compiled once per isolate: a Worker isolate is single-threaded and lives across requests.
    static VALIDATORS: RefCell<HashMap<&'static str, Schema>> = RefCell::new(HashMap::new());
}

pub fn check_args(tool: &Tool, args: &Value) -> Result<(), Problem> {
    if !args.is_object() {
        return Err(Problem::invalid("", "The arguments must be a JSON object."));
    }
    let errors = VALIDATORS.with(|cell| {
        let mut map = cell.borrow_mut();
        if !map.contains_key(tool.name) {
            match Schema::compile(&(tool.input_schema)()) {
                Ok(v) => {
                    map.insert(tool.name, v);
                }
                Err(e) => {
                    return Err(Problem::internal(format!("The input schema of {} does not compile: {e}", tool.name)))
                }
            }
        }
        let Some(validator) = map.get(tool.name) else {
            return Err(Problem::internal("validator missing"));
        };
        Ok(validator.iter_errors(args).map(|e| field_error(&e)).collect::<Vec<_>>())
    })?;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

/// Checks `value` against a schema that is not ours, such as a tool server's, with each pointer
/// under `prefix`. A schema that does not compile is said as the words of the `Err`.
pub fn check_against(schema: &Value, value: &Value, prefix: &str) -> Result<Vec<FieldError>, String> {
    // Compiled once per isolate, as every kept schema is: a tool is called with the same schema
    // again and again.
    let validator =
        crate::core::schema::compiled(schema).map_err(|e| format!("its input schema does not compile: {e}"))?;
    Ok(validator
        .iter_errors(value)
        .map(|e| {
            let mut f = field_error(&e);
            f.pointer = format!("{prefix}{}", f.pointer);
            f
        })
        .collect())
}

fn field_error(e: &Invalid) -> FieldError {
    let at = &e.pointer;
    match &e.kind {
        InvalidKind::Required(property) => FieldError::new(format!("{at}/{}", escape(property)), "is required"),
        InvalidKind::Additional(unexpected) => FieldError::new(
            format!("{at}/{}", escape(unexpected.first().map(String::as_str).unwrap_or_default())),
            format!("is not an argument this takes ({})", unexpected.join(", ")),
        ),
        InvalidKind::Other => FieldError::new(at.clone(), e.message.clone()),
    }
}

use crate::core::text::pointer_segment as escape;

/// Arguments the schema already checked, as the operation's own type.
pub fn parse<T: DeserializeOwned>(args: Value) -> Result<T, Problem> {
    crate::core::json::from_value(args).map_err(|e| Problem::invalid("", format!("The arguments do not fit: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_bad_field_gets_a_pointer() {
        let tool = super::super::find("create_playbook").unwrap();
        let p = check_args(tool, &json!({"name": 5, "colour": "red"})).unwrap_err();
        let pointers: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert!(pointers.contains(&"/name"), "{pointers:?}");
        assert!(pointers.contains(&"/colour"), "{pointers:?}");
        let p = check_args(tool, &json!({})).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/name");
        assert!(check_args(tool, &json!({"name": "Ok"})).is_ok());
        assert!(check_args(tool, &json!([])).is_err());
    }

    #[test]
    fn a_servers_schema_is_checked_under_a_prefix() {
        let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]});
        let found = check_against(&schema, &json!({}), "/arguments").unwrap();
        assert_eq!(found[0].pointer, "/arguments/path");
        assert!(check_against(&schema, &json!({"path": "a"}), "/arguments").unwrap().is_empty());
        assert!(check_against(&json!({"type": 5}), &json!({}), "").is_err());
    }
}
