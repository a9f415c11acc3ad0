use serde_json::json;

use super::*;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

fn new(media_type: &str, bytes: &[u8]) -> NewAsset {
    NewAsset {
        media_type: media_type.into(),
        bytes: bytes.to_vec(),
        made_by: MadeBy::Generation { run_id: "run_1".into() },
    }
}

#[test]
fn a_record_names_its_bytes_by_size_and_digest() {
    let asset = Asset::new("acme", "pb_aaaaaaaaaaaaaaaa", &new("image/png", PNG), "2026-12-02T10:00:00.000Z", [1; 16])
        .expect("a png is kept");
    assert_eq!(asset.id, "ast_bbbbbbbbbbbbbbbb");
    assert!(is_asset_id(&asset.id) && !is_asset_id("pb_bbbbbbbbbbbbbbbb") && !is_asset_id("ast_short"));
    assert_eq!(asset.size, PNG.len() as u64);
    assert_eq!(asset.sha256, sha256_hex(PNG));
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(asset.key(), "acme/pb_aaaaaaaaaaaaaaaa/ast_bbbbbbbbbbbbbbbb");
    assert_eq!(
        asset.summary("https://rt.example/"),
        json!({
            "asset_id": "ast_bbbbbbbbbbbbbbbb",
            "media_type": "image/png",
            "size": PNG.len(),
            "sha256": sha256_hex(PNG),
            "url": "https://rt.example/v1/orgs/acme/playbooks/pb_aaaaaaaaaaaaaaaa/assets/ast_bbbbbbbbbbbbbbbb/content",
        })
    );
    let view = asset.view("");
    assert_eq!(view["made_by"], json!({ "kind": "generation", "run_id": "run_1" }));
    assert_eq!(view["url"], "/v1/orgs/acme/playbooks/pb_aaaaaaaaaaaaaaaa/assets/ast_bbbbbbbbbbbbbbbb/content");
    assert!(view.get("org").is_none(), "the org is the address's, not a field");
}

#[test]
fn each_media_type_is_known_by_its_first_bytes() {
    let good: &[(&str, &[u8])] = &[
        ("image/png", PNG),
        ("image/jpeg", &[0xFF, 0xD8, 0xFF, 0xE0]),
        ("image/gif", b"GIF89a\x01\0"),
        ("image/webp", b"RIFF\x10\0\0\0WEBPVP8 "),
        ("audio/wav", b"RIFF\x10\0\0\0WAVEfmt "),
        ("audio/mpeg", b"ID3\x04\0\0"),
        ("audio/mpeg", &[0xFF, 0xFB, 0x90, 0x64]),
        ("audio/ogg", b"OggS\0\x02"),
        ("audio/webm", &[0x1A, 0x45, 0xDF, 0xA3]),
        ("audio/flac", b"fLaC\0"),
        ("audio/aac", &[0xFF, 0xF1, 0x50, 0x80]),
    ];
    for (media_type, bytes) in good {
        assert_eq!(check(media_type, bytes), Ok(()), "{media_type}");
    }
    let lies: &[(&str, &[u8])] = &[
        ("image/png", b"<html><body>Bad Gateway"),
        ("image/jpeg", PNG),
        ("image/webp", b"RIFF\x10\0\0\0WAVEfmt "),
        ("audio/mpeg", &[0xFF, 0xEB, 0x90]), // the reserved version
        ("audio/mpeg", b"{\"error\":1}"),
    ];
    for (media_type, bytes) in lies {
        let refused = check(media_type, bytes).expect_err(media_type);
        assert_eq!(refused.errors[0].pointer, "/bytes", "{media_type}");
        assert!(refused.detail.contains("do not begin as"), "{}", refused.detail);
    }
    let html = check("image/png", b"<html><body>").expect_err("html");
    assert!(html.detail.contains("\"<html><b\""), "the words show what came: {}", html.detail);
}

#[test]
fn other_media_types_no_bytes_and_too_many_are_refused_in_words() {
    let svg = check("image/svg+xml", b"<svg/>").expect_err("svg");
    assert_eq!(svg.errors[0].pointer, "/media_type");
    assert!(svg.detail.contains("image/png, image/jpeg"), "{}", svg.detail);
    assert_eq!(check("image/png", b"").expect_err("empty").errors[0].pointer, "/bytes");
    let mut huge = PNG.to_vec();
    huge.resize(MAX_BYTES + 1, 0);
    let refused = check("image/png", &huge).expect_err("huge");
    assert!(refused.detail.contains("at most 33554432 bytes"), "{}", refused.detail);
}

#[test]
fn seeded_randomness_mints_the_same_id_again() {
    assert_eq!(asset_id(seeded("run_1/call_1/0")), asset_id(seeded("run_1/call_1/0")));
    assert_ne!(asset_id(seeded("run_1/call_1/0")), asset_id(seeded("run_1/call_1/1")));
    assert!(is_asset_id(&asset_id(seeded("x"))));
}

#[test]
fn who_made_an_asset_reads_back() {
    let tool = MadeBy::Tool { run_id: "run_2".into(), tool: "files/read_image".into() };
    let text = serde_json::to_value(&tool).expect("encodes");
    assert_eq!(text, json!({ "kind": "tool", "run_id": "run_2", "tool": "files/read_image" }));
    assert_eq!(serde_json::from_value::<MadeBy>(text).expect("decodes"), tool);
    assert_eq!(tool.run_id(), "run_2");
}
