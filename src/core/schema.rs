//! JSON Schemas compiled once per isolate. Compiling a schema costs far more than checking a
//! value against it (in WebAssembly the `jsonschema` crate compiles the draft's meta-schema anew
//! for every compile, which took 40% of a `run_definition`), and a function's schemas are checked
//! on every run of it.

use std::rc::Rc;

use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::memo::Memo;

thread_local! {
    // Keyed by the schema's text; 256 schemas are more than the functions one isolate runs.
    static COMPILED: Memo<Rc<Validator>> = Memo::new(256);
}

/// The schema compiled, as `jsonschema::validator_for` would, from the cache when this isolate
/// compiled the same schema before. A schema that does not compile is not kept.
pub fn compiled(schema: &Value) -> Result<Rc<Validator>, ValidationError<'static>> {
    COMPILED.with(|memo| memo.get_or_try(&schema.to_string(), || jsonschema::validator_for(schema).map(Rc::new)))
}

/// Checks `value` against a kept schema, as a refusal whose problems point under `at` (such as
/// `/input`) and carry `kind`. A schema that no longer compiles is an internal failure.
pub fn check(
    schema: &Value,
    value: &Value,
    at: &str,
    kind: crate::core::ErrorCode,
) -> Result<(), crate::core::Problem> {
    use crate::core::{FieldError, Problem};
    let validator =
        compiled(schema).map_err(|e| Problem::internal(format!("a saved schema for {at} does not compile: {e}")))?;
    let errors: Vec<FieldError> = validator
        .iter_errors(value)
        .map(|e| FieldError::new(format!("{at}{}", e.instance_path().as_str()), e.to_string()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors).with_kind(kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_compiles_once_and_checks_alike() {
        let schema = json!({ "type": "object", "properties": { "net": { "type": "number" } }, "required": ["net"] });
        let first = compiled(&schema).unwrap();
        let again =
            compiled(&json!({ "type": "object", "properties": { "net": { "type": "number" } }, "required": ["net"] }))
                .unwrap();
        assert!(Rc::ptr_eq(&first, &again), "the same schema is compiled once");
        assert!(again.is_valid(&json!({ "net": 1 })));
        assert!(!again.is_valid(&json!({ "net": "1" })));
        assert!(compiled(&json!({ "type": 12 })).is_err(), "a schema that does not compile is refused");
        assert!(compiled(&json!({ "type": 12 })).is_err(), "and is refused again, not kept");
    }
}
