//! JSON Schemas: documents of every keyword and draft, broken ones, and `$ref` chains that fan out.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{json, Map, Value};

use playbook_runtime::core::schema::Schema;

use crate::pieces::json_value;
use crate::{bounded, cases};

// ---- JSON Schemas ----

fn pattern() -> impl Strategy<Value = String> {
    let piece = select(vec![
        "a",
        "[a-z]",
        ".",
        "\\d",
        "\\w+",
        "(a+)+",
        "(?:a|b)*",
        "a{1000}",
        "(?:a{100}){100}",
        "(?:[a-z]{100}){30}",
        "a{0,65535}",
        "^",
        "$",
        "(?i)",
        "\\b",
        "[[:alpha:]]",
        "[^\\x00-\\x7f]",
        "\\u{10FFFF}",
        "x+?",
    ]);
    vec(piece, 1..4).prop_map(|p| p.concat())
}

/// A pattern regex-lite refuses, or one nested past its bound.
fn broken_pattern() -> impl Strategy<Value = String> {
    let piece = select(vec!["(", ")", "[", "\\p{L}", "(?=a)", "\\1", "*", "{2,}", "[z-a]"]);
    prop_oneof![
        (pattern(), piece).prop_map(|(p, b)| p + b),
        (1usize..200).prop_map(|n| format!("{}a{}", "(".repeat(n), ")".repeat(n))),
    ]
}

fn reference() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => select(vec!["#", "#/$defs/f0", "#a0", "#/%24defs/d1"]).prop_map(str::to_string),
        4 => (0usize..6).prop_map(|i| format!("#/$defs/d{i}")),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    select(vec![json!(0), json!(1), json!(10), json!(1_000_000), json!(u64::MAX), json!(1e300)])
}

const COUNTS: [&str; 7] =
    ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains"];

fn schema_leaf() -> impl Strategy<Value = Value> {
    let bounds = select(vec!["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]);
    let types = select(vec!["string", "number", "integer", "object", "array", "boolean", "null"]);
    let formats = select(vec!["date-time", "date", "email", "uri", "ipv4", "ipv6", "uuid", "regex", "hostname", "x"]);
    let small = select(vec![json!(1.5), json!(1e-300), json!(-7), json!(0.1)]);
    prop_oneof![
        select(vec![json!(true), json!(false), json!({})]),
        types.prop_map(|t| json!({ "type": t })),
        (select(COUNTS.to_vec()), number()).prop_map(|(k, n)| json!({ k: n })),
        (bounds, prop_oneof![number(), small]).prop_map(|(k, n)| json!({ k: n })),
        pattern().prop_map(|p| json!({ "pattern": p })),
        formats.prop_map(|f| json!({ "format": f })),
        vec(json_value(), 0..6).prop_map(|e| json!({ "enum": e })),
        json_value().prop_map(|c| json!({ "const": c })),
        reference().prop_map(|r| json!({ "$ref": r })),
        Just(json!({ "uniqueItems": true })),
    ]
}

/// What a compile refuses: one is enough to refuse the whole document.
fn schema_breakage() -> impl Strategy<Value = Value> {
    let odd = select(vec![json!(-1), json!(1.5), json!("3"), json!(null)]);
    prop_oneof![
        select(vec![
            json!(null),
            json!(1),
            json!({ "type": "nope" }),
            json!({ "$anchor": "1x" }),
            json!({ "enum": 1 })
        ]),
        (select(COUNTS.to_vec()), odd).prop_map(|(k, n)| json!({ k: n })),
        broken_pattern().prop_map(|p| json!({ "pattern": p })),
        select(vec!["#/properties/x", "nope.json", "#/definitions/x", "#a9"]).prop_map(|r| json!({ "$ref": r })),
    ]
}

/// Two schemas' keywords in one, so that keywords meet in every combination.
pub(crate) fn merged(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (a, _) => a,
    }
}

pub(crate) fn subschema() -> BoxedStrategy<Value> {
    prop_oneof![40 => schema_leaf(), 1 => schema_breakage()]
        .prop_recursive(6, 64, 4, |inner| {
            let combinator = select(vec!["allOf", "anyOf", "oneOf"]);
            let one = select(vec![
                "not",
                "items",
                "additionalProperties",
                "contains",
                "propertyNames",
                "unevaluatedProperties",
                "unevaluatedItems",
                "additionalItems",
            ]);
            prop_oneof![
                (combinator, vec(inner.clone(), 1..4)).prop_map(|(c, l)| json!({ c: l })),
                (one, inner.clone()).prop_map(|(k, s)| json!({ k: s })),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(i, t, e)| json!({"if": i, "then": t, "else": e})),
                vec(("[a-z]{1,3}", inner.clone()), 0..4).prop_map(|p| {
                    let names: Vec<&String> = p.iter().map(|(n, _)| n).collect();
                    json!({ "properties": p.iter().cloned().collect::<Map<_, _>>(), "required": names })
                }),
                (prop_oneof![20 => pattern(), 1 => broken_pattern()], inner.clone())
                    .prop_map(|(p, s)| json!({ "patternProperties": { p: s } })),
                (select(vec!["prefixItems", "items"]), vec(inner.clone(), 1..4)).prop_map(|(k, l)| json!({ k: l })),
                ("[a-z]{1,3}", inner.clone()).prop_map(|(n, s)| json!({ "dependentSchemas": { n: s } })),
                (select(vec!["a0", "a1"]), inner.clone()).prop_map(|(a, s)| merged(json!({"$anchor": a}), s)),
                (inner.clone(), inner).prop_map(|(a, b)| merged(a, b)),
            ]
        })
        .boxed()
}

