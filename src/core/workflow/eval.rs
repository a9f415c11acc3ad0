//! Expressions at run time: each is given `input`, the workflow's input, and `steps`, where each
//! step stands as `{status, output, error, attempt}`.

use serde_json::{json, Map, Value};

use super::plan::{Fields, Output, Plan};
use super::state::{Flow, StepStatus};
use crate::core::definition::template::environment;

/// What expressions of `flow` see now.
pub fn scope(flow: &Flow) -> Value {
    let mut steps = Map::new();
    for s in &flow.steps {
        let (output, error) = match &s.status {
            StepStatus::Succeeded { output, .. } => (output.clone(), Value::Null),
            StepStatus::Failed { error, .. } => (Value::Null, json!(error)),
            _ => (Value::Null, Value::Null),
        };
        let attempt = s.status.attempt().map_or(Value::Null, Value::from);
        steps.insert(
            s.id.clone(),
            json!({ "status": s.status.word(), "output": output, "error": error, "attempt": attempt }),
        );
    }
    json!({ "input": flow.input, "steps": steps })
}

/// The value of one expression, or the words of why it has none.
pub fn value(expr: &str, scope: &Value) -> Result<Value, String> {
    let env = environment();
    let compiled = env.compile_expression(expr).map_err(|e| e.to_string())?;
    let v = compiled.eval(minijinja::Value::from_serialize(scope)).map_err(|e| e.to_string())?;
    serde_json::to_value(&v).map_err(|e| e.to_string())
}

/// Whether a condition holds, in the template language's sense of true.
pub fn holds(expr: &str, scope: &Value) -> Result<bool, String> {
    let env = environment();
    let compiled = env.compile_expression(expr).map_err(|e| e.to_string())?;
    let v = compiled.eval(minijinja::Value::from_serialize(scope)).map_err(|e| e.to_string())?;
    Ok(v.is_true())
}

/// A mapping built field by field; the first field that fails names itself.
pub fn object(fields: &Fields, scope: &Value) -> Result<Value, String> {
    let mut out = Map::new();
    for (name, expr) in fields {
        let v = value(expr, scope).map_err(|e| format!("{name}: {e}"))?;
        out.insert(name.clone(), v);
    }
    Ok(Value::Object(out))
}

/// The workflow's output once every step has ended.
pub fn output(plan: &Plan, flow: &Flow) -> Result<Value, String> {
    let scope = scope(flow);
    match &plan.output {
        Output::Steps => Ok(Value::Object(
            flow.steps
                .iter()
                .filter_map(|s| match &s.status {
                    StepStatus::Succeeded { output, .. } => Some((s.id.clone(), output.clone())),
                    _ => None,
                })
                .collect(),
        )),
        Output::Fields(fields) => object(fields, &scope),
        Output::Expression(expr) => value(expr, &scope),
    }
}
