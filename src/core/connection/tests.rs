//! The refusals of `add_connection`, each at its pointer; the providers and what the operator
//! sets over them; the commands of `decide`; and the answers of a retry.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};

use super::input::{check, Plan};
use super::link::{self, State};
use super::machine::{decide, Command};
use super::probe::{settle, Probe};
use super::providers::{Need, Providers};
use super::view::{self, retried, retried_words, Retried};
use super::*;
use crate::core::actor::{Actor, ActorKind};
use crate::core::Problem;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-02T10:00:00Z").unwrap().to_utc()
}

fn providers() -> Providers {
    Providers::compiled()
}

fn refused(args: Value) -> Problem {
    check(&args, &providers(), true).expect_err("refused")
}

/// The pointers a refusal names.
fn pointers(p: &Problem) -> Vec<String> {
    p.errors.iter().map(|e| e.pointer.clone()).collect()
}

fn at(args: Value, pointer: &str) -> String {
    let p = refused(args);
    let found = p.errors.iter().find(|e| e.pointer == pointer);
    found.unwrap_or_else(|| panic!("no refusal at {pointer}: {:?}", pointers(&p))).detail.clone()
}

const HELP: &str = "Make a key under [Settings, API keys](https://app.example.com/keys) as an Admin, with read access. It is 40 characters.";

#[test]
fn the_catalogue_reads_whole() {
    let (p, log) = Providers::read(|_| None);
    assert!(log.is_empty(), "{log:?}");
    let names: Vec<&str> = p.list.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["github", "linear", "notion", "sentry", "slack", "stripe"]);
    assert!(p.named("stripe").unwrap().handles_money);
    assert!(p.list.iter().all(|p| p.list_ok()));
    // Slack's client is not set, so its way is offered under the org's own client alone.
    let slack = p.named("slack").unwrap();
    assert_eq!(p.offer(slack, &slack.ways[0]), Some(Need::Required));
    let (p, _) = Providers::read(|n| match n {
        "SLACK_CLIENT_ID" => Some("1.2".into()),
        "SLACK_CLIENT_SECRET" => Some("s".into()),
        _ => None,
    });
    let slack = p.named("slack").unwrap();
    assert_eq!(p.offer(slack, &slack.ways[0]), Some(Need::Optional));
    assert_eq!(p.client("slack").unwrap().client_id, "1.2");
    assert!(!format!("{:?}", p.client("slack")).contains("\"s\""), "a client secret never prints");
}

impl providers::Provider {
    fn list_ok(&self) -> bool {
        self.ways.iter().all(|w| match w {
            providers::Way::Secret { pattern, key_page, .. } => {
                pattern.as_deref().is_none_or(|p| pattern::read(p).is_ok()) && given::https(key_page)
            }
            _ => true,
        })
    }
}

#[test]
fn the_operator_adds_and_narrows_providers() {
    let set = json!({
        "*": false,
        "github": true,
        "stand-in": { "title": "Stand-in", "description": "Notes", "terms": ["notes"],
                      "server": { "type": "mcp", "url": "https://{tenant}.stand-in.example/mcp" },
                      "placeholders": [{ "name": "tenant", "description": "the tenant", "pattern": "^[a-z]+$" }],
                      "ways": [{ "kind": "reference", "variable": "STAND_IN_KEY", "name": "Authorization", "in": "header" }] },
        "broken": { "title": "x" }
    })
    .to_string();
    let (p, log) = Providers::read(|n| (n == "CONNECTION_PROVIDERS").then(|| set.clone()));
    assert_eq!(log.len(), 1, "{log:?}"); // broken does not read, and is left out
    assert_eq!(p.list.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["github", "stand-in"]);
    let stand_in = p.named("stand-in").unwrap();
    assert!(!p.offered(stand_in), "a reference way is offered only while its variable is set");
    let (p, _) = Providers::read(|n| match n {
        "CONNECTION_PROVIDERS" => Some(set.clone()),
        "STAND_IN_KEY" => Some("k".into()),
        _ => None,
    });
    assert!(p.offered(p.named("stand-in").unwrap()));
    let plan = check(&json!({ "provider": "stand-in", "placeholders": { "tenant": "acme" } }), &p, true).unwrap();
    assert_eq!(plan.target, Target::Mcp { url: "https://acme.stand-in.example/mcp".into() });
    let bad = check(&json!({ "provider": "stand-in", "placeholders": { "tenant": "ac/me" } }), &p, true).unwrap_err();
    assert_eq!(pointers(&bad), ["/placeholders/tenant"]);
    let missing = check(&json!({ "provider": "stand-in" }), &p, true).unwrap_err();
    assert_eq!(pointers(&missing), ["/placeholders/tenant"]);
}

