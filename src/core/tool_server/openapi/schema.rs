//! The schemas of an OpenAPI document as JSON Schema 2020-12, which a tool's input schema is:
//! each `$ref` within the document inlined, within bounds, and what OpenAPI 3.0 says its own way
//! (`nullable`, boolean `exclusiveMinimum`) said as JSON Schema says it.
//!
//! Only JSON Schema's own keywords are kept, and only with values of their kind: OpenAPI's
//! (`discriminator`, `xml`, `externalDocs`, `example`) and `x-` extensions trip strict validators
//! and model providers, and a 3.0 document's slips (`required: true` on a property, `type: file`)
//! would keep the schema from compiling.

use serde_json::{json, Map, Value};

use super::{segment, Refusal};
use crate::core::access::oauth::form::decode;

/// How many `$ref`s are followed one inside another. A recursive schema unfolds this deep and
/// ends in a schema that takes anything, described as cut.
pub const REF_DEPTH_MAX: usize = 8;
/// How deep one schema nests, and how many values one tool's input schema holds, before the rest
/// is cut: a document of many references to references would otherwise inline without end.
const NESTING_MAX: usize = 64;
const TOOL_VALUES_MAX: usize = 10_000;
/// How many values the input schemas of one document hold in all, so that what an isolate keeps
/// of a document stays within a Worker's memory.
pub const DOCUMENT_VALUES_MAX: usize = 200_000;
/// How many references a parameter or request body may go through to reach its object.
const HOPS_MAX: usize = 8;

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
];
/// Keywords whose value is a list of schemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value is a map of schemas by name.
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];
const TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array", "null"];

/// The object a `$ref` leads to, through references to references, with its place.
pub fn follow<'a>(root: &'a Value, value: &'a Value, at: String) -> Result<(&'a Value, String), Refusal> {
    let (mut value, mut at) = (value, at);
    for _ in 0..HOPS_MAX {
        let Some(reference) = value.get("$ref") else {
            return Ok((value, at));
        };
        let place = format!("{at}/$ref");
        let pointer = local(reference, &place)?;
        value = root.pointer(&pointer).ok_or_else(|| broken(reference, &place))?;
        at = pointer;
    }
    Err(Refusal::at(at, format!("leads through more than {HOPS_MAX} references, or round in a circle")))
}

/// The JSON pointer a `$ref` names within the document, or why it names none.
fn local(reference: &Value, at: &str) -> Result<String, Refusal> {
    let text = reference.as_str().ok_or_else(|| Refusal::at(at, "is not a string"))?;
    let Some(fragment) = text.strip_prefix('#') else {
        return Err(Refusal::at(
            at,
            format!("is {text}, in another document, which the runtime does not fetch; put what it names under components in this document"),
        ));
    };
    // The fragment is a URI's: `%7B` is `{`. A `+` is itself there, which a form would read as a space.
    let pointer = decode(&fragment.replace('+', "%2B")).map_err(|_| broken(reference, at))?;
    if !pointer.starts_with('/') {
        return Err(Refusal::at(
            at,
            format!("is {text}, which names no place in the document such as #/components/schemas/Pet"),
        ));
    }
    Ok(pointer)
}

fn broken(reference: &Value, at: &str) -> Refusal {
    Refusal::at(at, format!("is {}, which names nothing in the document", reference.as_str().unwrap_or("")))
}

/// Inlines the schemas of a document's tools, one tool after another, counting the values it
/// makes against the bounds.
pub struct Inliner<'a> {
    pub root: &'a Value,
    /// Values made for the tool at hand, and for the whole document.
    tool: usize,
    document: usize,
    depth: usize,
    refs: usize,
}

