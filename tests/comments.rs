//! Comments through their tools, over the runtime in memory: a person comments, an agent lists
//! what is open on an address or under it and resolves it, a person reopens it; a key never
//! comments; a retired playbook's comments are read, not resolved; the org keeps its own; and a
//! storage failure keeps nothing.

mod common;

use futures::executor::block_on;
use playbook_runtime::core::caller::{Caller, Principal, Scope};
use playbook_runtime::core::Problem;
use playbook_runtime::tools;
use serde_json::{json, Value};

fn call(m: &common::Memory, caller: &Caller, second: u32, name: &str, args: Value) -> Result<Value, Problem> {
    let ctx = common::ctx(caller, m, second, second as u8);
    let tool = tools::find(name).expect("a tool");
    block_on(tools::call(&ctx, tool, args)).map(|o| {
        assert!(o.summary.chars().count() <= 400, "{}", o.summary);
        let mut v = o.value;
        v["_summary"] = json!(o.summary);
        v
    })
}

fn ok(m: &common::Memory, caller: &Caller, second: u32, name: &str, args: Value) -> Value {
    call(m, caller, second, name, args).unwrap_or_else(|p| panic!("{name}: {}", p.words()))
}

fn ada() -> Caller {
    Caller::local(Some("ada".into()))
}

fn key(scopes: &[Scope]) -> Caller {
    Caller {
        id: "key_1".into(),
        principal: Principal::Key { name: "bot".into() },
        org: "local".into(),
        scopes: scopes.to_vec(),
        playbooks: None,
    }
}

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");

/// A playbook with the function add-vat at version 1.
fn world() -> (common::Memory, String) {
    let m = common::Memory::default();
    let pb = ok(&m, &ada(), 1, "create_playbook", json!({ "name": "Orders" }))["id"].as_str().unwrap().to_string();
    ok(
        &m,
        &ada(),
        2,
        "create_definition",
        json!({
            "playbook": pb, "type": "computation", "name": "add-vat", "source": ADD_VAT,
            "overview": "Adds VAT to a net amount and answers the VAT and the gross amount.",
            "diagram": "flowchart LR\n  A[net] --> B[gross]",
        }),
    );
    (m, pb)
}

fn ids(page: &Value) -> Vec<&str> {
    page["comments"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect()
}

#[test]
fn a_person_comments_an_agent_lists_and_resolves_and_a_person_reopens() {
    let (m, pb) = world();
    let step = ok(
        &m,
        &ada(),
        10,
        "make_comment",
        json!({ "playbook": pb, "address": "definitions/computation/add-vat/page/figures/gross", "body": "Round the **gross** to cents.", "anchor": { "x": 0.5 } }),
    );
    let id = step["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("cm_"));
    assert_eq!((step["status"].as_str(), step["version"].as_u64()), (Some("open"), Some(1)));
    assert_eq!(step["by"], json!({ "id": "local", "name": "ada" }));
    assert_eq!(step["anchor"], json!({ "x": 0.5 }));
    assert_eq!(
        step["call"],
        json!({ "tool": "get_definition", "arguments": { "playbook": pb, "type": "computation", "name": "add-vat" } })
    );
    assert!(step["studio"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/studio/local/playbooks/{pb}/definitions/computation/add-vat#comment-{id}")));
    let ledger =
        ok(&m, &ada(), 11, "make_comment", json!({ "playbook": pb, "address": "ledger", "body": "Too many runs." }));

    let all = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb }));
    assert_eq!(ids(&all), [ledger["id"].as_str().unwrap(), id.as_str()], "newest first");
    let under =
        ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb, "under": "definitions/computation/add-vat" }));
    assert_eq!(ids(&under), [id.as_str()]);
    let none = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb, "under": "definitions/computation/add" }));
    assert_eq!(ids(&none), Vec::<&str>::new(), "under is a prefix at a /");
    let on = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb, "address": "ledger" }));
    assert_eq!(ids(&on), [ledger["id"].as_str().unwrap()]);
    let first = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb, "limit": 1 }));
    let cursor = first["next_cursor"].as_str().unwrap();
    assert!(first["_summary"].as_str().unwrap().contains("next_cursor"));
    let second = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb, "limit": 1, "cursor": cursor }));
    assert_eq!((ids(&second), &second["next_cursor"]), (vec![id.as_str()], &Value::Null));

    let agent = key(&Scope::ALL);
    let resolved = ok(&m, &agent, 13, "resolve_comment", json!({ "playbook": pb, "id": id, "how": "acted" }));
    assert_eq!((resolved["status"].as_str(), resolved["how"].as_str()), (Some("resolved"), Some("acted")));
    assert_eq!(resolved["resolved_by"]["id"], "key_1");
    let again = ok(&m, &agent, 14, "resolve_comment", json!({ "playbook": pb, "id": id, "how": "dismissed" }));
    assert_eq!((again["how"].as_str(), again["resolved_at"].clone()), (Some("acted"), resolved["resolved_at"].clone()));
    assert!(again["_summary"].as_str().unwrap().contains("nothing changed"));
    let open = ok(&m, &agent, 15, "list_comments", json!({ "playbook": pb }));
    assert_eq!(ids(&open).len(), 1, "a resolved comment is listed only with open: false");
    let everything = ok(&m, &agent, 15, "list_comments", json!({ "playbook": pb, "open": false }));
    assert_eq!(ids(&everything).len(), 2);

    let refused = call(&m, &agent, 16, "reopen_comment", json!({ "playbook": pb, "id": id })).unwrap_err();
    assert_eq!(refused.status(), 403, "a key reopens nothing");
    let reopened = ok(&m, &ada(), 16, "reopen_comment", json!({ "playbook": pb, "id": id }));
    assert_eq!((reopened["status"].as_str(), reopened["how"].clone()), (Some("open"), Value::Null));
    assert_eq!(reopened["reopened_by"]["name"], "ada");
    assert_eq!(reopened["reopened_at"], "2026-12-02T10:00:16.000Z");
}