#[test]
fn a_credential_or_a_variable_in_an_entry_is_refused_at_its_field() {
    let why = at(
        json!({ "name": "crm", "type": "mcp", "entry": { "url": "https://crm.example.com/mcp?api_key=abc123" } }),
        "/entry/url",
    );
    assert!(why.contains("looks like a credential"), "{why}");
    let why = at(
        json!({ "name": "crm", "type": "openapi", "entry": { "document": "https://crm.example.com/openapi.json", "base_url": "https://crm.example.com" },
                "credential": { "kind": "secret", "name": "${CRM_KEY}", "in": "header", "instructions": HELP, "key_page": "https://crm.example.com/keys" } }),
        "/credential/name",
    );
    assert!(why.contains("${NAME}"), "{why}");
    at(json!({ "provider": "github", "entry": { "allowed": ["ghp_0123456789abcdefghij"] } }), "/entry/allowed/0");
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://bob:hunter2@x.example.com/mcp" } }),
        "/entry/url",
    );
}

#[test]
fn a_provider_is_refused_in_the_words_of_search() {
    let p = refused(json!({ "provider": "myspace" }));
    assert_eq!(pointers(&p), ["/provider"]);
    assert!(p.detail.contains("search lists the providers"), "{}", p.detail);
    at(json!({ "provider": "github", "type": "mcp" }), "/type");
    at(json!({ "provider": "github", "entry": { "url": "https://evil.example.com/mcp" } }), "/entry/url");
    at(json!({ "provider": "github", "placeholders": { "org": "acme" } }), "/placeholders/org");
    at(json!({ "provider": "github", "credential": { "kind": "secret", "name": "X-Key" } }), "/credential/name");
    at(
        json!({ "provider": "github", "credential": { "kind": "secret", "oauth_client": "own" } }),
        "/credential/oauth_client",
    );
    at(json!({ "provider": "notion", "credential": { "kind": "secret" } }), "/credential/kind");
    at(json!({ "provider": "github", "more": "everything" }), "/more");
    at(json!({ "provider": "github", "name": "Git Hub" }), "/name");
}

#[test]
fn a_provider_gives_the_rest() {
    let plan = check(
        &json!({ "provider": "linear", "more": "admin", "entry": { "playbooks": ["pb_a"] } }),
        &providers(),
        true,
    )
    .unwrap();
    assert_eq!(plan.name, "linear");
    assert_eq!(plan.asked_scopes, ["read", "write", "admin"]);
    assert_eq!(
        plan.credential,
        Some(Credential::Authorization {
            issuer: Some("https://mcp.linear.app".into()),
            oauth_client: OauthClient::Runtime
        })
    );
    assert_eq!(plan.rules.playbooks, Some(vec!["pb_a".to_string()]));
    // With no client set, Slack's way takes the org's own client with oauth_client left out.
    let slack = check(&json!({ "provider": "slack" }), &providers(), true).unwrap();
    assert!(slack.credential.unwrap().own_client());
    let own = check(
        &json!({ "provider": "github", "credential": { "kind": "authorization", "oauth_client": "own" } }),
        &providers(),
        true,
    )
    .unwrap();
    assert!(own.credential.unwrap().own_client());
    let key = check(&json!({ "provider": "stripe", "credential": { "kind": "secret" } }), &providers(), true).unwrap();
    assert!(key.handles_money && matches!(key.credential, Some(Credential::Secret { .. })));
}

