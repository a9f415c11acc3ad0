//! How summaries say a run's output in words: `vat: 20 and gross: 120`, nested mappings in
//! brackets, text in quotes, and a pointer to structured content when it would not fit.

use serde_json::Value;

use crate::core::text::{join_and, quote};

/// The summary of a run's `run_succeeded` event.
pub const FINISHED_EVENT: &str = "A run finished.";

/// The summary of a run's `run_started` event: `A run of the workflow “review-and-approve” started.`
pub fn started_event(definition: &crate::core::definition::Ref) -> String {
    format!("A run of the {} {} started.", definition.kind.noun(), quote(&definition.name))
}

/// The most characters of output a summary repeats.
pub const OUTPUT_WORDS_MAX: usize = 240;

pub fn output_words(value: &Value) -> Option<String> {
    let words = say(value, 0)?;
    (words.chars().count() <= OUTPUT_WORDS_MAX).then_some(words)
}

fn say(value: &Value, depth: usize) -> Option<String> {
    match value {
        Value::String(s) => Some(quote(s)),
        Value::Number(n) => Some(tidy(n)),
        Value::Bool(b) => Some(if *b { "yes" } else { "no" }.into()),
        Value::Null => Some("nothing".into()),
        Value::Array(items) if items.len() <= 5 && depth < 2 => {
            let parts: Option<Vec<String>> = items.iter().map(|v| say(v, depth + 1)).collect();
            Some(format!("[{}]", parts?.join(", ")))
        }
        Value::Object(map) if !map.is_empty() && map.len() <= 8 && depth < 2 => {
            let parts: Option<Vec<String>> =
                map.iter().map(|(k, v)| say(v, depth + 1).map(|w| format!("{k}: {w}"))).collect();
            let joined = join_and(&parts?);
            Some(if depth == 0 { joined } else { format!("({joined})") })
        }
        _ => None,
    }
}

/// `120.0` reads as `120`.
fn tidy(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
        _ => n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn says_short_outputs_and_declines_long_ones() {
        assert_eq!(output_words(&json!({"vat": 20.0, "gross": 120})).unwrap(), "vat: 20 and gross: 120");
        let nested = json!({"review": "Revise", "approval": {"verdict": "approve", "note": "ok"}});
        assert_eq!(
            output_words(&nested).unwrap(),
            "review: \u{201c}Revise\u{201d} and approval: (verdict: \u{201c}approve\u{201d} and note: \u{201c}ok\u{201d})"
        );
        assert!(output_words(&json!({"text": "x".repeat(300)})).is_none());
    }
}
