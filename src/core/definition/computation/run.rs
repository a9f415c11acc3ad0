//! Evaluates a computation function: each field of `compute`, in order, over `input` and the
//! fields before it, then the output held to the output schema.

use serde_json::{Map, Value};

use super::ComputationSpec;
use crate::core::definition::template::environment;
use crate::core::run::record::{FieldValue, Record};
use crate::core::run::RunError;

/// The output, or why there is none, and the record of each value computed.
pub fn evaluate(spec: &ComputationSpec, input: &Value) -> (Result<Value, RunError>, Record) {
    let mut values = Vec::new();
    let result = compute(spec, input, &mut values);
    (result, Record::Computation { values })
}

fn compute(spec: &ComputationSpec, input: &Value, values: &mut Vec<FieldValue>) -> Result<Value, RunError> {
    let env = environment();
    let mut scope = Map::new();
    scope.insert("input".into(), input.clone());
    let mut output = Map::new();
    for (field, text) in &spec.fields {
        let expression = env
            .compile_expression(text)
            .map_err(|e| RunError::new(crate::core::ErrorCode::Expression, format!("{field}: {e}")))?;
        let value = expression.eval(&scope).map_err(|e| {
            RunError::new(
                crate::core::ErrorCode::Expression,
                format!("computing {field} failed: {}", e.detail().unwrap_or("it could not be evaluated")),
            )
        })?;
        let json = serde_json::to_value(&value).map_err(|e| {
            RunError::new(crate::core::ErrorCode::Expression, format!("{field} gave a value that is not JSON: {e}"))
        })?;
        values.push(FieldValue { field: field.clone(), value: json.clone() });
        scope.insert(field.clone(), json.clone());
        output.insert(field.clone(), json);
    }
    let output = Value::Object(output);
    let validator = crate::core::schema::compiled(&spec.output_schema)
        .map_err(|e| RunError::new(crate::core::ErrorCode::OutputSchema, e.to_string()))?;
    let problems: Vec<String> = validator.iter_errors(&output).map(|e| format!("{}: {e}", e.pointer)).collect();
    if !problems.is_empty() {
        return Err(RunError::new(
            crate::core::ErrorCode::OutputSchema,
            format!("the output does not fit output.schema: {}", problems.join("; ")),
        ));
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{spec, Kind, Spec};
    use serde_json::json;

    const DOC: &str = "---\ndescription: Adds VAT\ninput:\n  schema: { type: object }\noutput:\n  schema: { type: object, properties: { vat: { type: number }, gross: { type: number } }, required: [vat, gross] }\ncompute:\n  vat: input.net * 0.2\n  gross: input.net + vat\n---\n";

    fn run(source: &str, input: &Value) -> (Result<Value, RunError>, Record) {
        match spec(Kind::Computation, source) {
            Ok(Spec::Computation(s)) => evaluate(&s, input),
            other => panic!("a computation's spec: {other:?}"),
        }
    }

    #[test]
    fn fields_build_on_each_other_and_fit_the_schema() {
        let (out, record) = run(DOC, &json!({"net": 100}));
        assert_eq!(out.unwrap(), json!({"vat": 20.0, "gross": 120.0}));
        assert_eq!(
            serde_json::to_value(record).unwrap(),
            json!({"type": "computation", "values": [{"field": "vat", "value": 20.0}, {"field": "gross", "value": 120.0}]})
        );
        let e = run(DOC, &json!({})).0.unwrap_err();
        assert_eq!(e.reason, crate::core::ErrorCode::Expression);
        let e = run(&DOC.replace("input.net + vat", "\"'lots'\""), &json!({"net": 1})).0.unwrap_err();
        assert_eq!(e.reason, crate::core::ErrorCode::OutputSchema);
    }
}