#[test]
fn a_server_by_hand_is_refused_each_field_at_its_pointer() {
    at(json!({ "type": "mcp", "entry": { "url": "https://x.example.com/mcp" } }), "/name");
    at(json!({ "name": "x", "entry": { "url": "https://x.example.com/mcp" } }), "/type");
    at(json!({ "name": "x", "type": "mcp", "entry": { "url": "http://10.0.0.1/mcp" } }), "/entry/url");
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://x.example.com/mcp" }, "placeholders": {} }),
        "/placeholders",
    );
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://x.example.com/mcp" }, "credential": { "kind": "authorization", "oauth_client": "own" } }),
        "/credential/oauth_client",
    );
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://x.example.com/mcp" }, "credential": { "kind": "none", "name": "x" } }),
        "/credential/name",
    );
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://x.example.com/mcp" }, "credential": { "kind": "reference", "variable": "lower", "name": "X", "in": "header" } }),
        "/credential/variable",
    );
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://x.example.com/mcp" }, "credential": { "kind": "reference", "variable": "X_KEY", "name": "key", "in": "query", "scheme": "Bearer" } }),
        "/credential/scheme",
    );
    at(
        json!({ "name": "x", "type": "mcp", "entry": { "url": "https://x.example.com/mcp" }, "credential": { "kind": "client_credentials", "issuer": "http://auth.example.com" } }),
        "/credential/issuer",
    );
    let api = |credential: Value| json!({ "name": "crm", "type": "openapi", "entry": { "document": "https://crm.example.com/openapi.json", "base_url": "https://crm.example.com" }, "credential": credential });
    at(api(json!({ "kind": "authorization" })), "/credential/kind");
    at(
        json!({ "name": "crm", "type": "openapi", "entry": { "document": "https://crm.example.com/openapi.json", "base_url": "https://crm.example.com" } }),
        "/credential",
    );
    let secret = |extra: Value| {
        let mut c = json!({ "kind": "secret", "name": "X-Api-Key", "in": "header", "instructions": HELP, "key_page": "https://crm.example.com/keys" });
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        api(c)
    };
    assert!(check(&secret(json!({ "example": "crm_…", "pattern": "^crm_[a-z0-9]{40}$" })), &providers(), true).is_ok());
    at(secret(json!({ "instructions": null })), "/credential/instructions");
    at(secret(json!({ "instructions": "See <a href=x>here</a>" })), "/credential/instructions");
    at(secret(json!({ "instructions": "x".repeat(1001) })), "/credential/instructions");
    at(secret(json!({ "key_page": "http://crm.example.com/keys" })), "/credential/key_page");
    at(secret(json!({ "example": "crm_abc" })), "/credential/example");
    at(secret(json!({ "pattern": "^(crm|api)_.+$" })), "/credential/pattern");
    at(secret(json!({ "in": "cookie" })), "/credential/in");
}

#[test]
fn a_document_given_whole_is_read_as_it_is_added() {
    let doc = crate::core::tool_server::openapi::fixtures::NOTES;
    let plan = check(
        &json!({ "name": "notes", "type": "openapi", "entry": { "document_text": doc, "base_url": "https://notes.example.com" }, "credential": { "kind": "none" } }),
        &providers(),
        true,
    )
    .unwrap();
    let Target::Openapi { document: Document::Text { tools, sha256, .. }, .. } = &plan.target else { panic!() };
    assert_eq!((*tools, sha256.len()), (3, 64));
    let big = "x".repeat(16_385);
    at(
        json!({ "name": "n", "type": "openapi", "entry": { "document_text": big, "base_url": "https://n.example.com" }, "credential": { "kind": "none" } }),
        "/entry/document_text",
    );
    let p = refused(
        json!({ "name": "n", "type": "openapi", "entry": { "document_text": "swagger: '2.0'", "base_url": "https://n.example.com" }, "credential": { "kind": "none" } }),
    );
    assert!(pointers(&p)[0].starts_with("/entry/document_text"), "{:?}", pointers(&p));
}

