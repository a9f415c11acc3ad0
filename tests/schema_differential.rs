//! core::schema against the `jsonschema` crate: generated self-contained schemas over the
//! keywords core::schema claims, in each draft, and generated values; both must compile each
//! schema and give each value the same verdict. One pinned seed and a bounded count, so that a
//! run is the same run every time and takes seconds.

use playbook_runtime::core::schema::Schema;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Map, Value};

#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum Draft {
    Four,
    Six,
    Seven,
    Nineteen,
    Twenty,
}

impl Draft {
    fn uri(self) -> &'static str {
        match self {
            Draft::Four => "http://json-schema.org/draft-04/schema#",
            Draft::Six => "http://json-schema.org/draft-06/schema#",
            Draft::Seven => "http://json-schema.org/draft-07/schema#",
            Draft::Nineteen => "https://json-schema.org/draft/2019-09/schema",
            Draft::Twenty => "https://json-schema.org/draft/2020-12/schema",
        }
    }

    fn defs(self) -> &'static str {
        if self >= Draft::Nineteen {
            "$defs"
        } else {
            "definitions"
        }
    }
}

/// Property names and string values come from a few letters, so that schemas and values meet.
const NAMES: [&str; 3] = ["a", "b", "c"];
/// Patterns that regex-lite and the crate's ECMA-262 engine read alike: no classes such as `\d`
/// or `\w` (Unicode in one, ASCII in the other), no look-around (regex-lite refuses it).
const PATTERNS: [&str; 6] = ["^a", "b$", "^[ab]*$", "c", "^(a|bc)+$", "^.{2}$"];

fn name() -> impl Strategy<Value = String> {
    proptest::sample::select(&NAMES[..]).prop_map(str::to_string)
}

/// Values of every JSON type, small, over the same few names and letters. Numbers are small
/// integers and halves: the drafts leave big numbers and float rounding to implementations.
fn value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-4i64..5).prop_map(Value::from),
        proptest::sample::select(&[0.5, 1.5, -2.5, 2.0][..]).prop_map(Value::from),
        "[abc]{0,3}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::from),
            btree_map(name(), inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
    .boxed()
}

type Words = Vec<(String, Value)>;

fn word(keyword: &str, value: impl Strategy<Value = Value> + 'static) -> BoxedStrategy<Words> {
    let keyword = keyword.to_string();
    value.prop_map(move |v| vec![(keyword.clone(), v)]).boxed()
}

fn count(most: u64) -> impl Strategy<Value = Value> {
    (0..=most).prop_map(Value::from)
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![(-3i64..4).prop_map(Value::from), Just(json!(0.5)), Just(json!(-1.5))]
}

fn names() -> impl Strategy<Value = Value> {
    proptest::sample::subsequence(&NAMES[..], 1..=3).prop_map(|n| json!(n))
}

/// The keywords that take no subschema, as `draft` has them.
fn plain_words(draft: Draft) -> Vec<BoxedStrategy<Words>> {
    const TYPES: [&str; 7] = ["null", "boolean", "integer", "number", "string", "array", "object"];
    let mut words = vec![
        word("type", proptest::sample::select(&TYPES[..]).prop_map(Value::from)),
        word("type", proptest::sample::subsequence(&TYPES[..], 2..=3).prop_map(|t| json!(t))),
        word("enum", vec(value(), 1..4).prop_map(Value::from)),
        word("minimum", number()),
        word("maximum", number()),
        word(
            "multipleOf",
            proptest::sample::select(&[1.0, 2.0, 3.0, 0.5][..]).prop_map(|m: f64| {
                if m.fract() == 0.0 {
                    json!(m as i64)
                } else {
                    json!(m)
                }
            }),
        ),
        word("minLength", count(3)),
        word("maxLength", count(3)),
        word("pattern", proptest::sample::select(&PATTERNS[..]).prop_map(Value::from)),
        word("minItems", count(3)),
        word("maxItems", count(3)),
        word("uniqueItems", any::<bool>().prop_map(Value::from)),
        word("required", names()),
        word("minProperties", count(3)),
        word("maxProperties", count(3)),
    ];
    if draft == Draft::Four {
        // Draft 4's meta-schema has `exclusiveMinimum` only beside `minimum`, as a boolean.
        for (bound, exclusive) in [("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")] {
            words.push(
                (number(), any::<bool>())
                    .prop_map(move |(n, e)| vec![(bound.to_string(), n), (exclusive.to_string(), Value::from(e))])
                    .boxed(),
            );
        }
    } else {
        words.push(word("exclusiveMinimum", number()));
        words.push(word("exclusiveMaximum", number()));
        words.push(word("const", value()));
    }
    if draft >= Draft::Nineteen {
        words.push(word("dependentRequired", btree_map(name(), names(), 1..3).prop_map(|m| json!(m))));
        // Only 2019-09 and 2020-12: there `format` is an annotation for both. Drafts 4 to 7 make
        // it an assertion, and each side checks each format its own way; the suite's
        // optional/format cases measure that instead.
        words.push(word(
            "format",
            proptest::sample::select(&["email", "date", "ipv4", "uri"][..]).prop_map(Value::from),
        ));
    }
    words
}

