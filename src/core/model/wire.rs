//! The wire formats of the two provider APIs: the Anthropic Messages API and the OpenAI-compatible
//! Chat Completions API. Requests are built and answers read here, with no I/O, so every shape a
//! provider answers is tested on the host.

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
}

#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub stop: Stop,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
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

fn base(provider: &Provider) -> &str {
    provider.base_url.trim_end_matches('/')
}

fn headers(provider: &Provider) -> Vec<(&'static str, String)> {
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

pub fn request(target: &Target, call: &Call) -> Outbound {
    let provider = &target.provider;
    let system = system_text(call);
    let body = match provider.api {
        Api::Anthropic => {
            let mut body = json!({
                "model": target.model,
                "max_tokens": call.max_tokens,
                "messages": [{ "role": "user", "content": call.user }],
            });
            if let Some(system) = system {
                body["system"] = json!(system);
            }
            if let Some(t) = call.temperature {
                body["temperature"] = json!(t);
            }
            body
        }
        Api::Openai => {
            let mut messages = Vec::new();
            if let Some(system) = system {
                messages.push(json!({ "role": "system", "content": system }));
            }
            messages.push(json!({ "role": "user", "content": call.user }));
            let mut body = json!({ "model": target.model, "max_tokens": call.max_tokens, "messages": messages });
            if let Some(t) = call.temperature {
                body["temperature"] = json!(t);
            }
            if let Some(schema) = &call.output_schema {
                body["response_format"] = json!({ "type": "json_schema", "json_schema": { "name": "output", "schema": schema, "strict": false } });
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
fn provider_error(prefix: &str, status: u16, body: &str) -> RunError {
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
            let text: String = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let stop = match v.get("stop_reason").and_then(Value::as_str) {
                Some("max_tokens") => Stop::Cut,
                Some("refusal") => Stop::Refused,
                _ => Stop::Done,
            };
            Ok(Answer {
                text,
                stop,
                input_tokens: count("/usage/input_tokens"),
                output_tokens: count("/usage/output_tokens"),
            })
        }
        Api::Openai => {
            let choice = v.pointer("/choices/0").ok_or_else(|| unreadable("it has no choices"))?;
            let refusal = choice.pointer("/message/refusal").and_then(Value::as_str).filter(|r| !r.is_empty());
            let text = refusal
                .or_else(|| choice.pointer("/message/content").and_then(Value::as_str))
                .unwrap_or_default()
                .to_string();
            let stop = match (refusal, choice.get("finish_reason").and_then(Value::as_str)) {
                (Some(_), _) | (_, Some("content_filter")) => Stop::Refused,
                (_, Some("length")) => Stop::Cut,
                _ => Stop::Done,
            };
            Ok(Answer {
                text,
                stop,
                input_tokens: count("/usage/prompt_tokens"),
                output_tokens: count("/usage/completion_tokens"),
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
mod tests {
    use super::*;
    use crate::core::model::{resolve, ModelSettings};

    fn settings() -> ModelSettings {
        let vars = [
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("OPENAI_API_KEY", "sk-oa"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/"),
        ];
        ModelSettings::read(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
    }

    fn call() -> Call {
        Call {
            system: Some("Review.".into()),
            user: "Brief".into(),
            max_tokens: 100,
            temperature: Some(0.2),
            output_schema: Some(json!({"type": "object"})),
        }
    }

    #[test]
    fn anthropic_requests_and_answers() {
        let t = resolve(&settings(), "anthropic/claude-sonnet-4-5").unwrap();
        let r = request(&t, &call());
        assert_eq!(r.url, "https://api.anthropic.com/v1/messages");
        assert!(r.headers.contains(&("x-api-key", "sk-ant".into())));
        let body = r.body.unwrap();
        assert_eq!(body["model"], "claude-sonnet-4-5");
        assert!(body["system"].as_str().unwrap().starts_with("Review.\n\nAnswer with one JSON value"));
        let ok = r#"{"content":[{"type":"text","text":"{}"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":2}}"#;
        let a = answer(&t.provider, 200, ok).unwrap();
        assert_eq!((a.text.as_str(), a.stop, a.output_tokens), ("{}", Stop::Done, Some(2)));
        let refused = r#"{"content":[],"stop_reason":"refusal"}"#;
        assert_eq!(answer(&t.provider, 200, refused).unwrap().stop, Stop::Refused);
        let e =
            answer(&t.provider, 529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
                .unwrap_err();
        assert_eq!(e.detail, "The provider anthropic answered 529 overloaded_error: Overloaded. The provider failed or is overloaded: start the run again later.");
    }

    #[test]
    fn openai_requests_and_answers() {
        let t = resolve(&settings(), "openai/gpt-4.1").unwrap();
        let r = request(&t, &call());
        assert_eq!(r.url, "http://127.0.0.1:9/v1/chat/completions");
        assert!(r.headers.contains(&("authorization", "Bearer sk-oa".into())));
        let body = r.body.unwrap();
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["response_format"]["type"], "json_schema");
        let cut = r#"{"choices":[{"message":{"content":"{\"a\""},"finish_reason":"length"}]}"#;
        assert_eq!(answer(&t.provider, 200, cut).unwrap().stop, Stop::Cut);
        let e = answer(&t.provider, 401, r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}"#)
            .unwrap_err();
        assert!(e.detail.contains("401 invalid_request_error: Incorrect API key. Its key was refused"), "{}", e.detail);
        assert!(answer(&t.provider, 200, "<html>").is_err());
    }

    #[test]
    fn model_lists_of_both_apis() {
        let a = models(Api::Anthropic, r#"{"data":[{"id":"claude-x","display_name":"Claude X","created_at":"2025-09-29T00:00:00Z","type":"model"}],"has_more":false}"#).unwrap();
        assert_eq!((a[0].name.as_deref(), a[0].created), (Some("Claude X"), 1759104000));
        let o = models(
            Api::Openai,
            r#"{"object":"list","data":[{"id":"gpt-4.1","object":"model","created":5,"owned_by":"system"}]}"#,
        )
        .unwrap();
        assert_eq!((o[0].id.as_str(), o[0].created, o[0].name.clone()), ("gpt-4.1", 5, None));
        assert!(models(Api::Openai, "{}").is_err());
    }
}
