//! The generation checker against documents an agent might write, right and wrong.

use super::check_source;
use crate::core::error::Problem;

const POSTER: &str = "---\ndescription: Draws a campaign poster from its title and the brand's logo\nmodel: gateway/openai/gpt-image-2\ninput:\n  schema:\n    type: object\n    properties:\n      title: { type: string, maxLength: 200 }\n      logo: { type: string }\n    required: [title, logo]\nparameters:\n  size: 1024x1536\n  quality: high\nreferences:\n  logo: { media_types: [image/png], bytes: 5242880 }\n---\nA portrait poster for the campaign {{ input.title }}, with the logo given in the corner.\n";

const SPEECH: &str = "---\ndescription: Reads a short announcement aloud\nmodel: gateway/openai/tts-1-hd\ninput:\n  schema:\n    type: object\n    properties:\n      text: { type: string, maxLength: 4000 }\n    required: [text]\nparameters:\n  voice: nova\n  format: opus\n---\n{{ input.text }}\n";

fn refused(source: &str) -> Problem {
    match check_source(source) {
        Ok(spec) => panic!("saved: {spec:?}"),
        Err(p) => p,
    }
}

/// Each refusal as `pointer: detail`.
fn errors(source: &str) -> Vec<String> {
    refused(source).errors.iter().map(|e| format!("{}: {}", e.pointer, e.detail)).collect()
}

fn has(found: &[String], pointer: &str, words: &str) -> bool {
    found.iter().any(|e| e.starts_with(&format!("{pointer}: ")) && e.contains(words))
}

#[test]
fn an_image_and_a_speech_function_save_with_their_defaults() {
    let poster = check_source(POSTER).unwrap();
    assert_eq!((poster.gateway(), poster.model().model), ("gateway", "openai/gpt-image-2"));
    assert_eq!((poster.parameter("size"), poster.parameter("quality")), (Some("1024x1536"), Some("high")));
    assert_eq!(poster.references().len(), 1);
    assert_eq!(poster.references()[0].media_types, ["image/png"]);
    assert_eq!((poster.references()[0].most, poster.references()[0].bytes), (1, 5_242_880));
    assert_eq!(poster.media_type(), "image/png");
    assert!(poster.prompt().contains("{{ input.title }}"));
    let required = poster.output_schema()["properties"]["assets"]["items"]["required"].clone();
    assert_eq!(required, serde_json::json!(["asset_id", "media_type", "size", "sha256"]));

    let speech = check_source(SPEECH).unwrap();
    assert_eq!((speech.parameter("voice"), speech.parameter("format")), (Some("nova"), Some("opus")));
    assert_eq!(speech.media_type(), "audio/ogg");
    let plain = check_source(&SPEECH.replace("  format: opus\n", "")).unwrap();
    assert_eq!((plain.parameter("format"), plain.media_type()), (Some("mp3"), "audio/mpeg"));
    let auto = check_source(&POSTER.replace("parameters:\n  size: 1024x1536\n  quality: high\n", "")).unwrap();
    assert_eq!((auto.parameter("size"), auto.parameter("quality")), (Some("auto"), Some("auto")));
}

#[test]
fn the_model_is_a_gateway_then_a_live_model_of_the_catalogue() {
    let found = errors(&POSTER.replace("gateway/openai/gpt-image-2", "openai/gpt-image-2"));
    assert!(
        has(&found, "/model", "names no gateway: write the gateway before the model, as gateway/openai/gpt-image-2"),
        "{found:?}"
    );
    let found = errors(&POSTER.replace("gateway/openai/gpt-image-2", "gateway/openai/gpt-image-9"));
    assert!(has(&found, "/model", "names openai/gpt-image-9, which is not a generation model of this runtime; it may name openai/gpt-4o-mini-tts, openai/gpt-image-2, openai/gpt-image-2.6-flare, openai/tts-1, openai/tts-1-hd"), "{found:?}");
    let found = errors(&POSTER.replace("gateway/openai/gpt-image-2", "Gateway/x"));
    assert!(has(&found, "/model", "must name a model as gateway/provider/model"), "{found:?}");
    let found = errors(&POSTER.replace("gateway/openai/gpt-image-2", "gateway/openai/dall-e-3"));
    assert_eq!(
        found,
        ["/model: names openai/dall-e-3, which was retired on 2026-05-12; name openai/gpt-image-2 instead, which replaces it, as gateway/openai/gpt-image-2"]
    );
}

