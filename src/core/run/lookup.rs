//! A lookup of runs: the newest runs of another definition of the playbook, kept where they
//! ended as asked and where the `where` expression holds, up to the limit.

use serde_json::{json, Map, Value};

use super::record::Record;
use super::{Run, RunError};
use crate::core::definition::template::environment;
use crate::core::definition::Document;

pub const LIMIT_DEFAULT: usize = 20;
pub const STATUS_DEFAULT: &str = "succeeded";
/// How many of the newest runs a lookup reads before it filters them.
pub const READ_MAX: usize = 500;

fn fail(reason: &str, detail: String) -> RunError {
    RunError { reason: reason.into(), detail }
}

/// The runs as the `where` expression and the output see them.
pub fn run_view(run: &Run) -> Value {
    let mut v = json!({
        "run_id": run.run_id,
        "status": run.status.word(),
        "input": run.input,
        "started_at": run.started_at,
    });
    if let super::RunStatus::Succeeded { output, finished_at } = &run.status {
        v["output"] = output.clone();
        v["finished_at"] = json!(finished_at);
    }
    v
}

/// The runs found, or why none could be, and the record of the query as it ran.
pub fn evaluate(source: &str, input: &Value, runs: &[Run]) -> (Result<Value, RunError>, Record) {
    let doc = match Document::parse(source) {
        Ok(doc) => doc,
        Err(p) => {
            return (Err(fail("document", p.detail)), Record::Lookup { query: Value::Null, read: runs.len(), kept: 0 })
        }
    };
    let mut query = doc.front.get("runs").cloned().unwrap_or(Value::Null);
    // The defaults the query ran with, so that the record says all of it.
    if let Some(q) = query.as_object_mut() {
        q.entry("status").or_insert(json!(STATUS_DEFAULT));
        q.entry("limit").or_insert(json!(LIMIT_DEFAULT));
    }
    let result = find(&doc, input, runs);
    let kept = result.as_ref().ok().and_then(|v| v["runs"].as_array()).map_or(0, Vec::len);
    (result, Record::Lookup { query, read: runs.len(), kept })
}

fn find(doc: &Document<'_>, input: &Value, runs: &[Run]) -> Result<Value, RunError> {
    if doc.front.get("tool").is_some() {
        return Err(fail(
            "not_served",
            "a lookup through a tool needs a tool server, and this runtime reaches none".into(),
        ));
    }
    let status = doc.front.pointer("/runs/status").and_then(Value::as_str).unwrap_or(STATUS_DEFAULT);
    let limit = doc.front.pointer("/runs/limit").and_then(Value::as_u64).map_or(LIMIT_DEFAULT, |n| n as usize);
    let env = environment();
    let condition = match doc.front.pointer("/runs/where").and_then(Value::as_str) {
        Some(text) => Some(env.compile_expression(text).map_err(|e| fail("expression", e.to_string()))?),
        None => None,
    };
    let mut found = Vec::new();
    for run in runs {
        if status != "any" && run.status.word() != status {
            continue;
        }
        let view = run_view(run);
        if let Some(c) = &condition {
            let mut scope = Map::new();
            scope.insert("input".into(), input.clone());
            scope.insert("run".into(), view.clone());
            let keep = c.eval(&scope).map_err(|e| {
                fail(
                    "expression",
                    format!(
                        "where failed on run {}: {}",
                        run.run_id,
                        e.detail().unwrap_or("it could not be evaluated")
                    ),
                )
            })?;
            if !keep.is_true() {
                continue;
            }
        }
        found.push(view);
        if found.len() == limit {
            break;
        }
    }
    Ok(json!({ "runs": found }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{Kind, Ref};
    use crate::core::run::RunStatus;

    fn run(id: &str, net: i64, gross: i64) -> Run {
        Run {
            run_id: id.into(),
            org: "local".into(),
            playbook: "pb_x".into(),
            definition: Ref { kind: Kind::Computation, name: "add-vat".into() },
            version: 1,
            input: json!({"net": net}),
            status: RunStatus::Succeeded { output: json!({"gross": gross}), finished_at: "t".into() },
            started_at: "t".into(),
            within: None,
            steps: None,
            started_by: None,
            answered_by: None,
            record: None,
        }
    }

    #[test]
    fn filters_and_limits_the_newest_runs() {
        let doc = "---\ndescription: Large ones\nruns: { of: computation/add-vat, where: run.output.gross > input.over, limit: 1 }\n---\n";
        let runs = [run("r3", 300, 360), run("r2", 10, 12), run("r1", 200, 240)];
        let (out, record) = evaluate(doc, &json!({"over": 100}), &runs);
        let out = out.unwrap();
        let Record::Lookup { query, read, kept } = record else { panic!("a lookup's record") };
        assert_eq!((query["status"].as_str(), read, kept), (Some("succeeded"), 3, 1));
        assert_eq!(out["runs"].as_array().map(Vec::len), Some(1));
        assert_eq!(out["runs"][0]["run_id"], "r3");
    }
}
