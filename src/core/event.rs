//! Events: everything that happened in a playbook, each with a plain-language summary. Runs
//! record theirs; an agent publishes facts of the business, such as a month closed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::Problem;

pub const KIND_MAX: usize = 64;
/// The most bytes a published event's data takes, as JSON.
pub const DATA_MAX_BYTES: usize = 65_536;
pub const LIST_LIMIT_DEFAULT: usize = 50;
pub const LIST_LIMIT_MAX: usize = 200;
/// In a list, data larger than this is left out and its size given; get_event reads it whole.
pub const LISTED_DATA_MAX_BYTES: usize = 2_048;

/// An event as it is recorded, before the playbook numbers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewEvent {
    pub kind: String,
    pub at: String,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub data: Value,
    /// The run whose history holds the event: a workflow run for its steps' runs. Kept, not shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// What makes a recorded event one: the run and the place in its outbox. An event handed over
    /// again after a restart cut the first hand-over short is kept once. Kept, not shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub event_id: String,
    #[serde(flatten)]
    pub event: NewEvent,
}

impl Event {
    /// The event as a list shows it: a large `data` is replaced by its size.
    pub fn listed(mut self) -> Result<Value, Problem> {
        let size = self.event.data.to_string().len();
        if size > LISTED_DATA_MAX_BYTES {
            self.event.data = Value::Null;
            let mut v = super::error::encoded(&self)?;
            if let Some(o) = v.as_object_mut() {
                o.remove("data");
                o.insert("data_size".into(), size.into());
            }
            return Ok(v);
        }
        super::error::encoded(&self)
    }
}

pub fn event_id(position: i64) -> String {
    format!("ev_{position}")
}

pub fn position(event_id: &str) -> Option<i64> {
    event_id.strip_prefix("ev_")?.parse().ok().filter(|n: &i64| *n > 0)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventQuery {
    /// One run's events, oldest first; without it, the playbook's, newest first.
    pub run_id: Option<String>,
    pub kind: Option<String>,
    pub limit: usize,
    /// The position the page before ended at.
    pub after: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventPage {
    pub events: Vec<Value>,
    pub next_cursor: Option<String>,
}

crate::core::json::tagged::tagged! {
    /// A write to the playbook's events, from a run, a trigger or `publish_event`.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum EventCommand as "op" {
        Append {
            events: Vec<NewEvent>,
            /// The run that recorded them as it stands now, for the index of runs, sent in the same
            /// call so that a step costs the playbook one call rather than two.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            run: Option<Box<crate::core::run::Run>>,
            /// Runs of steps as they ended, whose events a workflow run carries among these.
            #[serde(default, skip_serializing_if = "Vec::is_empty")]
            steps: Vec<crate::core::run::Run>,
        },
        /// A workflow run's step waits for events of a kind: the playbook delivers those it records.
        Await { org: String, run_id: String, kind: String },
    }
}

impl EventCommand {
    /// Events to append that no run records: published, or recorded by a trigger or a server.
    pub fn append(events: Vec<NewEvent>) -> EventCommand {
        EventCommand::Append { events, run: None, steps: Vec::new() }
    }
}

/// A write to a playbook's events. It answers the events kept, in order, and none for a wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteEvents {
    pub playbook: String,
    pub command: EventCommand,
}

/// A page of a playbook's events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListEvents {
    pub playbook: String,
    pub query: EventQuery,
}

/// A read of one event of a playbook, whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetEvent {
    pub playbook: String,
    pub event_id: String,
}

/// The newest events of a kind whole, newest first, for a prediction to read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadEvents {
    pub playbook: String,
    pub kind: String,
    pub limit: usize,
}

/// An event kind a person or a trigger names: lowercase letters, digits, `_`, `.` and `-`.
pub fn check_kind(kind: &str) -> Result<(), Problem> {
    let ok = !kind.is_empty()
        && kind.len() <= KIND_MAX
        && kind.starts_with(|c: char| c.is_ascii_lowercase())
        && kind.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b));
    if ok {
        Ok(())
    } else {
        Err(Problem::invalid(
            "/kind",
            format!(
                "must be 1 to {KIND_MAX} lowercase letters, digits, _ . and -, starting with a letter, as month_closed"
            ),
        ))
    }
}

