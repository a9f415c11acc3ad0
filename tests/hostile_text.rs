//! Hostile text against every parser a request reaches: inputs generated from each grammar's own
//! pieces, valid ones mixed with broken ones, each read with no panic, within a time bound and
//! within a memory bound one request could afford.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::TestCaseError;
use serde_json::{json, Map, Value};

use playbook_runtime::core::access::oauth::authorize;
use playbook_runtime::core::access::oauth::client::{AuthMethod, Client, ClientKind, GrantType};
use playbook_runtime::core::access::oauth::form::Form;
use playbook_runtime::core::access::oauth::token;
use playbook_runtime::core::address::Address as Url;
use playbook_runtime::core::comment::address::{check_under, is_under, Address, Whose};
use playbook_runtime::core::definition::template::{environment, render};
use playbook_runtime::core::definition::{check_diagram, check_document, Document, Kind};
use playbook_runtime::core::schema::Schema;
use playbook_runtime::core::workflow::trigger::{next_due, parse_cron, parse_every, Trigger};
use playbook_runtime::core::zone::Zone;
use playbook_runtime::core::{picture, yaml, Caller};
use playbook_runtime::mcp::endpoint::Endpoint;
use playbook_runtime::mcp::server::answer;
use playbook_runtime::mcp::transport::{plan, Item, Plan, Post};

// ---- Bounds, and the allocator that measures them ----

/// The most extra memory one parse may hold at its peak. An isolate has 128 MiB for the module,
/// the runtime's own state and every request in flight: a quarter of it for one parse is as much
/// as one request could take.
const MEMORY_MAX: usize = 32 << 20;

/// The longest one parse may take. A liveness guard against blow-ups (exponential work, runaway
/// loops), not a measure of speed: a debug build with tests on parallel threads stays far inside.
const TIME_MAX: Duration = Duration::from_secs(2);

/// Past this the allocator refuses, so that a blow-up ends the run at once ("memory allocation
/// failed") instead of swapping the machine; `MEMORY_MAX` is what the properties assert.
const CEILING: isize = 1 << 30;

/// Counts what each thread holds. Tests run on parallel threads and each case is measured on the
/// thread that runs it, so no other test's allocations count toward its peak.
struct Counting;

thread_local! {
    // Signed: a thread may free what another allocated, and only differences are read.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static LIMIT: Cell<isize> = const { Cell::new(isize::MAX) };
}

fn grow(bytes: usize) -> bool {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    HELD.try_with(|held| {
        let now = held.get().saturating_add(bytes);
        if now > LIMIT.get() {
            return false;
        }
        held.set(now);
        PEAK.set(PEAK.get().max(now));
        true
    })
    .unwrap_or(true)
}

fn shrink(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = HELD.try_with(|held| held.set(held.get().saturating_sub(bytes)));
}

// SAFETY: every call goes to `System` with the caller's own arguments; the counting around it
// touches only const-initialised thread-locals, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            shrink(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            shrink(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        shrink(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !grow(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        match (p.is_null(), new_size > old) {
            (true, true) => shrink(new_size - old),
            (false, false) => shrink(old - new_size),
            _ => {}
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Lifts the ceiling when a measured parse ends, by returning or by panicking.
struct Measuring;

impl Drop for Measuring {
    fn drop(&mut self) {
        LIMIT.set(isize::MAX);
    }
}

/// Runs one parse, measured on this thread, and fails the case past either bound. What the parse
/// returns is held until the measure ends, so it counts too.
fn bounded<T>(parse: impl FnOnce() -> T) -> Result<T, TestCaseError> {
    let base = HELD.with(Cell::get);
    PEAK.set(base);
    LIMIT.set(base.saturating_add(CEILING));
    let guard = Measuring;
    let start = Instant::now();
    let out = parse();
    let took = start.elapsed();
    drop(guard);
    let peak = usize::try_from(PEAK.get() - base).unwrap_or(0);
    prop_assert!(peak <= MEMORY_MAX, "held {peak} bytes at the peak, more than {MEMORY_MAX}");
    prop_assert!(took <= TIME_MAX, "took {took:?}, more than {TIME_MAX:?}");
    Ok(out)
}

