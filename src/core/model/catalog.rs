//! The catalogue `list_models` answers: what each provider lists, the aliases, the allow list,
//! in the shape of the OpenAI API's list of models, and the words that summarize it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::alias_target;
use super::settings::ModelSettings;
use super::wire::Listed;
use crate::core::text::{count, join_and, SUMMARY_MAX};

/// How long a provider's list is kept, and how long after a failed read before asking again.
pub const KEEP_SECONDS: i64 = 300;
pub const RETRY_SECONDS: i64 = 60;
const NAMED_MAX: usize = 20;

/// A read of the kept lists of the providers named, each read again from its provider where due.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadLists {
    pub providers: Vec<String>,
}

/// What is known of one provider's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Kept {
    /// The last list read, if one ever was.
    pub models: Option<Vec<Listed>>,
    /// When that list was read, in milliseconds since 1970.
    pub listed_at: i64,
    /// When the last read failed, if it did after the list was read.
    pub failed_at: Option<i64>,
}

/// Whether a provider's list is to be read again now.
pub fn due(kept: Option<&Kept>, now_ms: i64) -> bool {
    match kept {
        None => true,
        Some(Kept { failed_at: Some(failed), .. }) => now_ms - failed >= RETRY_SECONDS * 1000,
        Some(k) => k.models.is_none() || now_ms - k.listed_at >= KEEP_SECONDS * 1000,
    }
}

/// The providers `list_models` asks for their lists: those `only` names (or all), that list
/// models rather than declare them.
pub fn asked(settings: &ModelSettings, only: Option<&str>) -> Vec<String> {
    settings
        .providers
        .values()
        .filter(|p| only.is_none_or(|o| o == p.prefix) && p.declared.is_empty())
        .map(|p| p.prefix.clone())
        .collect()
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= 256
        && !id.chars().any(|c| c.is_whitespace() || c.is_control() || c == '*')
        && !id.starts_with("arn:")
        && !id.contains("/arn:")
}

fn clean_name(name: Option<&String>) -> Option<&String> {
    name.filter(|n| n.chars().count() <= 100 && !n.contains('\n') && !n.trim().is_empty())
}

/// Builds the result; `kept` holds each asked provider's list, `now` is an RFC 3339 time.
pub fn build(
    settings: &ModelSettings,
    only: Option<&str>,
    kept: &BTreeMap<String, Kept>,
    now_ms: i64,
    now: &str,
) -> Value {
    let mut data: BTreeMap<String, Value> = BTreeMap::new();
    let mut partial = false;
    let mut oldest: Option<i64> = None;
    for provider in settings.providers.values().filter(|p| only.is_none_or(|o| o == p.prefix)) {
        let mut stale = false;
        let listed: Vec<Listed> = if provider.declared.is_empty() {
            let k = kept.get(&provider.prefix);
            stale = k.is_none_or(|k| k.failed_at.is_some() || now_ms - k.listed_at >= KEEP_SECONDS * 1000);
            partial |= stale;
            match k.and_then(|k| k.models.as_ref().map(|m| (k.listed_at, m))) {
                Some((at, models)) => {
                    oldest = Some(oldest.map_or(at, |o| o.min(at)));
                    models.clone()
                }
                None => Vec::new(),
            }
        } else {
            provider.declared.iter().map(|id| Listed { id: id.clone(), ..Listed::default() }).collect()
        };
        // A provider that answers an empty list takes any model id its upstream serves.
        let known_empty = listed.is_empty() && !stale;
        for m in listed.iter().filter(|m| valid_id(&m.id)) {
            let id = format!("{}/{}", provider.prefix, m.id);
            if alias_target(settings, &id).is_some() || !settings.allows(&id) {
                continue;
            }
            let mut entry = json!({ "id": id, "object": "model", "created": m.created, "owned_by": provider.prefix });
            if let Some(name) = clean_name(m.name.as_ref()) {
                entry["name"] = json!(name);
            }
            if let Some(n) = m.context_window {
                entry["context_window"] = json!(n);
            }
            if let Some(n) = m.max_tokens {
                entry["max_tokens"] = json!(n);
            }
            data.insert(id, entry);
        }
        let wildcard = format!("{}/*", provider.prefix);
        if known_empty && alias_target(settings, &wildcard).is_none() && settings.allows(&wildcard) {
            let entry = json!({ "id": wildcard, "object": "model", "created": 0, "owned_by": provider.prefix, "pattern": true });
            data.insert(wildcard, entry);
        }
    }
    for (alias, target) in &settings.aliases {
        let prefix = target.split('/').next().unwrap_or_default();
        if !settings.providers.contains_key(prefix) || only.is_some_and(|o| o != prefix) || !settings.allows(alias) {
            continue;
        }
        let mut entry = json!({ "id": alias, "object": "model", "created": 0, "owned_by": prefix, "alias": true });
        if !target.contains("arn:") {
            entry["resolved_to"] = json!(target);
        }
        if alias.ends_with('*') {
            entry["pattern"] = json!(true);
        }
        data.insert(alias.clone(), entry);
    }
    let listed_at = oldest
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map(crate::core::text::stamp)
        .unwrap_or_else(|| now.to_string());
    json!({
        "object": "list",
        "data": data.into_values().collect::<Vec<_>>(),
        "catalog_status": if partial { "partial" } else { "complete" },
        "narrowed": settings.allowed.is_some(),
        "listed_at": listed_at,
    })
}

