//! The shape of a tool result: words first, then the output as JSON text and as structured content.

use serde_json::{json, Map, Value};

use crate::core::text::{cap, RELAY_MAX, SUMMARY_MAX};
use crate::core::Problem;
use crate::tools::Output;

/// Takes the output, so that its value and its text move into the result: `json!` would copy
/// each there, and the text is as long as the output.
pub fn success(output: Output) -> Value {
    let words = if output.relay { cap(&output.summary, RELAY_MAX) } else { cap(&output.summary, SUMMARY_MAX) };
    let value = output.over_mcp.unwrap_or(output.value);
    let text = value.to_string();
    let mut result = Map::new();
    result.insert("content".into(), Value::Array(vec![text_part(words), text_part(text)]));
    result.insert("structuredContent".into(), value);
    result.insert("isError".into(), Value::Bool(false));
    Value::Object(result)
}

fn text_part(text: String) -> Value {
    let mut part = Map::new();
    part.insert("type".into(), Value::from("text"));
    part.insert("text".into(), Value::String(text));
    Value::Object(part)
}

pub fn failure(problem: &Problem) -> Value {
    json!({
        "content": [
            { "type": "text", "text": problem.words() },
            { "type": "text", "text": problem.document().to_string() }
        ],
        "isError": true
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_carries_the_output_twice_and_failure_once() {
        let out = Output::ok("Done.".into(), json!({"a": 1}));
        let r = success(out);
        assert_eq!(r["structuredContent"], json!({"a": 1}));
        let text: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, r["structuredContent"]);
        let f = failure(&Problem::invalid("/name", "is required"));
        assert_eq!(f["isError"], true);
        assert!(f.get("structuredContent").is_none());
        let doc: Value = serde_json::from_str(f["content"][1]["text"].as_str().unwrap()).unwrap();
        assert_eq!(doc["errors"][0]["pointer"], "/name");
    }
}
