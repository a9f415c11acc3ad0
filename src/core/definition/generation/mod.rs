//! A generation function: a model of the generation catalogue makes an image or audio from a
//! prompt the body renders, with the parameters its limits allow and, where it takes them, assets
//! given as references. Its run answers the assets it made.
//!
//! The checker builds its spec; `run` writes what one run asks its model. The gateway's wire is
//! `core::generation::wire`, and the run's I/O is `ops::run::generation`.

mod check;
pub mod run;
#[cfg(test)]
mod tests;

pub use check::{check, check_source};
pub use run::{prepare, MadeAsset, Prepared, Referenced};

use serde_json::{json, Value};

use crate::core::generation::{Kind as Makes, Model};

/// A generation function as its runs follow it; only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationSpec {
    /// The gateway that is sent the call, as the function names it before the model.
    gateway: String,
    /// The catalogue's model, never a retired one.
    model: &'static Model,
    input_schema: Value,
    /// Each parameter and its value, every one the model takes, defaults filled in.
    parameters: Vec<(&'static str, String)>,
    /// The input fields that carry assets, in the order written.
    references: Vec<Reference>,
    /// The template of the prompt.
    prompt: String,
}

/// An input field that carries one asset id, or a list of them, given to the model as a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub field: String,
    /// Whether the field is a list of asset ids rather than one.
    pub list: bool,
    /// The most assets it carries: 1 for one asset id.
    pub most: usize,
    /// The media types it takes, within the model's.
    pub media_types: Vec<String>,
    /// The most bytes of each, within the model's.
    pub bytes: u64,
}

impl GenerationSpec {
    pub fn gateway(&self) -> &str {
        &self.gateway
    }

    pub fn model(&self) -> &'static Model {
        self.model
    }

    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The value of a parameter, as written or by default.
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    pub fn references(&self) -> &[Reference] {
        &self.references
    }

    pub fn prompt(&self) -> &str {
        &self.prompt
    }

    /// The media type of what a run makes: a PNG image, or audio of the chosen format.
    pub fn media_type(&self) -> &'static str {
        match self.model.kind {
            Makes::Image => "image/png",
            Makes::Video => "video/mp4",
            Makes::Audio => match self.parameter("format").unwrap_or("mp3") {
                "opus" => "audio/ogg",
                "aac" => "audio/aac",
                "flac" => "audio/flac",
                "wav" => "audio/wav",
                _ => "audio/mpeg",
            },
        }
    }

    /// What a run answers: the assets it made, each with its id, media type, size and SHA-256.
    pub fn output_schema(&self) -> Value {
        output_schema()
    }
}

/// The output of every generation function.
pub fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "assets": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "asset_id": { "type": "string", "description": "The asset's id, which get_asset reads, with an address to its bytes." },
                        "media_type": { "type": "string" },
                        "size": { "type": "integer", "minimum": 1, "description": "Bytes." },
                        "sha256": { "type": "string", "pattern": "^[0-9a-f]{64}$" }
                    },
                    "required": ["asset_id", "media_type", "size", "sha256"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["assets"],
        "additionalProperties": false
    })
}