/// How a person adds a model provider, for a runtime that lists no model.
pub const PROVIDER_SETUP: &str = "No model provider is set up, so no reasoning function can run yet. To add Anthropic, put a line ANTHROPIC_API_KEY=<your key> in the file .dev.vars next to wrangler.toml and start the runtime again (on Cloudflare: wrangler secret put ANTHROPIC_API_KEY). OPENAI_API_KEY adds OpenAI, and the variable MODEL_GATEWAYS adds any OpenAI-compatible server, such as a gateway or a model server on this computer; the README's Model providers section shows each setting.";

/// The plain-language summary of a result `build` made.
pub fn summary(result: &Value) -> String {
    let empty = Vec::new();
    let data = result.get("data").and_then(Value::as_array).unwrap_or(&empty);
    let field = |e: &Value, k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let (patterns, models): (Vec<&Value>, Vec<&Value>) =
        data.iter().partition(|e| e.get("pattern").and_then(Value::as_bool) == Some(true));
    let last_part = |e: &Value| field(e, "id").rsplit('/').next().unwrap_or_default().to_string();
    let mut names: Vec<(String, String, String)> = models
        .iter()
        .map(|e| {
            let name = e.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| last_part(e));
            (name, field(e, "owned_by"), last_part(e))
        })
        .collect();
    // A name one provider repeats gives way to the last part of each id; one two providers share
    // takes its provider in brackets.
    let repeated = |names: &[(String, String, String)], n: &str, o: &str| {
        names.iter().filter(|(m, p, _)| m == n && p == o).count() > 1
    };
    let snapshot = names.clone();
    for (name, owner, last) in names.iter_mut() {
        if repeated(&snapshot, name, owner) {
            *name = last.clone();
        }
    }
    let snapshot = names.clone();
    let shown: Vec<String> = names
        .iter()
        .map(|(name, owner, _)| {
            if snapshot.iter().any(|(m, p, _)| m == name && p != owner) {
                format!("{name} ({owner})")
            } else {
                name.clone()
            }
        })
        .collect();
    let owners: Vec<String> =
        models.iter().map(|e| field(e, "owned_by")).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let mut text = if shown.is_empty() {
        "This server can call no listed model yet.".to_string()
    } else {
        let mut named: Vec<String> = shown.iter().take(NAMED_MAX).cloned().collect();
        if shown.len() > NAMED_MAX {
            named.push(format!("{} more", shown.len() - NAMED_MAX));
        }
        let list = match named.split_last() {
            Some((last, init)) if !init.is_empty() => format!("{}, and {last}", init.join(", ")),
            _ => named.join(""),
        };
        format!("This server can call {} through {}: {list}.", count(models.len(), "model"), join_and(&owners))
    };
    if !patterns.is_empty() {
        let mut prefixes: Vec<String> =
            patterns.iter().map(|e| field(e, "id").trim_end_matches("/*").to_string()).collect();
        prefixes.dedup();
        let any = match prefixes.split_last() {
            Some((last, init)) if !init.is_empty() => format!("{} or {last}", init.join(", ")),
            _ => prefixes.join(""),
        };
        text.push_str(&format!(" It can also call any {any} model."));
    }
    if result.get("narrowed").and_then(Value::as_bool) == Some(true) {
        text.push_str(" It lists only the models its operator allows.");
    }
    if result.get("catalog_status").and_then(Value::as_str) == Some("partial") {
        text.push_str(" The list may be incomplete: a provider could not be asked just now.");
    }
    fit(text, result.get("catalog_status").and_then(Value::as_str) == Some("partial"))
}

