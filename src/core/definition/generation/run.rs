//! A generation function's run, without its I/O: the prompt its body writes over the input, the
//! assets its input gives as references, and the output a run answers once its assets are kept.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::GenerationSpec;
use crate::core::definition::template::{environment, render};
use crate::core::run::RunError;
use crate::core::ErrorCode;

/// An asset the input gives as a reference, with what its reference allows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Referenced {
    /// The input field that carries it.
    pub field: String,
    pub asset_id: String,
    pub media_types: Vec<String>,
    /// The most bytes it may hold.
    pub bytes: u64,
}

/// What one run asks its model, through which gateway.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prepared {
    pub gateway: String,
    /// The catalogue's model, `openai/gpt-image-2`.
    pub model: String,
    pub prompt: String,
    /// Each parameter and its value, defaults filled in.
    pub parameters: Vec<(String, String)>,
    pub references: Vec<Referenced>,
}

impl Prepared {
    /// The model as the function names it, `gateway/openai/gpt-image-2`.
    pub fn named(&self) -> String {
        format!("{}/{}", self.gateway, self.model)
    }
}

/// Writes the prompt over `input` and reads the asset ids of its references; refuses a prompt
/// longer than the model takes and a field that carries more assets than its reference allows.
pub fn prepare(spec: &GenerationSpec, input: &Value) -> Result<Prepared, RunError> {
    let prompt = render(&environment(), spec.prompt(), minijinja::context! { input => input })
        .map(|s| s.trim().to_string())
        .map_err(|e| {
            RunError::new(
                ErrorCode::Template,
                format!("the prompt could not be written: {}", e.detail().unwrap_or("it failed")),
            )
        })?;
    let model = spec.model();
    let most = model.limits.prompt_characters;
    let n = prompt.chars().count();
    if n > most {
        return Err(RunError::new(
            ErrorCode::Template,
            format!("the prompt holds {n} characters once written, more than the {most} {} takes; bound the fields written into it with maxLength", model.model),
        ));
    }
    if prompt.is_empty() {
        return Err(RunError::new(
            ErrorCode::Template,
            "the prompt is empty once written, so there is nothing to ask for",
        ));
    }
    let mut references = Vec::new();
    for r in spec.references() {
        let ids: Vec<&str> = match input.get(&r.field) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(id)) => vec![id.as_str()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(_) => Vec::new(),
        };
        if ids.len() > r.most {
            return Err(RunError::new(
                ErrorCode::InputSchema,
                format!("the input's {} carries {} assets; its reference takes at most {}", r.field, ids.len(), r.most),
            ));
        }
        references.extend(ids.into_iter().map(|id| Referenced {
            field: r.field.clone(),
            asset_id: id.to_string(),
            media_types: r.media_types.clone(),
            bytes: r.bytes,
        }));
    }
    Ok(Prepared {
        gateway: spec.gateway().to_string(),
        model: model.model.to_string(),
        prompt,
        parameters: spec.parameters.iter().map(|(n, v)| (n.to_string(), v.clone())).collect(),
        references,
    })
}

/// One asset a run made, as its output names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MadeAsset {
    pub asset_id: String,
    pub media_type: String,
    /// Bytes.
    pub size: u64,
    pub sha256: String,
}

/// The run's output: the assets it made, as the guide and the output schema give it.
pub fn output(assets: &[MadeAsset]) -> Value {
    json!({ "assets": assets })
}

#[cfg(test)]
mod unit {
    use super::*;
    use crate::core::definition::generation::check_source;

    const POSTER: &str = "---\ndescription: Draws a poster\nmodel: gateway/openai/gpt-image-2\ninput:\n  schema:\n    type: object\n    properties:\n      title: { type: string }\n      logos: { type: array, items: { type: string } }\n    required: [title]\nreferences:\n  logos: { most: 2 }\n---\nA poster for {{ input.title }}.\n";

    #[test]
    fn the_prompt_is_written_and_the_references_read_from_the_input() {
        let spec = check_source(POSTER).unwrap();
        let p = prepare(&spec, &json!({ "title": "Spring", "logos": ["ast_a", "ast_b"] })).unwrap();
        assert_eq!((p.named().as_str(), p.prompt.as_str()), ("gateway/openai/gpt-image-2", "A poster for Spring."));
        assert_eq!(p.references.iter().map(|r| r.asset_id.as_str()).collect::<Vec<_>>(), ["ast_a", "ast_b"]);
        assert!(p.parameters.contains(&("size".to_string(), "auto".to_string())));
        let none = prepare(&spec, &json!({ "title": "Spring" })).unwrap();
        assert!(none.references.is_empty());
        let e = prepare(&spec, &json!({ "title": "S", "logos": ["a", "b", "c"] })).unwrap_err();
        assert!(e.detail.contains("carries 3 assets; its reference takes at most 2"), "{}", e.detail);
        let e = prepare(&spec, &json!({ "title": "x".repeat(32_001) })).unwrap_err();
        assert_eq!(e.reason, ErrorCode::Template);
        assert!(e.detail.contains("more than the 32000 openai/gpt-image-2 takes"), "{}", e.detail);
    }
}
