//! The checker of a computation function's document, which builds its spec.

use serde_json::Value;

use super::super::check::{escape, Findings};
use super::{ComputationSpec, FIELDS_MAX};

const KEYS: &[&str] = &["description", "page", "input", "output", "compute"];

/// The spec, where the document gave every part of it; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<ComputationSpec> {
    f.only_keys("", KEYS, "a computation function");
    f.only_keys("/input", &["schema"], "input");
    f.only_keys("/output", &["schema"], "output");
    let input_schema = match f.mapping("/input", true) {
        Some(_) => f.schema("/input/schema", true, true),
        None => None,
    };
    let schema = match f.mapping("/output", true) {
        Some(_) => f.schema("/output/schema", true, true),
        None => None,
    };
    let Some(compute) = f.mapping("/compute", true) else {
        f.empty_body("A computation function");
        return None;
    };
    if compute.is_empty() || compute.len() > FIELDS_MAX {
        f.error("/compute", format!("must compute 1 to {FIELDS_MAX} fields"));
    }
    let mut allowed = vec!["input".to_string()];
    let mut fields = Vec::with_capacity(compute.len().min(FIELDS_MAX));
    for (field, expr) in compute {
        let pointer = format!("/compute/{}", escape(field));
        match expr {
            Value::String(e) => {
                f.expression(&pointer, e, &allowed);
                fields.push((field.clone(), e.clone()));
            }
            _ => f.error(&pointer, "must be a template expression written as text, such as input.amount * 0.2"),
        }
        allowed.push(field.clone());
    }
    if let Some(required) = schema.and_then(|s| s.get("required")).and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !compute.contains_key(name) {
                f.error("/compute", format!("computes no {name}, which output.schema requires"));
            }
        }
    }
    f.empty_body("A computation function");
    Some(ComputationSpec { input_schema: input_schema?.clone(), output_schema: schema?.clone(), fields })
}

#[cfg(test)]
mod tests {
    use crate::core::definition::{check_document, Kind};

    const DOC: &str = "---\ndescription: Adds VAT to a net amount\ninput:\n  schema: { type: object, properties: { net: { type: number } }, required: [net] }\noutput:\n  schema: { type: object, properties: { vat: { type: number }, gross: { type: number } }, required: [vat, gross] }\ncompute:\n  vat: input.net * 0.2\n  gross: input.net + vat\n---\n";

    #[test]
    fn expressions_build_the_output() {
        assert!(check_document(Kind::Computation, DOC).is_ok());
        let p = check_document(Kind::Computation, &DOC.replace("input.net + vat", "input.net + tax")).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/compute/gross");
        let p = check_document(Kind::Computation, &DOC.replace("  gross: input.net + vat\n", "")).unwrap_err();
        assert!(p.detail.contains("computes no gross"), "{}", p.detail);
        let p = check_document(Kind::Computation, &DOC.replace("input.net * 0.2", "input.net *")).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/compute/vat");
    }
}
