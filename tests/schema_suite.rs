//! core::schema held to the official JSON-Schema-Test-Suite (tests/fixtures/json-schema-test-suite,
//! its README says which commit): every required case of drafts 4, 6, 7, 2019-09 and 2020-12
//! gives the suite's verdict, except the cases `known.json` lists as refused on purpose, which
//! must still be refused. The optional cases are run and counted, not held.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use playbook_runtime::core::schema::Schema;
use serde_json::Value;

const DRAFTS: [(&str, &str); 5] = [
    ("draft4", "http://json-schema.org/draft-04/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    ("draft2019-09", "https://json-schema.org/draft/2019-09/schema"),
    ("draft2020-12", "https://json-schema.org/draft/2020-12/schema"),
];

/// The only reasons a case may be listed for: what the guides say is refused.
const REASONS: [&str; 2] = ["remote document: the runtime fetches nothing", "regex-lite refuses the pattern"];

fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/json-schema-test-suite")
}

/// The `.json` files under `dir`, as paths relative to it, sorted; `optional/` only if asked.
fn files(dir: &Path, under: &str, optional: bool, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(under)).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap();
        let relative = if under.is_empty() { name.to_string() } else { format!("{under}/{name}") };
        if path.is_dir() {
            if optional || under.starts_with("optional") {
                files(dir, &relative, true, out);
            }
        } else if relative.ends_with(".json") && (optional == relative.starts_with("optional/")) {
            out.push(relative);
        }
    }
}

/// The schema compiled as the suite reads it: its own `$schema`, else the draft of its folder,
/// said the same way (a boolean schema reads alike in every draft).
fn compile(schema: &Value, uri: &str) -> Result<Schema, String> {
    let mut schema = schema.clone();
    if let Value::Object(o) = &mut schema {
        if !o.contains_key("$schema") {
            o.insert("$schema".into(), Value::from(uri));
        }
    }
    Schema::compile(&schema).map_err(|e| format!("{} at '{}'", e.message, e.pointer))
}

#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    refused: usize,
}

/// Runs every case of `files` in `draft`: the tally, the cases refused at compile (with why), and
/// the wrong verdicts.
fn run(draft: &str, uri: &str, names: &[String]) -> (Tally, BTreeMap<(String, String), String>, Vec<String>) {
    let mut tally = Tally::default();
    let mut refused = BTreeMap::new();
    let mut wrong = Vec::new();
    for file in names {
        let path = suite().join("tests").join(draft).join(file);
        let groups: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for group in &groups {
            let case = group["description"].as_str().unwrap().to_string();
            let tests = group["tests"].as_array().unwrap();
            tally.total += tests.len();
            match compile(&group["schema"], uri) {
                Err(why) => {
                    tally.refused += tests.len();
                    refused.insert((file.clone(), case), why);
                }
                Ok(schema) => {
                    for test in tests {
                        let expected = test["valid"].as_bool().unwrap();
                        let said = schema.is_valid(&test["data"]);
                        assert_eq!(said, schema.iter_errors(&test["data"]).next().is_none(), "{draft} {file} {case}");
                        if said == expected {
                            tally.passed += 1;
                        } else {
                            wrong.push(format!(
                                "{draft} {file} \"{case}\" / \"{}\": said {said}, expected {expected}",
                                test["description"].as_str().unwrap()
                            ));
                        }
                    }
                }
            }
        }
    }
    (tally, refused, wrong)
}

#[test]
fn every_required_case_gives_the_suites_verdict_or_is_a_listed_refusal() {
    let known: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(suite().join("known.json")).unwrap()).unwrap();
    let mut listed = BTreeMap::new();
    for entry in &known {
        let field = |name: &str| entry[name].as_str().unwrap().to_string();
        let reason = field("reason");
        assert!(
            REASONS.contains(&reason.as_str()),
            "known.json: {entry} gives a reason that is not a refusal on purpose"
        );
        let key = (field("draft"), field("file"), field("case"));
        assert!(listed.insert(key, reason).is_none(), "known.json lists {entry} twice");
    }
    let mut problems = Vec::new();
    let mut lines = Vec::new();
    for (draft, uri) in DRAFTS {
        let mut names = Vec::new();
        files(&suite().join("tests").join(draft), "", false, &mut names);
        let (tally, refused, wrong) = run(draft, uri, &names);
        problems.extend(wrong);
        for ((file, case), why) in &refused {
            if !listed.contains_key(&(draft.to_string(), file.clone(), case.clone())) {
                problems.push(format!("{draft} {file} \"{case}\": refused ({why}) but not listed in known.json"));
            }
        }
        for ((d, file, case), _) in listed.iter().filter(|((d, _, _), _)| d == draft) {
            if !refused.contains_key(&(file.clone(), case.clone())) {
                problems.push(format!("{d} {file} \"{case}\": listed in known.json but now compiles"));
            }
        }
        lines.push(format!(
            "{draft}: {} of {} required cases pass, {} refused on purpose",
            tally.passed, tally.total, tally.refused
        ));
    }
    println!("{}", lines.join("\n"));
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// The optional cases (big numbers, ECMA-262 regexes, `format`, …) are not held: this prints how
/// many pass in each file, for `cargo test --test schema_suite -- --nocapture`.
#[test]
fn optional_cases_are_counted() {
    for (draft, uri) in DRAFTS {
        let mut names = Vec::new();
        files(&suite().join("tests").join(draft), "", true, &mut names);
        for name in names {
            let (tally, _, _) = run(draft, uri, std::slice::from_ref(&name));
            println!("{draft} {name}: {} of {} pass, {} refused at compile", tally.passed, tally.total, tally.refused);
        }
    }
}
