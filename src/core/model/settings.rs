//! The model providers an operator configures, read from the Worker's variables and secrets.
//!
//! - `ANTHROPIC_API_KEY` (secret) sets up `anthropic/…`, at `ANTHROPIC_BASE_URL` (default the
//!   Anthropic API); `OPENAI_API_KEY` (secret) sets up `openai/…`, at `OPENAI_BASE_URL`.
//! - `MODEL_GATEWAYS`: JSON, each gateway by its name, `{ "base_url", "api", "key", "models",
//!   "timeout_seconds" }`; `api` is `openai` (Chat Completions, the default) or `anthropic`
//!   (Messages), `key` names the secret that holds its key, `models` declares what it serves when
//!   it lists nothing.
//! - `MODEL_ALIASES`: JSON, each alias to its target, as `{ "house/fast": "gateway/claude-haiku" }`;
//!   an alias ending in `/*` sends every model of a prefix, as `{ "openai/*": "gateway/openai/*" }`.
//! - `ALLOWED_MODELS`: a comma-separated allow list of references and `prefix/*` patterns.
//! - `MODEL_TIMEOUT_SECONDS`: how long a call may take (default 120).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

pub const DEFAULT_TIMEOUT_SECONDS: u64 = 120;
pub const ANTHROPIC_URL: &str = "https://api.anthropic.com";
pub const OPENAI_URL: &str = "https://api.openai.com/v1";

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// The Anthropic Messages API: `POST {base}/v1/messages`.
    Anthropic,
    /// An OpenAI-compatible Chat Completions API: `POST {base}/chat/completions`.
    Openai,
}

/// A key held only in memory: it prints as `[hidden]` and is never serialized.
#[derive(Clone, PartialEq)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[hidden]")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    /// The prefix a definition's model names it by: `anthropic`, `openai`, or a gateway's name.
    pub prefix: String,
    pub api: Api,
    pub base_url: String,
    pub key: Option<Secret>,
    /// Models it serves when it lists none, as an operator declared them.
    pub declared: Vec<String>,
    pub timeout_seconds: u64,
    /// Whether it is a gateway of `MODEL_GATEWAYS`, which takes any model id its upstream serves.
    pub gateway: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelSettings {
    pub providers: BTreeMap<String, Provider>,
    pub aliases: BTreeMap<String, String>,
    /// `None` when nothing narrows which models a definition may name.
    pub allowed: Option<Vec<String>>,
    /// What the operator wrote that could not be read; logged, never sent to a caller.
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GatewayEntry {
    base_url: String,
    #[serde(default = "openai")]
    api: Api,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    models: Vec<String>,
    #[serde(default)]
    timeout_seconds: Option<u64>,
}

fn openai() -> Api {
    Api::Openai
}

fn is_prefix(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

impl ModelSettings {
    /// Reads the settings through `var`, which answers a variable or a secret by its name.
    pub fn read(var: impl Fn(&str) -> Option<String>) -> ModelSettings {
        let get = |name: &str| var(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let mut s = ModelSettings::default();
        let timeout = match get("MODEL_TIMEOUT_SECONDS").map(|t| t.parse::<u64>()) {
            Some(Ok(t)) if t > 0 => t,
            Some(_) => {
                s.warnings.push("MODEL_TIMEOUT_SECONDS is not a whole number of seconds; 120 is used".into());
                DEFAULT_TIMEOUT_SECONDS
            }
            None => DEFAULT_TIMEOUT_SECONDS,
        };
        for (prefix, api, key, url, default_url) in [
            ("anthropic", Api::Anthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ANTHROPIC_URL),
            ("openai", Api::Openai, "OPENAI_API_KEY", "OPENAI_BASE_URL", OPENAI_URL),
        ] {
            if let Some(secret) = get(key) {
                let base_url = get(url).unwrap_or_else(|| default_url.to_string());
                s.providers.insert(
                    prefix.into(),
                    Provider {
                        prefix: prefix.into(),
                        api,
                        base_url,
                        key: Some(Secret(secret)),
                        declared: Vec::new(),
                        timeout_seconds: timeout,
                        gateway: false,
                    },
                );
            }
        }
        if let Some(text) = get("MODEL_GATEWAYS") {
            match serde_json::from_str::<BTreeMap<String, GatewayEntry>>(&text) {
                Ok(entries) => {
                    for (name, entry) in entries {
                        if !is_prefix(&name) {
                            s.warnings.push(format!("MODEL_GATEWAYS: the gateway name {name:?} must hold lowercase letters, digits, - and _"));
                            continue;
                        }
                        let key = entry.key.as_deref().and_then(&get).map(Secret);
                        if entry.key.is_some() && key.is_none() {
                            s.warnings.push(format!(
                                "MODEL_GATEWAYS: the secret {:?} of the gateway {name} is not set",
                                entry.key.unwrap_or_default()
                            ));
                        }
                        let provider = Provider {
                            prefix: name.clone(),
                            api: entry.api,
                            base_url: entry.base_url,
                            key,
                            declared: entry.models,
                            timeout_seconds: entry.timeout_seconds.filter(|t| *t > 0).unwrap_or(timeout),
                            gateway: true,
                        };
                        s.providers.insert(name, provider);
                    }
                }
                Err(e) => s.warnings.push(format!("MODEL_GATEWAYS is not a JSON object of gateways: {e}")),
            }
        }
        if let Some(text) = get("MODEL_ALIASES") {
            match serde_json::from_str::<BTreeMap<String, String>>(&text) {
                Ok(aliases) => s.aliases = aliases,
                Err(e) => s.warnings.push(format!("MODEL_ALIASES is not a JSON object of alias to model: {e}")),
            }
        }
        if let Some(text) = get("ALLOWED_MODELS") {
            s.allowed = Some(text.split(',').map(|m| m.trim().to_string()).filter(|m| !m.is_empty()).collect());
        }
        s
    }

    /// Whether the allow list, where there is one, takes `reference`.
    pub fn allows(&self, reference: &str) -> bool {
        let Some(list) = &self.allowed else { return true };
        list.iter().any(|entry| match entry.strip_suffix('*') {
            Some(stem) => reference.starts_with(stem),
            None => entry == reference,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> ModelSettings {
        ModelSettings::read(|n| pairs.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn providers_come_from_their_keys_and_gateways() {
        let s = read(&[
            ("ANTHROPIC_API_KEY", "sk-ant"),
            (
                "MODEL_GATEWAYS",
                r#"{"gateway": {"base_url": "http://127.0.0.1:9/v1", "key": "GW_KEY", "timeout_seconds": 3}}"#,
            ),
            ("GW_KEY", "gw"),
            ("MODEL_ALIASES", r#"{"house/fast": "gateway/claude-haiku"}"#),
            ("ALLOWED_MODELS", "anthropic/*, house/fast"),
        ]);
        assert_eq!(s.providers.keys().collect::<Vec<_>>(), ["anthropic", "gateway"]);
        assert_eq!(s.providers["anthropic"].base_url, ANTHROPIC_URL);
        assert_eq!(s.providers["gateway"].timeout_seconds, 3);
        assert_eq!(format!("{:?}", s.providers["gateway"].key), "Some([hidden])");
        assert!(s.allows("anthropic/claude-x") && s.allows("house/fast") && !s.allows("openai/gpt"));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn what_cannot_be_read_is_a_warning() {
        let s = read(&[("MODEL_GATEWAYS", "{nope"), ("MODEL_TIMEOUT_SECONDS", "soon")]);
        assert!(s.providers.is_empty() && s.warnings.len() == 2);
        assert!(s.allowed.is_none() && s.allows("anything/at-all"));
    }
}