/// A fixed number of cases, and no regression files written into the repository.
fn cases(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

// ---- Pieces every grammar mixes in ----

/// `text` with pieces of `noise` put in at places drawn: the grammar broken between its own
/// tokens, where a parser has to notice.
fn broken(text: impl Strategy<Value = String>, noise: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (text, vec((any::<Index>(), noise), 0..3)).prop_map(|(mut text, cuts)| {
        for (at, piece) in cuts {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert_str(i, &piece);
        }
        text
    })
}

/// A long run of one piece: long scalars, labels, values.
fn long(piece: &'static str, most: usize) -> impl Strategy<Value = String> {
    (0..most).prop_map(move |n| piece.repeat(n))
}

/// JSON values as requests carry them: odd numbers, long and non-ASCII strings, nesting, width.
fn json_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        select(vec![0.5, -0.0, 1e308, -1e-308, 3.0]).prop_map(Value::from),
        "[a-z0-9 ]{0,12}".prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::from),
        long("ab", 10_000).prop_map(Value::from),
    ];
    leaf.prop_recursive(8, 256, 8, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..8).prop_map(Value::from),
            vec(("[a-z]{1,6}", inner), 0..8).prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            (0usize..3_000).prop_map(|n| Value::from((0..n).map(|i| i % 1_000).collect::<Vec<_>>())),
        ]
    })
    .boxed()
}

// ---- YAML front matter ----

#[derive(Debug, Clone)]
enum Yaml {
    Scalar(String),
    List(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
    Anchored(String, Box<Yaml>),
    Alias(String),
    /// A collection written in flow style inside block style.
    Flow(Box<Yaml>),
}

fn yaml_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}",
        1 => "-?[0-9]{1,24}(\\.[0-9]{0,6})?(e[+-]?[0-9]{1,4})?",
        1 => "(~|null|true|false|yes|no|on|off|\\.inf|-\\.NaN|0x[0-9A-F]{1,20}|0o[0-7]{1,24})",
        1 => "\"([a-z ]|\\\\[nt\"0xeN_LP]|\\\\u[0-9a-fA-F]{4}|\\\\U[0-9a-fA-F]{8}|\\\\x[0-9a-f]{2}|\\\\)*\"",
        1 => "'([a-z ]|'')*'",
        1 => "(!!str|!!int|!!float|!!bool|!!null|!!binary|!!map|!custom|!|!<tag:yaml\\.org,2002:str>) [a-z0-9]{0,6}",
        1 => long("x", 20_000),
        1 => "\\|[-+]?[1-9]?\n  [a-z ]{0,20}\n  [a-z]{0,8}",
        1 => ">-\n  [a-z ]{0,20}\n\n  [a-z]{0,8}",
    ]
}

fn yaml_key() -> impl Strategy<Value = String> {
    prop_oneof![6 => "[a-z_]{1,10}", 1 => "\"[^\"\\\\]{0,12}\"", 1 => Just("<<".to_string()), 1 => "[0-9]{1,4}", 1 => "(true|null|~)"]
}

fn yaml_tree() -> impl Strategy<Value = Yaml> {
    let anchor = "a[0-4]";
    let leaf = prop_oneof![4 => yaml_scalar().prop_map(Yaml::Scalar), 1 => anchor.prop_map(Yaml::Alias)];
    leaf.prop_recursive(8, 200, 6, move |inner| {
        prop_oneof![
            1 => vec(inner.clone(), 0..6).prop_map(Yaml::List),
            3 => vec((yaml_key(), inner.clone()), 0..6).prop_map(Yaml::Map),
            1 => (anchor, inner.clone()).prop_map(|(a, n)| Yaml::Anchored(a, Box::new(n))),
            1 => inner.prop_map(|n| Yaml::Flow(Box::new(n))),
        ]
    })
}