/// The keywords that take subschemas from `inner`, as `draft` has them.
fn schema_words(draft: Draft, inner: BoxedStrategy<Value>) -> Vec<BoxedStrategy<Words>> {
    let map = |s: BoxedStrategy<Value>| btree_map(name(), s, 1..3).prop_map(|m| json!(m));
    let list = |s: BoxedStrategy<Value>| vec(s, 1..3).prop_map(Value::from);
    let mut words = vec![
        word("properties", map(inner.clone())),
        word(
            "patternProperties",
            btree_map(proptest::sample::select(&PATTERNS[..]).prop_map(str::to_string), inner.clone(), 1..3)
                .prop_map(|m| json!(m)),
        ),
        word("additionalProperties", inner.clone()),
        word("items", inner.clone()),
        word("allOf", list(inner.clone())),
        word("anyOf", list(inner.clone())),
        word("oneOf", list(inner.clone())),
        word("not", inner.clone()),
    ];
    if draft < Draft::Twenty {
        words.push(
            (list(inner.clone()), proptest::option::of(inner.clone()))
                .prop_map(|(items, more)| {
                    let mut w = vec![("items".to_string(), items)];
                    w.extend(more.map(|m| ("additionalItems".to_string(), m)));
                    w
                })
                .boxed(),
        );
    } else {
        words.push(word("prefixItems", list(inner.clone())));
    }
    if draft >= Draft::Six {
        words.push(word("contains", inner.clone()));
        words.push(word("propertyNames", inner.clone()));
    }
    if draft >= Draft::Seven {
        let branch = proptest::option::of(inner.clone());
        words.push(
            (inner.clone(), branch.clone(), branch)
                .prop_map(|(test, then, other)| {
                    let mut w = vec![("if".to_string(), test)];
                    w.extend(then.map(|t| ("then".to_string(), t)));
                    w.extend(other.map(|e| ("else".to_string(), e)));
                    w
                })
                .boxed(),
        );
    }
    if draft < Draft::Nineteen {
        words.push(word(
            "dependencies",
            btree_map(name(), prop_oneof![inner.clone(), names()], 1..3).prop_map(|m| json!(m)),
        ));
    } else {
        words.push(word("dependentSchemas", map(inner.clone())));
        words.push(word("unevaluatedProperties", inner.clone()));
        words.push(word("unevaluatedItems", inner.clone()));
        words.push(
            (inner.clone(), count(2), proptest::option::of(count(3)))
                .prop_map(|(contains, least, most)| {
                    let mut w = vec![("contains".to_string(), contains), ("minContains".to_string(), least)];
                    w.extend(most.map(|m| ("maxContains".to_string(), m)));
                    w
                })
                .boxed(),
        );
    }
    // References lead to the root's definitions, which hold none: a loop of references with no
    // value between is where the drafts leave implementations to differ.
    let mut targets = vec![format!("#/{}/a", draft.defs()), format!("#/{}/b", draft.defs())];
    if draft >= Draft::Nineteen {
        targets.push("#A".into());
    }
    words.push(word("$ref", proptest::sample::select(targets).prop_map(Value::from)));
    words
}

fn object(words: Vec<Words>) -> Value {
    Value::Object(words.into_iter().flatten().collect::<Map<String, Value>>())
}

/// A subschema: an object of up to four keywords, or (after draft 4) `true` or `false`.
fn subschema(draft: Draft, refs: bool) -> BoxedStrategy<Value> {
    let plain = Union::new(plain_words(draft));
    let leaf = vec(plain, 0..3).prop_map(object).boxed();
    let leaf = if draft > Draft::Four {
        prop_oneof![1 => any::<bool>().prop_map(Value::from), 6 => leaf].boxed()
    } else {
        leaf
    };
    leaf.prop_recursive(3, 24, 4, move |inner| {
        let mut words = plain_words(draft);
        let mut nested = schema_words(draft, inner);
        if !refs {
            nested.pop();
        }
        words.extend(nested);
        vec(Union::new(words), 1..4).prop_map(object).boxed()
    })
    .boxed()
}

/// A whole schema: its draft named, two definitions (the first also named by an anchor where the
/// draft has them), and keywords that may refer to them.
fn schema(draft: Draft) -> BoxedStrategy<Value> {
    (subschema(draft, false), subschema(draft, false), subschema(draft, true))
        .prop_map(move |(a, b, root)| {
            let a = match a {
                Value::Object(mut o) if draft >= Draft::Nineteen => {
                    o.insert("$anchor".into(), "A".into());
                    Value::Object(o)
                }
                other if draft >= Draft::Nineteen => json!({"$anchor": "A", "allOf": [other]}),
                other => other,
            };
            let mut root = match root {
                Value::Object(o) => o,
                other => Map::from_iter([("allOf".to_string(), json!([other]))]),
            };
            root.insert("$schema".into(), draft.uri().into());
            root.insert(draft.defs().into(), json!({"a": a, "b": b}));
            Value::Object(root)
        })
        .boxed()
}

#[test]
fn generated_schemas_and_values_get_the_crates_verdict() {
    let config = Config { cases: 120, failure_persistence: None, ..Config::default() };
    for (i, draft) in [Draft::Four, Draft::Six, Draft::Seven, Draft::Nineteen, Draft::Twenty].into_iter().enumerate() {
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[i as u8 + 1; 32]);
        let mut runner = TestRunner::new_with_rng(config.clone(), rng);
        let outcome = runner.run(&(schema(draft), vec(value(), 8)), |(schema, values)| {
            let theirs = jsonschema::validator_for(&schema)
                .map_err(|e| TestCaseError::fail(format!("the crate refuses {schema}: {e}")))?;
            let ours = Schema::compile(&schema)
                .map_err(|e| TestCaseError::fail(format!("refused {schema}: {} at {}", e.message, e.pointer)))?;
            for value in &values {
                let said = ours.is_valid(value);
                prop_assert_eq!(said, ours.iter_errors(value).next().is_none(), "{} against {}", value, schema);
                prop_assert_eq!(said, theirs.is_valid(value), "{} against {}", value, schema);
            }
            Ok(())
        });
        if let Err(e) = outcome {
            panic!("{draft:?}: {e}");
        }
    }
}
