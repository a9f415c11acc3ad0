//! The checks of a workflow that need the rest of the playbook: each step's function exists, is
//! not retired, and is given an input its schema can take, where the save can tell.

use serde_json::Value;

use super::check::escape;
use super::{Kind, Ref};
use crate::core::error::{FieldError, Problem};
use crate::core::workflow::eval;
use crate::core::workflow::plan::{Action, Plan};

/// What the playbook holds under a name a step calls: enough to check the call.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Callee {
    pub retired: bool,
    /// The function's `input.schema`, where its document has one.
    pub input_schema: Option<Value>,
}

impl Callee {
    /// Takes the input schema from the spec of the function's current document.
    pub fn from_source(retired: bool, kind: Kind, source: &str) -> Callee {
        let spec = super::spec(kind, source).ok();
        Callee { retired, input_schema: spec.as_ref().and_then(|s| s.input_schema()).cloned() }
    }
}

/// Checks every step's call against the playbook's definitions; `lookup` answers the definition a
/// reference names, or `None` when the playbook holds none of that type and name.
pub fn check_calls(plan: &Plan, lookup: &dyn Fn(&Ref) -> Option<Callee>) -> Result<(), Problem> {
    let mut errors = Vec::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let Action::Call { function, input } = &step.action else { continue };
        let at = format!("/steps/{i}");
        let Some(callee) = lookup(function) else {
            errors.push(err(
                format!("{at}/function"),
                format!(
                    "names {}, which this playbook does not hold; create it first, or name one it holds",
                    function.key()
                ),
            ));
            continue;
        };
        if callee.retired {
            errors.push(err(
                format!("{at}/function"),
                format!(
                    "names {}, which is retired; restore it with restore_definition, or name another",
                    function.key()
                ),
            ));
        }
        let Some(schema) = callee.input_schema.as_ref().filter(|s| s.is_object()) else { continue };
        let properties = schema.get("properties").and_then(Value::as_object);
        for name in schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !input.iter().any(|(k, _)| k == name) {
                errors.push(err(
                    format!("{at}/input"),
                    format!("gives no {name}, which the input schema of {} requires", function.key()),
                ));
            }
        }
        let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        for (key, expr) in input {
            let pointer = format!("{at}/input/{}", escape(key));
            let field_schema = properties.and_then(|p| p.get(key));
            if closed && field_schema.is_none() {
                let known: Vec<&str> = properties.map(|p| p.keys().map(String::as_str).collect()).unwrap_or_default();
                errors.push(err(
                    pointer,
                    format!("is not a field of the input of {}; its fields are {}", function.key(), known.join(", ")),
                ));
                continue;
            }
            if let (Some(field_schema), Some(value)) = (field_schema, constant(expr)) {
                if let Ok(validator) = crate::core::schema::compiled(field_schema) {
                    if let Some(e) = validator.iter_errors(&value).next() {
                        errors.push(err(
                            pointer,
                            format!("gives {value}, which the input schema of {} refuses: {e}", function.key()),
                        ));
                    }
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

/// The value of an expression that names nothing, such as `'autumn'` or `3`, known at save time.
fn constant(expr: &str) -> Option<Value> {
    let env = super::template::environment();
    let compiled = env.compile_expression(expr).ok()?;
    if !compiled.undeclared_variables(false).is_empty() {
        return None;
    }
    eval::value(expr, &Value::Null).ok()
}

fn err(pointer: String, detail: String) -> FieldError {
    FieldError::new(pointer, detail).within("source")
}
