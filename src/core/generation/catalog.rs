//! The generation models this release knows, what each takes, and `list_generation_models`.
//!
//! The catalogue is compiled in, so an agent reads the models of the runtime it talks to, and no
//! gateway is asked. Its limits are the provider's own: OpenAI's Images API (`images/generations`
//! and `images/edits`) for the image models, and its Audio API (`audio/speech`) for speech.

use serde_json::{json, Map, Value};

use crate::core::text::{count, join_and};

/// What a model makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Image,
    Audio,
    Video,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Image, Kind::Audio, Kind::Video];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Image => "image",
            Kind::Audio => "audio",
            Kind::Video => "video",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// What a summary says a model of this kind makes: `an image`, `audio`, `a video`.
    fn made(self) -> &'static str {
        match self {
            Kind::Image => "an image",
            Kind::Audio => "audio",
            Kind::Video => "a video",
        }
    }
}

/// The assets a model takes as references: how many at most, and the most bytes of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct References {
    pub most: usize,
    pub bytes: u64,
}

/// The values each parameter of a model may take; an empty list is a parameter it does not take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub sizes: &'static [&'static str],
    pub qualities: &'static [&'static str],
    pub voices: &'static [&'static str],
    pub formats: &'static [&'static str],
    /// The most characters of a prompt, once rendered.
    pub prompt_characters: usize,
    /// `None` where the model takes no reference.
    pub references: Option<References>,
}

/// A model no longer served: the day it retired, as `YYYY-MM-DD`, and the model that replaces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retired {
    pub on: &'static str,
    pub replacement: &'static str,
}

/// One model of the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    /// As the gateway names it, `provider/model`.
    pub model: &'static str,
    pub kind: Kind,
    /// The media types of the references it takes; empty where it takes none.
    pub media_types: &'static [&'static str],
    pub limits: Limits,
    pub retired: Option<Retired>,
}

const IMAGE_SIZES: &[&str] = &["auto", "1024x1024", "1536x1024", "1024x1536"];
const IMAGE_QUALITIES: &[&str] = &["auto", "low", "medium", "high"];
const IMAGE_REFERENCES: &[&str] = &["image/png", "image/jpeg", "image/webp"];
/// Sixteen images of at most 50 MiB each, as the Images API takes for an edit.
const IMAGE_REFERENCE_LIMITS: References = References { most: 16, bytes: 50 * 1024 * 1024 };
/// The Audio API's formats but raw `pcm`, which has no media type an asset may have.
const SPEECH_FORMATS: &[&str] = &["mp3", "opus", "aac", "flac", "wav"];
/// The most characters `audio/speech` reads aloud in one call.
const SPEECH_CHARACTERS: usize = 4096;
const NONE: &[&str] = &[];

const fn image(model: &'static str) -> Model {
    Model {
        model,
        kind: Kind::Image,
        media_types: IMAGE_REFERENCES,
        limits: Limits {
            sizes: IMAGE_SIZES,
            qualities: IMAGE_QUALITIES,
            voices: NONE,
            formats: NONE,
            prompt_characters: 32_000,
            references: Some(IMAGE_REFERENCE_LIMITS),
        },
        retired: None,
    }
}