fn flow(node: &Yaml) -> String {
    match node {
        Yaml::Scalar(s) => s.clone(),
        Yaml::Alias(a) => format!("*{a}"),
        Yaml::Anchored(a, n) => format!("&{a} {}", flow(n)),
        Yaml::Flow(n) => flow(n),
        Yaml::List(items) => format!("[{}]", items.iter().map(flow).collect::<Vec<_>>().join(", ")),
        Yaml::Map(pairs) => {
            let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}: {}", flow(v))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// `node` in block style, as the value after `key:` or `-`, its lines `indent` deep.
fn block(node: &Yaml, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match node {
        Yaml::List(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                out.push_str(&pad);
                out.push('-');
                block(item, indent + 2, out);
            }
        }
        Yaml::Map(pairs) if !pairs.is_empty() => {
            out.push('\n');
            for (key, value) in pairs {
                out.push_str(&pad);
                out.push_str(key);
                out.push(':');
                block(value, indent + 2, out);
            }
        }
        Yaml::Anchored(a, n) if matches!(**n, Yaml::List(_) | Yaml::Map(_)) => {
            out.push_str(&format!(" &{a}"));
            block(n, indent, out);
        }
        other => {
            out.push(' ');
            out.push_str(&flow(other));
            out.push('\n');
        }
    }
}

/// Each level an alias of the one before, `width` times: the "billion laughs".
fn laughs() -> impl Strategy<Value = String> {
    (1usize..12, 1usize..12, 1usize..3_000, any::<bool>()).prop_map(|(levels, width, seed, merged)| {
        let mut out = format!("l0: &l0 \"{}\"\n", "x".repeat(seed));
        for level in 1..levels {
            let prev = level - 1;
            if merged && level > 1 {
                let aliases = vec![format!("*l{prev}"); width].join(", ");
                out.push_str(&format!("l{level}: &l{level}\n  <<: [{aliases}]\n  k{level}: 1\n"));
            } else {
                out.push_str(&format!("l{level}: &l{level} [{}]\n", vec![format!("*l{prev}"); width].join(", ")));
            }
        }
        out
    })
}

/// Nesting past the parser's bound, in flow or block style.
fn deep() -> impl Strategy<Value = String> {
    (1usize..300, any::<bool>()).prop_map(|(n, flow)| {
        if flow {
            format!("a: {}1{}\n", "[".repeat(n), "]".repeat(n))
        } else {
            (0..n).map(|i| format!("{}k:\n", " ".repeat(i))).collect::<String>() + &" ".repeat(n) + "end\n"
        }
    })
}

fn yaml_text() -> impl Strategy<Value = String> {
    let document = yaml_tree().prop_map(|tree| match tree {
        Yaml::Map(pairs) if !pairs.is_empty() => {
            let mut out = String::new();
            block(&Yaml::Map(pairs), 0, &mut out);
            out
        }
        other => {
            let mut out = "top:".to_string();
            block(&other, 2, &mut out);
            out
        }
    });
    let noise = prop_oneof!["[\\[\\]{}:,&*!|>'\"%@`#?\\- \t\n\\\\]{1,4}", "\\PC{1,3}", Just("\n---\n".into())];
    broken(
        prop_oneof![
            6 => document,
            2 => laughs(),
            1 => deep(),
            1 => "(%YAML 1\\.[0-9]|%TAG ! tag:x,2000:)\n--- [a-z]{0,8}\n(\\.\\.\\.)?",
            1 => "[a-z:{}\\[\\],&*!|> \n\t\"'-]{0,200}",
        ],
        noise,
    )
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn yaml_reads_within_bounds(text in yaml_text()) {
        let _ = bounded(|| yaml::parse(&text))?;
    }

    /// What a saved definition's front matter goes through: the split, then the YAML.
    #[test]
    fn front_matter_reads_within_bounds(front in yaml_text(), body in template_text(), crlf: bool, bom: bool) {
        let mut source = format!("{}---\n{front}\n---\n{body}", if bom { "\u{feff}" } else { "" });
        if crlf {
            source = source.replace('\n', "\r\n");
        }
        let _ = bounded(|| Document::parse(&source))?;
    }
}

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
fn merged(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (a, _) => a,
    }
}

fn subschema() -> BoxedStrategy<Value> {
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

// ---- Templates ----

fn template_leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z ,.\n]{0,20}",
        3 => select(vec![
            "{{ input }}", "{{ input.name }}", "{{ input.items|length }}", "{{ input|tojson }}", "{{ nope }}",
            "{{ loop.index }}", "{{ 1 / 0 }}", "{{ 10 ** 100 }}", "{{ input.a.b.c.d }}", "{{ input|dictsort }}",
            "{{ input|list|reverse|join(',') }}", "{{ input|items|map('first')|list }}", "{{ caller() }}",
            "{% break %}", "{% continue %}", "{{ range(10)|batch(3)|list }}", "{{ input|tojson(indent=true) }}",
            "{{", "{%", "}}", "%}", "{# ", "{% endfor %}", "{% raw %}", "{{ input[", "{{ (((((1 }}", "{% if %}",
            "{{ 'a' ~ }}", "{% set ns = namespace(s='') %}", "{{ ns.s|length }}", "{{ input|unique|sort }}",
        ]).prop_map(str::to_string),
        1 => (0usize..200, "[a-z]{0,10}").prop_map(|(n, s)| format!("{{{{ '{s}' * {n} }}}}")),
        1 => (0usize..300).prop_map(|n| format!("{{{{ range({n})|join(',')|length }}}}")),
        1 => (0usize..100, any::<bool>()).prop_map(|(w, json)| if json {
            format!("{{{{ input|tojson(indent={w}) }}}}")
        } else {
            format!("{{{{ 'a\nb'|indent({w}) }}}}")
        }),
        1 => select(vec![
            // Widths a builtin would repeat a space for: refused, not allocated.
            "{{ 'a'|indent(18446744073709551615) }}", "{{ 'a'|indent(width=99999999999) }}",
            "{{ input|tojson(indent=4294967296) }}",
        ]).prop_map(str::to_string),
    ]
}