/// Kinds the runtime records itself; a published event may not take one.
pub const RECORDED: [&str; 22] = [
    "run_started",
    "run_succeeded",
    "run_failed",
    "run_cancelled",
    "model_answered",
    "interaction_requested",
    "interaction_answered",
    "interaction_expired",
    "workflow_input_applied",
    "step_waiting",
    "step_finished",
    "step_failed",
    "step_retrying",
    "step_skipped",
    "step_cancelled",
    "step_reused",
    "trigger_refused",
    "tool_call_started",
    "tool_call_answered",
    "tool_call_failed",
    "tool_call_refused",
    "tool_called",
];

/// The most of one field `get_event` shows over MCP; a larger field is shown by its size.
pub const SHOWN_FIELD_MAX_BYTES: usize = 65_536;

/// The event as an MCP result shows it: each field whole up to `max` bytes of JSON, and a field
/// larger than that, where it holds no smaller fields to show, by its size alone.
pub fn shown(value: &Value, max: usize) -> Value {
    shown_of(value, max, "the event")
}

/// `shown`, for any record read whole over HTTP, such as `the run`.
pub fn shown_of(value: &Value, max: usize, thing: &str) -> Value {
    let size = value.to_string().len();
    if size <= max {
        return value.clone();
    }
    match value {
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shown_of(v, max, thing))).collect()),
        Value::Array(items) if items.len() <= 1_000 => {
            Value::Array(items.iter().map(|v| shown_of(v, max, thing)).collect())
        }
        _ => serde_json::json!({
            "omitted_bytes": size,
            "note": format!("This field is larger than the 64 KiB an MCP result shows; GET {thing} over HTTP to read it whole.")
        }),
    }
}

pub fn decode_cursor(token: &str) -> Result<i64, Problem> {
    token
        .strip_prefix('e')
        .and_then(|n| n.parse::<i64>().ok())
        .filter(|n| *n > 0)
        .ok_or_else(|| Problem::invalid("/cursor", "is not a cursor this list gave; pass next_cursor as it came"))
}

pub fn encode_cursor(position: i64) -> String {
    format!("e{position}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_ids_and_listing() {
        assert!(check_kind("month_closed").is_ok());
        assert!(check_kind("Month").is_err() && check_kind("").is_err() && check_kind("a b").is_err());
        assert_eq!(position(&event_id(42)), Some(42));
        assert_eq!(decode_cursor(&encode_cursor(7)), Ok(7));
        let big = Event {
            event_id: event_id(1),
            event: NewEvent {
                kind: "k".into(),
                at: "t".into(),
                summary: "s".into(),
                run_id: None,
                family: None,
                key: None,
                data: json!({"x": "y".repeat(3000)}),
            },
        };
        let listed = big.listed().unwrap();
        assert!(listed.get("data").is_none());
        assert!(listed["data_size"].as_u64().unwrap() > 3000);
    }

    #[test]
    fn a_write_reads_the_body_of_the_version_before() {
        // The body keeps the shape run objects of the version before sent, so a call across a deploy reads.
        let command = EventCommand::Await { org: "acme".into(), run_id: "r".into(), kind: "month_closed".into() };
        let body = json!({ "playbook": "pb_x", "command": command });
        let write: WriteEvents = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(write.command, command);
        assert_eq!(serde_json::to_value(&write).unwrap(), body);
    }
}

#[cfg(test)]
mod shown_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn large_fields_are_shown_by_their_size() {
        let event = json!({"kind": "run_started", "data": {"input": {"text": "x".repeat(70_000), "n": 1}}});
        let s = shown(&event, SHOWN_FIELD_MAX_BYTES);
        assert_eq!(s["kind"], "run_started");
        assert_eq!(s["data"]["input"]["n"], 1);
        assert_eq!(s["data"]["input"]["text"]["omitted_bytes"], 70_002);
        let small = json!({"data": {"text": "y".repeat(5_000)}});
        assert_eq!(shown(&small, SHOWN_FIELD_MAX_BYTES), small);
    }
}
