//! Whole definition documents: each kind's front matter and body, checked as a save checks them.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;

use playbook_runtime::core::definition::{check_document, Kind};

use crate::cron::{cron_text, zone_name};
use crate::schema::{merged, subschema};
use crate::template::template_text;
use crate::{bounded, cases};

// ---- Whole definition documents ----

/// A document of each kind the checks know best, its parts generated: the input schema, the
/// body, the trigger.
fn document() -> impl Strategy<Value = (Kind, String)> {
    let kind = select(vec![Kind::Reasoning, Kind::Computation, Kind::Workflow, Kind::Lookup]);
    let schema =
        subschema().prop_map(|s| merged(json!({ "type": "object", "properties": { "n": { "type": "number" } } }), s));
    let parts = (schema, "[A-Za-z ]{0,60}", cron_text(), zone_name(), "[a-z.* 0-9()+]{0,30}");
    (kind, parts, template_text()).prop_map(|(kind, (schema, description, cron, zone, expression), body)| {
        let input = json!({ "schema": schema });
        let front = match kind {
            Kind::Reasoning => {
                json!({ "description": description, "model": "anthropic/claude-sonnet-4-5", "input": input })
            }
            Kind::Computation => json!({
                "description": description,
                "input": input,
                "output": { "schema": { "type": "object", "properties": { "m": { "type": "number" } } } },
                "compute": { "m": expression },
            }),
            Kind::Workflow => json!({
                "description": description,
                "input": input,
                "steps": [{ "id": "a", "function": "reasoning/x", "input": { "n": expression } }],
                "triggers": [{ "cron": cron, "time_zone": zone, "input": { "n": "1" } }],
            }),
            _ => json!({ "description": description, "input": input, "runs": "workflow/x" }),
        };
        let body = if kind == Kind::Reasoning { body } else { String::new() };
        // JSON is YAML's flow style: the front matter a tool may well write.
        (kind, format!("---\n{front}\n---\n{body}"))
    })
}

proptest! {
    #![proptest_config(cases(128))]

    /// What saving a definition runs: front matter, schemas, templates, diagram and triggers.
    #[test]
    fn definitions_check_within_bounds((kind, source) in document()) {
        let _ = bounded(|| check_document(kind, &source))?;
    }
}
