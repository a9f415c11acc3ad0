//! A rehearsal: a run in which nothing reaches outside the runtime. What would (a tool's call,
//! a model's answer, a person's answer) is answered by the stand-ins the caller gave, and a call
//! with none fails the run in words that name what to add. The run, its events and its record
//! say `rehearsal: true`, so lists, figures and triggers leave it apart.
//!
//! A stand-in is one answer, given to every call, or a list, whose answers the calls take in
//! order. Within a run its calls take a tool's or a model's list from its start. A workflow's
//! rehearsal starts each step as a rehearsal of its own with the same stand-ins, and each step
//! that runs a function takes the answer after those its earlier steps of that function took
//! (`place`): an approval asked twice is answered yes, then no.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::core::definition::reasoning::dialogue::{model_name, Bound, Called};
use crate::core::error::FieldError;
use crate::core::model::wire::{Answer, Offer, Stop, ToolUse};
use crate::core::run::RunError;
use crate::core::text::quote;
use crate::core::{ErrorCode, Problem};

/// The most bytes a rehearsal's stand-ins take, as JSON.
pub const STAND_INS_MAX_BYTES: usize = 65_536;

/// What answers a rehearsal's calls, by what each answers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StandIns {
    /// By `server/tool`: what the tool answers, `{text?, structured?, is_error?}`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Value>,
    /// By function: what its model answers, `{output}`, `{text}` or `{tool_calls}`; for a
    /// generation, `{output}`, the run's output.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub models: BTreeMap<String, Value>,
    /// By interaction function: what the person answers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub people: BTreeMap<String, Value>,
    /// How many runs of this run's function its workflow's rehearsal started before it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub place: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Reads the stand-ins a caller gave, each problem at its pointer under `/stand_ins`.
