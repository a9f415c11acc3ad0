//! The generation wire against what a gateway is sent and every answer it may give.

use base64::Engine;
use serde_json::{json, Value};

use super::*;
use crate::core::generation::catalog::find;
use crate::core::model::settings::{Api, Secret};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR rest of a picture";
const MP3: &[u8] = &[0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0];

fn gateway() -> Provider {
    Provider {
        prefix: "gateway".into(),
        api: Api::Openai,
        base_url: "http://127.0.0.1:9/v1/".into(),
        key: Some(Secret("gw-key".into())),
        declared: Vec::new(),
        timeout_seconds: 30,
        gateway: true,
    }
}

fn model(id: &str) -> &'static Model {
    find(id).unwrap()
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn image_params() -> Vec<(&'static str, String)> {
    vec![("size", "1024x1536".into()), ("quality", "high".into())]
}

#[test]
fn an_image_is_asked_of_images_generations_as_json() {
    let params = image_params();
    let ask = Ask { model: model("openai/gpt-image-2"), prompt: "A poster", parameters: &params, references: &[] };
    let r = request(&gateway(), &ask);
    assert_eq!(r.url, "http://127.0.0.1:9/v1/images/generations");
    assert!(r.headers.contains(&("authorization", "Bearer gw-key".into())));
    assert!(r.headers.contains(&("content-type", "application/json".into())));
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        body,
        json!({ "model": "openai/gpt-image-2", "prompt": "A poster", "n": 1, "output_format": "png", "size": "1024x1536", "quality": "high" })
    );
}

#[test]
fn references_go_to_images_edits_as_files_of_a_multipart_form() {
    let params = image_params();
    let logo = Given { media_type: "image/png".into(), bytes: PNG.to_vec() };
    let refs = [logo.clone(), Given { media_type: "image/webp".into(), bytes: b"RIFF\0\0\0\0WEBPVP8 ".to_vec() }];
    let ask = Ask {
        model: model("openai/gpt-image-2"),
        prompt: "Put the logo on it",
        parameters: &params,
        references: &refs,
    };
    let r = request(&gateway(), &ask);
    assert_eq!(r.url, "http://127.0.0.1:9/v1/images/edits");
    let content_type = r.headers.iter().find(|(n, _)| *n == "content-type").map(|(_, v)| v.clone()).unwrap();
    let boundary = content_type.strip_prefix("multipart/form-data; boundary=").unwrap().to_string();
    assert_eq!(r.headers.iter().filter(|(n, _)| *n == "content-type").count(), 1);
    let text = String::from_utf8_lossy(&r.body).into_owned();
    assert!(text.starts_with(&format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nopenai/gpt-image-2\r\n"
    )));
    assert!(text.contains("name=\"prompt\"\r\n\r\nPut the logo on it\r\n"));
    assert!(text.contains("name=\"size\"\r\n\r\n1024x1536\r\n"));
    assert!(text.contains("name=\"image[]\"; filename=\"reference-1.png\"\r\nContent-Type: image/png\r\n\r\n"));
    assert!(text.contains("filename=\"reference-2.webp\"\r\nContent-Type: image/webp"));
    assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    // The file's bytes go as they are.
    assert!(r.body.windows(PNG.len()).any(|w| w == PNG));
    assert_eq!(text.matches(&format!("--{boundary}\r\n")).count(), 8);
}

#[test]
fn speech_is_asked_of_audio_speech_with_its_voice_and_format() {
    let params = vec![("voice", "nova".to_string()), ("format", "opus".to_string())];
    let ask =
        Ask { model: model("openai/tts-1-hd"), prompt: "Doors open at nine.", parameters: &params, references: &[] };
    let r = request(&gateway(), &ask);
    assert_eq!(r.url, "http://127.0.0.1:9/v1/audio/speech");
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        body,
        json!({ "model": "openai/tts-1-hd", "input": "Doors open at nine.", "voice": "nova", "response_format": "opus" })
    );
}

