//! A lookup of runs: the newest runs of another definition of the playbook, kept where they
//! ended as asked and where the `where` expression holds, up to the limit.

use serde_json::{json, Map, Value};

use super::{LookupSpec, Read, RunsQuery};
use crate::core::definition::template::environment;
use crate::core::run::record::Record;
use crate::core::run::{Run, RunError, RunStatus};

/// The runs as the `where` expression and the output see them.
pub fn run_view(run: &Run) -> Value {
    let mut v = json!({
        "run_id": run.run_id,
        "status": run.status.word(),
        "input": run.input,
        "started_at": run.started_at,
    });
    if let RunStatus::Succeeded { output, finished_at } = &run.status {
        v["output"] = output.clone();
        v["finished_at"] = json!(finished_at);
    }
    v
}

/// The runs found, or why none could be, and the record of the query as it ran.
pub fn evaluate(spec: &LookupSpec, input: &Value, runs: &[Run]) -> (Result<Value, RunError>, Record) {
    let (result, query) = match &spec.read {
        Read::Runs(q) => (find(q, input, runs), q.said.clone()),
        // The run's object makes the call and ends the run with its answer.
        Read::Tool(call) => (
            Err(RunError::new(
                crate::core::ErrorCode::Internal,
                format!("a lookup through {} is answered by its call, not from runs", call.name),
            )),
            Value::Null,
        ),
    };
    let kept = result.as_ref().ok().and_then(|v| v["runs"].as_array()).map_or(0, Vec::len);
    (result, Record::Lookup { query, read: runs.len(), kept })
}

fn find(q: &RunsQuery, input: &Value, runs: &[Run]) -> Result<Value, RunError> {
    let env = environment();
    let condition = match &q.condition {
        Some(text) => Some(
            env.compile_expression(text)
                .map_err(|e| RunError::new(crate::core::ErrorCode::Expression, e.to_string()))?,
        ),
        None => None,
    };
    let mut found = Vec::new();
    for run in runs {
        if q.status.is_some_and(|s| run.status.word() != s) {
            continue;
        }
        let view = run_view(run);
        if let Some(c) = &condition {
            let mut scope = Map::new();
            scope.insert("input".into(), input.clone());
            scope.insert("run".into(), view.clone());
            let keep = c.eval(&scope).map_err(|e| {
                RunError::new(
                    crate::core::ErrorCode::Expression,
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
        if found.len() == q.limit {
            break;
        }
    }
    Ok(json!({ "runs": found }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{spec, Kind, Ref, Spec};

    fn run(id: &str, net: i64, gross: i64) -> Run {
        let definition = Ref { kind: Kind::Computation, name: "add-vat".into() };
        let status = RunStatus::Succeeded { output: json!({"gross": gross}), finished_at: "t".into() };
        Run { status, ..Run::started(id, ("local", "pb_x"), definition, 1, json!({"net": net}), "t") }
    }

    #[test]
    fn filters_and_limits_the_newest_runs() {
        let doc = "---\ndescription: Large ones\nruns: { of: computation/add-vat, where: run.output.gross > input.over, limit: 1 }\n---\n";
        let runs = [run("r3", 300, 360), run("r2", 10, 12), run("r1", 200, 240)];
        let Ok(Spec::Lookup(spec)) = spec(Kind::Lookup, doc) else { panic!("a lookup's spec") };
        let (out, record) = evaluate(&spec, &json!({"over": 100}), &runs);
        let out = out.unwrap();
        let Record::Lookup { query, read, kept } = record else { panic!("a lookup's record") };
        assert_eq!((query["status"].as_str(), read, kept), (Some("succeeded"), 3, 1));
        assert_eq!(out["runs"].as_array().map(Vec::len), Some(1));
        assert_eq!(out["runs"][0]["run_id"], "r3");
    }
}
