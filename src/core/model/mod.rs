//! Language models: the providers an operator sets up, how a definition's model reaches one,
//! the wire formats of the provider APIs, and the catalogue `list_models` answers.

pub mod catalog;
pub mod settings;
pub mod wire;

pub use settings::{Api, ModelSettings, Provider, Secret};

use super::error::Problem;
use super::text::quote;

/// Where a definition's model is sent: a provider, and the model id that provider knows.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    pub provider: Provider,
    pub model: String,
    /// The reference after aliases, as `gateway/anthropic/claude-haiku-4-5`.
    pub resolved: String,
}

/// The reference an alias sends `reference` to, if an alias takes it; an exact alias wins over a
/// wildcard one, and a longer wildcard over a shorter.
pub fn alias_target(settings: &ModelSettings, reference: &str) -> Option<String> {
    if let Some(target) = settings.aliases.get(reference) {
        return Some(target.clone());
    }
    settings
        .aliases
        .iter()
        .filter_map(|(alias, target)| {
            let stem = alias.strip_suffix('*')?;
            let rest = reference.strip_prefix(stem)?;
            let target = target.strip_suffix('*').map(|t| format!("{t}{rest}")).unwrap_or_else(|| target.clone());
            Some((stem.len(), target))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, target)| target)
}

const SET_UP: &str = "Whoever runs the runtime sets up anthropic with the secret ANTHROPIC_API_KEY, openai with the secret OPENAI_API_KEY (wrangler secret put NAME; for wrangler dev, a line NAME=value in .dev.vars), or any OpenAI-compatible server as a gateway in the variable MODEL_GATEWAYS; list_models lists the models it can call now.";

/// Finds the provider of a definition's model, or says why none is called: a model the allow
/// list leaves out, or one whose provider is not set up, is refused before anything is sent.
pub fn resolve(settings: &ModelSettings, reference: &str) -> Result<Target, Problem> {
    if !settings.allows(reference) {
        return Err(Problem::unavailable(format!(
            "The model {} is not one the operator of this runtime allows, so no provider was called. list_models lists the models a function may name; name one of them, or ask whoever runs the runtime to add {reference} to ALLOWED_MODELS.",
            quote(reference)
        ))
        .with_kind(crate::core::ErrorCode::ModelNotAllowed));
    }
    let resolved = alias_target(settings, reference).unwrap_or_else(|| reference.to_string());
    let (prefix, model) = resolved.split_once('/').unwrap_or((resolved.as_str(), ""));
    let Some(provider) = settings.providers.get(prefix) else {
        let via = if resolved == reference {
            String::new()
        } else {
            format!(", which the alias {} sends to {}", quote(reference), quote(&resolved))
        };
        return Err(Problem::unavailable(format!(
            "The model {}{via} names the provider {}, which this runtime has not set up, so no provider was called. {SET_UP}",
            quote(reference),
            quote(prefix)
        ))
        .with_kind(crate::core::ErrorCode::ModelNotConfigured));
    };
    if model.is_empty() || model.contains('*') {
        return Err(Problem::unavailable(format!(
            "The model {} does not name one model of {}; list_models lists the models it can call.",
            quote(reference),
            quote(prefix)
        ))
        .with_kind(crate::core::ErrorCode::ModelNotConfigured));
    }
    Ok(Target { provider: provider.clone(), model: model.to_string(), resolved: resolved.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> ModelSettings {
        let vars = [
            ("ANTHROPIC_API_KEY", "k"),
            ("MODEL_GATEWAYS", r#"{"gateway": {"base_url": "http://127.0.0.1:1/v1"}}"#),
            (
                "MODEL_ALIASES",
                r#"{"house/fast": "gateway/anthropic/claude-haiku-4-5", "openai/*": "gateway/openai/*", "lost/one": "vertex/gemini"}"#,
            ),
        ];
        ModelSettings::read(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn aliases_and_prefixes_find_the_provider() {
        let s = settings();
        let t = resolve(&s, "anthropic/claude-sonnet-4-5").unwrap();
        assert_eq!((t.provider.prefix.as_str(), t.model.as_str()), ("anthropic", "claude-sonnet-4-5"));
        let t = resolve(&s, "house/fast").unwrap();
        assert_eq!((t.provider.prefix.as_str(), t.model.as_str()), ("gateway", "anthropic/claude-haiku-4-5"));
        let t = resolve(&s, "openai/gpt-4.1").unwrap();
        assert_eq!((t.resolved.as_str(), t.model.as_str()), ("gateway/openai/gpt-4.1", "openai/gpt-4.1"));
    }

    #[test]
    fn refusals_say_what_to_set() {
        let s = settings();
        let p = resolve(&s, "mistral/large").unwrap_err();
        assert_eq!(p.kind, Some(crate::core::ErrorCode::ModelNotConfigured));
        assert!(p.detail.contains("ANTHROPIC_API_KEY") && p.detail.contains("MODEL_GATEWAYS"), "{}", p.detail);
        let p = resolve(&s, "lost/one").unwrap_err();
        assert!(p.detail.contains("which the alias “lost/one” sends to “vertex/gemini”"), "{}", p.detail);
        let mut narrowed = s.clone();
        narrowed.allowed = Some(vec!["house/fast".into()]);
        let p = resolve(&narrowed, "anthropic/claude-sonnet-4-5").unwrap_err();
        assert_eq!(p.kind, Some(crate::core::ErrorCode::ModelNotAllowed));
        assert!(resolve(&narrowed, "house/fast").is_ok());
    }
}
