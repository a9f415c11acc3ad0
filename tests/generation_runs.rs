//! A generation run's whole life on the host, through the Runner the Run object uses, over the
//! runtime in memory: an image and speech made and kept as assets, a reference read back from the
//! bucket, and each way a gateway or storage fails, with nothing half-kept.

mod common;

use base64::Engine;
use common::Memory;
use futures::executor::block_on;
use playbook_runtime::core::actor::Actor;
use playbook_runtime::core::definition::{Kind, Ref};
use playbook_runtime::core::run::record::Record;
use playbook_runtime::core::run::{Run, RunStatus};
use playbook_runtime::core::ErrorCode;
use playbook_runtime::ops::outbound::{Fetched, Unanswered};
use playbook_runtime::ops::run_start::{self, Asked as StartAsked};
use playbook_runtime::ops::Backend;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const ORG: &str = "local";

const POSTER: &str = "---
description: Draws a poster from a title, with a logo where one is given
model: gateway/openai/gpt-image-2
input:
  schema:
    type: object
    properties:
      title: { type: string, maxLength: 200 }
      logo: { type: string }
    required: [title]
parameters: { size: 1024x1536 }
references:
  logo: { media_types: [image/png] }
---
A poster for {{ input.title }}.
";

const SPEECH: &str = "---
description: Reads a line aloud
model: gateway/openai/tts-1
input:
  schema: { type: object, properties: { text: { type: string, maxLength: 400 } }, required: [text] }
parameters: { voice: nova }
---
{{ input.text }}
";

/// A PNG's signature and a header; the asset check reads only the first bytes.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0";
const MP3: &[u8] = &[0xFF, 0xFB, 0x90, 0x64, 0, 0, 0, 0, 0, 0];

fn settings() -> playbook_runtime::core::model::ModelSettings {
    playbook_runtime::core::model::ModelSettings::read(|name| match name {
        "MODEL_GATEWAYS" => Some(r#"{"gateway": {"base_url": "http://127.0.0.1:9/v1", "timeout_seconds": 30}}"#.into()),
        _ => None,
    })
}

struct World {
    m: Memory,
    pb: String,
}

impl World {
    fn new() -> World {
        let m = Memory::default();
        *m.models.borrow_mut() = settings();
        let created = common::tool(&m, 1, "create_playbook", json!({ "name": "Campaigns" }));
        let pb = created["structuredContent"]["id"].as_str().unwrap().to_string();
        let world = World { m, pb };
        world.define("poster", POSTER);
        world.define("speak", SPEECH);
        world
    }

    fn define(&self, name: &str, source: &str) {
        let args = json!({
            "playbook": self.pb, "type": "generation", "name": name, "source": source,
            "overview": format!("The {name} function of the generation tests does what its description says."),
            "diagram": "flowchart LR\n  A[input] --> B[asset]",
        });
        let saved = common::tool(&self.m, 2, "create_definition", args);
        assert_eq!(saved["isError"], false, "{saved}");
    }

    fn start(&self, name: &str, run_id: &str, input: Value) -> Result<Run, playbook_runtime::core::Problem> {
        let asked = StartAsked {
            org: ORG.into(),
            playbook: self.pb.clone(),
            definition: Ref { kind: Kind::Generation, name: name.into() },
            input,
            run_id: run_id.into(),
            now: playbook_runtime::core::text::stamp(self.m.now()),
            within: None,
            by: Actor::of(&playbook_runtime::core::Caller::local(None)),
            again: None,
            stand_ins: None,
        };
        let (models, tools) = (settings(), self.m.tool_servers());
        block_on(run_start::start(
            &self.m,
            &run_start::Outside { models: &models, tools: &tools, connections: None, read: None, now: 0 },
            asked,
        ))
        .map(|s| s.run)
    }

    fn answers(&self, answer: Result<Fetched, Unanswered>) {
        self.m.generated.borrow_mut().push_back(answer);
    }

    fn kept_records(&self) -> usize {
        self.m.bucket.objects.borrow().len()
    }
}

fn image_answer(bytes: &[u8]) -> Result<Fetched, Unanswered> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    let body = json!({ "created": 1, "data": [{ "b64_json": b64 }] }).to_string().into_bytes();
    Ok(Fetched { status: 200, content_type: Some("application/json".into()), body })
}