// The engine bounds instructions (fuel) and recursion, and `template::render` what is written,
// but not the size of a value in between: `'x' * n` with a large `n`, a string doubled step by
// step, or text a `set` block, a `filter` block or a macro captures (held in memory, not written)
// grows as written, and a filter's own loop spends no fuel. So repetitions stay small here,
// captures hold no loop, and a namespace string grows one piece per step.
fn template_text() -> BoxedStrategy<String> {
    let leaf = template_leaf().boxed();
    let captured = prop_oneof![
        leaf.clone().prop_map(|b| format!("{{% set s %}}{b}{{% endset %}}{{{{ s }}}}{{{{ s|upper }}}}")),
        leaf.clone().prop_map(|b| format!("{{% filter upper %}}{b}{{% endfilter %}}")),
        (leaf.clone(), 0usize..1_000).prop_map(|(b, k)| format!(
            "{{% macro m(n) %}}{{% if n > 0 %}}{b}{{{{ m(n - 1) }}}}{{% endif %}}{{% endmacro %}}{{{{ m({k}) }}}}"
        )),
        leaf.clone().prop_map(|b| format!(
            "{{% macro box() %}}[{{{{ caller() }}}}]{{% endmacro %}}{{% call box() %}}{b}{{% endcall %}}"
        )),
    ];
    prop_oneof![3 => leaf, 1 => captured]
        .prop_recursive(6, 48, 4, |inner| {
            let count = prop_oneof![4 => 0usize..50, 1 => 0usize..100_000];
            prop_oneof![
                vec(inner.clone(), 1..4).prop_map(|parts| parts.concat()),
                (inner.clone(), count.clone()).prop_map(|(b, n)| format!("{{% for i in range({n}) %}}{b}{{% endfor %}}")),
                inner.clone().prop_map(|b| format!("{{% for x in input %}}{b}{{% else %}}none{{% endfor %}}")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{% if input.flag %}}{a}{{% else %}}{b}{{% endif %}}")),
                inner.clone().prop_map(|b| format!("{{% with x = input %}}{b}{{% endwith %}}")),
                (inner, count).prop_map(|(b, n)| format!(
                    "{{% set ns = namespace(s='') %}}{{% for i in range({n}) %}}{{% set ns.s = ns.s ~ 'x' %}}{b}{{% endfor %}}{{{{ ns.s|length }}}}"
                )),
            ]
        })
        .boxed()
}

/// A run's input as a template meets it: small, since one instruction may write all of it.
fn template_input() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,32}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::from),
            vec(("(flag|name|items|[a-z]{1,4})", inner), 0..6).prop_map(|p| Value::Object(p.into_iter().collect())),
        ]
    })
    .boxed()
}

proptest! {
    #![proptest_config(cases(128))]

    /// A body compiled and its names checked as a save does, then rendered over an input as a run
    /// does, in the environment every template gets.
    #[test]
    fn templates_compile_and_render_within_bounds(text in template_text(), input in template_input()) {
        let _ = bounded(|| {
            let env = environment();
            if let Ok(t) = env.template_from_str(&text) {
                let _ = t.undeclared_variables(false);
            }
            render(&env, &text, minijinja::context! { input => input })
        })?;
    }
}

// ---- Whole definition documents ----

/// A document of each kind the checks know best, its parts generated: the input schema, the
/// body, the trigger.
fn document() -> impl Strategy<Value = (Kind, String)> {
    let kind = select(vec![Kind::Reasoning, Kind::Computation, Kind::Workflow, Kind::Lookup]);
    let schema =
        subschema().prop_map(|s| merged(json!({ "type": "object", "properties": { "n": { "type": "number" } } }), s));
    let parts = (schema, "[A-Za-z ]{0,60}", cron_text(), zone_name(), "[a-z.* 0-9()+]{0,30}");
    (kind, parts, template_text()).prop_map(|(kind, (schema, description, cron, zone, expression), body)| {
        let input = json!({ "schema": schema });
        let front = match kind {
            Kind::Reasoning => {
                json!({ "description": description, "model": "anthropic/claude-sonnet-4-5", "input": input })
            }
            Kind::Computation => json!({
                "description": description,
                "input": input,
                "output": { "schema": { "type": "object", "properties": { "m": { "type": "number" } } } },
                "compute": { "m": expression },
            }),
            Kind::Workflow => json!({
                "description": description,
                "input": input,
                "steps": [{ "id": "a", "function": "reasoning/x", "input": { "n": expression } }],
                "triggers": [{ "cron": cron, "time_zone": zone, "input": { "n": "1" } }],
            }),
            _ => json!({ "description": description, "input": input, "runs": "workflow/x" }),
        };
        let body = if kind == Kind::Reasoning { body } else { String::new() };
        // JSON is YAML's flow style: the front matter a tool may well write.
        (kind, format!("---\n{front}\n---\n{body}"))
    })
}

