//! A tool's arguments as a table a person reads, from the input schema the connection lists:
//! each argument's name (a nested one as `parent.child`, an item of a list as `list[].child`),
//! its type, whether it is required, its description and its limits.

use serde_json::{Map, Value};

use crate::api::sign_in_pages::escape;

/// The table of `schema`'s properties, or the sentence that says the tool takes none.
pub fn table(schema: &Value) -> String {
    let mut rows = String::new();
    rows_of(schema, "", &mut rows);
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    if rows.is_empty() {
        return "<p class=\"quiet\">It takes no arguments.</p>".to_string();
    }
    let closing = if closed { "<p class=\"quiet\">It takes no other argument.</p>" } else { "" };
    format!(
        "<table class=\"args\"><thead><tr><th scope=\"col\">Argument</th><th scope=\"col\">Type</th><th scope=\"col\">Required</th><th scope=\"col\">Description</th><th scope=\"col\">Limits</th></tr></thead><tbody>{rows}</tbody></table>{closing}"
    )
}

/// One row per property of an object schema, then the rows of its nested objects.
fn rows_of(schema: &Value, prefix: &str, out: &mut String) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required = names(schema.get("required"));
    for (name, prop) in props {
        let path = format!("{prefix}{name}");
        let is_required = required.iter().any(|r| r == name);
        out.push_str(&format!(
            "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&path),
            escape(&type_of(prop)),
            if is_required { "required" } else { "optional" },
            escape(prop.get("description").and_then(Value::as_str).unwrap_or_default()),
            limits(prop),
        ));
        rows_of(prop, &format!("{path}."), out);
        if let Some(items) = prop.get("items") {
            rows_of(items, &format!("{path}[]."), out);
        }
    }
}

fn names(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// `string`, `integer or null`, `array of string`, `one of: string, object`, or `any`.
pub fn type_of(schema: &Value) -> String {
    let Some(obj) = schema.as_object() else {
        return "any".into();
    };
    let one = |t: &str| match t {
        "array" => match obj.get("items") {
            Some(items) => format!("array of {}", type_of(items)),
            None => "array".into(),
        },
        other => other.to_string(),
    };
    match obj.get("type") {
        Some(Value::String(t)) => one(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(one).collect::<Vec<_>>().join(" or "),
        _ => {
            for key in ["oneOf", "anyOf"] {
                if let Some(Value::Array(options)) = obj.get(key) {
                    let kinds: Vec<String> = options.iter().map(type_of).collect();
                    return format!("one of: {}", kinds.join(", "));
                }
            }
            if obj.contains_key("const") {
                "constant".into()
            } else if obj.contains_key("enum") {
                "one of the values listed".into()
            } else {
                "any".into()
            }
        }
    }
}

/// The limits a schema sets, each in words with its values as code.
fn limits(schema: &Value) -> String {
    let Some(obj) = schema.as_object() else {
        return String::new();
    };
    let mut said: Vec<String> = Vec::new();
    if let Some(range) = range(obj, "minLength", "maxLength", "characters") {
        said.push(range);
    }
    if let Some(range) = range(obj, "minItems", "maxItems", "items") {
        said.push(range);
    }
    if let Some(range) = range(obj, "minProperties", "maxProperties", "keys") {
        said.push(range);
    }
    for (key, words) in [
        ("minimum", "at least"),
        ("exclusiveMinimum", "more than"),
        ("maximum", "at most"),
        ("exclusiveMaximum", "less than"),
        ("multipleOf", "a multiple of"),
        ("pattern", "matches"),
        ("format", "format"),
        ("const", "always"),
        ("default", "default"),
    ] {
        if let Some(v) = obj.get(key) {
            said.push(format!("{words} {}", code(v)));
        }
    }
    if let Some(Value::Array(values)) = obj.get("enum") {
        let values: Vec<String> = values.iter().map(code).collect();
        said.push(format!("one of {}", values.join(", ")));
    }
    if obj.get("uniqueItems") == Some(&Value::Bool(true)) {
        said.push("no item twice".into());
    }
    if obj.get("additionalProperties") == Some(&Value::Bool(false)) && obj.contains_key("properties") {
        said.push("no other keys".into());
    }
    let each = obj.get("items").map(limits).unwrap_or_default();
    if !each.is_empty() {
        said.push(format!("each item: {each}"));
    }
    said.join("; ")
}

/// `1 to 64 characters`, `at most 64 characters` or `at least 1 characters`.
fn range(obj: &Map<String, Value>, min: &str, max: &str, unit: &str) -> Option<String> {
    match (obj.get(min), obj.get(max)) {
        (Some(lo), Some(hi)) => Some(format!("{} to {} {unit}", code(lo), code(hi))),
        (Some(lo), None) => Some(format!("at least {} {unit}", code(lo))),
        (None, Some(hi)) => Some(format!("at most {} {unit}", code(hi))),
        (None, None) => None,
    }
}

/// A value as JSON in `<code>`, escaped: a string keeps its quotes, so `"1"` differs from `1`.
fn code(v: &Value) -> String {
    format!("<code>{}</code>", escape(&v.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_becomes_rows_with_types_limits_and_nested_names() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "minLength": 1, "maxLength": 64, "description": "The <b>name</b>." },
                "tags": { "type": ["array", "null"], "items": { "type": "string", "enum": ["a", "b"] }, "maxItems": 3 },
                "limit": { "type": "integer", "minimum": 1, "maximum": 100, "default": 25 },
                "where": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }
            },
            "required": ["name"],
            "additionalProperties": false
        });
        let html = table(&schema);
        assert!(html.contains("<code>name</code></th><td>string</td><td>required</td><td>The &lt;b&gt;name&lt;/b&gt;.</td><td><code>1</code> to <code>64</code> characters</td>"), "{html}");
        assert!(html.contains("<td>array of string or null</td><td>optional</td>"), "{html}");
        assert!(html.contains("at most <code>3</code> items; each item: one of <code>&quot;a&quot;</code>, <code>&quot;b&quot;</code>"), "{html}");
        assert!(html.contains("at least <code>1</code>; at most <code>100</code>; default <code>25</code>"), "{html}");
        assert!(html.contains("<code>where.city</code></th><td>string</td><td>required</td>"), "{html}");
        assert!(html.contains("It takes no other argument."));
        assert_eq!(
            table(&json!({ "type": "object", "properties": {} })),
            "<p class=\"quiet\">It takes no arguments.</p>"
        );
    }
}
