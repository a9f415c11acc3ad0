//! Evaluates a computation function: each field of `compute`, in order, over `input` and the
//! fields before it, then the output held to the output schema.

use serde_json::{Map, Value};

use super::record::{FieldValue, Record};
use super::RunError;
use crate::core::definition::template::environment;
use crate::core::definition::Document;

fn fail(reason: &str, detail: String) -> RunError {
    RunError { reason: reason.into(), detail }
}

/// The output, or why there is none, and the record of each value computed.
pub fn evaluate(source: &str, input: &Value) -> (Result<Value, RunError>, Record) {
    let mut values = Vec::new();
    let result = compute(source, input, &mut values);
    (result, Record::Computation { values })
}

fn compute(source: &str, input: &Value, values: &mut Vec<FieldValue>) -> Result<Value, RunError> {
    let doc = Document::parse(source).map_err(|p| fail("document", p.detail))?;
    let compute = doc.front.get("compute").and_then(Value::as_object).cloned().unwrap_or_default();
    let env = environment();
    let mut scope = Map::new();
    scope.insert("input".into(), input.clone());
    let mut output = Map::new();
    for (field, expr) in &compute {
        let text = expr.as_str().unwrap_or_default();
        let expression = env.compile_expression(text).map_err(|e| fail("expression", format!("{field}: {e}")))?;
        let value = expression.eval(&scope).map_err(|e| {
            fail(
                "expression",
                format!("computing {field} failed: {}", e.detail().unwrap_or("it could not be evaluated")),
            )
        })?;
        let json = serde_json::to_value(&value)
            .map_err(|e| fail("expression", format!("{field} gave a value that is not JSON: {e}")))?;
        values.push(FieldValue { field: field.clone(), value: json.clone() });
        scope.insert(field.clone(), json.clone());
        output.insert(field.clone(), json);
    }
    let output = Value::Object(output);
    if let Some(schema) = doc.front.pointer("/output/schema") {
        let validator = crate::core::schema::compiled(schema).map_err(|e| fail("output_schema", e.to_string()))?;
        let problems: Vec<String> =
            validator.iter_errors(&output).map(|e| format!("{}: {e}", e.instance_path().as_str())).collect();
        if !problems.is_empty() {
            return Err(fail(
                "output_schema",
                format!("the output does not fit output.schema: {}", problems.join("; ")),
            ));
        }
    }
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DOC: &str = "---\ndescription: Adds VAT\ninput:\n  schema: { type: object }\noutput:\n  schema: { type: object, properties: { vat: { type: number }, gross: { type: number } }, required: [vat, gross] }\ncompute:\n  vat: input.net * 0.2\n  gross: input.net + vat\n---\n";

    #[test]
    fn fields_build_on_each_other_and_fit_the_schema() {
        let (out, record) = evaluate(DOC, &json!({"net": 100}));
        assert_eq!(out.unwrap(), json!({"vat": 20.0, "gross": 120.0}));
        assert_eq!(
            serde_json::to_value(record).unwrap(),
            json!({"type": "computation", "values": [{"field": "vat", "value": 20.0}, {"field": "gross", "value": 120.0}]})
        );
        let e = evaluate(DOC, &json!({})).0.unwrap_err();
        assert_eq!(e.reason, "expression");
        let e = evaluate(&DOC.replace("input.net + vat", "'lots'"), &json!({"net": 1})).0.unwrap_err();
        assert_eq!(e.reason, "output_schema");
    }
}
