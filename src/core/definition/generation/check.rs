//! The checker of a generation function's document, which builds its spec.

use serde_json::{Map, Value};

use super::super::check::{escape, Findings};
use super::super::document::Document;
use super::super::page::check_page;
use super::{GenerationSpec, Reference};
use crate::core::error::Problem;
use crate::core::generation::catalog::{find, CATALOGUE};
use crate::core::generation::Model;

const KEYS: &[&str] = &["description", "page", "model", "input", "parameters", "references"];
const REFERENCE_KEYS: &[&str] = &["media_types", "most", "bytes"];

/// Checks a generation function's whole document, as a save of one would, reporting every
/// problem at once. Not called by any tool yet: the type is not served.
pub fn check_source(source: &str) -> Result<GenerationSpec, Problem> {
    let doc = Document::parse(source)?;
    let mut f = Findings::new(&doc);
    f.description();
    check_page(&mut f);
    let spec = check(&mut f);
    f.finish()?;
    spec.ok_or_else(|| Problem::internal("the document passed its checks but has no spec"))
}

/// The spec, where the document gave every part of it; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<GenerationSpec> {
    keys(f);
    f.only_keys("/input", &["schema"], "input");
    let model = model(f);
    let input_schema = match f.mapping("/input", true) {
        Some(_) => f.schema("/input/schema", true, true),
        None => None,
    };
    let parameters = model.and_then(|(_, m)| parameters(f, m));
    let references = match (model, input_schema) {
        (Some((_, m)), Some(schema)) => references(f, m, schema),
        _ => None,
    };
    let prompt = prompt(f, model.map(|(_, m)| m));
    let (gateway, model) = model?;
    Some(GenerationSpec {
        gateway: gateway.to_string(),
        model,
        input_schema: input_schema?.clone(),
        parameters: parameters?,
        references: references?,
        prompt: prompt?,
    })
}

/// Refuses every key the format does not have; `output` is not written, since every run answers
/// the assets it made.
fn keys(f: &mut Findings<'_>) {
    let Some(Value::Object(map)) = f.get("") else { return };
    for key in map.keys() {
        if key == "output" {
            f.error(
                "/output",
                "is not written: a generation function answers the assets it made, each with its asset_id, media_type, size and sha256",
            );
        } else if !KEYS.contains(&key.as_str()) {
            f.error(
                format!("/{}", escape(key)),
                format!("is not a key of a generation function; its keys are {}", KEYS.join(", ")),
            );
        }
    }
}

fn live_models() -> String {
    let live: Vec<&str> = CATALOGUE.iter().filter(|m| m.retired.is_none()).map(|m| m.model).collect();
    live.join(", ")
}

fn is_gateway(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// `gateway/provider/model`: a gateway of `MODEL_GATEWAYS`, then a live model of the catalogue.
/// Whether the gateway is configured is a question for the run, as it is for a reasoning model.
fn model<'d>(f: &mut Findings<'d>) -> Option<(&'d str, &'static Model)> {
    let text = f.string("/model", true, 256)?;
    if let Some(m) = find(text) {
        f.error(
            "/model",
            format!("names no gateway: write the gateway before the model, as gateway/{}; list_generation_models names the gateways", m.model),
        );
        return None;
    }
    let parts = text.split_once('/').filter(|(gateway, id)| {
        is_gateway(gateway)
            && id.split_once('/').is_some_and(|(p, m)| !p.is_empty() && !m.is_empty())
            && !text.chars().any(|c| c.is_whitespace() || c.is_control())
    });
    let Some((gateway, id)) = parts else {
        f.error(
            "/model",
            "must name a model as gateway/provider/model, such as gateway/openai/gpt-image-2; list_generation_models lists them",
        );
        return None;
    };
    let Some(model) = find(id) else {
        f.error(
            "/model",
            format!("names {id}, which is not a generation model of this runtime; it may name {}", live_models()),
        );
        return None;
    };
    if let Some(r) = model.retired {
        f.error(
            "/model",
            format!(
                "names {id}, which was retired on {}; name {} instead, which replaces it, as {gateway}/{}",
                r.on, r.replacement, r.replacement
            ),
        );
        return None;
    }
    Some((gateway, model))
}