const fn speech(model: &'static str, voices: &'static [&'static str]) -> Model {
    Model {
        model,
        kind: Kind::Audio,
        media_types: NONE,
        limits: Limits {
            sizes: NONE,
            qualities: NONE,
            voices,
            formats: SPEECH_FORMATS,
            prompt_characters: SPEECH_CHARACTERS,
            references: None,
        },
        retired: None,
    }
}

/// The catalogue, sorted by model.
pub const CATALOGUE: &[Model] = &[
    // DALL·E 3 takes no reference and has its own sizes and qualities; OpenAI retired it.
    Model {
        model: "openai/dall-e-3",
        kind: Kind::Image,
        media_types: NONE,
        limits: Limits {
            sizes: &["1024x1024", "1792x1024", "1024x1792"],
            qualities: &["standard", "hd"],
            voices: NONE,
            formats: NONE,
            prompt_characters: 4000,
            references: None,
        },
        retired: Some(Retired { on: "2026-05-12", replacement: "openai/gpt-image-2" }),
    },
    speech(
        "openai/gpt-4o-mini-tts",
        &["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer"],
    ),
    image("openai/gpt-image-2"),
    image("openai/gpt-image-2.6-flare"),
    speech("openai/tts-1", &["alloy", "ash", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer"]),
    speech("openai/tts-1-hd", &["alloy", "ash", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer"]),
];

/// The model of the catalogue named `provider/model`, retired or not.
pub fn find(model: &str) -> Option<&'static Model> {
    CATALOGUE.iter().find(|m| m.model == model)
}

impl Model {
    /// The last part of its id, as summaries name it: `gpt-image-2`.
    pub fn short(&self) -> &'static str {
        self.model.rsplit('/').next().unwrap_or(self.model)
    }

    /// The model as `list_generation_models` lists it.
    pub fn to_json(&self) -> Value {
        let l = &self.limits;
        let mut limits = Map::new();
        for (key, values) in
            [("sizes", l.sizes), ("qualities", l.qualities), ("voices", l.voices), ("formats", l.formats)]
        {
            if !values.is_empty() {
                limits.insert(key.into(), json!(values));
            }
        }
        limits.insert("prompt_characters".into(), json!(l.prompt_characters));
        if let Some(r) = l.references {
            limits.insert("references".into(), json!({ "most": r.most, "bytes": r.bytes }));
        }
        let mut entry = json!({
            "model": self.model,
            "kind": self.kind.as_str(),
            "media_types": self.media_types,
            "limits": limits,
        });
        if let Some(r) = self.retired {
            entry["retired"] = json!({ "on": r.on, "replacement": r.replacement });
        }
        entry
    }
}

/// The result of `list_generation_models`: the gateways a function writes before its model, and
/// the models of `kind` (or all), sorted by model.
pub fn list(gateways: &[String], kind: Option<Kind>) -> Value {
    let mut models: Vec<&Model> = CATALOGUE.iter().filter(|m| kind.is_none_or(|k| m.kind == k)).collect();
    models.sort_by_key(|m| m.model);
    json!({
        "object": "list",
        "gateways": gateways,
        "data": models.iter().map(|m| m.to_json()).collect::<Vec<_>>(),
    })
}

/// `a`, `a or b`, `a, b, or c`.
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        [init @ .., last] => format!("{}, or {last}", init.join(", ")),
    }
}

/// The plain-language summary of `list(gateways, kind)`: the models a function can name, by what
/// each makes, then each retired model with its replacement.
pub fn summary(gateways: &[String], kind: Option<Kind>) -> String {
    let listed: Vec<&Model> = CATALOGUE.iter().filter(|m| kind.is_none_or(|k| m.kind == k)).collect();
    // A model is named by the last part of its id, and by its provider too where two share it.
    let name = |id: &str| -> String {
        let Some(m) = find(id) else { return id.to_string() };
        let shared = CATALOGUE.iter().filter(|o| o.short() == m.short()).count() > 1;
        if shared {
            format!("{} ({})", m.short(), m.model.split('/').next().unwrap_or_default())
        } else {
            m.short().to_string()
        }
    };
    let live: Vec<&Model> = listed.iter().copied().filter(|m| m.retired.is_none()).collect();
    let mut groups = Vec::new();
    for k in Kind::ALL {
        let mut names: Vec<&str> = live.iter().filter(|m| m.kind == k).map(|m| m.model).collect();
        names.sort_unstable();
        if !names.is_empty() {
            let names: Vec<String> = names.into_iter().map(name).collect();
            groups.push(format!("{} with {}", k.made(), join_or(&names)));
        }
    }
    let makes = match groups.as_slice() {
        [init @ .., last] if init.len() > 1 => format!("{}, and {last}", init.join(", ")),
        _ => join_and(&groups),
    };
    let what = match kind {
        Some(k) => format!(" that makes {}", k.made()),
        None => String::new(),
    };
    let mut text = match (gateways.is_empty(), live.is_empty()) {
        (false, true) => format!("A generation function can name no model{what} through {}.", join_and(gateways)),
        (false, false) => format!(
            "A generation function can name {} through {}: it makes {makes}.",
            count(live.len(), "model"),
            join_and(gateways)
        ),
        (true, true) => format!("No generation function can run until whoever runs the server configures a gateway in MODEL_GATEWAYS, and the catalogue holds no model{what}."),
        (true, false) => format!(
            "No generation function can run until whoever runs the server configures a gateway in MODEL_GATEWAYS. Then a generation function can name {}: it makes {makes}.",
            count(live.len(), "model")
        ),
    };
    let mut retired: Vec<&Model> = listed.iter().copied().filter(|m| m.retired.is_some()).collect();
    retired.sort_by_key(|m| m.model);
    for m in retired {
        if let Some(r) = m.retired {
            text.push_str(&format!(" {} was retired on {}; {} replaces it.", name(m.model), r.on, name(r.replacement)));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gateways(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_spec_sentence_is_said_word_for_word() {
        assert_eq!(
            summary(&gateways(&["gateway"]), None),
            "A generation function can name 5 models through gateway: it makes an image with gpt-image-2 or gpt-image-2.6-flare and audio with gpt-4o-mini-tts, tts-1, or tts-1-hd. dall-e-3 was retired on 2026-05-12; gpt-image-2 replaces it."
        );
    }

    #[test]
    fn with_no_gateway_it_says_first_that_nothing_runs() {
        let text = summary(&[], Some(Kind::Audio));
        assert_eq!(
            text,
            "No generation function can run until whoever runs the server configures a gateway in MODEL_GATEWAYS. Then a generation function can name 3 models: it makes audio with gpt-4o-mini-tts, tts-1, or tts-1-hd."
        );
        assert_eq!(
            summary(&gateways(&["edge", "gateway"]), Some(Kind::Video)),
            "A generation function can name no model that makes a video through edge and gateway."
        );
    }

    #[test]
    fn the_list_has_the_spec_shape_sorted_by_model() {
        let all = list(&gateways(&["gateway"]), None);
        assert_eq!(all["object"], "list");
        assert_eq!(all["gateways"], json!(["gateway"]));
        let ids: Vec<&str> = all["data"].as_array().unwrap().iter().map(|m| m["model"].as_str().unwrap()).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        assert_eq!(ids, sorted);
        let spec_entry = json!({
            "model": "openai/gpt-image-2",
            "kind": "image",
            "media_types": ["image/png", "image/jpeg", "image/webp"],
            "limits": {
                "sizes": ["auto", "1024x1024", "1536x1024", "1024x1536"],
                "qualities": ["auto", "low", "medium", "high"],
                "prompt_characters": 32000,
                "references": { "most": 16, "bytes": 52428800 }
            }
        });
        assert!(all["data"].as_array().unwrap().contains(&spec_entry));
        let retired = &all["data"][0];
        assert_eq!(retired["retired"], json!({ "on": "2026-05-12", "replacement": "openai/gpt-image-2" }));
        let audio = list(&[], Some(Kind::Audio));
        assert_eq!(audio["data"].as_array().unwrap().len(), 3);
        assert_eq!(audio["data"][0]["media_types"], json!([]));
        assert_eq!(audio["data"][0]["limits"]["formats"], json!(["mp3", "opus", "aac", "flac", "wav"]));
        assert!(audio["data"][0]["limits"].get("references").is_none());
    }

    #[test]
    fn every_replacement_is_a_live_model_of_the_same_kind() {
        for m in CATALOGUE.iter() {
            if let Some(r) = m.retired {
                let by = find(r.replacement).expect("the replacement is in the catalogue");
                assert!(by.retired.is_none() && by.kind == m.kind, "{}", m.model);
                assert!(chrono::NaiveDate::parse_from_str(r.on, "%Y-%m-%d").is_ok(), "{}", r.on);
            }
        }
    }
}
