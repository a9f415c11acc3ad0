use serde_json::json;

use super::*;

#[test]
fn reads_a_mapping_as_json() {
    assert_eq!(parse("a: 1\nb: [x, no]\n").unwrap(), json!({"a": 1, "b": ["x", "no"]}));
    assert_eq!(parse("").unwrap(), Value::Null);
    assert_eq!(parse("---\n").unwrap(), Value::Null);
}

#[test]
fn keeps_the_order_of_keys_and_reads_keys_as_their_text() {
    let v = parse("z: 1\n200: ok\ntrue: yes\n~: n\n'q': 2\n").unwrap();
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["z", "200", "true", "~", "q"]);
    assert_eq!(v["200"], "ok");
    // A key left empty is null, and its text is empty, not the `~` it could have been written as.
    assert_eq!(parse(": v\n").unwrap(), json!({"": "v"}));
    assert_eq!(parse("a:\n").unwrap(), json!({"a": null}));
}

#[test]
fn quoted_and_block_scalars_are_strings() {
    let v = parse("a: 'true'\nb: \"42\"\nc: |\n  line one\n  line two\nd: >-\n  folded\n  text\n").unwrap();
    assert_eq!(v, json!({"a": "true", "b": "42", "c": "line one\nline two\n", "d": "folded text"}));
}

#[test]
fn tags_ask_for_a_type() {
    let v = parse("a: !!str 42\nb: !!float 3\nc: ! 12\nd: !Custom 7\n").unwrap();
    assert_eq!(v, json!({"a": "42", "b": 3.0, "c": "12", "d": 7}));
    let e = parse("a: 1\nb: !!int twelve\n").unwrap_err();
    assert!(e.words.contains("`twelve` is tagged as an integer"), "{e:?}");
    assert_eq!(e.at.map(|(line, _)| line), Some(2));
}

#[test]
fn follows_anchors_and_merge_keys() {
    let text = "base: &base {a: 1, b: 2}\nmore: &more {c: 3}\nuse:\n  <<: [*base, *more]\n  b: 20\nlist: [*base]\n";
    let v = parse(text).unwrap();
    assert_eq!(v["use"], json!({"b": 20, "a": 1, "c": 3}));
    assert_eq!(v["list"], json!([{"a": 1, "b": 2}]));
    assert!(parse("a: {<<: 5}\n").unwrap_err().words.contains("merge key"));
    // The merge key's own tag merges too; quoted, `<<` is an ordinary key.
    assert_eq!(parse("a: {b: 1}\nc:\n  !!merge <<: {d: 1}\n").unwrap()["c"], json!({"d": 1}));
    assert_eq!(parse("'<<': 1\n").unwrap(), json!({"<<": 1}));
    assert!(parse("a: *nowhere\n").is_err());
}

#[test]
fn refuses_a_key_given_twice_where_the_second_is() {
    let e = parse("description: a\ndescription: b\n").unwrap_err();
    assert!(e.words.contains("duplicate") && e.words.contains("description"), "{e:?}");
    assert_eq!(e.at, Some((2, 1)));
}

#[test]
fn says_what_is_wrong_and_where_without_drawing_the_source() {
    let e = parse("a: 1\nb: [1, 2\n").unwrap_err();
    assert!(!e.words.is_empty() && !e.words.contains('\n') && !e.words.contains('|'), "{e:?}");
    let (line, column) = e.at.expect("a location");
    assert!(line >= 2 && column >= 1, "{e:?}");
}

#[test]
fn refuses_what_json_cannot_hold_or_what_would_not_end() {
    assert!(parse("? [a, b]\n: c\n").unwrap_err().words.contains("key must be a scalar"));
    assert!(parse("a: 1\n---\nb: 2\n").unwrap_err().words.contains("more than one"));
    let deep = format!("{}{}", "[".repeat(DEPTH_MAX + 1), "]".repeat(DEPTH_MAX + 1));
    assert!(parse(&deep).is_err());
    let within = format!("{}{}", "[".repeat(DEPTH_MAX - 1), "]".repeat(DEPTH_MAX - 1));
    assert!(parse(&within).is_ok());
    // Nine levels of ten copies each: a billion strings from a few hundred bytes.
    let mut laughs = String::from("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (name, prev) in ["b", "c", "d", "e", "f", "g", "h", "i"].iter().zip(["a", "b", "c", "d", "e", "f", "g", "h"]) {
        laughs += &format!("{name}: &{name} [{}]\n", vec![format!("*{prev}"); 10].join(", "));
    }
    let e = parse(&laughs).unwrap_err();
    assert!(e.words.contains(&VALUES_MAX.to_string()), "{e:?}");
    // Few values, but a 64 KiB string copied a hundred times.
    let long = format!("a: &a {}\nb: [{}]\n", "x".repeat(65_536), vec!["*a"; 100].join(", "));
    assert!(parse(&long).unwrap_err().words.contains("MiB of strings"));
    assert!(parse(&format!("a: &a {}\nb: [*a, *a]\n", "x".repeat(65_536))).is_ok());
}
