//! The validator against what the `jsonschema` crate (0.61.2), which it replaced, said of the
//! same schemas and values (`tests/fixtures/schema/recorded.json`: each case's schema, values,
//! and the refusal or the misfits recorded), then each keyword, hostile schemas, and the cache.

use std::rc::Rc;

use serde_json::{json, Value};

use super::*;

/// Cases whose answer changed on purpose, with the answer now given.
fn changed(name: &str) -> Option<Value> {
    Some(match name {
        // regex-lite has no look-around or back-references: such a pattern is refused at save.
        "pattern lookahead" => json!({"pointer": "/pattern", "message": "\"^(?=.*\\\\d).+$\" is not a \"regex\""}),
        "pattern backref" => json!({"pointer": "/pattern", "message": "\"^(a)\\\\1$\" is not a \"regex\""}),
        // The crate's words named its own cargo features and registries.
        "ref remote" => {
            json!({"pointer": "/$ref", "message": "Resource 'https://example.com/schema.json' is not present in this schema; schemas elsewhere are not fetched"})
        }
        "unknown $schema" => {
            json!({"pointer": "", "message": "Unknown meta-schema: 'https://example.com/nope'. A schema may name drafts 4, 6 and 7, 2019-09 and 2020-12 of JSON Schema"})
        }
        // regex-lite refuses a range written backwards wherever the pattern is; the crate did
        // only where a value met it.
        "bad pattern deep" => json!({"pointer": "/$defs/a/items/pattern", "message": "\"[z-a]\" is not a \"regex\""}),
        // The pointer now goes to the `$ref` that leads nowhere.
        "ref missing" => json!({"pointer": "/$ref", "message": "Pointer '/$defs/nope' does not exist"}),
        _ => return None,
    })
}

/// Cases that compile alike but whose misfits changed on purpose: each value's misfits now.
fn changed_misfits(name: &str) -> Option<Value> {
    Some(match name {
        // regex-lite reads `[[:alpha:]]` as the POSIX class of ASCII letters, where ECMA-262
        // reads a class of `[`, `:` and five letters followed by `]`.
        "pattern class" => json!([[]]),
        _ => return None,
    })
}

fn said(e: &Invalid) -> Value {
    let mut o = json!({"pointer": e.pointer, "message": e.message});
    match &e.kind {
        InvalidKind::Required(name) => o["kind"] = json!({ "required": name }),
        InvalidKind::Additional(names) => o["kind"] = json!({ "unexpected": names }),
        InvalidKind::Other => {}
    }
    o
}