#[test]
fn an_mcp_server_by_hand_takes_its_credential_from_what_it_says() {
    let names = Probe::Names { issuer: "https://auth.example.com".into(), scopes: vec!["files:read".into()] };
    let auth = settle(None, &names).unwrap();
    assert_eq!(
        auth,
        Credential::Authorization {
            issuer: Some("https://auth.example.com".into()),
            oauth_client: OauthClient::Runtime
        }
    );
    let p = settle(Some(Credential::None), &names).unwrap_err();
    assert_eq!(pointers(&p), ["/credential/kind"]);
    assert!(
        p.detail.contains("https://auth.example.com") && p.detail.contains("leave the credential out"),
        "{}",
        p.detail
    );
    assert_eq!(super::probe::scopes(&names, &auth), ["files:read"], "a consent asks the scopes the server named");
    let cc = Credential::ClientCredentials { issuer: "https://auth.example.com".into(), client_id: None, scope: None };
    assert_eq!(settle(Some(cc.clone()), &names).unwrap(), cc);
    assert!(super::probe::scopes(&names, &cc).is_empty(), "client credentials ask the scope they were given");
    let p =
        settle(Some(Credential::Authorization { issuer: None, oauth_client: OauthClient::Runtime }), &Probe::NamesNone)
            .unwrap_err();
    assert!(pointers(&p) == ["/credential/kind"] && p.detail.contains("offers no consent"), "{}", p.detail);
    assert_eq!(pointers(&settle(None, &Probe::NamesNone).unwrap_err()), ["/credential"]);
    assert_eq!(settle(Some(Credential::None), &Probe::NamesNone).unwrap(), Credential::None);
    assert!(settle(Some(Credential::None), &Probe::Unreachable("no answer".into())).is_err());
}

fn ada() -> Actor {
    Actor { kind: ActorKind::Person, id: "person:ada".into(), name: "Ada".into() }
}

/// A connection added from `args` at `now`, with the link of `token`.
fn added(args: Value, token: &str) -> Connection {
    let plan: Plan = check(&args, &providers(), true).unwrap();
    let c = plan
        .into_connection(
            "con_aaaaaaaaaaaaaaaa".into(),
            "acme",
            link::new(token, now(), None),
            ada(),
            "2026-12-02T10:00:00.000Z",
        )
        .unwrap();
    decide(Command::Add { connection: Box::new(c) }, None, now()).unwrap()
}

fn token(n: u8) -> String {
    link::mint(&[n; 32])
}

fn key_api() -> Value {
    json!({ "name": "crm", "type": "openapi", "entry": { "document": "https://crm.example.com/openapi.json", "base_url": "https://crm.example.com" },
            "credential": { "kind": "secret", "name": "X-Api-Key", "in": "header", "instructions": HELP, "key_page": "https://crm.example.com/keys" } })
}