proptest! {
    #![proptest_config(cases(128))]

    /// What saving a definition runs: front matter, schemas, templates, diagram and triggers.
    #[test]
    fn definitions_check_within_bounds((kind, source) in document()) {
        let _ = bounded(|| check_document(kind, &source))?;
    }
}

// ---- Mermaid diagrams ----

fn mermaid_node() -> impl Strategy<Value = String> {
    let id = prop_oneof![30 => (0usize..400).prop_map(|i| format!("n{i}")), 1 => "[a-zé_]{1,4}", ];
    let shape = prop_oneof![12 => select(vec![
        ("", ""),
        ("[", "]"),
        ("(", ")"),
        ("([", "])"),
        ("((", "))"),
        ("[[", "]]"),
        ("[(", ")]"),
        ("{", "}"),
        ("{{", "}}"),
        (">", "]"),
        ("[/", "/]"),
        ("[\"", "\"]"),
    ])];
    let text =
        prop_oneof![16 => "[a-z ]{0,30}", 1 => long("word ", 1_000), 1 => "[a-z]{0,3}(<br>|<br/>|&|;|:)[a-z]{0,3}"];
    (id, shape, text, any::<bool>()).prop_map(|(id, (open, close), text, class)| {
        let text = if open.is_empty() { String::new() } else { text };
        format!("{id}{open}{text}{close}{}", if class { ":::done" } else { "" })
    })
}

fn mermaid_line() -> impl Strategy<Value = String> {
    let link = prop_oneof![
        12 => select(vec!["-->", "---", "-.->", "-.-", "==>", "===", "---->", "-- yes -->", "-. maybe .->", "== sure ==>", "-->|ok|"]),
        1 => select(vec!["--", "->", "<-->", "-- unclosed"]),
    ];
    prop_oneof![
        6 => (vec(mermaid_node(), 1..4), vec((link, vec(mermaid_node(), 1..4)), 0..4)).prop_map(|(first, rest)| {
            let mut line = first.join(" & ");
            for (link, group) in rest {
                line.push_str(&format!(" {link} {}", group.join(" & ")));
            }
            line
        }),
        1 => vec(mermaid_node(), 1..40).prop_map(|nodes| nodes.join("; ")),
        1 => select(vec![
            "%% a comment", "classDef done fill:#eee", "class a done", "style a fill:#f9f", "linkStyle 0 stroke:red",
        ]).prop_map(str::to_string),
        1 => select(vec!["subgraph one", "end", "click a call back()", "direction LR"]).prop_map(str::to_string),
    ]
}

/// A chain of `n` nodes and `m` edges from its first to its last: every long edge bends once a rank.
fn long_edges() -> impl Strategy<Value = String> {
    (1usize..300, 0usize..300).prop_map(|(n, m)| {
        let mut text = "flowchart TD\n".to_string();
        for i in 1..n {
            text.push_str(&format!("n{} --> n{i}\n", i - 1));
        }
        for _ in 0..m {
            text.push_str(&format!("n0 --> n{}\n", n - 1));
        }
        text
    })
}

fn mermaid_text() -> impl Strategy<Value = String> {
    let head = prop_oneof![
        8 => select(vec!["flowchart TD", "graph LR", "flowchart BT;", "flowchart RL", "flowchart"]),
        1 => select(vec!["graph XX", "sequenceDiagram", "flowchart TD LR"]),
    ];
    let drawn =
        (head, vec(mermaid_line(), 0..60)).prop_map(|(head, lines)| format!("{head}\n{}", lines.join("\n"))).boxed();
    let noise = "[\\-=.>|&;:\\[\\](){}\"\n ]{1,3}";
    prop_oneof![4 => drawn.clone(), 2 => broken(drawn, noise), 1 => long_edges()]
}

proptest! {
    #![proptest_config(cases(96))]

    /// A saved diagram's check, then its drawing as Studio draws it: parse, layout, SVG.
    #[test]
    fn diagrams_check_and_draw_within_bounds(source in mermaid_text()) {
        bounded(|| (check_diagram(&source), picture::mermaid(&source)))?;
    }
}

// ---- OAuth forms ----

const ISSUER: &str = "https://runtime.example";

fn client() -> Client {
    Client {
        client_id: "c1".into(),
        client_name: "An app".into(),
        redirect_uris: vec!["https://app.example/cb".into(), "http://127.0.0.1/cb".into()],
        token_endpoint_auth_method: AuthMethod::None,
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        kind: ClientKind::MetadataDocument,
    }
}