pub fn read(given: &Value) -> Result<StandIns, Problem> {
    let size = serde_json::to_string(given).map_or(usize::MAX, |s| s.len());
    if size > STAND_INS_MAX_BYTES {
        let detail = format!("takes {size} bytes as JSON, past the most a rehearsal takes ({STAND_INS_MAX_BYTES})");
        return Err(Problem::invalid("/stand_ins", detail));
    }
    let Some(object) = given.as_object() else {
        return Err(Problem::invalid("/stand_ins", "must be an object of tools, models and people"));
    };
    let mut errors = Vec::new();
    let mut refuse = |pointer: String, detail: &str| errors.push(FieldError::new(pointer, detail));
    let mut stand_ins = StandIns::default();
    for (section, value) in object {
        let map = match (section.as_str(), value.as_object()) {
            ("tools" | "models" | "people", Some(map)) => map,
            ("tools" | "models" | "people", None) => {
                refuse(format!("/stand_ins/{section}"), "must be an object");
                continue;
            }
            _ => {
                refuse(
                    format!("/stand_ins/{}", escape(section)),
                    "is not a kind of stand-in: name tools, models or people",
                );
                continue;
            }
        };
        for (name, answers) in map {
            let at = format!("/stand_ins/{section}/{}", escape(name));
            let shaped = match section.as_str() {
                "tools" if !name.contains('/') => Err("must name a tool as server/tool"),
                "tools" => each(answers, tool_shaped),
                "models" => each(answers, model_shaped),
                _ => Ok(()),
            };
            if let Err(why) = shaped {
                refuse(at, why);
                continue;
            }
            let into = match section.as_str() {
                "tools" => &mut stand_ins.tools,
                "models" => &mut stand_ins.models,
                _ => &mut stand_ins.people,
            };
            into.insert(name.clone(), answers.clone());
        }
    }
    if errors.is_empty() {
        Ok(stand_ins)
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Checks one answer, or each of a list.
fn each(answers: &Value, shaped: fn(&Map<String, Value>) -> Result<(), &'static str>) -> Result<(), &'static str> {
    let list = match answers {
        Value::Array(list) if list.is_empty() => return Err("must hold at least one answer"),
        Value::Array(list) => list.as_slice(),
        one => std::slice::from_ref(one),
    };
    list.iter().try_for_each(|a| a.as_object().ok_or("each answer must be an object").and_then(shaped))
}

fn tool_shaped(a: &Map<String, Value>) -> Result<(), &'static str> {
    if a.keys().any(|k| !matches!(k.as_str(), "text" | "structured" | "is_error")) {
        return Err("a tool's answer takes text, structured and is_error alone");
    }
    match (a.get("text"), a.get("structured"), a.get("is_error")) {
        (None, None, _) => Err("a tool's answer needs text or structured"),
        (Some(t), _, _) if !t.is_string() => Err("a tool answer's text must be text"),
        (_, Some(s), _) if !s.is_object() => Err("a tool answer's structured must be an object"),
        (_, _, Some(e)) if !e.is_boolean() => Err("a tool answer's is_error must be true or false"),
        _ => Ok(()),
    }
}

fn model_shaped(a: &Map<String, Value>) -> Result<(), &'static str> {
    let keys: Vec<&str> = a.keys().map(String::as_str).collect();
    match keys.as_slice() {
        ["output"] => Ok(()),
        ["text"] if a["text"].is_string() => Ok(()),
        ["tool_calls"] => {
            let calls = a["tool_calls"].as_array().filter(|c| !c.is_empty()).ok_or("tool_calls must list calls")?;
            let fit = |c: &Value| {
                c.get("tool").and_then(Value::as_str).is_some_and(|t| t.contains('/'))
                    && c.as_object().is_some_and(|o| o.keys().all(|k| k == "tool" || k == "arguments"))
                    && c.get("arguments").is_none_or(Value::is_object)
            };
            if calls.iter().all(fit) {
                Ok(())
            } else {
                Err("each of tool_calls takes tool (server/tool) and arguments (an object)")
            }
        }
        _ => Err("a model's answer is one of {output}, {text} or {tool_calls}"),
    }
}

/// Answer `n` of `answers`: the one answer every call takes, or the list's `n`th.
fn nth(answers: &Value, n: usize) -> Option<&Value> {
    match answers {
        Value::Array(list) => list.get(n),
        one => Some(one),
    }
}

/// Why a call with no stand-in failed, naming what to add.
fn missing(what: &str, section: &str, key: &str, taken: usize, example: &str) -> String {
    if taken == 0 {
        format!(
            "The rehearsal has no stand-in for {what}, so nothing was called: add one under stand_ins.{section}[{}], such as {example}.",
            json!(key)
        )
    } else {
        format!(
            "The rehearsal's stand-ins for {what} answered its first {taken}, and this is one more: add another answer to the list at stand_ins.{section}[{}].",
            json!(key)
        )
    }
}

impl StandIns {
    /// The `n`th call of `server/tool` in the run, answered by its stand-in; one with none fails
    /// as a call no server answered does, in words that name what to add.
    pub fn tool(&self, named: &str, n: usize) -> Called {
        let Some(a) = self.tools.get(named).and_then(|answers| nth(answers, n)) else {
            let detail = missing(&format!("the tool {named}"), "tools", named, n, "{\"structured\": {…}}");
            return Called::Failed { because: "no_stand_in".into(), detail };
        };
        let structured = a.get("structured").cloned();
        let text = match (a.get("text").and_then(Value::as_str), &structured) {
            (Some(text), _) => text.to_string(),
            (None, Some(s)) => s.to_string(),
            (None, None) => String::new(),
        };
        let is_error = a.get("is_error").and_then(Value::as_bool).unwrap_or(false);
        Called::Answered { text, structured, is_error, images: Vec::new(), assets: Vec::new() }
    }

    /// The `n`th answer of the model of `function`, as a provider's answer is read: tool calls
    /// named as the run offers its tools.
    pub fn model(&self, function: &str, n: usize, offered: &[Bound]) -> Result<Answer, RunError> {
        let Some(a) = self.models.get(function).and_then(|answers| nth(answers, n)) else {
            let detail =
                missing(&format!("the model of {}", quote(function)), "models", function, n, "{\"output\": …}");
            return Err(RunError::new(ErrorCode::NoStandIn, detail));
        };
        let mut answer =
            Answer { text: String::new(), stop: Stop::Done, input_tokens: None, output_tokens: None, uses: Vec::new() };
        if let Some(calls) = a.get("tool_calls").and_then(Value::as_array) {
            answer.stop = Stop::Tools;
            for (i, call) in calls.iter().enumerate() {
                let tool = call.get("tool").and_then(Value::as_str).unwrap_or_default();
                let name =
                    offered.iter().find(|b| b.named() == tool).map_or(tool.to_string(), |b| b.offer.name.clone());
                let input = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                answer.uses.push(ToolUse { id: format!("stand_in_{n}_{i}"), name, input });
            }
        } else if let Some(text) = a.get("text").and_then(Value::as_str) {
            answer.text = text.to_string();
        } else if let Some(output) = a.get("output") {
            answer.text = match output {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
        }
        Ok(answer)
    }

    /// What a generation of `function` made, as the run's output.
    pub fn made(&self, function: &str) -> Result<Value, RunError> {
        self.models
            .get(function)
            .and_then(|answers| nth(answers, self.place))
            .and_then(|a| a.get("output").cloned())
            .ok_or_else(|| {
                let detail =
                    missing(&format!("the generation {}", quote(function)), "models", function, 0, "{\"output\": …}");
                RunError::new(ErrorCode::NoStandIn, detail)
            })
    }

    /// The person's answer to this run of the interaction `function`.
    pub fn person(&self, function: &str) -> Result<Value, RunError> {
        self.people.get(function).and_then(|answers| nth(answers, self.place)).cloned().ok_or_else(|| {
            let what = format!("the person the interaction {} asks", quote(function));
            RunError::new(ErrorCode::NoStandIn, missing(&what, "people", function, self.place, "{\"approved\": true}"))
        })
    }

    /// The stand-ins of a step's run that `place` runs of its function started before.
    pub fn at(&self, place: usize) -> StandIns {
        StandIns { place, ..self.clone() }
    }
}

/// A tool a rehearsal's run may call, bound to its stand-in rather than to a server: it takes
/// any object, and its calls are recorded.
pub fn bound(names: &[String]) -> Vec<Bound> {
    let mut taken = std::collections::BTreeSet::new();
    names
        .iter()
        .map(|named| {
            let (server, tool) = named.split_once('/').unwrap_or((named.as_str(), ""));
            let name = model_name(server, tool, &taken);
            taken.insert(name.clone());
            Bound {
                offer: Offer {
                    name,
                    description: format!("{named}, answered by the rehearsal's stand-in."),
                    input_schema: json!({ "type": "object" }),
                },
                server: server.to_string(),
                tool: tool.to_string(),
                read_only: true,
                record_content: true,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "rehearsal_tests.rs"]
mod tests;
