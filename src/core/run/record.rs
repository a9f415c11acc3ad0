//! A run's detailed record: how it went, beyond its status and output. `get_run` answers it; a
//! run's other answers leave it out. It never holds a credential.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::core::definition::generation::{MadeAsset, Prepared as GenerationPrepared};
use crate::core::definition::reasoning::Prepared;
use crate::core::definition::Kind;
use crate::core::model::wire::Answer;

use crate::core::workflow::step_view::StepView;

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Record as "type" {
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
        /// The one call of a run without a model: a lookup through a tool, a notification, or a
        /// request sent through a tool. Its history holds the arguments and the answer.
        Call {
            call: CallRecord,
        },
        Generation(Generated),
    }
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

/// What a generation run asked its model through the gateway, and the assets it kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generated {
    /// The model as the function names it, `gateway/openai/gpt-image-2`.
    pub model: String,
    pub prompt: String,
    /// Each parameter and its value, defaults filled in.
    pub parameters: serde_json::Map<String, Value>,
    /// The asset ids the input gave as references, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<String>,
    /// What the model made, each as kept; empty until the gateway answers and each is kept.
    #[serde(default)]
    pub assets: Vec<MadeAsset>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl Generated {
    /// What a run asks its model, before any answer.
    pub fn asked(prepared: &GenerationPrepared) -> Self {
        Generated {
            model: prepared.named(),
            prompt: prepared.prompt.clone(),
            parameters: prepared.parameters.iter().map(|(n, v)| (n.clone(), json!(v))).collect(),
            references: prepared.references.iter().map(|r| r.asset_id.clone()).collect(),
            assets: Vec::new(),
            duration_ms: None,
        }
    }

    /// The `model_answered` event's data: the model, how long it took and what it made, without
    /// the prompt or the bytes.
    pub fn answered_event(&self) -> Value {
        json!({ "model": self.model, "duration_ms": self.duration_ms, "assets": self.assets })
    }
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
    /// The figures of the model's latest answer, for its event; the fields above sum them.
    #[serde(skip)]
    pub last_turn: Option<Turn>,
    /// How many times the model was asked.
    #[serde(default)]
    pub turns: u32,
    /// Each call the model asked for, in order, and how it ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<CallRecord>,
}

/// The figures of one answer of the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub duration_ms: u64,
}

/// One call of a reasoning run, as `get_run`'s record shows it; the history holds it whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub number: u32,
    /// `server/tool`.
    pub tool: String,
    pub read_only: bool,
    pub outcome: CallOutcome,
    /// The answer's size in bytes, once it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Why the server failed the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub because: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// Made, and not yet answered.
    Started,
    Answered,
    /// The tool answered that it failed, which the model read.
    Error,
    /// The server gave no answer to read.
    Failed,
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
            last_turn: None,
            turns: 0,
            tool_calls: Vec::new(),
        }
    }

    /// Takes in one answer of the model: the last answer and why it stopped, and the tokens and
    /// time summed over every time the model was asked.
    pub fn answered(&mut self, answer: &Answer, duration_ms: u64) {
        let add = |kept: Option<u64>, more: Option<u64>| match (kept, more) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.turns += 1;
        self.answer = Some(answer.text.clone());
        self.stop = Some(format!("{:?}", answer.stop).to_lowercase());
        self.input_tokens = add(self.input_tokens, answer.input_tokens);
        self.output_tokens = add(self.output_tokens, answer.output_tokens);
        self.duration_ms = add(self.duration_ms, Some(duration_ms));
        self.last_turn =
            Some(Turn { input_tokens: answer.input_tokens, output_tokens: answer.output_tokens, duration_ms });
    }

    /// The call under way, if a call was made and not answered.
    pub fn call_under_way(&self) -> Option<&CallRecord> {
        self.tool_calls.iter().find(|c| c.outcome == CallOutcome::Started)
    }

    /// The `model_answered` event's data: the figures of the model's latest answer, without the
    /// prompt or the answer.
    pub fn answered_event(&self) -> Value {
        let turn = self.last_turn.clone().unwrap_or_default();
        let mut data = json!({
            "model": self.model,
            "resolved_to": self.resolved_to,
            "stop": self.stop,
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "duration_ms": turn.duration_ms,
        });
        if self.turns > 1 {
            data["turn"] = json!(self.turns);
        }
        data
    }
}
