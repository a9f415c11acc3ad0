//! The small shapes every section of the document is made of: a reference to a named schema, a
//! described text, time or actor, a page's cursor, and a state's own fields.

use serde_json::{json, Value};

/// A `$ref` to one of these schemas.
pub fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

pub fn text(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

pub fn time(description: &str) -> Value {
    json!({ "type": "string", "format": "date-time", "description": description })
}

pub fn by(description: &str) -> Value {
    json!({ "allOf": [reference("Actor")], "description": description })
}

pub fn page_cursor() -> Value {
    json!({ "type": ["string", "null"], "description": "Pass it as cursor to read the next page; null on the last page." })
}

/// Where `field` is `value`, the record also carries `required`: a state's own fields. Each part
/// names its type, as strict validators (ajv's strictTypes) ask.
pub fn when(field: &str, value: &str, required: &[&str]) -> Value {
    json!({
        "if": { "type": "object", "properties": { field: { "const": value } }, "required": [field] },
        "then": { "type": "object", "required": required }
    })
}