#[test]
fn an_image_answer_gives_its_bytes_once_they_are_an_image() {
    let params = image_params();
    let ask = Ask { model: model("openai/gpt-image-2"), prompt: "x", parameters: &params, references: &[] };
    let body = json!({ "created": 1, "data": [{ "b64_json": b64(PNG) }], "usage": {} }).to_string();
    let made = answer(&gateway(), &ask, 200, Some("application/json"), body.as_bytes()).unwrap();
    assert_eq!(made, vec![Made { media_type: "image/png", bytes: PNG.to_vec() }]);
    let jpeg = json!({ "data": [{ "b64_json": b64(&[0xFF, 0xD8, 0xFF, 0xE0, 1]) }] }).to_string();
    assert_eq!(answer(&gateway(), &ask, 200, None, jpeg.as_bytes()).unwrap()[0].media_type, "image/jpeg");

    let refused = |body: &str| answer(&gateway(), &ask, 200, None, body.as_bytes()).unwrap_err();
    for (body, words) in [
        ("<html>gateway</html>", "its body is not JSON"),
        ("{\"data\": []}", "it holds no data[0]"),
        ("{\"data\": [{\"url\": \"https://x/y.png\"}]}", "as a url rather than as b64_json"),
        ("{\"data\": [{\"b64_json\": \"%%%\"}]}", "is not base64"),
        (&json!({ "data": [{ "b64_json": b64(b"GIF89a not asked for") }] }).to_string(), "holds no PNG, JPEG or WEBP"),
    ] {
        let e = refused(body);
        assert_eq!(e.reason, ErrorCode::ProviderError);
        assert!(e.detail.starts_with("The gateway gateway answered images/generations in a shape"), "{}", e.detail);
        assert!(e.detail.contains(words), "{words}: {}", e.detail);
    }
}

#[test]
fn speech_answers_its_bytes_checked_against_the_format() {
    let params = vec![("voice", "nova".to_string()), ("format", "mp3".to_string())];
    let ask = Ask { model: model("openai/tts-1"), prompt: "Hello", parameters: &params, references: &[] };
    let made = answer(&gateway(), &ask, 200, Some("audio/mpeg"), MP3).unwrap();
    assert_eq!(made, vec![Made { media_type: "audio/mpeg", bytes: MP3.to_vec() }]);
    assert!(answer(&gateway(), &ask, 200, None, b"ID3\x04\0\0\0\0").is_ok());
    for (content_type, body, words) in [
        (Some("application/json"), &b"{\"ok\":true}"[..], "answered application/json rather than audio"),
        (Some("audio/mpeg"), &b""[..], "its body is empty"),
        (Some("audio/mpeg"), &b"OggS not mp3"[..], "is not audio/mpeg audio"),
    ] {
        let e = answer(&gateway(), &ask, 200, content_type, body).unwrap_err();
        assert!(e.detail.contains(words), "{words}: {}", e.detail);
    }
    let wav = vec![("voice", "nova".to_string()), ("format", "wav".to_string())];
    let ask = Ask { model: model("openai/tts-1"), prompt: "Hello", parameters: &wav, references: &[] };
    assert_eq!(answer(&gateway(), &ask, 200, None, b"RIFF\0\0\0\0WAVEfmt ").unwrap()[0].media_type, "audio/wav");
}

#[test]
fn a_refusal_is_quoted_and_too_large_an_asset_is_refused_whole() {
    let params = image_params();
    let ask = Ask { model: model("openai/gpt-image-2"), prompt: "x", parameters: &params, references: &[] };
    let body = json!({ "error": { "type": "image_generation_user_error", "message": "Your request was rejected by the safety system." } });
    let e = answer(&gateway(), &ask, 400, None, body.to_string().as_bytes()).unwrap_err();
    assert_eq!(e.reason, ErrorCode::ProviderError);
    assert!(e.detail.contains("answered 400 image_generation_user_error: Your request was rejected"), "{}", e.detail);
    let e = answer(&gateway(), &ask, 404, None, b"not found").unwrap_err();
    assert!(e.detail.contains("list_generation_models lists"), "{}", e.detail);

    let mut huge = PNG.to_vec();
    huge.resize(ASSET_MAX_BYTES + 1, 0);
    let body = json!({ "data": [{ "b64_json": b64(&huge) }] }).to_string();
    assert!(body.len() <= ANSWER_MAX_BYTES + 8);
    let e = answer(&gateway(), &ask, 200, None, body.as_bytes()).unwrap_err();
    assert!(e.detail.contains("an asset holds at most 20971520"), "{}", e.detail);
}