fn form_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[A-Za-z0-9._~-]{0,40}",
        2 => "(%[0-9A-Fa-f]{2}|%[G-Zg-z]{0,2}|%|\\+|[a-z=])*",
        1 => select(vec![
            "c1", "code", "S256", "plain", "authorization_code", "refresh_token", "https%3A%2F%2Fapp.example%2Fcb",
            "https://runtime.example/mcp", "https://runtime.example/o/acme/mcp", "read+write+offline_access",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "%E2%82", "%C0%80", "%FF%FE", "%00",
        ]).prop_map(str::to_string),
        1 => long("a", 100_000),
        1 => long("%41", 30_000),
    ]
}

fn form_text() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        4 => select(vec![
            "grant_type", "code", "redirect_uri", "client_id", "client_secret", "code_verifier", "refresh_token",
            "resource", "scope", "state", "response_type", "code_challenge", "code_challenge_method", "token",
        ]).prop_map(str::to_string),
        1 => "[a-z_%+]{0,12}",
    ];
    let join = select(vec!["&", "&&", ";", "=", "&="]);
    vec((name, form_value(), join), 0..16)
        .prop_map(|pairs| pairs.into_iter().map(|(n, v, j)| format!("{n}={v}{j}")).collect::<String>())
}

/// An authorization query or a token body as a client writes it, before it is broken.
fn oauth_request() -> impl Strategy<Value = String> {
    let scope =
        select(vec!["", "&scope=read", "&scope=read+write+offline_access", "&scope=admin", "&scope=read%20write"]);
    let resource =
        select(vec!["", "&resource=https%3A%2F%2Fruntime.example%2Fmcp", "&resource=https%3A%2F%2Fevil.example%2F"]);
    let challenge = select(vec!["E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "short", ""]);
    let authorize = (scope, resource.clone(), challenge, "[A-Za-z0-9%]{0,20}").prop_map(|(scope, resource, challenge, state)| {
        format!("response_type=code&client_id=c1&redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_challenge={challenge}&code_challenge_method=S256&state={state}{scope}{resource}")
    });
    let grant = prop_oneof![
        "[A-Za-z0-9_-]{0,43}".prop_map(|v| format!(
            "grant_type=authorization_code&code=c0de&code_verifier={v}&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"
        )),
        "[A-Za-z0-9_.-]{0,60}".prop_map(|t| format!("grant_type=refresh_token&refresh_token={t}")),
    ];
    let token = (grant, resource).prop_map(|(grant, resource)| format!("{grant}&client_id=c1{resource}"));
    prop_oneof![authorize, token]
}

fn oauth_body() -> impl Strategy<Value = String> {
    let noise = "(&|=|%|%[0-9A-F]{2}|%E2%82|\\+|&client_id=c2|&state=x|&code=y|&grant_type=)";
    prop_oneof![2 => form_text(), 1 => oauth_request(), 2 => broken(oauth_request(), noise)]
}

fn authorization() -> impl Strategy<Value = Option<String>> {
    use base64::Engine;
    let basic = ("[a-z0-9%:]{0,20}", "[a-z0-9%:]{0,20}")
        .prop_map(|(id, secret)| base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}")));
    prop::option::of(prop_oneof![
        basic.prop_map(|b| format!("Basic {b}")),
        "(Basic|basic|Bearer|Digest) ?[A-Za-z0-9+/=:]{0,40}",
        long("A", 50_000).prop_map(|b| format!("Basic {b}")),
    ])
}

proptest! {
    #![proptest_config(cases(128))]

    /// A token and a revocation request's body and header, and an authorization request's query.
    #[test]
    fn oauth_forms_read_within_bounds(body in oauth_body(), header in authorization()) {
        bounded(|| {
            let _ = token::parse(&body, header.as_deref(), ISSUER);
            let _ = token::parse_revoke(&body, header.as_deref());
            if let Ok(form) = Form::parse(&body) {
                let _ = authorize::client_id(&form);
                let _ = authorize::check(&form, &client(), ISSUER);
            }
        })?;
    }
}

// ---- JSON-RPC bodies, planned and answered ----

fn rpc_method() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => select(vec![
            "initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list",
            "resources/read", "resources/templates/list", "server/discover", "notifications/initialized",
        ]).prop_map(str::to_string),
        1 => "[a-z/]{0,12}",
    ]
}

fn rpc_params(modern: bool) -> impl Strategy<Value = Value> {
    let tools: Vec<&'static str> = playbook_runtime::tools::all().iter().map(|t| t.name).collect();
    let name = prop_oneof![4 => select(tools).prop_map(str::to_string), 1 => "[a-z_]{0,12}"];
    let uri = select(vec!["guide://templates", "guide://nope", "https://x", ""]);
    prop_oneof![
        6 => (name, json_value(), uri, prop::option::of(select(vec!["2025-11-25", "2026-07-28", "1999-01-01"])))
            .prop_map(move |(name, arguments, uri, version)| {
                let mut p = json!({ "name": name, "arguments": arguments, "uri": uri, "protocolVersion": version });
                if modern {
                    p["_meta"] = json!({
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                    });
                }
                p
            }),
        1 => json_value(),
    ]
}

