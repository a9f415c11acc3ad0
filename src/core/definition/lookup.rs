//! A lookup function: a read with no model. Either the runs of another definition of the
//! playbook, filtered and limited, or one call of a tool marked as reading, with templated arguments.

use serde_json::Value;

use super::check::Findings;
use super::Ref;

const KEYS: &[&str] = &["description", "page", "input", "runs", "tool"];
const RUNS_KEYS: &[&str] = &["of", "status", "where", "limit"];
pub const STATUSES: &[&str] = &["succeeded", "failed", "any"];
pub const RUNS_LIMIT_MAX: i64 = 100;

pub fn check(f: &mut Findings<'_>) -> Vec<Ref> {
    f.only_keys("", KEYS, "a lookup function");
    f.only_keys("/input", &["schema"], "input");
    if f.mapping("/input", false).is_some() {
        f.schema("/input/schema", true, true);
    }
    let runs = f.get("/runs").is_some();
    let tool = f.get("/tool").is_some();
    let mut uses = Vec::new();
    match (runs, tool) {
        (true, true) => f.error("/tool", "a lookup reads one thing: give runs or tool, not both"),
        (false, false) => f.error(
            "/runs",
            "is required, or tool: a lookup reads the runs of a definition, or calls one tool that reads",
        ),
        (true, false) => uses.extend(check_runs(f)),
        (false, true) => check_tool(f),
    }
    f.empty_body("A lookup function");
    uses
}

fn check_runs(f: &mut Findings<'_>) -> Option<Ref> {
    f.mapping("/runs", true)?;
    f.only_keys("/runs", RUNS_KEYS, "runs");
    let target = f.string("/runs/of", true, 80).and_then(|of| match Ref::parse(of) {
        Some(r) if !r.kind.served() => {
            f.error(
                "/runs/of",
                format!("names a {} definition, which this runtime does not serve yet", r.kind.as_str()),
            );
            None
        }
        Some(r) => Some(r),
        _ => {
            f.error("/runs/of", "must name a definition of this playbook as type/name, such as reasoning/review-brief");
            None
        }
    });
    if let Some(status) = f.string("/runs/status", false, 16) {
        if !STATUSES.contains(&status) {
            f.error("/runs/status", format!("must be one of {}", STATUSES.join(", ")));
        }
    }
    if let Some(expr) = f.string("/runs/where", false, 1000) {
        f.expression("/runs/where", expr, &["input".to_string(), "run".to_string()]);
    }
    f.integer("/runs/limit", 1, RUNS_LIMIT_MAX);
    target
}

fn check_tool(f: &mut Findings<'_>) {
    if f.mapping("/tool", true).is_none() {
        return;
    }
    f.only_keys("/tool", &["name", "arguments"], "tool");
    match f.get("/tool/name") {
        Some(v) => {
            f.tool_name("/tool/name", v, false);
        }
        None => f.error("/tool/name", "is required: the tool to call, as server/tool"),
    }
    if let Some(args) = f.mapping("/tool/arguments", false) {
        for (key, value) in args.clone() {
            templated(f, &format!("/tool/arguments/{}", super::check::escape(&key)), &value);
        }
    }
}

/// Arguments are JSON whose strings are templates over `input`.
pub fn templated(f: &mut Findings<'_>, pointer: &str, value: &Value) {
    match value {
        Value::String(s) => f.template(pointer, s, None, &["input"]),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                templated(f, &format!("{pointer}/{i}"), v);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                templated(f, &format!("{pointer}/{}", super::check::escape(k)), v);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_document, Kind};

    #[test]
    fn reads_runs_or_one_tool() {
        let runs = "---\ndescription: The last kept notes\nruns:\n  of: computation/keep-note\n  where: run.output.topic == input.topic\n  limit: 5\ninput:\n  schema: { type: object, properties: { topic: { type: string } } }\n---\n";
        let c = check_document(Kind::Lookup, runs).unwrap();
        assert_eq!(c.uses[0].key(), "computation/keep-note");
        let tool = "---\ndescription: Reads a file\ntool:\n  name: files/read_text_file\n  arguments: { path: \"{{ input.file }}\" }\ninput:\n  schema: { type: object }\n---\n";
        assert!(check_document(Kind::Lookup, tool).unwrap().uses.is_empty());
        let both = "---\ndescription: x\nruns: { of: computation/a }\ntool: { name: a/b }\n---\nbody\n";
        let p = check_document(Kind::Lookup, both).unwrap_err();
        let at: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert!(at.contains(&"/tool") && at.contains(&"/body"), "{at:?}");
        let bad = "---\ndescription: x\nruns: { of: nope, where: \"run.(\", limit: 0 }\n---\n";
        let p = check_document(Kind::Lookup, bad).unwrap_err();
        let at: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(at, vec!["/runs/of", "/runs/where", "/runs/limit"]);
    }
}