#[test]
fn each_parameter_is_refused_at_its_pointer_with_the_values_allowed() {
    let doc =
        POSTER.replace("size: 1024x1536", "size: 4096x4096").replace("quality: high", "quality: ultra\n  voice: nova");
    let found = errors(&doc);
    assert!(
        has(&found, "/parameters/size", "must be one of auto, 1024x1024, 1536x1024, 1024x1536 for openai/gpt-image-2"),
        "{found:?}"
    );
    assert!(has(&found, "/parameters/quality", "must be one of auto, low, medium, high"), "{found:?}");
    assert!(
        has(&found, "/parameters/voice", "is not a parameter openai/gpt-image-2 takes; it takes size, quality"),
        "{found:?}"
    );

    let found = errors(&SPEECH.replace("voice: nova", "voice: ballad").replace("format: opus", "format: ogg"));
    assert!(
        has(
            &found,
            "/parameters/voice",
            "must be one of alloy, ash, coral, echo, fable, nova, onyx, sage, shimmer for openai/tts-1-hd"
        ),
        "{found:?}"
    );
    assert!(has(&found, "/parameters/format", "must be one of mp3, opus, aac, flac, wav"), "{found:?}");
    assert!(
        check_source(&SPEECH.replace("tts-1-hd", "gpt-4o-mini-tts").replace("voice: nova", "voice: ballad")).is_ok()
    );
    let found = errors(&SPEECH.replace("  voice: nova\n", ""));
    assert!(has(&found, "/parameters/voice", "is required: openai/tts-1-hd speaks in one of alloy"), "{found:?}");
    let found = errors(&SPEECH.replace("  voice: nova\n", "  voice: 3\n"));
    assert!(has(&found, "/parameters/voice", "must be one of"), "{found:?}");
}

#[test]
fn references_are_input_fields_within_the_models_media_types_count_and_bytes() {
    let found = errors(
        &POSTER
            .replace("media_types: [image/png]", "media_types: [image/gif]")
            .replace("bytes: 5242880", "bytes: 60000000"),
    );
    assert!(
        has(
            &found,
            "/references/logo/media_types/0",
            "is not a media type openai/gpt-image-2 takes; it takes image/png, image/jpeg, image/webp"
        ),
        "{found:?}"
    );
    assert!(has(&found, "/references/logo/bytes", "must be a whole number from 1 to 52428800"), "{found:?}");

    let found = errors(&POSTER.replace("  logo: { media_types", "  badge: { media_types"));
    assert!(has(&found, "/references/badge", "names no field of the input schema"), "{found:?}");

    let list = POSTER
        .replace("logo: { type: string }", "logo: { type: array, items: { type: string }, maxItems: 20 }")
        .replace("bytes: 5242880 }", "most: 20 }");
    let found = errors(&list);
    assert!(has(&found, "/references/logo/most", "must be a whole number from 1 to 16"), "{found:?}");
    let found = errors(&list.replace(", most: 20", ""));
    assert!(has(&found, "/references/logo/most", "is required for a list of assets"), "{found:?}");
    let fine = check_source(&list.replace("most: 20", "most: 4")).unwrap();
    assert_eq!((fine.references()[0].list, fine.references()[0].most), (true, 4));

    let two = list
        .replace("most: 20", "most: 16")
        .replace("      logo:", "      photo: { type: string }\n      logo:")
        .replace("references:\n", "references:\n  photo: {}\n");
    let found = errors(&two);
    assert!(
        has(&found, "/references", "carry up to 17 assets together; openai/gpt-image-2 takes at most 16"),
        "{found:?}"
    );

    let found = errors(&SPEECH.replace("parameters:", "references:\n  text: {}\nparameters:"));
    assert!(has(&found, "/references", "openai/tts-1-hd takes no references"), "{found:?}");
    let found = errors(&POSTER.replace("logo: { type: string }", "logo: { type: integer }"));
    assert!(
        has(&found, "/references/logo", "which must be a string, one asset id, or an array of strings"),
        "{found:?}"
    );
}

#[test]
fn the_prompt_is_a_template_over_input_within_the_models_characters() {
    let found = errors(&POSTER.replace("{{ input.title }}", "{{ title }}"));
    assert!(has(&found, "/body", "the template uses title, which it is not given; it may use input"), "{found:?}");
    let p = refused(&POSTER.replace("{{ input.title }}", "{{ input.title }"));
    assert_eq!((p.errors[0].pointer.as_str(), p.errors[0].line), ("/body", Some(17)), "{p:?}");
    let long = SPEECH.replace("{{ input.text }}", &format!("{} {{{{ input.text }}}}", "word ".repeat(900)));
    let found = errors(&long);
    assert!(
        has(
            &found,
            "/body",
            "characters besides its expressions, more than the 4096 a prompt to openai/tts-1-hd may hold"
        ),
        "{found:?}"
    );
    // Text an {% if %} may leave out is counted when the prompt renders, not here.
    let branch =
        SPEECH.replace("{{ input.text }}", &format!("{{% if input.text %}}{}{{% endif %}}", "word ".repeat(900)));
    assert!(check_source(&branch).is_ok());
    let found = errors(&SPEECH.replace("{{ input.text }}\n", "\n"));
    assert!(has(&found, "/body", "has no prompt"), "{found:?}");
}

#[test]
fn output_is_not_written_and_unknown_keys_are_refused() {
    let doc = POSTER.replace("parameters:", "output:\n  schema: { type: object }\ncount: 2\nparameters:");
    let found = errors(&doc);
    assert!(has(&found, "/output", "is not written: a generation function answers the assets it made"), "{found:?}");
    assert!(has(&found, "/count", "is not a key of a generation function; its keys are description, page, model, input, parameters, references"), "{found:?}");
}