/// Keeps a long summary within the limit, cutting the named list and keeping the closing words.
fn fit(text: String, partial: bool) -> String {
    if text.chars().count() <= SUMMARY_MAX {
        return text;
    }
    let tail = if partial { " The list may be incomplete: a provider could not be asked just now." } else { "" };
    let room = SUMMARY_MAX - tail.chars().count() - 1;
    let cut: String = text.chars().take(room).collect();
    let at = cut.rfind(", ").unwrap_or(cut.len());
    format!("{}, and more.{tail}", &cut[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(id: &str, name: Option<&str>) -> Listed {
        Listed { id: id.into(), name: name.map(str::to_string), created: 1, ..Listed::default() }
    }

    fn settings(extra: &[(&str, &str)]) -> ModelSettings {
        let mut vars = vec![
            ("ANTHROPIC_API_KEY", "k"),
            ("MODEL_GATEWAYS", r#"{"gateway": {"base_url": "http://127.0.0.1:1/v1"}}"#),
            (
                "MODEL_ALIASES",
                r#"{"house/fast": "gateway/anthropic/claude-haiku-4-5", "openai/*": "gateway/openai/*", "lost/x": "vertex/y"}"#,
            ),
        ];
        vars.extend_from_slice(extra);
        ModelSettings::read(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
    }

    fn kept(models: Vec<Listed>) -> Kept {
        Kept { models: Some(models), listed_at: 1_000, failed_at: None }
    }

    #[test]
    fn the_spec_example_reads_as_the_spec_says() {
        let s = settings(&[]);
        let mut lists = BTreeMap::new();
        lists.insert(
            "anthropic".to_string(),
            kept(vec![
                listed("claude-haiku-4-5", Some("Claude Haiku 4.5")),
                listed("claude-opus-4-1", Some("Claude Opus 4.1")),
                listed("claude-sonnet-4-5", Some("Claude Sonnet 4.5")),
            ]),
        );
        lists.insert(
            "gateway".to_string(),
            kept(vec![
                listed("Qwen/Qwen3-14B", Some("Qwen3-14B")),
                listed("anthropic/claude-haiku-4-5", Some("Claude Haiku 4.5")),
                listed("bad id", None),
            ]),
        );
        let r = build(&s, None, &lists, 2_000, "2026-12-03T00:00:00.000Z");
        let ids: Vec<&str> = r["data"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "anthropic/claude-haiku-4-5",
                "anthropic/claude-opus-4-1",
                "anthropic/claude-sonnet-4-5",
                "gateway/Qwen/Qwen3-14B",
                "gateway/anthropic/claude-haiku-4-5",
                "house/fast",
                "openai/*"
            ]
        );
        assert_eq!(r["catalog_status"], "complete");
        assert_eq!(r["listed_at"], "1970-01-01T00:00:01.000Z");
        assert_eq!(
            summary(&r),
            "This server can call 6 models through anthropic and gateway: Claude Haiku 4.5 (anthropic), Claude Opus 4.1, Claude Sonnet 4.5, Qwen3-14B, Claude Haiku 4.5 (gateway), and fast. It can also call any openai model."
        );
    }

    #[test]
    fn a_missing_list_is_partial_and_narrowing_is_said() {
        let s = settings(&[("ALLOWED_MODELS", "anthropic/*,house/fast")]);
        let r = build(&s, Some("anthropic"), &BTreeMap::new(), 5, "2026-12-03T00:00:00.000Z");
        assert_eq!((r["catalog_status"].as_str(), r["narrowed"].as_bool()), (Some("partial"), Some(true)));
        assert_eq!(r["listed_at"], "2026-12-03T00:00:00.000Z");
        assert_eq!(
            summary(&r),
            "This server can call no listed model yet. It lists only the models its operator allows. The list may be incomplete: a provider could not be asked just now."
        );
    }

    #[test]
    fn lists_are_kept_five_minutes_and_retried_after_one() {
        let k = kept(vec![]);
        assert!(!due(Some(&k), 1_000 + 299_000) && due(Some(&k), 1_000 + 300_000));
        let failed = Kept { failed_at: Some(10_000), ..k };
        assert!(!due(Some(&failed), 69_999) && due(Some(&failed), 70_000) && due(None, 0));
    }

    #[test]
    fn long_lists_name_twenty_and_count_the_rest() {
        let s = settings(&[]);
        let many: Vec<Listed> = (0..30).map(|i| listed(&format!("model-{i:02}"), None)).collect();
        let lists = BTreeMap::from([("anthropic".to_string(), kept(many))]);
        let text = summary(&build(&s, Some("anthropic"), &lists, 2_000, "now"));
        assert!(text.starts_with("This server can call 30 models through anthropic: model-00, "), "{text}");
        assert!(text.contains("model-19, and 10 more."), "{text}");
    }
}