fn rpc_message(modern: bool) -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        4 => any::<i64>().prop_map(Value::from),
        1 => "[a-z0-9]{0,10}".prop_map(Value::from),
        1 => select(vec![json!(null), json!(1.5), json!({}), json!([]), json!(u64::MAX), json!(true)]),
    ];
    let version = prop_oneof![8 => Just(json!("2.0")), 1 => select(vec![json!("1.0"), json!(2.0), json!(null)])];
    let params = prop::option::weighted(0.9, rpc_params(modern));
    (version, prop::option::weighted(0.9, id), rpc_method(), params, prop::bool::weighted(0.1)).prop_map(
        |(jsonrpc, id, method, params, answer)| {
            let mut m = json!({ "jsonrpc": jsonrpc });
            if let Some(id) = id {
                m["id"] = id;
            }
            if answer {
                m["result"] = json!({});
            } else {
                m["method"] = json!(method);
            }
            if let Some(p) = params {
                m["params"] = p;
            }
            m
        },
    )
}

fn rpc_post() -> impl Strategy<Value = (Vec<u8>, Option<String>, Option<String>, bool)> {
    let body = prop_oneof![
        6 => rpc_message(false).prop_map(|m| m.to_string().into_bytes()),
        2 => vec(rpc_message(false), 0..8).prop_map(|b| Value::from(b).to_string().into_bytes()),
        2 => rpc_message(true).prop_map(|m| m.to_string().into_bytes()),
        1 => (1usize..20_000).prop_map(|n| format!("{}1{}", "[".repeat(n), "]".repeat(n)).into_bytes()),
        1 => (1usize..20_000).prop_map(|n| format!("{}1", "{\"a\":".repeat(n)).into_bytes()),
        1 => (rpc_message(false), any::<Index>()).prop_map(|(m, at)| {
            let text = m.to_string().into_bytes();
            text[..at.index(text.len() + 1)].to_vec()
        }),
        1 => vec(any::<u8>(), 0..200),
        1 => Just(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}".to_vec()),
    ];
    let version = prop::option::weighted(
        0.5,
        select(vec!["2025-11-25", "2025-03-26", "2025-03-26", "2024-11-05", "2026-07-28", "9999", ""]),
    );
    let accept = prop::option::of(select(vec!["application/json, text/event-stream", "*/*", "text/html", ""]));
    (
        body,
        version.prop_map(|v| v.map(str::to_string)),
        accept.prop_map(|a| a.map(str::to_string)),
        prop::bool::weighted(0.9),
    )
}

proptest! {
    #![proptest_config(cases(96))]

    /// A POST to an MCP endpoint: the plan for its raw body and headers, then each request in it
    /// answered by the dispatch, over the runtime in memory.
    #[test]
    fn mcp_posts_plan_and_answer_within_bounds((body, version, accept, json_type) in rpc_post()) {
        let backend = common::Memory::default();
        let caller = Caller::local(Some("ada".into()));
        let ctx = common::ctx(&caller, &backend, 1, 1);
        let content_type = if json_type { "application/json; charset=utf-8" } else { "text/plain" };
        // Every request in one body: a batch answers them all in one reply.
        bounded(|| {
            let (method, name) = serde_json::from_slice::<Value>(&body)
                .map(|v| (v["method"].as_str().map(str::to_string), v["params"]["name"].as_str().map(str::to_string)))
                .unwrap_or_default();
            let post = Post {
                content_type: Some(content_type),
                accept: accept.as_deref(),
                protocol_version: version.as_deref(),
                mcp_method: method.as_deref(),
                mcp_name: name.as_deref(),
                body: &body,
            };
            if let Plan::Handle { era, items, .. } = plan(&post) {
                for item in items {
                    if let Item::Request { id, method, params } = item {
                        let _ = block_on(answer(&ctx, &Endpoint::Root, &era, &id, &method, &params));
                    }
                }
            }
        })?;
    }
}

// ---- Addresses ----

fn address_text() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        6 => select(vec![
            "playbook", "ledger", "definitions", "runs", "requests", "org", "connections", "members", "settings",
            "workflow", "reasoning", "lookup", "review-and-approve", "steps", "run_1", "ada@example.com|x", "page",
            "figures", ".", "..", "", "%2F", "a--b",
        ]).prop_map(str::to_string),
        1 => "[a-z0-9_.@:|+-]{1,12}",
        1 => "\\PC{1,4}",
        1 => long("a", 2_000),
    ];
    vec(segment, 0..200).prop_map(|s| s.join("/"))
}