/// Each parameter the model takes and the values its limits allow, in the order they are listed.
fn allowed(m: &Model) -> Vec<(&'static str, &'static [&'static str])> {
    let l = &m.limits;
    [("size", l.sizes), ("quality", l.qualities), ("voice", l.voices), ("format", l.formats)]
        .into_iter()
        .filter(|(_, values)| !values.is_empty())
        .collect()
}

/// A parameter's value where the document gives none: `auto`, or `mp3`; a voice has none.
fn default(name: &str, values: &[&str]) -> Option<&'static str> {
    match name {
        "voice" => None,
        "format" => values.contains(&"mp3").then_some("mp3"),
        _ => values.contains(&"auto").then_some("auto"),
    }
}

fn parameters(f: &mut Findings<'_>, m: &Model) -> Option<Vec<(&'static str, String)>> {
    let takes = allowed(m);
    let names: Vec<&str> = takes.iter().map(|(n, _)| *n).collect();
    let given = match f.get("/parameters") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => {
            f.error(
                "/parameters",
                format!("must be a mapping of parameters to values; {} takes {}", m.model, names.join(", ")),
            );
            return None;
        }
    };
    let mut ok = true;
    for key in given.keys().filter(|k| !names.contains(&k.as_str())) {
        f.error(
            format!("/parameters/{}", escape(key)),
            format!("is not a parameter {} takes; it takes {}", m.model, names.join(", ")),
        );
        ok = false;
    }
    let mut chosen = Vec::new();
    for (name, values) in takes {
        let pointer = format!("/parameters/{name}");
        let fits = |v: &str| values.contains(&v);
        match given.get(name) {
            Some(Value::String(v)) if fits(v) => chosen.push((name, v.clone())),
            Some(_) => {
                f.error(pointer, format!("must be one of {} for {}", values.join(", "), m.model));
                ok = false;
            }
            None => match default(name, values) {
                Some(d) => chosen.push((name, d.to_string())),
                None => {
                    f.error(pointer, format!("is required: {} speaks in one of {}", m.model, values.join(", ")));
                    ok = false;
                }
            },
        }
    }
    ok.then_some(chosen)
}

fn references(f: &mut Findings<'_>, m: &Model, schema: &Value) -> Option<Vec<Reference>> {
    let map = match f.get("/references") {
        None | Some(Value::Null) => return Some(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            f.error(
                "/references",
                "must be a mapping of input fields to what each carries, as {logo: {media_types: [image/png]}}",
            );
            return None;
        }
    };
    let Some(limits) = m.limits.references.filter(|_| !m.media_types.is_empty()) else {
        if !map.is_empty() {
            f.error("/references", format!("{} takes no references; leave them out", m.model));
            return None;
        }
        return Some(Vec::new());
    };
    let mut out = Vec::new();
    let mut ok = true;
    for (field, _) in map {
        let at = format!("/references/{}", escape(field));
        f.only_keys(&at, REFERENCE_KEYS, "a reference");
        match f.get(&at) {
            None | Some(Value::Null) | Some(Value::Object(_)) => {}
            Some(_) => {
                f.error(
                    at.clone(),
                    "must be a mapping with media_types, most and bytes, or nothing for the model's own",
                );
                ok = false;
                continue;
            }
        }
        let property = schema.pointer(&format!("/properties/{}", escape(field)));
        let list = match property
            .map(|p| (p.get("type").and_then(Value::as_str), p.pointer("/items/type").and_then(Value::as_str)))
        {
            Some((Some("string"), _)) => false,
            Some((Some("array"), Some("string"))) => true,
            Some(_) => {
                f.error(at.clone(), format!("names the input field {field}, which must be a string, one asset id, or an array of strings, several"));
                ok = false;
                continue;
            }
            None => {
                f.error(at.clone(), format!("names no field of the input schema; add {field} to /input/schema/properties as a string that holds an asset id"));
                ok = false;
                continue;
            }
        };
        let most = match (list, f.get(&format!("{at}/most"))) {
            (false, None) => Some(1),
            (false, Some(_)) => {
                f.error(format!("{at}/most"), "is for a list of assets: this field carries one asset id");
                None
            }
            (true, None) => {
                f.error(
                    format!("{at}/most"),
                    format!("is required for a list of assets: how many it may carry, at most {}", limits.most),
                );
                None
            }
            (true, Some(_)) => f.integer(&format!("{at}/most"), 1, limits.most as i64).map(|n| n as usize),
        };
        let bytes = match f.get(&format!("{at}/bytes")) {
            None => Some(limits.bytes),
            Some(_) => f.integer(&format!("{at}/bytes"), 1, limits.bytes as i64).map(|n| n as u64),
        };
        let media_types = media_types(f, m, &at);
        match (most, bytes, media_types) {
            (Some(most), Some(bytes), Some(media_types)) => {
                out.push(Reference { field: field.clone(), list, most, media_types, bytes })
            }
            _ => ok = false,
        }
    }
    let total: usize = out.iter().map(|r| r.most).sum();
    if ok && total > limits.most {
        f.error(
            "/references",
            format!("carry up to {total} assets together; {} takes at most {}", m.model, limits.most),
        );
        ok = false;
    }
    ok.then_some(out)
}