impl<'a> Inliner<'a> {
    pub fn new(root: &'a Value) -> Inliner<'a> {
        Inliner { root, tool: 0, document: 0, depth: 0, refs: 0 }
    }

    /// Starts on the schemas of the next tool.
    pub fn next_tool(&mut self) {
        self.tool = 0;
    }

    /// Whether the document's schemas have made all the values the runtime keeps of one.
    pub fn spent(&self) -> bool {
        self.document >= DOCUMENT_VALUES_MAX
    }

    fn spend(&mut self, values: usize) {
        self.tool += values;
        self.document += values;
    }

    /// `schema`, found at `at` in the document, as a JSON Schema 2020-12 without references.
    pub fn schema(&mut self, schema: &Value, at: &str) -> Result<Value, Refusal> {
        self.spend(1);
        if self.tool > TOOL_VALUES_MAX || self.spent() || self.depth >= NESTING_MAX {
            return Ok(cut("the schema is larger than the runtime inlines"));
        }
        self.depth += 1;
        let inlined = self.inline(schema, at);
        self.depth -= 1;
        inlined
    }

    fn inline(&mut self, schema: &Value, at: &str) -> Result<Value, Refusal> {
        let map = match schema {
            Value::Bool(_) => return Ok(schema.clone()),
            Value::Object(map) => map,
            _ => return Err(Refusal::at(at, "is not a schema: an object, or true or false")),
        };
        let Some(reference) = map.get("$ref") else {
            return self.object(map, at);
        };
        let place = format!("{at}/$ref");
        let pointer = local(reference, &place)?;
        let target = self.root.pointer(&pointer).ok_or_else(|| broken(reference, &place))?;
        let inlined = if self.refs >= REF_DEPTH_MAX {
            cut(&format!("it goes through more than {REF_DEPTH_MAX} references, as a recursive schema does"))
        } else {
            self.refs += 1;
            let inlined = self.schema(target, &pointer);
            self.refs -= 1;
            inlined?
        };
        // Words beside a `$ref` (3.1 allows them; 3.0 documents write them anyway) say more of
        // the schema it names; other keywords narrow it, as `allOf` does.
        let mut beside = map.clone();
        beside.remove("$ref");
        let nullable = beside.remove("nullable").and_then(|n| n.as_bool()).unwrap_or(false);
        let beside = match self.object(&beside, at)? {
            Value::Object(beside) => beside,
            _ => Map::new(),
        };
        let merged = match inlined {
            Value::Object(mut inlined) if beside.keys().all(|k| is_annotation(k)) => {
                inlined.extend(beside);
                Value::Object(inlined)
            }
            inlined if beside.is_empty() => inlined,
            inlined => {
                let mut all = beside;
                all.insert("allOf".into(), json!([inlined]));
                Value::Object(all)
            }
        };
        Ok(if nullable { or_null(merged) } else { merged })
    }

    /// An object schema without `$ref`: its subschemas inlined, its keywords kept or said anew.
    fn object(&mut self, map: &Map<String, Value>, at: &str) -> Result<Value, Refusal> {
        let mut out = Map::new();
        let mut read_only = Vec::new();
        for (key, value) in map {
            let here = format!("{at}/{}", segment(key));
            let key = key.as_str();
            if ONE.contains(&key) {
                out.insert(key.into(), self.schema(value, &here)?);
            } else if LIST.contains(&key) || (key == "items" && value.is_array()) {
                let Some(list) = value.as_array() else { continue };
                let mut inlined = Vec::with_capacity(list.len());
                for (i, item) in list.iter().enumerate() {
                    inlined.push(self.schema(item, &format!("{here}/{i}"))?);
                }
                // Draft 4's list of `items` is 2020-12's `prefixItems`.
                out.insert(if key == "items" { "prefixItems" } else { key }.into(), Value::Array(inlined));
            } else if key == "items" {
                out.insert(key.into(), self.schema(value, &here)?);
            } else if MAP.contains(&key) {
                let Some(named) = value.as_object() else { continue };
                let mut inlined = Map::new();
                for (name, schema) in named {
                    let schema = self.schema(schema, &format!("{here}/{}", segment(name)))?;
                    // What the API writes itself is not asked of whoever calls it.
                    if key == "properties" && schema.get("readOnly") == Some(&Value::Bool(true)) {
                        read_only.push(name.clone());
                        continue;
                    }
                    inlined.insert(name.clone(), schema);
                }
                out.insert(key.into(), Value::Object(inlined));
            } else if let Some(kept) = keyword(key, value, map) {
                // An `enum` or a `default` is copied wherever its schema is inlined.
                self.spend(weight(&kept));
                out.insert(key.into(), kept);
            }
        }
        if let Some(Value::Array(required)) = out.get_mut("required") {
            required.retain(|r| r.as_str().is_none_or(|r| !read_only.iter().any(|n| n == r)));
        }
        let nullable = map.get("nullable").and_then(Value::as_bool).unwrap_or(false);
        Ok(if nullable { or_null(Value::Object(out)) } else { Value::Object(out) })
    }
}

/// A keyword that holds no schema, as JSON Schema 2020-12 has it, or `None` to leave it out.
fn keyword(key: &str, value: &Value, map: &Map<String, Value>) -> Option<Value> {
    let number = || value.is_number().then(|| value.clone());
    let count = || value.as_u64().map(Value::from);
    match key {
        "type" => types(value),
        "enum" | "examples" => value.is_array().then(|| value.clone()),
        "const" | "default" => Some(value.clone()),
        "title" | "description" | "format" | "pattern" | "contentMediaType" | "contentEncoding" => {
            value.is_string().then(|| value.clone())
        }
        "deprecated" | "readOnly" | "writeOnly" | "uniqueItems" => value.is_boolean().then(|| value.clone()),
        "required" => value.as_array().map(|r| Value::Array(r.iter().filter(|n| n.is_string()).cloned().collect())),
        "dependentRequired" => value.is_object().then(|| value.clone()),
        "multipleOf" => value.as_f64().filter(|m| *m > 0.0).map(|_| value.clone()),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" | "minContains"
        | "maxContains" => count(),
        // OpenAPI 3.0 writes an exclusive bound as `minimum: 5, exclusiveMinimum: true`; 2020-12
        // as `exclusiveMinimum: 5`.
        "minimum" | "maximum" if map.get(&format!("exclusive{}", capital(key))) == Some(&Value::Bool(true)) => None,
        "minimum" | "maximum" => number(),
        "exclusiveMinimum" | "exclusiveMaximum" => match value {
            Value::Bool(true) => {
                map.get(&key["exclusive".len()..].to_ascii_lowercase()).filter(|b| b.is_number()).cloned()
            }
            _ => number(),
        },
        _ => None,
    }
}

fn capital(key: &str) -> String {
    let mut chars = key.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// The JSON Schema types of `type`; `file`, a Swagger 2.0 type some 3.0 documents keep, is a string.
fn types(value: &Value) -> Option<Value> {
    let known = |t: &Value| match t.as_str() {
        Some("file") => Some(Value::from("string")),
        Some(t) if TYPES.contains(&t) => Some(Value::from(t)),
        _ => None,
    };
    match value {
        Value::Array(list) => {
            let mut kept: Vec<Value> = Vec::new();
            for t in list.iter().filter_map(known) {
                if !kept.contains(&t) {
                    kept.push(t);
                }
            }
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        one => known(one),
    }
}

/// How many values `value` holds, itself among them.
fn weight(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(weight).sum::<usize>(),
        Value::Object(map) => 1 + map.values().map(weight).sum::<usize>(),
        _ => 1,
    }
}

/// Keywords that describe a schema without narrowing it.
fn is_annotation(key: &str) -> bool {
    matches!(key, "title" | "description" | "default" | "examples" | "deprecated" | "readOnly" | "writeOnly")
}

/// OpenAPI 3.0's `nullable: true`: the schema, or null.
fn or_null(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if map.is_empty() {
        return Value::Object(map);
    }
    let null = Value::from("null");
    match map.get_mut("type") {
        Some(Value::Array(types)) => {
            if !types.contains(&null) {
                types.push(null.clone());
            }
        }
        Some(one) => *one = json!([one.clone(), "null"]),
        None => return json!({ "anyOf": [Value::Object(map), { "type": "null" }] }),
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
    Value::Object(map)
}

/// Where a schema is cut: any value is taken there, and the description says why.
fn cut(why: &str) -> Value {
    json!({ "description": format!("Cut here, so any value is taken: {why}.") })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inlined(root: &Value, at: &str) -> Result<Value, Refusal> {
        let schema = root.pointer(at).unwrap();
        Inliner::new(root).schema(schema, at)
    }

    #[test]
    fn openapi_3_0_words_become_json_schema() {
        let root = json!({ "s": {
            "type": "integer", "minimum": 1, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false,
            "nullable": true, "enum": [1, 2], "example": 1, "xml": { "name": "n" }, "x-internal": true,
            "discriminator": { "propertyName": "kind" }, "externalDocs": { "url": "https://x" }
        }});
        assert_eq!(
            inlined(&root, "/s").unwrap(),
            json!({ "type": ["integer", "null"], "exclusiveMinimum": 1, "maximum": 9, "enum": [1, 2, null] })
        );
        let root = json!({ "s": { "properties": { "a": { "type": "file", "required": true }, "id": { "type": "string", "readOnly": true } }, "required": ["id", "a"] } });
        assert_eq!(
            inlined(&root, "/s").unwrap(),
            json!({ "properties": { "a": { "type": "string" } }, "required": ["a"] })
        );
    }

    #[test]
    fn references_inline_with_words_beside_them() {
        let root = json!({
            "components": { "schemas": {
                "Id": { "type": "string", "format": "uuid" },
                "a~b/c": { "type": "boolean" }
            }},
            "s": { "properties": {
                "id": { "$ref": "#/components/schemas/Id", "description": "The pet's id." },
                "odd": { "$ref": "#/components/schemas/a~0b~1c" },
                "maybe": { "$ref": "#/components/schemas/Id", "nullable": true },
                "narrow": { "$ref": "#/components/schemas/Id", "maxLength": 36 }
            }}
        });
        let s = inlined(&root, "/s").unwrap();
        assert_eq!(
            s["properties"]["id"],
            json!({ "type": "string", "format": "uuid", "description": "The pet's id." })
        );
        assert_eq!(s["properties"]["odd"], json!({ "type": "boolean" }));
        assert_eq!(s["properties"]["maybe"]["type"], json!(["string", "null"]));
        assert_eq!(
            s["properties"]["narrow"],
            json!({ "maxLength": 36, "allOf": [{ "type": "string", "format": "uuid" }] })
        );
    }

    #[test]
    fn a_recursive_schema_ends_where_it_is_cut() {
        let root = json!({ "components": { "schemas": { "Node": {
            "type": "object", "properties": { "child": { "$ref": "#/components/schemas/Node" } }
        }}}});
        let s = inlined(&root, "/components/schemas/Node").unwrap();
        let mut deepest = &s;
        for _ in 0..REF_DEPTH_MAX {
            deepest = &deepest["properties"]["child"];
            assert_eq!(deepest["type"], "object");
        }
        let cut = &deepest["properties"]["child"];
        assert!(cut["description"].as_str().unwrap().starts_with("Cut here"), "{cut}");
        assert!(crate::core::schema::Schema::compile(&s).is_ok());
    }

    #[test]
    fn a_schema_that_inlines_into_too_much_is_cut_and_so_is_a_document() {
        // Each level names the next twice: 2^20 copies of the last, unbounded.
        let mut schemas = Map::new();
        for level in 0..20 {
            let next = json!({ "$ref": format!("#/s/{}", level + 1) });
            schemas.insert(level.to_string(), json!({ "properties": { "a": next, "b": next } }));
        }
        schemas.insert("20".into(), json!({ "enum": (0..100).collect::<Vec<_>>() }));
        let root = json!({ "s": schemas });
        let mut inliner = Inliner::new(&root);
        let s = inliner.schema(&root["s"]["0"], "/s/0").unwrap();
        assert!(weight(&s) < 2 * TOOL_VALUES_MAX, "{}", weight(&s));
        assert!(s.to_string().contains("Cut here"));
        while !inliner.spent() {
            inliner.next_tool();
            inliner.schema(&root["s"]["0"], "/s/0").unwrap();
        }
        assert!(inliner.document < DOCUMENT_VALUES_MAX + 2 * TOOL_VALUES_MAX);
    }

    #[test]
    fn references_elsewhere_or_to_nothing_are_refused_at_their_place() {
        let root = json!({ "s": { "items": { "$ref": "other.yaml#/Pet" } }, "t": { "items": { "$ref": "#/components/schemas/Gone" } } });
        let r = inlined(&root, "/s").unwrap_err();
        assert_eq!(r.pointer, "/s/items/$ref");
        assert!(r.detail.contains("another document"), "{}", r.detail);
        let r = inlined(&root, "/t").unwrap_err();
        assert_eq!(r.pointer, "/t/items/$ref");
        assert!(r.detail.contains("names nothing"), "{}", r.detail);
        let loop_ = json!({ "a": { "$ref": "#/b" }, "b": { "$ref": "#/a" } });
        assert!(follow(&loop_, &loop_["a"], "/a".into()).unwrap_err().detail.contains("circle"));
    }
}