#[test]
fn a_key_never_comments_and_a_bad_address_is_refused_at_address() {
    let (m, pb) = world();
    let refused =
        call(&m, &key(&Scope::ALL), 10, "make_comment", json!({ "playbook": pb, "address": "ledger", "body": "Hi" }))
            .unwrap_err();
    assert_eq!(refused.status(), 403);
    assert!(refused.detail.contains("a comment is what a person says"), "{}", refused.detail);
    let bad = call(&m, &ada(), 10, "make_comment", json!({ "playbook": pb, "address": "steps/x", "body": "Hi" }))
        .unwrap_err();
    assert_eq!(bad.errors[0].pointer, "/address");
    assert!(bad.errors[0].detail.contains("definitions/{type}/{name}"));
    let missing = call(
        &m,
        &ada(),
        10,
        "make_comment",
        json!({ "playbook": pb, "address": "definitions/workflow/nothing", "body": "Hi" }),
    )
    .unwrap_err();
    assert_eq!(missing.status(), 404, "a definition's comment names one that is there");
}

#[test]
fn a_retired_playbooks_comments_are_read_but_not_resolved() {
    let (m, pb) = world();
    let c = ok(&m, &ada(), 10, "make_comment", json!({ "playbook": pb, "address": "playbook", "body": "Rename it." }));
    ok(&m, &ada(), 11, "retire_playbook", json!({ "playbook": pb }));
    let listed = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb }));
    assert_eq!(ids(&listed), [c["id"].as_str().unwrap()]);
    let refused =
        call(&m, &ada(), 13, "resolve_comment", json!({ "playbook": pb, "id": c["id"], "how": "acted" })).unwrap_err();
    assert_eq!(refused.status(), 409);
    assert!(refused.detail.contains("can be read but not resolved"), "{}", refused.detail);
    let made = call(&m, &ada(), 14, "make_comment", json!({ "playbook": pb, "address": "ledger", "body": "More." }));
    assert_eq!(made.unwrap_err().status(), 409);
}

#[test]
fn the_org_keeps_its_own_comments_apart() {
    let (m, pb) = world();
    let member = ok(&m, &ada(), 10, "make_comment", json!({ "address": "members/bob", "body": "Make Bob an editor." }));
    assert!(member.get("playbook").is_none());
    assert_eq!((member["report"].clone(), member.get("call")), (json!(true), None));
    assert!(member["studio"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/studio/local/comments#comment-{}", member["id"].as_str().unwrap())));
    let conn = ok(&m, &ada(), 11, "make_comment", json!({ "address": "connections/conn_1", "body": "It broke." }));
    assert_eq!(conn["call"], json!({ "tool": "list_connections", "arguments": {} }));
    let org = ok(&m, &ada(), 12, "list_comments", json!({}));
    assert_eq!(ids(&org).len(), 2);
    assert_eq!(ids(&ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb }))).len(), 0);
    let wrong = call(&m, &ada(), 12, "make_comment", json!({ "address": "ledger", "body": "x" })).unwrap_err();
    assert!(wrong.errors[0].detail.contains("settings/{page}"), "{}", wrong.errors[0].detail);
    let not_here =
        call(&m, &ada(), 13, "resolve_comment", json!({ "playbook": pb, "id": member["id"], "how": "acted" }))
            .unwrap_err();
    assert_eq!((not_here.status(), not_here.errors[0].pointer.as_str()), (404, "/id"));
    let reader = key(&[Scope::PlaybookRead]);
    let p = call(&m, &reader, 14, "list_comments", json!({})).unwrap_err();
    assert_eq!((p.status(), p.scope.as_deref()), (403, Some("org:read")));
    let mut kept = key(&Scope::ALL);
    kept.playbooks = Some(vec![pb.clone()]);
    assert_eq!(call(&m, &kept, 14, "list_comments", json!({})).unwrap_err().status(), 403);
    assert!(call(&m, &kept, 14, "list_comments", json!({ "playbook": pb })).is_ok());
}

#[test]
fn a_storage_failure_keeps_nothing_and_the_retry_does_it_once() {
    let (m, pb) = world();
    let c = ok(
        &m,
        &ada(),
        10,
        "make_comment",
        json!({ "playbook": pb, "address": "runs/order-1/result", "body": "Wrong." }),
    );
    m.shelf("local", &pb).comments.faults.fail_on("put");
    let failed = call(&m, &ada(), 11, "resolve_comment", json!({ "playbook": pb, "id": c["id"], "how": "acted" }));
    assert_eq!(failed.unwrap_err().status(), 503);
    let still = ok(&m, &ada(), 12, "list_comments", json!({ "playbook": pb }));
    assert_eq!(still["comments"][0]["status"], "open", "nothing was half done");
    let done = ok(&m, &ada(), 13, "resolve_comment", json!({ "playbook": pb, "id": c["id"], "how": "acted" }));
    assert_eq!(done["status"], "resolved");

    m.org_comments_of("local").faults.fail_on("put");
    let lost = call(&m, &ada(), 14, "make_comment", json!({ "address": "org", "body": "Hello." }));
    assert_eq!(lost.unwrap_err().status(), 503);
    assert_eq!(ids(&ok(&m, &ada(), 15, "list_comments", json!({}))).len(), 0, "no comment was kept");
}
