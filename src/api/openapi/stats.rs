//! The schema of what `get_stats` answers, written from `core::run::stats` and the fields the
//! tool adds: which definition, the cost and what is absent, and how much was read.

use serde_json::{json, Value};

use super::shapes::{reference, time};
use crate::core::run::stats::{Window, RANKED_MAX};

fn count(description: &str) -> Value {
    json!({ "type": "integer", "minimum": 0, "description": description })
}

fn millis(description: &str) -> Value {
    json!({ "type": ["integer", "null"], "minimum": 0, "description": description })
}

fn figures(description: &str) -> Value {
    json!({
        "type": "object",
        "description": description,
        "properties": {
            "runs": count("How many runs started in the window."),
            "succeeded": count("How many of them succeeded."),
            "failed": count("How many failed."),
            "cancelled": count("How many were cancelled."),
            "running": count("How many are started and not ended yet."),
            "success_rate": { "type": ["number", "null"], "minimum": 0, "maximum": 1, "description": "Of the runs that ended, the share that succeeded, to three places; null where none ended." },
            "duration_ms": {
                "type": "object",
                "description": "How long the runs that ended took, from start to end, by the nearest rank; each null where none ended.",
                "properties": { "p50": millis("The median."), "p95": millis("The 95th percentile.") },
                "required": ["p50", "p95"]
            },
            "tokens": {
                "type": ["object", "null"],
                "description": "What the models of the runs counted, of the runs whose record holds it (reasoning runs whose provider said); null where none did, which is absent, not zero.",
                "properties": { "input": count("Tokens in."), "output": count("Tokens out."), "runs": count("The runs that recorded them.") },
                "required": ["input", "output", "runs"]
            }
        },
        "required": ["runs", "succeeded", "failed", "cancelled", "running", "success_rate", "duration_ms", "tokens"]
    })
}

fn ranked(description: &str, properties: Value, required: &[&str]) -> Value {
    let mut props =
        json!({ "definition": reference("DefinitionRef"), "ended": count("Its runs in the window that ended.") });
    if let (Some(all), Some(more)) = (props.as_object_mut(), properties.as_object()) {
        all.extend(more.clone());
    }
    json!({
        "type": "array",
        "maxItems": RANKED_MAX,
        "description": description,
        "items": { "type": "object", "properties": props, "required": required }
    })
}

pub(super) fn stats() -> Value {
    json!({
        "type": "object",
        "description": "How the playbook's runs, or one definition's, went over a window against the window of the same length before it.",
        "properties": {
            "window": { "type": "string", "enum": Window::NAMES, "description": "The span counted." },
            "from": time("The window's start: it holds the runs started from then to `to`."),
            "to": time("When it was counted: the window's end."),
            "previous_from": time("The start of the window before, which runs to `from`."),
            "definition": { "anyOf": [reference("DefinitionRef"), { "type": "null" }], "description": "The one definition counted, or null for the whole playbook." },
            "current": figures("The window's runs."),
            "previous": figures("The runs of the window before."),
            "most_failing": ranked(
                "The definitions with the most failed runs in the window, most first.",
                json!({ "failed": count("Its failed runs in the window.") }),
                &["definition", "failed", "ended"]
            ),
            "slowest": ranked(
                "The definitions whose runs that ended in the window took longest, by p95, slowest first.",
                json!({ "p50_ms": count("Its median duration."), "p95_ms": count("Its 95th percentile.") }),
                &["definition", "p50_ms", "p95_ms", "ended"]
            ),
            "cost": { "type": "null", "description": "Always null: the model catalogue holds no prices, so no cost is reckoned." },
            "absent": { "type": "array", "items": { "type": "string" }, "description": "What is not given and why, each as `field: reason`." },
            "read": {
                "type": "object",
                "description": "How much was read: the runs are the newest of each definition, up to a bound.",
                "properties": {
                    "runs_per_definition": count("The most runs read of each definition."),
                    "definitions": count("The definitions whose runs were read."),
                    "runs": count("The runs read that started in either window."),
                    "reached": { "type": "array", "items": reference("DefinitionRef"), "description": "The definitions whose read reached the bound with runs of the windows older still, which are left out." },
                    "more_definitions": { "type": "boolean", "description": "Whether more definitions were left out than the 100 read." }
                },
                "required": ["runs_per_definition", "definitions", "runs", "reached", "more_definitions"]
            }
        },
        "required": ["window", "from", "to", "previous_from", "definition", "current", "previous", "most_failing", "slowest", "cost", "absent", "read"]
    })
}
