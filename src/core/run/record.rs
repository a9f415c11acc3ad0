//! A run's detailed record: how it went, beyond its status and output. `get_run` answers it; a
//! run's other answers leave it out. It never holds a credential.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::core::definition::reasoning::Prepared;
use crate::core::definition::Kind;
use crate::core::model::wire::Answer;

use crate::core::workflow::view::StepView;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Reasoning(Reasoned),
    /// Each field of `compute` with its value, in the order evaluated (up to the one that failed).
    Computation {
        values: Vec<FieldValue>,
    },
    /// The query as it ran, how many runs it read and how many it kept.
    Lookup {
        query: Value,
        read: usize,
        kept: usize,
    },
    /// The series forecast from, the method and every parameter it used, and the events read.
    Prediction {
        series: Vec<Value>,
        method: String,
        params: Value,
        events_read: usize,
    },
    /// Each step of a workflow run, in the order it started.
    Workflow {
        steps: Vec<StepView>,
    },
}

impl Record {
    /// The record of a run whose stored document failed its check before anything ran: empty,
    /// for the types whose record says what they read.
    pub fn unchecked(kind: Kind, read: usize, events_read: usize) -> Option<Record> {
        match kind {
            Kind::Computation => Some(Record::Computation { values: Vec::new() }),
            Kind::Lookup => Some(Record::Lookup { query: Value::Null, read, kept: 0 }),
            Kind::Prediction => {
                Some(Record::Prediction { series: Vec::new(), method: String::new(), params: Value::Null, events_read })
            }
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldValue {
    pub field: String,
    pub value: Value,
}

/// What a reasoning run sent its model and what came back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reasoned {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    pub user: String,
    /// The model as the function names it, and what that name resolved to (an alias's target).
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl Reasoned {
    /// What a run asks its model, before any answer.
    pub fn asked(prepared: &Prepared) -> Self {
        Reasoned {
            system: prepared.call.system.clone(),
            user: prepared.call.user.clone(),
            model: prepared.model.clone(),
            resolved_to: None,
            answer: None,
            stop: None,
            input_tokens: None,
            output_tokens: None,
            duration_ms: None,
        }
    }

    pub fn answered(&mut self, answer: &Answer, duration_ms: u64) {
        self.answer = Some(answer.text.clone());
        self.stop = Some(format!("{:?}", answer.stop).to_lowercase());
        self.input_tokens = answer.input_tokens;
        self.output_tokens = answer.output_tokens;
        self.duration_ms = Some(duration_ms);
    }

    /// The `model_answered` event's data: the call's figures, without the prompt or the answer.
    pub fn answered_event(&self) -> Value {
        json!({
            "model": self.model,
            "resolved_to": self.resolved_to,
            "stop": self.stop,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "duration_ms": self.duration_ms,
        })
    }
}
