//! The wire of a generation run: the OpenAI-compatible Images and Audio APIs a gateway of
//! `MODEL_GATEWAYS` serves. `images/generations` makes an image from a prompt, `images/edits` makes
//! one from a prompt and the references given (as `multipart/form-data`, each reference an
//! `image[]` file), and `audio/speech` reads the prompt aloud. Requests are built and answers read
//! here, with no I/O, so every answer a gateway may give, garbage too, is tested on the host.
//!
//! An image comes back as `data[].b64_json`; speech comes back as the audio's own bytes. Either is
//! taken only once its bytes are what they claim: a PNG, JPEG or WEBP by its first bytes, audio of
//! the format asked for where that format has a signature.

use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::catalog::{Kind, Model};
use crate::core::asset::begins_as;
use crate::core::model::settings::Provider;
use crate::core::model::wire::{base, headers, provider_error};
use crate::core::run::RunError;
use crate::core::ErrorCode;

/// The most bytes of one asset a run keeps: a larger image or audio is refused, not cut.
pub const ASSET_MAX_BYTES: usize = 20 * 1024 * 1024;

/// The most bytes of a gateway's answer that are read: an image of `ASSET_MAX_BYTES`, as base64
/// in JSON, with room for the rest of the answer.
pub const ANSWER_MAX_BYTES: usize = ASSET_MAX_BYTES / 3 * 4 + 64 * 1024;

/// An asset given to the model as a reference: its media type and bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Given {
    pub media_type: String,
    pub bytes: Vec<u8>,
}

/// What one run asks its model for: the prompt rendered, and each parameter's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask<'a> {
    pub model: &'static Model,
    pub prompt: &'a str,
    /// Each parameter the model takes and its value: `size`, `quality`, `voice`, `format`.
    pub parameters: &'a [(&'static str, String)],
    pub references: &'a [Given],
}

impl Ask<'_> {
    fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Which endpoint of the gateway the ask goes to.
    pub fn endpoint(&self) -> &'static str {
        match self.model.kind {
            Kind::Audio => "audio/speech",
            _ if self.references.is_empty() => "images/generations",
            _ => "images/edits",
        }
    }

    /// The media type of what speech of the chosen format is.
    fn audio_type(&self) -> &'static str {
        audio_type(self.parameter("format").unwrap_or("mp3"))
    }
}

/// The media type of speech of `format`, as the Audio API's `response_format` names it.
pub fn audio_type(format: &str) -> &'static str {
    match format {
        "opus" => "audio/ogg",
        "aac" => "audio/aac",
        "flac" => "audio/flac",
        "wav" => "audio/wav",
        _ => "audio/mpeg",
    }
}

/// A request to a gateway. Its headers carry the key: never log them.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// What a model made: one asset's media type and bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Made {
    pub media_type: &'static str,
    pub bytes: Vec<u8>,
}

/// The request of `ask` to `provider`, a gateway speaking the OpenAI-compatible APIs. `model` goes
/// as the catalogue names it, `openai/gpt-image-2`, which is how a gateway routes it.
pub fn request(provider: &Provider, ask: &Ask<'_>) -> Request {
    let url = format!("{}/{}", base(provider), ask.endpoint());
    let mut headers = headers(provider);
    let body = match (ask.model.kind, ask.references.is_empty()) {
        (Kind::Audio, _) => json!({
            "model": ask.model.model,
            "input": ask.prompt,
            "voice": ask.parameter("voice").unwrap_or_default(),
            "response_format": ask.parameter("format").unwrap_or("mp3"),
        })
        .to_string()
        .into_bytes(),
        (_, true) => {
            let mut body = json!({ "model": ask.model.model, "prompt": ask.prompt, "n": 1, "output_format": "png" });
            for name in ["size", "quality"] {
                if let Some(v) = ask.parameter(name) {
                    body[name] = json!(v);
                }
            }
            body.to_string().into_bytes()
        }
        (_, false) => {
            let (content_type, body) = multipart(ask);
            headers.retain(|(name, _)| *name != "content-type");
            headers.push(("content-type", content_type));
            body
        }
    };
    Request { url, headers, body }
}

