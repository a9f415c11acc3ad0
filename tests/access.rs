//! Keys and roles on the host, through the HTTP door and the runtime in memory: a key made,
//! listed, used as the caller it is, and revoked; and roles given and taken within their rules.

mod common;

use futures::executor::block_on;
use playbook_runtime::api::{handle, HttpRequest, Reply};
use playbook_runtime::core::access::key::VerifyKey;
use playbook_runtime::core::access::oauth::secret::digest;
use playbook_runtime::core::Caller;
use playbook_runtime::ops::access::verify_key;
use serde_json::{json, Value};

fn send(
    backend: &common::Memory,
    caller: &Caller,
    second: u32,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Reply {
    let ctx = common::ctx(caller, backend, second, second as u8);
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = HttpRequest { method, path, query: "", content_type: Some("application/json"), body: body.as_bytes() };
    block_on(handle(&ctx, &req))
}

fn body(reply: &Reply) -> Value {
    serde_json::from_str(&reply.body).unwrap()
}

/// The caller a key is at this second, as the Worker's door finds it.
fn caller_of(m: &common::Memory, secret: &str, second: u32) -> Option<Caller> {
    let now = format!("2026-12-02T10:00:{second:02}.000Z");
    let verify = VerifyKey { digest: digest(secret), now: now.clone() };
    verify_key(&m.access, verify).unwrap().and_then(|record| record.caller(&now))
}

#[test]
fn a_key_is_made_listed_used_and_revoked() {
    let m = common::Memory::default();
    let ada = Caller::local(Some("ada".into()));
    let made = send(
        &m,
        &ada,
        1,
        "POST",
        "/v1/orgs/local/keys",
        Some(json!({ "name": "ci", "scopes": ["org:read", "playbook:read"] })),
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let made = body(&made);
    let secret = made["key"].as_str().unwrap().to_string();
    let id = made["id"].as_str().unwrap().to_string();

    let twice = send(&m, &ada, 2, "POST", "/v1/orgs/local/keys", Some(json!({ "name": "ci", "scopes": ["org:read"] })));
    assert_eq!(twice.status, 409, "{}", twice.body);

    let listed = body(&send(&m, &ada, 3, "GET", "/v1/orgs/local/keys", None));
    let keys = listed["keys"].as_array().unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(keys.len(), 1);
    assert_eq!((keys[0]["id"].as_str(), keys[0]["name"].as_str()), (Some(id.as_str()), Some("ci")));
    assert!(keys[0].get("digest").is_none() && keys[0].get("key").is_none(), "a listing shows no secret");

    // The key is a caller of its own: it reads, and may not make keys.
    let bot = caller_of(&m, &secret, 4).unwrap();
    assert_eq!(bot.org, "local");
    assert_eq!(send(&m, &bot, 5, "GET", "/v1/orgs/local/playbooks", None).status, 200);
    let refused =
        send(&m, &bot, 6, "POST", "/v1/orgs/local/keys", Some(json!({ "name": "more", "scopes": ["org:read"] })));
    assert_eq!(refused.status, 403, "{}", refused.body);

    let revoked = send(&m, &ada, 7, "DELETE", &format!("/v1/orgs/local/keys/{id}"), None);
    assert_eq!(revoked.status, 200, "{}", revoked.body);
    assert!(caller_of(&m, &secret, 8).is_none(), "revoked, at once");
    let listed = body(&send(&m, &ada, 9, "GET", "/v1/orgs/local/keys", None));
    assert_eq!(listed["keys"], json!([]));
    let again = send(&m, &ada, 10, "DELETE", &format!("/v1/orgs/local/keys/{id}"), None);
    assert_eq!(again.status, 200, "revoked twice, the same: {}", again.body);
    let other = format!("{}{}", &id[..id.len() - 1], if id.ends_with('a') { 'b' } else { 'a' });
    let unknown = send(&m, &ada, 11, "DELETE", &format!("/v1/orgs/local/keys/{other}"), None);
    assert_eq!(unknown.status, 404, "{}", unknown.body);
}

#[test]
fn roles_are_given_listed_and_the_last_owner_kept() {
    let m = common::Memory::default();
    let ada = Caller::local(Some("ada".into()));
    let given =
        send(&m, &ada, 1, "POST", "/v1/orgs/local/roles", Some(json!({ "person": "person:bob", "role": "owner" })));
    assert!(given.status == 200 || given.status == 201, "{}", given.body);
    let listed = body(&send(&m, &ada, 2, "GET", "/v1/orgs/local/roles", None));
    assert_eq!(listed["assignments"][0]["person"], "person:bob", "{listed}");
    assert_eq!(listed["assignments"].as_array().map(Vec::len), Some(1));
    let last = send(&m, &ada, 3, "DELETE", "/v1/orgs/local/roles/person:bob", None);
    assert_eq!(last.status, 409, "{}", last.body);
}