#[test]
fn a_key_given_then_approved_connects_and_remove_forgets_it() {
    let t = token(1);
    let d = link::digest(&t);
    let c = added(key_api(), &t);
    assert_eq!(
        (c.status, view::because(&c)),
        (Status::Pending, Some(crate::core::tool_server::Because::ConnectionPending))
    );
    let by = "person:ada".to_string();
    let early = decide(Command::Approve { digest: d.clone(), by: by.clone() }, Some(c.clone()), now()).unwrap_err();
    assert!(early.detail.contains("Give the key first"), "{}", early.detail);
    let other = decide(
        Command::GiveCredential {
            digest: d.clone(),
            by: "person:bob".into(),
            sealed: "S".into(),
            misses_pattern: false,
        },
        Some(c.clone()),
        now(),
    );
    assert_eq!(other.unwrap_err().reason, crate::core::Reason::Forbidden);
    let c = decide(
        Command::GiveCredential { digest: d.clone(), by: by.clone(), sealed: "SEALED".into(), misses_pattern: true },
        Some(c),
        now(),
    )
    .unwrap();
    assert_eq!(c.status, Status::Pending, "a key given takes effect when approved");
    let c = decide(Command::Approve { digest: d.clone(), by: by.clone() }, Some(c), now()).unwrap();
    assert_eq!((c.status, c.sealed.credential.as_deref()), (Status::Connected, Some("SEALED")));
    assert_eq!(c.token_state(&d, now()), Some(State::Used));
    let shown = view::view(&c, &providers()).to_string();
    assert!(!shown.contains("SEALED") && !shown.contains(HELP), "{shown}");

    // A refresh keeps its tokens only in place of the credential it read.
    let refreshed = |sealed: &str, from: &str| Command::Refreshed { sealed: sealed.into(), from: Some(from.into()) };
    let stale = decide(refreshed("NEWER", "OLDER"), Some(c.clone()), now()).unwrap_err();
    assert_eq!(stale.reason, crate::core::Reason::Conflict);
    let c = decide(refreshed("NEWER", "SEALED"), Some(c), now()).unwrap();
    assert_eq!(c.sealed.credential.as_deref(), Some("NEWER"));

    let broken =
        decide(Command::Broken { kind: BreakKind::Unauthorized, detail: "401".into() }, Some(c), now()).unwrap();
    let late = decide(refreshed("NEWEST", "NEWER"), Some(broken.clone()), now()).unwrap_err();
    assert_eq!(late.reason, crate::core::Reason::Conflict, "a broken connection takes no refreshed tokens");
    assert_eq!(view::because(&broken), Some(crate::core::tool_server::Because::ConnectionBroken));
    let removed = decide(Command::Remove, Some(broken), now()).unwrap();
    assert_eq!((removed.status, removed.sealed.clone()), (Status::Removed, Sealed::default()));
    assert_eq!(decide(Command::Remove, Some(removed.clone()), now()).unwrap().status, Status::Removed, "idempotent");
    let again = decide(Command::NewLink { link: link::new(&token(2), now(), None), by }, Some(removed), now());
    assert_eq!(again.unwrap_err().reason, crate::core::Reason::NotFound);
}

#[test]
fn a_new_link_replaces_the_one_before_and_links_expire() {
    let first = token(1);
    let c = added(key_api(), &first);
    let by = "person:ada".to_string();
    let second = token(2);
    let c = decide(Command::NewLink { link: link::new(&second, now(), None), by: by.clone() }, Some(c), now()).unwrap();
    assert_eq!(c.token_state(&link::digest(&first), now()), Some(State::Replaced));
    let refused =
        decide(Command::Approve { digest: link::digest(&first), by: by.clone() }, Some(c.clone()), now()).unwrap_err();
    assert!(refused.detail.contains("A newer link replaced this one"), "{}", refused.detail);
    let later = now() + Duration::hours(24);
    assert_eq!(c.token_state(&link::digest(&second), later), Some(State::Expired));
    let expired =
        decide(Command::Cancel { digest: link::digest(&second), by: by.clone() }, Some(c.clone()), later).unwrap_err();
    assert!(expired.detail.contains("expired"), "{}", expired.detail);
    let other = decide(
        Command::NewLink { link: link::new(&token(3), now(), None), by: "person:bob".into() },
        Some(c.clone()),
        now(),
    );
    assert_eq!(other.unwrap_err().reason, crate::core::Reason::Forbidden);
    let mut c = c;
    for n in 3..20 {
        c = decide(Command::NewLink { link: link::new(&token(n), now(), None), by: by.clone() }, Some(c), now())
            .unwrap();
    }
    assert_eq!(c.replaced.len(), link::REPLACED_KEPT);
}