/// An `images/edits` request's body: each field, then each reference as an `image[]` file.
fn multipart(ask: &Ask<'_>) -> (String, Vec<u8>) {
    // The boundary is the digest of what it separates, so it cannot be among the bytes it bounds
    // but by a collision of SHA-256.
    let mut digest = Sha256::new();
    digest.update(ask.prompt.as_bytes());
    for r in ask.references {
        digest.update(&r.bytes);
    }
    let hex: String = digest.finalize().iter().take(16).map(|b| format!("{b:02x}")).collect();
    let boundary = format!("playbook-{hex}");
    let mut body = Vec::new();
    let mut field = |name: &str, value: &str| {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes(),
        );
    };
    field("model", ask.model.model);
    field("prompt", ask.prompt);
    field("n", "1");
    field("output_format", "png");
    for name in ["size", "quality"] {
        if let Some(v) = ask.parameter(name) {
            field(name, v);
        }
    }
    for (i, r) in ask.references.iter().enumerate() {
        let extension = r.media_type.rsplit('/').next().unwrap_or("bin");
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"image[]\"; filename=\"reference-{}.{extension}\"\r\nContent-Type: {}\r\n\r\n",
                i + 1,
                r.media_type
            )
            .as_bytes(),
        );
        body.extend_from_slice(&r.bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// Reads a gateway's answer to `ask`: what the model made, or why the run fails.
pub fn answer(
    provider: &Provider,
    ask: &Ask<'_>,
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
) -> Result<Vec<Made>, RunError> {
    let prefix = &provider.prefix;
    if !(200..300).contains(&status) {
        let mut error = provider_error(prefix, status, &String::from_utf8_lossy(body));
        error.detail = error.detail.replace("list_models lists", "list_generation_models lists");
        return Err(error);
    }
    let unreadable = |why: String| {
        RunError::new(
            ErrorCode::ProviderError,
            format!("The gateway {prefix} answered {} in a shape this runtime cannot read: {why}.", ask.endpoint()),
        )
    };
    let made = match ask.model.kind {
        Kind::Audio => speech(ask, content_type, body).map_err(unreadable)?,
        _ => image(body).map_err(unreadable)?,
    };
    if made.bytes.len() > ASSET_MAX_BYTES {
        return Err(RunError::new(
            ErrorCode::ProviderError,
            format!(
                "The gateway {prefix} answered an asset of {} bytes; an asset holds at most {ASSET_MAX_BYTES}.",
                made.bytes.len()
            ),
        ));
    }
    Ok(vec![made])
}

/// The image of an Images API answer: the first of `data`, from its `b64_json`.
fn image(body: &[u8]) -> Result<Made, String> {
    let v: Value = serde_json::from_slice(body).map_err(|_| "its body is not JSON".to_string())?;
    let first = v
        .get("data")
        .and_then(Value::as_array)
        .and_then(|d| d.first())
        .ok_or_else(|| "it holds no data[0], the image made".to_string())?;
    let Some(encoded) = first.get("b64_json").and_then(Value::as_str) else {
        return Err(if first.get("url").is_some() {
            "it gives the image as a url rather than as b64_json, and this runtime keeps only bytes it was given".into()
        } else {
            "data[0] holds no b64_json".into()
        });
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| "data[0].b64_json is not base64".to_string())?;
    let media_type = sniff_image(&bytes)
        .ok_or_else(|| "data[0].b64_json holds no PNG, JPEG or WEBP image, by its first bytes".to_string())?;
    Ok(Made { media_type, bytes })
}

/// The audio of an Audio API answer: the body itself, checked against the format asked for.
fn speech(ask: &Ask<'_>, content_type: Option<&str>, body: &[u8]) -> Result<Made, String> {
    let media_type = ask.audio_type();
    let declared = content_type.map(|t| t.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    if declared.as_deref().is_some_and(|t| t == "application/json" || t.starts_with("text/")) {
        return Err(format!("it answered {} rather than audio", declared.unwrap_or_default()));
    }
    if body.is_empty() {
        return Err("its body is empty".into());
    }
    if !begins_as(media_type, body) {
        return Err(format!("its body is not {media_type} audio, by its first bytes"));
    }
    Ok(Made { media_type, bytes: body.to_vec() })
}

/// The media type of an image by its first bytes, among those the catalogue's models make, by
/// the signatures an asset is checked against.
pub fn sniff_image(bytes: &[u8]) -> Option<&'static str> {
    ["image/png", "image/jpeg", "image/webp"].into_iter().find(|t| begins_as(t, bytes))
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