fn media_types(f: &mut Findings<'_>, m: &Model, at: &str) -> Option<Vec<String>> {
    let pointer = format!("{at}/media_types");
    let takes = m.media_types.join(", ");
    match f.get(&pointer) {
        None | Some(Value::Null) => Some(m.media_types.iter().map(|t| t.to_string()).collect()),
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item.as_str().filter(|t| m.media_types.contains(t)) {
                    Some(t) if !out.iter().any(|o: &String| o == t) => out.push(t.to_string()),
                    Some(t) => f.error(format!("{pointer}/{i}"), format!("lists {t} a second time")),
                    None => f.error(
                        format!("{pointer}/{i}"),
                        format!("is not a media type {} takes; it takes {takes}", m.model),
                    ),
                }
            }
            (out.len() == items.len()).then_some(out)
        }
        Some(_) => {
            f.error(pointer, format!("must be a list of media types, from {takes}"));
            None
        }
    }
}

/// The prompt: the body, a template over `input`. A body with no `{% %}` tag renders all of its
/// text besides its expressions, so that text alone must fit the model's prompt.
fn prompt(f: &mut Findings<'_>, m: Option<&Model>) -> Option<String> {
    let body = f.doc.body;
    if body.trim().is_empty() {
        let line = f.doc.body_line;
        f.error_at_line(line, 1, "has no prompt: after the front matter, write what the model is asked to make, such as A poster for {{ input.title }}");
        return None;
    }
    f.template("/body", body, Some(f.doc.body_line), &["input"]);
    if let Some(m) = m {
        let fixed = fixed_text(body.trim());
        let most = m.limits.prompt_characters;
        if let Some(n) = fixed.filter(|n| *n > most) {
            f.error_at_line(
                f.doc.body_line,
                1,
                format!(
                    "holds {n} characters besides its expressions, more than the {most} a prompt to {} may hold",
                    m.model
                ),
            );
        }
    }
    Some(body.to_string())
}

/// The characters of a template outside its `{{ }}` expressions and `{# #}` comments, which every
/// render writes; `None` where a `{% %}` tag may leave some out.
fn fixed_text(text: &str) -> Option<usize> {
    if text.contains("{%") {
        return None;
    }
    let mut n = 0;
    let mut rest = text;
    loop {
        let next = [rest.find("{{").map(|i| (i, "}}")), rest.find("{#").map(|i| (i, "#}"))]
            .into_iter()
            .flatten()
            .min_by_key(|(i, _)| *i);
        let Some((at, close)) = next else {
            return Some(n + rest.chars().count());
        };
        n += rest[..at].chars().count();
        rest = match rest[at..].find(close) {
            Some(end) => &rest[at + end + close.len()..],
            None => "",
        };
    }
}

#[cfg(test)]
mod unit {
    use super::fixed_text;

    #[test]
    fn fixed_text_counts_what_every_render_writes() {
        assert_eq!(fixed_text("A poster for {{ input.title }}."), Some(14));
        assert_eq!(fixed_text("ab{# note #}c{{ x }}"), Some(3));
        assert_eq!(fixed_text("{% if x %}long{% endif %}"), None);
    }
}
