//! What compiling and validating share: JSON types as the drafts name them, equality of JSON
//! values as the drafts define it (1 equals 1.0), pointers, and the lists the sentences hold.

use serde_json::{Number, Value};

use super::Draft;

/// The seven type names, in the order a sentence lists them.
pub const TYPES: [&str; 7] = ["null", "boolean", "integer", "number", "string", "array", "object"];

/// Keywords whose value is one subschema.
pub const ONE_SCHEMA: [&str; 11] = [
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "items",
];

/// Keywords whose value is a non-empty list of subschemas.
pub const SCHEMA_LISTS: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to subschemas.
pub const SCHEMA_MAPS: [&str; 5] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// Whether `value` is of the type `name` under `draft`.
pub fn is_type(value: &Value, name: &str, draft: Draft) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => match value {
            Value::Number(n) => is_integer(n, draft),
            _ => false,
        },
        _ => false,
    }
}

fn is_integer(n: &Number, draft: Draft) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    // Draft 4 counts 1.0 as a number only; later drafts count it as an integer.
    draft > Draft::Four && n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// A non-negative integer, as `minLength` and its kind hold.
pub fn count(value: &Value) -> Option<u64> {
    match value {
        Value::Number(n) => {
            n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0).map(|f| f as u64))
        }
        _ => None,
    }
}

/// Equality as JSON Schema means it: numbers by their value, objects whatever their order.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => number_eq(x, y),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

fn number_eq(x: &Number, y: &Number) -> bool {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return a == b;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Compares two numbers exactly where both are integers, as floats otherwise.
pub fn compare(x: &Number, y: &Number) -> Option<std::cmp::Ordering> {
    if let (Some(a), Some(b)) = (x.as_i64(), y.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
        return Some(a.cmp(&b));
    }
    // One is negative and the other above i64: their signs decide.
    if let (Some(_), Some(_)) = (x.as_i64(), y.as_u64()) {
        return Some(std::cmp::Ordering::Less);
    }
    if let (Some(_), Some(_)) = (x.as_u64(), y.as_i64()) {
        return Some(std::cmp::Ordering::Greater);
    }
    x.as_f64()?.partial_cmp(&y.as_f64()?)
}

/// `pointer` with one more segment, escaped as RFC 6901 says.
pub fn push(pointer: &str, segment: &str) -> String {
    format!("{pointer}/{}", crate::core::text::pointer_segment(segment))
}

/// `'a', 'b'` as the sentences about unexpected names write them, with the verb after.
pub fn unexpected(names: &[String]) -> String {
    let listed: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    let verb = if names.len() == 1 { "was" } else { "were" };
    format!("{} {verb} unexpected", listed.join(", "))
}

/// The types a `type` keyword names, or `None` where it names none rightly.
pub fn type_names(value: &Value) -> Option<Vec<&str>> {
    match value {
        Value::String(s) if TYPES.contains(&s.as_str()) => Some(vec![s.as_str()]),
        Value::Array(items) if !items.is_empty() => {
            let mut names = Vec::new();
            for item in items {
                let name = item.as_str().filter(|s| TYPES.contains(s))?;
                if names.contains(&name) {
                    return None;
                }
                names.push(name);
            }
            Some(names)
        }
        _ => None,
    }
}

/// `items` in its older form, a list of schemas one per place, which drafts before 2020-12 take.
pub fn tuple_items(schema: &serde_json::Map<String, Value>, draft: Draft) -> Option<&Vec<Value>> {
    match schema.get("items") {
        Some(Value::Array(list)) if draft < Draft::Twenty => Some(list),
        _ => None,
    }
}
