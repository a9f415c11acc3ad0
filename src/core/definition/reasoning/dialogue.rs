//! A reasoning run's dialogue with its model when the function names tools: the tools offered
//! under names the providers take, what each answer of the model asks to be called (within the
//! run's limits, each call checked against its tool's schema before it is made), and what the
//! model is told each call answered.
//!
//! The run keeps each call before it is made and each answer before the model reads it; the
//! dialogue itself lives while the run's object works through it, since a run whose work a
//! restart cut off is never taken up again.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::core::model::wire::{Answer, Offer, Round, Stop, Talk, ToolResult, ToolUse};
use crate::core::run::RunError;
use crate::core::text::{count, quote, start_within};
use crate::core::ErrorCode;

/// The most calls one run makes.
pub const CALLS_MAX: u32 = 25;
/// The most times one run asks its model.
pub const TURNS_MAX: u32 = 12;
/// The most bytes of one tool's answer the model reads; the rest is said by its size.
pub const ANSWER_SHOWN_MAX: usize = 16_384;
/// The most bytes of tool answers the model reads in one run.
pub const ANSWERS_SHOWN_MAX: usize = 131_072;
/// How long one call may take before it is given up.
pub const CALL_SECONDS: u64 = 60;
/// How long a run may go on calling tools; after that its model is asked to answer.
pub const TOOLS_SECONDS: i64 = 600;

/// A tool the run may call: where it is, and what the model is told of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bound {
    pub offer: Offer,
    pub server: String,
    pub tool: String,
    pub read_only: bool,
    /// Whether history keeps the calls' arguments and answers, or their sizes alone.
    pub record_content: bool,
}

impl Bound {
    /// `server/tool`, as a function names it.
    pub fn named(&self) -> String {
        format!("{}/{}", self.server, self.tool)
    }
}

/// The name a provider is given for `server/tool`: letters, digits, `_` and `-`, at most 64
/// characters, unlike every name already `taken`.
pub fn model_name(server: &str, tool: &str, taken: &BTreeSet<String>) -> String {
    let clean: String = format!("{server}__{tool}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(64)
        .collect();
    let mut name = clean.clone();
    let mut n = 2;
    while taken.contains(&name) {
        let suffix = format!("_{n}");
        name = format!("{}{suffix}", clean.chars().take(64 - suffix.len()).collect::<String>());
        n += 1;
    }
    name
}

/// A call to make: its number in the run, the tool, and the arguments the model wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    pub number: u32,
    pub use_id: String,
    pub tool: Bound,
    pub arguments: Map<String, Value>,
}

/// A call the runtime answers itself, without calling anything, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused {
    pub use_id: String,
    /// The name the model wrote.
    pub name: String,
    pub why: String,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Called {
    /// The tool answered; `is_error` where it said it failed, which the model reads. `images`
    /// are the image blocks `text` shows by words, until the run keeps them as assets, whose
    /// summaries `assets` then holds and whose ids `text` names.
    Answered {
        text: String,
        structured: Option<Value>,
        is_error: bool,
        images: Vec<crate::core::tool_server::mcp::Image>,
        assets: Vec<Value>,
    },
    /// The server gave no answer to read: the run fails, since whether the call acted is unknown.
    Failed { because: String, detail: String },
}

/// What the run does with the model's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// The model answered: the run finishes with it.
    Finish,
    /// Make these calls, in order; the refused ones the model is told of with their answers.
    Call { planned: Vec<Planned>, refused: Vec<Refused> },
    /// The model asked for calls where it could make none: the run fails.
    Fail(RunError),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Dialogue {
    pub talk: Talk,
    tools: Vec<Bound>,
    calls: u32,
    turns: u32,
    shown: usize,
    began_ms: i64,
}

impl Dialogue {
    pub fn new(tools: Vec<Bound>, began_ms: i64) -> Dialogue {
        let talk = Talk { tools: tools.iter().map(|t| t.offer.clone()).collect(), rounds: Vec::new(), last: false };
        Dialogue { talk, tools, calls: 0, turns: 0, shown: 0, began_ms }
    }

    /// Sets the next request's `last` before it is sent: once a limit is reached, the model may
    /// call no more tools and must answer.
    pub fn before_asking(&mut self, now_ms: i64) {
        self.turns += 1;
        let out_of_time = now_ms - self.began_ms >= TOOLS_SECONDS * 1000;
        if self.turns >= TURNS_MAX || self.calls >= CALLS_MAX || out_of_time {
            self.talk.last = !self.talk.tools.is_empty();
        }
    }

