//! An event filter: the kind of event it takes, and fields of the event's data that must hold
//! given values. Triggers, and steps that wait for an event, name events this way.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The most fields a filter's `where` may test.
pub const WHERE_MAX: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Filter {
    /// The event's kind, as `brief_submitted`, or the name `send_run_event` gave it.
    pub kind: String,
    /// Each entry a field of the data, dotted for a nested one (`customer.tier`), and the value
    /// it must equal.
    #[serde(default, skip_serializing_if = "Map::is_empty", rename = "where")]
    pub fields: Map<String, Value>,
}

impl Filter {
    pub fn kind(kind: &str) -> Filter {
        Filter { kind: kind.to_string(), fields: Map::new() }
    }

    /// Whether an event of `kind` with `data` is one the filter takes: the same kind, and every
    /// field it names present in the data with an equal value. A field the data lacks never matches.
    pub fn matches(&self, kind: &str, data: &Value) -> bool {
        self.kind == kind && self.fields.iter().all(|(path, want)| field(data, path) == Some(want))
    }
}

/// The value at a dotted path of `data`; a path segment that is a whole number also indexes a list.
pub fn field<'v>(data: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(data, |at, segment| match at {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// The problem with a dotted field path, for the checker: segments of letters, digits and `_`.
pub fn path_problem(path: &str) -> Option<&'static str> {
    let ok = !path.is_empty()
        && path.len() <= 128
        && path.split('.').all(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    (!ok).then_some(
        "must name a field of the event's data, with letters, digits and _, dotted for a nested one, as customer.tier",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_filter_takes_its_kind_with_equal_fields() {
        let mut f = Filter::kind("brief_submitted");
        assert!(f.matches("brief_submitted", &json!({"team": "marketing"})));
        assert!(!f.matches("brief_approved", &json!({})));
        f.fields.insert("team".into(), json!("marketing"));
        f.fields.insert("owner.tier".into(), json!(2));
        assert!(f.matches("brief_submitted", &json!({"team": "marketing", "owner": {"tier": 2}, "x": 1})));
        assert!(!f.matches("brief_submitted", &json!({"team": "marketing", "owner": {"tier": "2"}})));
        assert!(!f.matches("brief_submitted", &json!({"team": "marketing"})));
        assert!(!f.matches("brief_submitted", &json!(null)));
        assert_eq!(field(&json!({"a": [1, {"b": 3}]}), "a.1.b"), Some(&json!(3)));
    }

    #[test]
    fn paths_are_dotted_words() {
        assert!(path_problem("customer.tier").is_none());
        for bad in ["", "a..b", ".a", "a b", "a-b"] {
            assert!(path_problem(bad).is_some(), "{bad}");
        }
    }
}
