//! The wire formats of the two provider APIs: the Anthropic Messages API and the OpenAI-compatible
//! Chat Completions API. Requests are built and answers read here, with no I/O, so every shape a
//! provider answers is tested on the host. A request offers the model its tools in the
//! provider's own format, and carries back each round of the calls it asked for and their answers.

use serde_json::{json, Value};

use super::settings::{Api, Provider};
use super::Target;
use crate::core::run::RunError;

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// One call to a model: the rendered prompt and the function's settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Call {
    pub system: Option<String>,
    pub user: String,
    pub max_tokens: u64,
    pub temperature: Option<f64>,
    pub output_schema: Option<Value>,
}

/// An HTTP request to a provider. Its headers carry the key: never log them.
#[derive(Debug, Clone, PartialEq)]
pub struct Outbound {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Done,
    /// The answer reached `max_tokens` before it ended.
    Cut,
    /// The model declined to answer.
    Refused,
    /// The model asks for tools to be called before it answers.
    Tools,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub stop: Stop,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    /// The calls the model asks for, in its order.
    pub uses: Vec<ToolUse>,
}

/// A tool as the model is offered it, under a name the providers take.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Offer {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// A call the model asks for. `input` is what it wrote: an object, or, where an OpenAI-compatible
/// model wrote arguments that are not JSON, the text it wrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// What the model is told a call answered.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ToolResult {
    pub id: String,
    pub text: String,
    pub is_error: bool,
}

/// One round after the prompt: what the model said, the calls it asked for, and their answers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Round {
    pub said: String,
    pub uses: Vec<ToolUse>,
    pub results: Vec<ToolResult>,
}

/// The conversation beyond the prompt: the tools offered, the rounds so far, and whether this
/// request is the last, which lets the model call no more tools.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Talk {
    pub tools: Vec<Offer>,
    pub rounds: Vec<Round>,
    pub last: bool,
}

/// A model a provider lists.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Listed {
    pub id: String,
    pub name: Option<String>,
    pub created: i64,
    pub context_window: Option<u64>,
    pub max_tokens: Option<u64>,
}

pub(crate) fn base(provider: &Provider) -> &str {
    provider.base_url.trim_end_matches('/')
}

pub(crate) fn headers(provider: &Provider) -> Vec<(&'static str, String)> {
    let mut h = vec![("content-type", "application/json".to_string())];
    match (provider.api, &provider.key) {
        (Api::Anthropic, key) => {
            h.push(("anthropic-version", ANTHROPIC_VERSION.into()));
            if let Some(key) = key {
                h.push(("x-api-key", key.0.clone()));
            }
        }
        (Api::Openai, Some(key)) => h.push(("authorization", format!("Bearer {}", key.0))),
        (Api::Openai, None) => {}
    }
    h
}

/// The words that ask for JSON of the output schema, added to the system part.
fn json_instruction(schema: &Value) -> String {
    format!("Answer with one JSON value and nothing else: no prose, no code fence. It must match this JSON Schema:\n{schema}")
}

fn system_text(call: &Call) -> Option<String> {
    match (&call.system, &call.output_schema) {
        (Some(s), Some(schema)) => Some(format!("{s}\n\n{}", json_instruction(schema))),
        (None, Some(schema)) => Some(json_instruction(schema)),
        (s, None) => s.clone(),
    }
}

