//! JSON Schemas compiled once per isolate. Compiling a schema costs far more than checking a
//! value against it (in WebAssembly the `jsonschema` crate compiles the draft's meta-schema anew
//! for every compile, which took 40% of a `run_definition`), and a function's schemas are checked
//! on every run of it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use jsonschema::{ValidationError, Validator};
use serde_json::Value;

/// How many schemas an isolate keeps compiled; past that, it starts over.
const KEPT: usize = 256;

thread_local! {
    // A Worker isolate is single-threaded and lives across requests; keyed by the schema's text.
    static COMPILED: RefCell<HashMap<String, Rc<Validator>>> = RefCell::new(HashMap::new());
}

/// The schema compiled, as `jsonschema::validator_for` would, from the cache when this isolate
/// compiled the same schema before. A schema that does not compile is not kept.
pub fn compiled(schema: &Value) -> Result<Rc<Validator>, ValidationError<'static>> {
    let key = schema.to_string();
    if let Some(validator) = COMPILED.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(validator);
    }
    let validator = Rc::new(jsonschema::validator_for(schema)?);
    COMPILED.with(|c| {
        let mut kept = c.borrow_mut();
        if kept.len() >= KEPT {
            kept.clear();
        }
        kept.insert(key, Rc::clone(&validator));
    });
    Ok(validator)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_compiles_once_and_checks_alike() {
        let schema = json!({ "type": "object", "properties": { "net": { "type": "number" } }, "required": ["net"] });
        let first = compiled(&schema).unwrap();
        let again = compiled(&json!({ "type": "object", "properties": { "net": { "type": "number" } }, "required": ["net"] })).unwrap();
        assert!(Rc::ptr_eq(&first, &again), "the same schema is compiled once");
        assert!(again.is_valid(&json!({ "net": 1 })));
        assert!(!again.is_valid(&json!({ "net": "1" })));
        assert!(compiled(&json!({ "type": 12 })).is_err(), "a schema that does not compile is refused");
        assert!(compiled(&json!({ "type": 12 })).is_err(), "and is refused again, not kept");
    }
}
