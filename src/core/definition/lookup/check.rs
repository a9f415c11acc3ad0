//! The checker of a lookup function's document, which builds its spec.

use serde_json::{json, Value};

use super::super::check::Findings;
use super::super::tool_call::ToolCallSpec;
use super::super::Ref;
use super::{LookupSpec, Read, RunsQuery, LIMIT_DEFAULT, RUNS_LIMIT_MAX, STATUSES, STATUS_DEFAULT};

const KEYS: &[&str] = &["description", "page", "input", "runs", "tool"];
const RUNS_KEYS: &[&str] = &["of", "status", "where", "limit"];

/// The spec, where the document gave every part of it; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<LookupSpec> {
    f.only_keys("", KEYS, "a lookup function");
    f.only_keys("/input", &["schema"], "input");
    let input_schema = match f.mapping("/input", false) {
        Some(_) => f.schema("/input/schema", true, true).map(|s| Some(s.clone())),
        None => Some(None),
    };
    let runs = f.get("/runs").is_some();
    let tool = f.get("/tool").is_some();
    let read = match (runs, tool) {
        (true, true) => {
            f.error("/tool", "a lookup reads one thing: give runs or tool, not both");
            None
        }
        (false, false) => {
            f.error(
                "/runs",
                "is required, or tool: a lookup reads the runs of a definition, or calls one tool that reads",
            );
            None
        }
        (true, false) => check_runs(f).map(Read::Runs),
        (false, true) => check_tool(f).map(Read::Tool),
    };
    f.empty_body("A lookup function");
    Some(LookupSpec { input_schema: input_schema?, read: read? })
}

fn check_runs(f: &mut Findings<'_>) -> Option<RunsQuery> {
    let written = f.mapping("/runs", true)?;
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
    let status = match f.string("/runs/status", false, 16) {
        None => STATUS_DEFAULT,
        Some(s) => match STATUSES.iter().find(|known| **known == s) {
            Some(known) => known,
            None => {
                f.error("/runs/status", format!("must be one of {}", STATUSES.join(", ")));
                STATUS_DEFAULT
            }
        },
    };
    let condition = f.string("/runs/where", false, 1000);
    if let Some(expr) = condition {
        f.expression("/runs/where", expr, &["input".to_string(), "run".to_string()]);
    }
    let limit = f.integer("/runs/limit", 1, RUNS_LIMIT_MAX).and_then(|n| usize::try_from(n).ok());
    // The record says the defaults too, after what the document wrote.
    let mut said = written.clone();
    said.entry("status").or_insert(json!(STATUS_DEFAULT));
    said.entry("limit").or_insert(json!(LIMIT_DEFAULT));
    Some(RunsQuery {
        of: target?,
        status: (status != "any").then_some(status),
        condition: condition.map(str::to_string),
        limit: limit.unwrap_or(LIMIT_DEFAULT),
        said: Value::Object(said),
    })
}

fn check_tool(f: &mut Findings<'_>) -> Option<ToolCallSpec> {
    f.mapping("/tool", true)?;
    f.only_keys("/tool", &["name", "arguments"], "tool");
    ToolCallSpec::check(f, "/tool", "name", &["input"], true)
}

#[cfg(test)]
mod tests {
    use crate::core::definition::{check_document, Kind};

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