    /// What the model's answer asks for. Calls beyond the run's limit, to a tool it was not
    /// offered, or with arguments that do not fit the tool's schema, are refused here: the model
    /// reads why and may try again.
    pub fn take(&mut self, answer: &Answer) -> Next {
        if answer.stop != Stop::Tools || answer.uses.is_empty() {
            return Next::Finish;
        }
        if self.talk.last {
            return Next::Fail(RunError::new(
                ErrorCode::ToolLimit,
                format!(
                    "The model asked for more tool calls after the run's limit ({} calls, {} turns, {} seconds of tool use), and was asked to answer instead.",
                    CALLS_MAX, TURNS_MAX, TOOLS_SECONDS
                ),
            ));
        }
        let mut planned = Vec::new();
        let mut refused = Vec::new();
        for u in &answer.uses {
            match self.plan(u) {
                Ok(p) => planned.push(p),
                Err(why) => refused.push(Refused { use_id: u.id.clone(), name: u.name.clone(), why }),
            }
        }
        let results = refused.iter().map(|r| ToolResult { id: r.use_id.clone(), text: r.why.clone(), is_error: true });
        self.talk.rounds.push(Round {
            said: answer.text.clone(),
            uses: answer.uses.clone(),
            results: results.collect(),
        });
        Next::Call { planned, refused }
    }

    fn plan(&mut self, u: &ToolUse) -> Result<Planned, String> {
        let Some(tool) = self.tools.iter().find(|t| t.offer.name == u.name) else {
            let names: Vec<&str> = self.tools.iter().map(|t| t.offer.name.as_str()).collect();
            return Err(format!(
                "No tool {} is offered to this run; it may call {}.",
                quote(&u.name),
                names.join(", ")
            ));
        };
        if self.calls >= CALLS_MAX {
            return Err(format!(
                "This run has made its {CALLS_MAX} calls, the most one run makes; answer with what you have."
            ));
        }
        let Value::Object(arguments) = &u.input else {
            return Err(
                "The arguments are not a JSON object; write them as one, as the tool's input schema gives.".into()
            );
        };
        misfits(&tool.offer.input_schema, &u.input)?;
        self.calls += 1;
        Ok(Planned { number: self.calls, use_id: u.id.clone(), tool: tool.clone(), arguments: arguments.clone() })
    }

    /// Tells the model what a call answered, within what it may read.
    pub fn answered(&mut self, planned: &Planned, called: &Called) {
        let (text, is_error) = match called {
            Called::Answered { text, is_error, .. } => (self.shown_text(text), *is_error),
            Called::Failed { detail, .. } => (detail.clone(), true),
        };
        if let Some(round) = self.talk.rounds.last_mut() {
            round.results.push(ToolResult { id: planned.use_id.clone(), text, is_error });
        }
    }

    fn shown_text(&mut self, text: &str) -> String {
        let room = ANSWERS_SHOWN_MAX.saturating_sub(self.shown);
        if room == 0 {
            return format!(
                "[The answer, {}, is left out: this run's models read at most {ANSWERS_SHOWN_MAX} bytes of tool answers, and those are used.]",
                count(text.len(), "byte")
            );
        }
        let max = ANSWER_SHOWN_MAX.min(room);
        if text.len() <= max {
            self.shown += text.len();
            return text.to_string();
        }
        let start = start_within(text, max);
        self.shown += start.len();
        format!(
            "{start}\n[The answer goes on for {} more; this is its start.]",
            count(text.len() - start.len(), "byte")
        )
    }
}

/// The misfits of the arguments to the tool's input schema, in words the model can act on.
fn misfits(schema: &Value, arguments: &Value) -> Result<(), String> {
    // A schema that does not compile checks nothing here; the tool's server judges the call.
    let Ok(validator) = crate::core::schema::compiled(schema) else { return Ok(()) };
    let found: Vec<String> = validator
        .iter_errors(arguments)
        .take(5)
        .map(|e| {
            let at = e.pointer.clone();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            }
        })
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("The arguments do not fit the tool's input schema, so it was not called: {}.", found.join("; ")))
    }
}

#[cfg(test)]
#[path = "dialogue_tests.rs"]
mod tests;