fn url_text() -> impl Strategy<Value = String> {
    let scheme = select(vec!["http", "https", "ftp", "HTTP", ""]);
    let user = prop::option::of("[a-z:@]{0,8}");
    let host = prop_oneof!["[a-z0-9.-]{0,20}", "\\[[0-9a-f:]{0,20}\\]?", "[0-9.]{0,15}", "\\PC{0,6}"];
    let port = prop::option::of("[0-9a-z]{0,6}");
    let rest = "[/?#a-z0-9%&=.]{0,60}";
    (scheme, user, host, port, rest).prop_map(|(scheme, user, host, port, rest)| {
        let user = user.map(|u| format!("{u}@")).unwrap_or_default();
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        format!("{scheme}://{user}{host}{port}{rest}")
    })
}

proptest! {
    #![proptest_config(cases(256))]

    /// A comment's address and a listing's prefix as tools take them, and a request's URL as the
    /// entry splits it.
    #[test]
    fn addresses_read_within_bounds(text in address_text(), url in url_text(), org: bool) {
        let whose = if org { Whose::Org } else { Whose::Playbook };
        let half = text.char_indices().nth(text.chars().count() / 2).map_or(0, |(i, _)| i);
        bounded(|| {
            let _ = Address::parse(&text, whose).map(|a| a.to_string());
            let _ = check_under(&text);
            let _ = is_under(&text, &text[..half]);
            let _ = Url::of(&url);
        })?;
    }
}

// ---- Cron schedules ----

/// One field: numbers of `span` mostly, names and cron's special letters sometimes, as lists of
/// ranges with steps.
fn cron_field(span: std::ops::Range<u32>) -> impl Strategy<Value = String> {
    let (low, high) = (span.start, span.end);
    let range = (low..high, low..high, prop::option::weighted(0.3, 1..high - low)).prop_map(|(a, b, step)| {
        let (a, b) = (a.min(b), a.max(b));
        let step = step.map(|n| format!("/{n}")).unwrap_or_default();
        if a == b {
            a.to_string()
        } else {
            format!("{a}-{b}{step}")
        }
    });
    let atom = prop_oneof![
        8 => range,
        2 => prop::option::weighted(0.3, 1..high - low).prop_map(|s| s.map_or("*".into(), |n| format!("*/{n}"))),
        1 => select(vec!["?", "L", "W", "5L", "15W", "LW", "MON", "fri", "JAN", "dec", "SUN#2", "MON-FRI", "7", "60", "-1", "99999999999", "3/5"])
            .prop_map(str::to_string),
    ];
    vec(atom, 1..4).prop_map(|list| list.join(","))
}

fn cron_text() -> impl Strategy<Value = String> {
    let five = (cron_field(0..60), cron_field(0..24), cron_field(1..32), cron_field(1..13), cron_field(0..8));
    prop_oneof![
        6 => five.prop_map(|(a, b, c, d, e)| format!("{a} {b} {c} {d} {e}")),
        2 => vec(cron_field(0..70), 0..8).prop_map(|f| f.join(" ")),
        1 => select(vec![
            "@daily", "@yearly", "@annually", "@monthly", "@weekly", "@hourly", "@reboot", "@nope", "0 0 30 2 *",
            "0 0 31 4 *", "0 0 29 2 1", "59 23 31 12 SUN#5",
        ]).prop_map(str::to_string),
        1 => "[0-9*/,\\- LW#?A-Z@]{0,40}",
    ]
}

fn zone_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => select(vec![
            "UTC", "Europe/Paris", "America/St_Johns", "Pacific/Chatham", "Australia/Lord_Howe", "Asia/Kathmandu",
            "Etc/GMT+12", "Etc/GMT-14", "America/Sao_Paulo", "europe/paris", "PST", "+01:00", "", "Nope/Nowhere",
        ]).prop_map(str::to_string),
        1 => "[A-Za-z_/+-]{0,30}",
    ]
}

proptest! {
    #![proptest_config(cases(128))]

    /// A trigger's cron and time zone as a workflow's check reads them, then its next time found
    /// from an instant anywhere between 1970 and the year 9999.
    #[test]
    fn schedules_read_and_come_due_within_bounds(cron in cron_text(), zone in zone_name(), after in 0i64..253_402_300_799) {
        let after = chrono::DateTime::from_timestamp(after, 0).unwrap_or_default();
        bounded(|| {
            let _ = parse_cron(&cron);
            let _ = parse_every(&cron);
            let _ = Zone::named(&zone);
            next_due(&Trigger::Schedule { cron: cron.clone(), time_zone: zone.clone() }, after)
        })?;
    }
}