/// Definitions that each name the next `width` times: the work of a check fans out.
fn fanning() -> impl Strategy<Value = Vec<(String, Value)>> {
    (select(vec!["allOf", "anyOf", "oneOf"]), 1usize..4, 0usize..40, schema_leaf()).prop_map(
        |(combinator, width, depth, leaf)| {
            let mut defs: Vec<(String, Value)> = (0..depth)
                .map(|i| {
                    (
                        format!("f{i}"),
                        json!({ combinator: vec![json!({"$ref": format!("#/$defs/f{}", i + 1)}); width] }),
                    )
                })
                .collect();
            defs.push((format!("f{depth}"), leaf));
            defs
        },
    )
}

fn schema_document() -> impl Strategy<Value = Value> {
    let draft = prop::option::of(select(vec![
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-04/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://example.com/nope",
    ]));
    (draft, subschema(), vec(subschema(), 6..7), fanning(), any::<bool>()).prop_map(
        |(draft, root, defs, fan, use_fan)| {
            let mut root = match root {
                Value::Object(o) => o,
                other => Map::from_iter([("allOf".to_string(), json!([other]))]),
            };
            let mut all: Map<String, Value> = defs.into_iter().enumerate().map(|(i, d)| (format!("d{i}"), d)).collect();
            all.extend(fan);
            if use_fan {
                root.insert("$ref".into(), json!("#/$defs/f0"));
            }
            if let Some(d) = draft {
                root.insert("$schema".into(), json!(d));
            }
            root.insert("$defs".into(), Value::Object(all));
            Value::Object(root)
        },
    )
}

proptest! {
    #![proptest_config(cases(128))]

    /// A document's schema compiled when it is saved, then a value checked against it as a run's
    /// input is, both ways the runtime asks.
    #[test]
    fn schemas_compile_and_check_within_bounds(schema in schema_document(), value in json_value()) {
        if let Ok(compiled) = bounded(|| Schema::compile(&schema))? {
            bounded(|| compiled.iter_errors(&value).count())?;
            bounded(|| compiled.is_valid(&value))?;
        }
    }
}