pub fn request(target: &Target, call: &Call, talk: &Talk) -> Outbound {
    let provider = &target.provider;
    let system = system_text(call);
    let body = match provider.api {
        Api::Anthropic => {
            let mut messages = vec![json!({ "role": "user", "content": call.user })];
            for round in &talk.rounds {
                let mut said: Vec<Value> = Vec::new();
                if !round.said.is_empty() {
                    said.push(json!({ "type": "text", "text": round.said }));
                }
                said.extend(round.uses.iter().map(|u| {
                    // The API takes an object: text an OpenAI-style model wrote goes as a field.
                    let input = if u.input.is_object() { u.input.clone() } else { json!({ "arguments": u.input }) };
                    json!({ "type": "tool_use", "id": u.id, "name": u.name, "input": input })
                }));
                messages.push(json!({ "role": "assistant", "content": said }));
                let results: Vec<Value> = round
                    .results
                    .iter()
                    .map(|r| json!({ "type": "tool_result", "tool_use_id": r.id, "content": r.text, "is_error": r.is_error }))
                    .collect();
                messages.push(json!({ "role": "user", "content": results }));
            }
            let mut body = json!({ "model": target.model, "max_tokens": call.max_tokens, "messages": messages });
            if let Some(system) = system {
                body["system"] = json!(system);
            }
            if let Some(t) = call.temperature {
                body["temperature"] = json!(t);
            }
            if !talk.tools.is_empty() {
                let tools: Vec<Value> = talk
                    .tools
                    .iter()
                    .map(|t| json!({ "name": t.name, "description": t.description, "input_schema": t.input_schema }))
                    .collect();
                body["tools"] = json!(tools);
                if talk.last {
                    body["tool_choice"] = json!({ "type": "none" });
                }
            }
            body
        }
        Api::Openai => {
            let mut messages = Vec::new();
            if let Some(system) = system {
                messages.push(json!({ "role": "system", "content": system }));
            }
            messages.push(json!({ "role": "user", "content": call.user }));
            for round in &talk.rounds {
                let calls: Vec<Value> = round
                    .uses
                    .iter()
                    .map(|u| {
                        let arguments = match &u.input {
                            Value::String(text) => text.clone(),
                            other => other.to_string(),
                        };
                        json!({ "id": u.id, "type": "function", "function": { "name": u.name, "arguments": arguments } })
                    })
                    .collect();
                let said = if round.said.is_empty() { Value::Null } else { json!(round.said) };
                messages.push(json!({ "role": "assistant", "content": said, "tool_calls": calls }));
                for r in &round.results {
                    // Chat Completions has no error flag on a tool's message, so the words say it.
                    let text = if r.is_error { format!("Error: {}", r.text) } else { r.text.clone() };
                    messages.push(json!({ "role": "tool", "tool_call_id": r.id, "content": text }));
                }
            }
            let mut body = json!({ "model": target.model, "max_tokens": call.max_tokens, "messages": messages });
            if let Some(t) = call.temperature {
                body["temperature"] = json!(t);
            }
            if let Some(schema) = &call.output_schema {
                body["response_format"] = json!({ "type": "json_schema", "json_schema": { "name": "output", "schema": schema, "strict": false } });
            }
            if !talk.tools.is_empty() {
                let tools: Vec<Value> = talk
                    .tools
                    .iter()
                    .map(|t| json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.input_schema } }))
                    .collect();
                body["tools"] = json!(tools);
                if talk.last {
                    body["tool_choice"] = json!("none");
                }
            }
            body
        }
    };
    let url = match provider.api {
        Api::Anthropic => format!("{}/v1/messages", base(provider)),
        Api::Openai => format!("{}/chat/completions", base(provider)),
    };
    Outbound { method: "POST", url, headers: headers(provider), body: Some(body) }
}

pub fn models_request(provider: &Provider) -> Outbound {
    let url = match provider.api {
        Api::Anthropic => format!("{}/v1/models?limit=1000", base(provider)),
        Api::Openai => format!("{}/models", base(provider)),
    };
    let mut headers = headers(provider);
    headers.retain(|(name, _)| *name != "content-type");
    Outbound { method: "GET", url, headers, body: None }
}

/// What a provider's error answer says, in its own shape: `{error: {type, message}}` for both.
pub(crate) fn provider_error(prefix: &str, status: u16, body: &str) -> RunError {
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let error = parsed.get("error").unwrap_or(&Value::Null);
    let kind = error.get("type").and_then(Value::as_str).or_else(|| error.get("code").and_then(Value::as_str));
    let message = error.get("message").and_then(Value::as_str).or_else(|| error.as_str());
    let said = match (kind, message) {
        (Some(k), Some(m)) => format!(" {k}: {}", clip(m)),
        (None, Some(m)) => format!(": {}", clip(m)),
        (Some(k), None) => format!(" {k}"),
        (None, None) => String::new(),
    };
    let advice = match status {
        401 | 403 => " Its key was refused: whoever runs the runtime checks the provider's key secret.",
        404 => " The provider does not know this model: list_models lists those it serves.",
        429 => " It is rate limited: start the run again later.",
        500..=599 => " The provider failed or is overloaded: start the run again later.",
        _ => "",
    };
    RunError::new(
        crate::core::ErrorCode::ProviderError,
        format!("The provider {prefix} answered {status}{said}.{advice}"),
    )
}

fn clip(s: &str) -> String {
    let line = s.lines().next().unwrap_or_default();
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.trim_end_matches('.').to_string(),
    }
}

