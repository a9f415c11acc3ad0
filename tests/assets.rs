//! Assets through both doors on the host: `get_asset` over MCP and HTTP answers a kept asset's
//! record with the address of its bytes, fits the document, and refuses what the caller may not
//! read; `tools::asset_content`, which the bytes route runs, checks the caller as the tool does.

mod common;

use futures::executor::block_on;
use playbook_runtime::api::{asset_content_path, handle, openapi, HttpRequest};
use playbook_runtime::core::asset::{Asset, MadeBy, NewAsset};
use playbook_runtime::core::caller::{Principal, Scope};
use playbook_runtime::core::{Caller, Reason};
use playbook_runtime::ops::assets;
use serde_json::{json, Value};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01";

fn with_asset() -> (common::Memory, String, Asset) {
    let m = common::Memory::default();
    let made = common::tool(&m, 1, "create_playbook", json!({ "name": "Pictures" }));
    let playbook = made["structuredContent"]["id"].as_str().expect("a playbook").to_string();
    let new = NewAsset {
        media_type: "image/png".into(),
        bytes: PNG.to_vec(),
        made_by: MadeBy::Tool { run_id: "run_1".into(), tool: "everything/get-tiny-image".into() },
    };
    let asset = block_on(assets::keep(&m, "local", &playbook, new, m.now(), [9; 16])).expect("kept");
    (m, playbook, asset)
}

fn key(scopes: &[Scope], playbooks: Option<Vec<String>>, org: &str) -> Caller {
    Caller {
        id: "key_1".into(),
        principal: Principal::Key { name: "bot".into() },
        org: org.into(),
        scopes: scopes.to_vec(),
        playbooks,
    }
}

#[test]
fn get_asset_answers_the_record_and_the_address_of_its_bytes() {
    let (m, playbook, asset) = with_asset();
    let result = common::tool(&m, 2, "get_asset", json!({ "playbook": playbook, "asset_id": asset.id }));
    assert_eq!(result["isError"], false, "{result}");
    let value = &result["structuredContent"];
    assert_eq!(value["asset_id"], asset.id.as_str());
    assert_eq!((value["media_type"].as_str(), value["size"].as_u64()), (Some("image/png"), Some(PNG.len() as u64)));
    assert_eq!(value["made_by"], json!({ "kind": "tool", "run_id": "run_1", "tool": "everything/get-tiny-image" }));
    let url = value["url"].as_str().expect("a url");
    assert!(url.ends_with(&format!("/v1/orgs/local/playbooks/{playbook}/assets/{}/content", asset.id)), "{url}");
    let path = &url[url.find("/v1/").expect("a path")..];
    assert_eq!(asset_content_path(path), Some(("local".into(), playbook.clone(), asset.id.clone())));
    let said = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(said.contains("image/png") && said.contains("everything/get-tiny-image"), "{said}");

    let missing = common::tool(&m, 3, "get_asset", json!({ "playbook": playbook, "asset_id": "ast_aaaaaaaaaaaaaaaa" }));
    assert_eq!(missing["isError"], true, "{missing}");
}

#[test]
fn the_http_route_fits_the_document() {
    let (m, playbook, asset) = with_asset();
    let caller = Caller::local(None);
    let ctx = common::ctx(&caller, &m, 2, 2);
    let path = format!("/v1/orgs/local/playbooks/{playbook}/assets/{}", asset.id);
    let req = HttpRequest { method: "GET", path: &path, query: "", content_type: None, body: b"" };
    let reply = block_on(handle(&ctx, &req));
    assert_eq!(reply.status, 200, "{}", reply.body);
    let body: Value = serde_json::from_str(&reply.body).expect("json");
    let doc = openapi::document();
    let schema = json!({ "components": doc["components"], "$ref": "#/components/schemas/Asset" });
    let validator = playbook_runtime::core::schema::Schema::compile(&schema).expect("compiles");
    let errors: Vec<String> = validator.iter_errors(&body).map(|e| format!("{e} at {}", e.pointer)).collect();
    assert!(errors.is_empty(), "{errors:?}\n{body}");
    let content = &doc["paths"]["/v1/orgs/{org}/playbooks/{playbook}/assets/{asset_id}/content"]["get"];
    assert_eq!(content["x-scope"], "playbook:read");
    assert!(content["responses"]["200"]["content"]["audio/mpeg"].is_object());
}

#[test]
fn the_bytes_are_read_only_by_a_caller_who_may_read_the_playbook() {
    let (m, playbook, asset) = with_asset();
    let content = |caller: &Caller, org: &str, pb: &str| {
        let ctx = common::ctx(caller, &m, 2, 2);
        block_on(playbook_runtime::tools::asset_content(&ctx, org, pb, &asset.id)).map(|(_, bytes)| bytes)
    };
    let reader = key(&[Scope::PlaybookRead], None, "local");
    assert_eq!(content(&reader, "local", &playbook), Ok(PNG.to_vec()));
    assert_eq!(content(&Caller::local(None), "local", &playbook), Ok(PNG.to_vec()));

    let reason = |r: Result<Vec<u8>, playbook_runtime::core::Problem>| r.map_err(|p| p.reason);
    let elsewhere = key(&[Scope::PlaybookRead], None, "initech");
    assert_eq!(reason(content(&elsewhere, "local", &playbook)), Err(Reason::Forbidden), "another org");
    let kept = key(&[Scope::PlaybookRead], Some(vec!["pb_bbbbbbbbbbbbbbbb".into()]), "local");
    assert_eq!(reason(content(&kept, "local", &playbook)), Err(Reason::NotFound), "another playbook's key");
    let org_only = key(&[Scope::OrgRead], None, "local");
    assert_eq!(reason(content(&org_only, "local", &playbook)), Err(Reason::Forbidden), "no playbook:read");
    let other = common::tool(&m, 3, "create_playbook", json!({ "name": "Other" }));
    let other = other["structuredContent"]["id"].as_str().expect("a playbook");
    assert_eq!(reason(content(&reader, "local", other)), Err(Reason::NotFound), "not this playbook's asset");
}