#[test]
fn says_what_the_crate_it_replaced_said() {
    let cases: Vec<Value> = serde_json::from_str(include_str!("../../../tests/fixtures/schema/recorded.json")).unwrap();
    let mut wrong = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let compiled = Schema::compile(&case["schema"]);
        let refused = changed(name).or_else(|| case.get("refused").cloned());
        match (compiled, refused) {
            (Err(e), Some(expected)) => {
                let got = json!({"pointer": e.pointer, "message": e.message});
                if got != expected {
                    wrong.push(format!("{name}: refused {got}, expected {expected}"));
                }
            }
            (Err(e), None) => wrong.push(format!("{name}: refused ({e}) but the crate compiled it")),
            (Ok(_), Some(expected)) => wrong.push(format!("{name}: compiled, expected refusal {expected}")),
            (Ok(schema), None) => {
                let recorded = changed_misfits(name).unwrap_or_else(|| case["errors"].clone());
                for (value, expected) in case["instances"].as_array().unwrap().iter().zip(recorded.as_array().unwrap())
                {
                    let got: Vec<Value> = schema.iter_errors(value).map(|e| said(&e)).collect();
                    assert_eq!(schema.is_valid(value), got.is_empty(), "{name}: {value}");
                    if &Value::Array(got.clone()) != expected {
                        wrong.push(format!("{name}: {value} gave {}, expected {expected}", Value::Array(got)));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases differ:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

fn errors(schema: Value, value: Value) -> Vec<(String, String)> {
    Schema::compile(&schema).unwrap().iter_errors(&value).map(|e| (e.pointer, e.message)).collect()
}

#[test]
fn nested_pointers_escape_their_segments() {
    let schema = json!({"properties": {"a/b": {"items": {"properties": {"c~d": {"type": "integer"}}}}}});
    let found = errors(schema, json!({"a/b": [{"c~d": 1}, {"c~d": "x"}]}));
    assert_eq!(found, vec![("/a~1b/1/c~0d".to_string(), "\"x\" is not of type \"integer\"".to_string())]);
}

#[test]
fn a_missing_and_an_unexpected_property_name_their_property() {
    let schema = Schema::compile(&json!({"required": ["a"], "additionalProperties": false})).unwrap();
    let kinds: Vec<InvalidKind> = schema.iter_errors(&json!({"b": 1, "c": 2})).map(|e| e.kind).collect();
    assert_eq!(kinds, vec![InvalidKind::Required("a".into()), InvalidKind::Additional(vec!["b".into(), "c".into()])]);
}

#[test]
fn formats_are_assertions_only_in_the_older_drafts() {
    let old = |format: &str| json!({"$schema": "http://json-schema.org/draft-07/schema#", "format": format});
    for (format, good, bad) in [
        ("date", "2024-02-29", "2023-02-29"),
        ("date-time", "2024-01-02T03:04:05.5+01:00", "2024-01-02T03:04:05"),
        ("time", "23:59:60Z", "23:59:60+01:00"),
        ("email", "a+b@example.com", "a..b@example.com"),
        ("email", "x@[127.0.0.1]", "x@[999.0.0.1]"),
        ("uri", "urn:isbn:0451450523", "no scheme"),
        ("uri-reference", "../a%20b", "%zz"),
        ("hostname", "a-b.example", "a..b"),
        ("ipv4", "0.0.0.0", "1.2.3.4.5"),
        ("ipv6", "2001:db8::1", "2001:db8:::1"),
        ("json-pointer", "", "x"),
        ("relative-json-pointer", "0/a", "01/a"),
        ("uri-template", "/users/{id}", "/users/{id"),
        ("regex", "a|b", "a)"),
    ] {
        let schema = Schema::compile(&old(format)).unwrap();
        assert!(schema.is_valid(&json!(good)), "{format}: {good}");
        assert!(!schema.is_valid(&json!(bad)), "{format}: {bad}");
        assert!(Schema::compile(&json!({"format": format})).unwrap().is_valid(&json!(bad)), "2020-12 annotates");
    }
    assert!(Schema::compile(&old("no-such-format")).unwrap().is_valid(&json!("x")));
}

#[test]
fn refs_reach_defs_anchors_ids_and_the_root() {
    let schema = json!({
        "$id": "https://example.com/tree",
        "$defs": {"leaf": {"$anchor": "leaf", "type": "string"}, "id": {"$id": "node.json", "type": "object", "required": ["v"]}},
        "type": "object",
        "required": ["v"],
        "properties": {"v": {"$ref": "#leaf"}, "kids": {"type": "array", "items": {"$ref": "#"}}, "n": {"$ref": "node.json"}},
    });
    let found = errors(schema, json!({"v": "a", "kids": [{"v": 1}, {"v": "b", "kids": [{}]}], "n": {}}));
    assert_eq!(
        found,
        vec![
            ("/kids/0/v".into(), "1 is not of type \"string\"".into()),
            ("/kids/1/kids/0".into(), "\"v\" is a required property".into()),
            ("/n".into(), "\"v\" is a required property".into()),
        ]
    );
}

#[test]
fn hostile_schemas_are_refused_or_bounded_never_a_panic() {
    // A schema nested past the bound is refused where it goes too deep.
    let mut deep = json!({"type": "string"});
    for _ in 0..200 {
        deep = json!({ "items": deep });
    }
    let e = Schema::compile(&deep).err().unwrap();
    assert!(e.message.contains("nested more than"), "{e}");
    // Loops of `$ref` with no value between them constrain nothing, and end.
    for schema in [
        json!({"$ref": "#"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"anyOf": [{"$ref": "#"}], "unevaluatedProperties": false}),
        json!({"allOf": [{"$ref": "#"}], "unevaluatedItems": false, "not": {"$ref": "#"}}),
    ] {
        let compiled = Schema::compile(&schema).unwrap();
        let _ = compiled.iter_errors(&json!({"a": [1, {"b": 2}]})).count();
        let _ = compiled.is_valid(&json!([1, 2]));
    }
    // A recursive schema over a value deeper than the bound says so instead of overflowing.
    let mut value = json!(1);
    for _ in 0..300 {
        value = json!([value]);
    }
    let list = Schema::compile(&json!({"items": {"$ref": "#"}})).unwrap();
    assert!(list.iter_errors(&value).any(|e| e.message.contains("nested more than")));
    // Patterns past regex-lite's bounds are refused, not run.
    let nested = format!("{}a{}", "(".repeat(100), ")".repeat(100));
    assert!(Schema::compile(&json!({"pattern": nested})).is_err());
    assert!(Schema::compile(&json!({"pattern": "a{1000}{1000}"})).is_err());
    // A `$ref` into what is not a schema is checked as one: refused where it is not.
    let odd = Schema::compile(&json!({"properties": {"type": {"const": 1}}, "$ref": "#/properties"})).err().unwrap();
    assert_eq!(odd.pointer, "/properties/type");
    let odd = Schema::compile(&json!({"properties": {"x": {"const": 1}}, "$ref": "#/properties"})).unwrap();
    let _ = odd.iter_errors(&json!({"x": 2})).count();
    // Huge numbers and odd values are compared without overflow.
    let numbers = Schema::compile(&json!({"multipleOf": 1e-300, "maximum": 1e308, "minimum": -1e308})).unwrap();
    for n in [json!(1e308), json!(u64::MAX), json!(i64::MIN), json!(0.1)] {
        let _ = numbers.is_valid(&n);
    }
    assert!(!Schema::compile(&json!({"multipleOf": 3})).unwrap().is_valid(&json!(i64::MIN + 1)));
}

/// Definitions that each name the next twice: 2^`depth` leaves of `leaf` from a small schema.
fn fanning(combinator: &str, depth: usize, leaf: Value) -> Schema {
    let mut defs = serde_json::Map::new();
    for i in 0..depth {
        let next = json!({ "$ref": format!("#/$defs/d{}", i + 1) });
        defs.insert(format!("d{i}"), json!({ combinator: [next, next] }));
    }
    defs.insert(format!("d{depth}"), leaf);
    Schema::compile(&json!({ "$defs": defs, "$ref": "#/$defs/d0" })).unwrap()
}

#[test]
fn a_check_stops_within_its_budget_and_refuses_the_value() {
    let costly = |errors: Vec<Invalid>| errors.last().is_some_and(|e| e.message.contains("too costly"));
    let all = fanning("allOf", 30, json!({ "type": "string" }));
    assert!(costly(all.iter_errors(&json!(1)).collect()));
    assert!(!all.is_valid(&json!(1)));
    let any = fanning("anyOf", 30, json!({ "maxLength": 0 }));
    assert!(!any.is_valid(&json!("x".repeat(1000))));
    let none_kept = fanning("allOf", 30, json!(true));
    assert!(!none_kept.is_valid(&json!("x")), "a walk that only passes is bounded too");
    // A pattern of many states over a long string: its match would take seconds.
    let heavy = Schema::compile(&json!({ "pattern": "(?:a{1000}){30}" })).unwrap();
    assert!(costly(heavy.iter_errors(&json!("a".repeat(60_000))).collect()));
    // What a real value costs stays well inside it.
    let small = Schema::compile(&json!({ "pattern": "^a+$" })).unwrap();
    assert!(small.is_valid(&json!("a".repeat(1 << 20))));
    let rows = Schema::compile(&json!({
        "type": "array", "uniqueItems": true,
        "items": { "type": "object", "properties": { "n": { "type": "integer" }, "s": { "enum": ["a", "b"] } } }
    }))
    .unwrap();
    let many: Vec<Value> = (0..10_000).map(|n| json!({ "n": n, "s": "a" })).collect();
    assert!(rows.is_valid(&json!(many)));
    // Comparing a large value costs its size, each time a fanning $ref compares it again: one item
    // of 50,000 numbers, made unique or matched to an enum 2^30 times, would never end.
    let big = json!([(0..50_000).collect::<Vec<u32>>()]);
    let started = std::time::Instant::now();
    for rule in [json!({ "uniqueItems": true }), json!({ "enum": [big.clone()] }), json!({ "const": big.clone() })] {
        let schema = fanning("allOf", 30, rule);
        assert!(costly(schema.iter_errors(&big).collect()));
        assert!(!schema.is_valid(&big));
    }
    assert!(started.elapsed().as_secs() < 60, "the budget ended each check");
}

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

#[test]
fn references_resolve_against_their_base_as_the_url_crate_resolves_them() {
    let bases = [
        "http://a/b/c/d;p?q",
        "https://example.com/schemas/root.json",
        "https://example.com/schemas/dir/",
        "http://localhost:1234/draft2020-12/tree",
        "https://example.com/a/b/c/d/e.json?x=1",
    ];
    let references = [
        "g",
        "./g",
        "g/",
        "/g",
        "//g/h",
        "?y",
        "g?y",
        "..",
        "../",
        "../g",
        "../..",
        "../../",
        "../../g",
        "../../../g",
        "../../../../g",
        "/./g",
        "/../g",
        "g.",
        ".g",
        "g..",
        "..g",
        "./../g",
        "./g/.",
        "g/./h",
        "g/../h",
        "g;x=1/./y",
        "g;x=1/../y",
        "x.json",
        "/absref/foobar.json",
        "//other.example/x.json",
        "../x.json",
        "nested/../y.json",
        "https://elsewhere.example/s",
        "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
        "",
        ".",
        "./",
        "g?y/./x",
        "g?y/../x",
    ];
    for base in bases {
        let parsed = url::Url::parse(base).unwrap();
        for reference in references {
            let expected = parsed.join(reference).unwrap();
            let mut expected = expected.as_str().to_string();
            if let Some(cut) = expected.find('#') {
                expected.truncate(cut);
            }
            assert_eq!(compile::join(base, reference), expected, "{reference} against {base}");
        }
    }
    // What `url` does not do: a base with no scheme, as a document without an `$id` has.
    assert_eq!(compile::join("", "x.json"), "x.json");
    assert_eq!(compile::join("urn:uuid:1", "urn:uuid:2"), "urn:uuid:2");
}