/// Reads a provider's answer to `request`: its text and why it stopped, or why the run fails.
pub fn answer(provider: &Provider, status: u16, body: &str) -> Result<Answer, RunError> {
    if !(200..300).contains(&status) {
        return Err(provider_error(&provider.prefix, status, body));
    }
    let unreadable = |why: &str| {
        RunError::new(
            crate::core::ErrorCode::ProviderError,
            format!("The provider {} answered in a shape this runtime cannot read: {why}.", provider.prefix),
        )
    };
    let v: Value = serde_json::from_str(body).map_err(|_| unreadable("its body is not JSON"))?;
    let count = |p: &str| v.pointer(p).and_then(Value::as_u64);
    match provider.api {
        Api::Anthropic => {
            let blocks = v.get("content").and_then(Value::as_array).ok_or_else(|| unreadable("it has no content"))?;
            let kind = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_string);
            let text: String = blocks
                .iter()
                .filter(|b| kind(b).as_deref() == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let uses = blocks
                .iter()
                .filter(|b| kind(b).as_deref() == Some("tool_use"))
                .map(|b| {
                    let field = |k: &str| b.get(k).and_then(Value::as_str).map(str::to_string);
                    Ok(ToolUse {
                        id: field("id").ok_or_else(|| unreadable("a tool_use block has no id"))?,
                        name: field("name").ok_or_else(|| unreadable("a tool_use block has no name"))?,
                        input: b.get("input").cloned().unwrap_or_else(|| json!({})),
                    })
                })
                .collect::<Result<Vec<_>, RunError>>()?;
            let stop = match v.get("stop_reason").and_then(Value::as_str) {
                Some("max_tokens") => Stop::Cut,
                Some("refusal") => Stop::Refused,
                _ if !uses.is_empty() => Stop::Tools,
                _ => Stop::Done,
            };
            Ok(Answer {
                text,
                stop,
                input_tokens: count("/usage/input_tokens"),
                output_tokens: count("/usage/output_tokens"),
                uses,
            })
        }
        Api::Openai => {
            let choice = v.pointer("/choices/0").ok_or_else(|| unreadable("it has no choices"))?;
            let refusal = choice.pointer("/message/refusal").and_then(Value::as_str).filter(|r| !r.is_empty());
            let text = refusal
                .or_else(|| choice.pointer("/message/content").and_then(Value::as_str))
                .unwrap_or_default()
                .to_string();
            let calls = choice.pointer("/message/tool_calls").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
            let uses = calls
                .iter()
                .map(|c| {
                    let field = |p: &str| c.pointer(p).and_then(Value::as_str).map(str::to_string);
                    let arguments = field("/function/arguments").unwrap_or_default();
                    Ok(ToolUse {
                        id: field("/id").ok_or_else(|| unreadable("a tool call has no id"))?,
                        name: field("/function/name").ok_or_else(|| unreadable("a tool call names no function"))?,
                        input: match serde_json::from_str::<Value>(&arguments) {
                            Ok(v @ Value::Object(_)) => v,
                            _ if arguments.trim().is_empty() => json!({}),
                            _ => Value::String(arguments),
                        },
                    })
                })
                .collect::<Result<Vec<_>, RunError>>()?;
            let stop = match (refusal, choice.get("finish_reason").and_then(Value::as_str)) {
                (Some(_), _) | (_, Some("content_filter")) => Stop::Refused,
                (_, Some("length")) => Stop::Cut,
                _ if !uses.is_empty() => Stop::Tools,
                _ => Stop::Done,
            };
            Ok(Answer {
                text,
                stop,
                input_tokens: count("/usage/prompt_tokens"),
                output_tokens: count("/usage/completion_tokens"),
                uses,
            })
        }
    }
}

/// Reads a provider's list of models. Fields a provider adds beyond these are left behind.
pub fn models(api: Api, body: &str) -> Result<Vec<Listed>, String> {
    let v: Value = serde_json::from_str(body).map_err(|_| "its body is not JSON".to_string())?;
    let data = v.get("data").and_then(Value::as_array).ok_or("it has no data list")?;
    let number = |m: &Value, keys: &[&str]| keys.iter().find_map(|k| m.pointer(k).and_then(Value::as_u64));
    Ok(data
        .iter()
        .filter_map(|m| {
            let id = m.get("id").and_then(Value::as_str)?.to_string();
            let created = match api {
                Api::Anthropic => m
                    .get("created_at")
                    .and_then(Value::as_str)
                    .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                    .map(|t| t.timestamp())
                    .unwrap_or(0),
                Api::Openai => m.get("created").and_then(Value::as_i64).unwrap_or(0),
            };
            let name = ["/display_name", "/name"].iter().find_map(|k| m.pointer(k).and_then(Value::as_str));
            Some(Listed {
                id,
                name: name.map(str::to_string),
                created,
                context_window: number(m, &["/context_window", "/max_input_tokens", "/context_length"]),
                max_tokens: number(m, &["/max_tokens", "/max_output_tokens", "/top_provider/max_completion_tokens"]),
            })
        })
        .collect())
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