#[test]
fn a_consent_asks_grows_and_grants_with_the_words_of_its_scopes() {
    let t = token(1);
    let d = link::digest(&t);
    let by = "person:ada".to_string();
    let c = added(json!({ "provider": "github" }), &t);
    assert!(c.credential.own_client(), "no client is set here for GitHub, so the org's own is asked");
    assert_eq!(view::more(&c, &providers()).len(), 2, "the org's own client covers its groups");
    let early = decide(
        Command::ConsentStarted { digest: d.clone(), by: by.clone(), asked: vec![], consent: "v1.x".into() },
        Some(c.clone()),
        now(),
    );
    assert!(early.unwrap_err().detail.contains("org's own OAuth client first"));
    let client = OwnClient { client_id: "x".into(), sealed_secret: "y".into() };
    let c = decide(Command::GiveClient { digest: d.clone(), by: by.clone(), client: client.clone() }, Some(c), now())
        .unwrap();
    assert!(decide(
        Command::ConsentStarted { digest: d.clone(), by: by.clone(), asked: vec![], consent: "v1.x".into() },
        Some(c),
        now()
    )
    .is_ok());
    let c = added(json!({ "provider": "linear" }), &t);
    let refused = decide(Command::GiveClient { digest: d.clone(), by: by.clone(), client }, Some(c.clone()), now());
    assert!(refused.is_err(), "the runtime's client takes no client of the org's own");
    let c = decide(
        Command::ConsentStarted {
            digest: d.clone(),
            by: by.clone(),
            asked: vec!["read".into(), "write".into()],
            consent: "v1.x".into(),
        },
        Some(c),
        now(),
    )
    .unwrap();
    let c = decide(
        Command::ConsentFinished {
            digest: d.clone(),
            by: by.clone(),
            sealed: "TOKENS".into(),
            granted: vec!["read".into(), "write".into()],
        },
        Some(c),
        now(),
    )
    .unwrap();
    let c = decide(Command::Approve { digest: d, by }, Some(c), now()).unwrap();
    let v = view::view(&c, &providers());
    assert_eq!(v["status"], "connected");
    assert_eq!(
        v["granted_scopes"][0],
        json!({ "scope": "read", "says": "Read the issues, projects and comments you can see in Linear." })
    );
    assert_eq!(v["more"], json!([{ "name": "admin", "for": "Change the workspace's teams, members and settings." }]));
    assert!(!v.to_string().contains("TOKENS"));
}

#[test]
fn a_cancel_on_the_page_removes_a_pending_connection_and_a_retry_says_each_case() {
    let t = token(1);
    let d = link::digest(&t);
    let by = "person:ada".to_string();
    let c = added(json!({ "provider": "linear" }), &t);
    let title = Some("Linear");
    let case = |c: &Connection, at: DateTime<Utc>| retried(c, c.token_state(&d, at), at);
    assert_eq!(case(&c, now()), Retried::Open);
    let words = retried_words(&c, title, Retried::Open, true);
    assert!(words.contains("declined") && words.contains("Approve the Linear connection"), "{words}");
    assert_eq!(case(&c, now() + Duration::hours(25)), Retried::Expired);
    assert!(retried_words(&c, title, Retried::Expired, false).contains("reconnect_connection"));
    let newer =
        decide(Command::NewLink { link: link::new(&token(2), now(), None), by: by.clone() }, Some(c.clone()), now())
            .unwrap();
    assert_eq!(case(&newer, now()), Retried::Replaced);
    assert!(retried_words(&newer, title, Retried::Replaced, false).contains("would replace that one too"));
    let cancelled = decide(Command::Cancel { digest: d.clone(), by: by.clone() }, Some(c.clone()), now()).unwrap();
    assert_eq!((cancelled.status, case(&cancelled, now())), (Status::Removed, Retried::Removed));
    assert!(retried_words(&cancelled, title, Retried::Removed, false).contains("nothing is connected"));
    let hand = added(key_api(), &t);
    assert!(view::added(&hand, None).contains("\"Approve the connection\""));
    assert!(view::added(&c, title).contains("never as its address"));
}