fn failed(run: &Run) -> (ErrorCode, String) {
    match &run.status {
        RunStatus::Failed { error, .. } => (error.reason, error.detail.clone()),
        other => panic!("not failed: {other:?}"),
    }
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn an_image_is_made_kept_and_answered_by_its_asset() {
    let world = World::new();
    world.answers(image_answer(PNG));
    let run = world.start("poster", "img-1", json!({ "title": "Spring" })).unwrap();
    let RunStatus::Succeeded { output, .. } = &run.status else { panic!("{run:?}") };
    let asset = &output["assets"][0];
    assert_eq!((asset["media_type"].as_str(), asset["size"].as_u64()), (Some("image/png"), Some(PNG.len() as u64)));
    assert_eq!(asset["sha256"], sha256(PNG));
    let id = asset["asset_id"].as_str().unwrap();
    let kept = block_on(world.m.get_asset(ORG, &world.pb, id)).unwrap();
    assert_eq!(kept.made_by.run_id(), "img-1");

    let sent = world.m.generations.borrow()[0].clone();
    assert_eq!(sent.url, "http://127.0.0.1:9/v1/images/generations");
    let body: Value = serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(
        (body["model"].as_str(), body["prompt"].as_str()),
        (Some("openai/gpt-image-2"), Some("A poster for Spring."))
    );
    assert_eq!(body["size"], "1024x1536");
    let Some(Record::Generation(record)) = &run.record else { panic!("{run:?}") };
    assert_eq!(record.model, "gateway/openai/gpt-image-2");
    assert_eq!(record.assets.len(), 1);
}

#[test]
fn a_reference_is_read_from_the_bucket_and_sent_as_a_file() {
    let world = World::new();
    world.answers(image_answer(PNG));
    let first = world.start("poster", "logo-1", json!({ "title": "Logo" })).unwrap();
    let RunStatus::Succeeded { output, .. } = &first.status else { panic!("{first:?}") };
    let logo = output["assets"][0]["asset_id"].as_str().unwrap().to_string();
    world.answers(image_answer(PNG));
    let run = world.start("poster", "with-logo", json!({ "title": "Spring", "logo": logo })).unwrap();
    assert!(matches!(run.status, RunStatus::Succeeded { .. }), "{run:?}");
    let sent = world.m.generations.borrow()[1].clone();
    assert_eq!(sent.url, "http://127.0.0.1:9/v1/images/edits");
    assert!(sent.body.windows(PNG.len()).any(|w| w == PNG), "the logo's bytes go as a file");

    let run = world.start("poster", "no-logo", json!({ "title": "Spring", "logo": "ast_AAAAAAAAAAAAAAAA" })).unwrap();
    let (reason, detail) = failed(&run);
    assert_eq!(reason, ErrorCode::InputSchema);
    assert!(
        detail.contains("The input's logo names the asset ast_AAAAAAAAAAAAAAAA, which could not be read"),
        "{detail}"
    );
    assert_eq!(world.m.generations.borrow().len(), 2, "no gateway was asked");
}

#[test]
fn speech_is_kept_as_the_audio_asked_for() {
    let world = World::new();
    world.answers(Ok(Fetched { status: 200, content_type: Some("audio/mpeg".into()), body: MP3.to_vec() }));
    let run = world.start("speak", "say-1", json!({ "text": "Doors open at nine." })).unwrap();
    let RunStatus::Succeeded { output, .. } = &run.status else { panic!("{run:?}") };
    assert_eq!(output["assets"][0]["media_type"], "audio/mpeg");
    let sent = world.m.generations.borrow()[0].clone();
    assert_eq!(sent.url, "http://127.0.0.1:9/v1/audio/speech");
    let body: Value = serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(
        body,
        json!({ "model": "openai/tts-1", "input": "Doors open at nine.", "voice": "nova", "response_format": "mp3" })
    );
}

#[test]
fn a_gateway_that_fails_fails_the_run_with_its_reason_and_keeps_nothing() {
    let world = World::new();
    let garbage =
        Ok(Fetched { status: 200, content_type: Some("text/html".into()), body: b"<html>oops</html>".to_vec() });
    let huge = Err(Unanswered::TooLarge(29_425_664));
    let refused = Ok(Fetched {
        status: 429,
        content_type: Some("application/json".into()),
        body: br#"{"error":{"type":"rate_limit","message":"Slow down"}}"#.to_vec(),
    });
    let cases = [
        (garbage, ErrorCode::ProviderError, "in a shape this runtime cannot read: its body is not JSON"),
        (huge, ErrorCode::ProviderError, "answered more than 29425664 bytes"),
        (refused, ErrorCode::ProviderError, "answered 429 rate_limit: Slow down"),
        (Err(Unanswered::Timeout), ErrorCode::ProviderTimeout, "gave no answer within 30 seconds"),
        (Err(Unanswered::Unreachable("refused".into())), ErrorCode::ProviderUnreachable, "could not be reached"),
        (image_answer(b"GIF89a"), ErrorCode::ProviderError, "holds no PNG, JPEG or WEBP image"),
    ];
    for (i, (answer, reason, words)) in cases.into_iter().enumerate() {
        world.answers(answer);
        let run = world.start("poster", &format!("bad-{i}"), json!({ "title": "Spring" })).unwrap();
        let (got, detail) = failed(&run);
        assert_eq!(got, reason, "{detail}");
        assert!(detail.contains(words), "{words}: {detail}");
    }
    assert_eq!(world.kept_records(), 0, "no bytes were kept for a run that failed");
}

#[test]
fn a_bucket_that_does_not_answer_fails_the_run_and_names_no_asset() {
    let world = World::new();
    world.m.bucket.faults.fail_on("put");
    world.answers(image_answer(PNG));
    let run = world.start("poster", "down-1", json!({ "title": "Spring" })).unwrap();
    let (reason, detail) = failed(&run);
    assert_eq!(reason, ErrorCode::Unavailable, "{detail}");
    assert!(detail.starts_with("The model made an image, which was not kept"), "{detail}");
    let Some(Record::Generation(record)) = &run.record else { panic!("{run:?}") };
    assert!(record.assets.is_empty());
    assert_eq!(world.kept_records(), 0);
}

#[test]
fn a_start_is_refused_where_the_gateway_is_not_set_up() {
    let world = World::new();
    world.define("elsewhere", &POSTER.replace("gateway/openai", "edge/openai"));
    let p = world.start("elsewhere", "edge-1", json!({ "title": "Spring" })).unwrap_err();
    assert_eq!(p.kind, Some(ErrorCode::ModelNotConfigured));
    assert!(p.detail.contains("names the gateway edge, which MODEL_GATEWAYS does not set up"), "{}", p.detail);
}

#[test]
fn a_retired_model_is_refused_at_save_naming_its_replacement() {
    let world = World::new();
    let args = json!({
        "playbook": world.pb, "type": "generation", "name": "old", "source": POSTER.replace("openai/gpt-image-2", "openai/dall-e-3"),
        "overview": "The old function of the generation tests names a retired model.",
        "diagram": "flowchart LR\n  A[input] --> B[asset]",
    });
    let saved = common::tool(&world.m, 3, "create_definition", args);
    assert_eq!(saved["isError"], true, "{saved}");
    let errors = saved.to_string();
    assert!(
        errors.contains("/model") && errors.contains("retired on 2026-05-12; name openai/gpt-image-2 instead"),
        "{errors}"
    );
}

/// One request to `/directory`, as the local developer: its JSON-RPC result.
fn directory(world: &World, method: &str, params: Value) -> Value {
    use playbook_runtime::mcp::endpoint::Endpoint;
    use playbook_runtime::mcp::server::answer;
    use playbook_runtime::mcp::transport::Era;
    let caller = playbook_runtime::core::Caller::local(Some("ada".into()));
    let mut ctx = common::ctx(&caller, &world.m, 9, 9);
    ctx.directory = true;
    let era = Era::Legacy { version: "2025-11-25".into() };
    let reply = block_on(answer(&ctx, &Endpoint::Directory, &era, &json!(1), method, &Some(params)));
    reply["result"].clone()
}

fn call(world: &World, name: &str, arguments: Value) -> Value {
    directory(world, "tools/call", json!({ "name": name, "arguments": arguments }))
}

#[test]
fn the_directory_hides_every_piece_of_a_generation_function() {
    let world = World::new();
    world.answers(image_answer(PNG));
    let run = world.start("poster", "img-dir", json!({ "title": "Spring" })).unwrap();
    assert!(matches!(run.status, RunStatus::Succeeded { .. }));

    let tools = directory(&world, "tools/list", json!({}));
    let create = tools["tools"].as_array().unwrap().iter().find(|t| t["name"] == "create_definition").unwrap();
    let kinds = create["inputSchema"]["properties"]["type"]["enum"].to_string();
    assert!(!kinds.contains("generation") && kinds.contains("computation"), "{kinds}");
    assert!(!tools.to_string().contains("generation-function"));
    assert!(!tools.to_string().contains("list_generation_models"));

    let got = call(&world, "get_definition", json!({ "playbook": world.pb, "type": "generation", "name": "poster" }));
    assert_eq!(got["isError"], true);
    assert!(got.to_string().contains("not_found"), "{got}");
    let got = call(&world, "get_run", json!({ "playbook": world.pb, "run_id": "img-dir" }));
    assert!(got["isError"] == true && got.to_string().contains("not_found"), "{got}");
    let runs = call(&world, "list_runs", json!({ "playbook": world.pb }));
    assert!(!runs.to_string().contains("img-dir"), "{runs}");
    let events = call(&world, "list_playbook_events", json!({ "playbook": world.pb }));
    assert_eq!(events["isError"], false, "{events}");
    assert!(!events.to_string().contains("img-dir"), "{events}");
    let all = common::tool(&world.m, 11, "list_playbook_events", json!({ "playbook": world.pb, "run_id": "img-dir" }));
    let event_id = all["structuredContent"]["events"][0]["event_id"].as_str().unwrap().to_string();
    let got = call(&world, "get_event", json!({ "playbook": world.pb, "event_id": event_id }));
    assert!(got["isError"] == true && got.to_string().contains("not_found"), "{got}");
    let guide = call(&world, "get_guide", json!({ "guide": "generation-function" }));
    assert!(guide["isError"] == true && guide.to_string().contains("not_found"), "{guide}");
    let terminology = call(&world, "get_guide", json!({ "guide": "terminology" }));
    assert!(!terminology["structuredContent"]["text"].as_str().unwrap().to_lowercase().contains("generation"));
    let resources = directory(&world, "resources/list", json!({}));
    assert!(!resources.to_string().contains("guide://generation-function"));

    // A workflow whose step runs a generation function is refused there too, given or saved.
    let workflow = "---\ndescription: Draws a poster\ninput:\n  schema: { type: object, properties: { title: { type: string } }, required: [title] }\nsteps:\n  - id: draw\n    function: generation/poster\n    input:\n      title: input.title\noutput:\n  poster: steps.draw.output\n---\n";
    let args = json!({ "playbook": world.pb, "type": "workflow", "name": "draw", "source": workflow, "overview": "Draws a poster for a campaign through its generation function." });
    let got = call(&world, "create_definition", args.clone());
    assert!(got["isError"] == true && got.to_string().contains("/source"), "{got}");
    let saved = common::tool(&world.m, 12, "create_definition", args);
    assert_eq!(saved["isError"], false, "{saved}");
    let got = call(
        &world,
        "run_definition",
        json!({ "playbook": world.pb, "type": "workflow", "name": "draw", "input": { "title": "x" } }),
    );
    assert!(got["isError"] == true && got.to_string().contains("not_found"), "{got}");

    // Through /mcp the same reads find it.
    let got = common::tool(&world.m, 10, "get_run", json!({ "playbook": world.pb, "run_id": "img-dir" }));
    assert_eq!(got["isError"], false, "{got}");
}
