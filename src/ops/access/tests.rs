use chrono::{DateTime, TimeDelta, TimeZone, Utc};

use super::memory::MemAccess;
use super::*;
use crate::core::access::key::{NewKey, RevokeKey, VerifyKey};
use crate::core::access::oauth::authorize::AuthorizeRequest;
use crate::core::access::oauth::client::{AuthMethod, Client, ClientKind, GrantType};
use crate::core::access::oauth::error::Code;
use crate::core::access::oauth::exchange::{CodeExchange, Fresh, RefreshRequest, TokenResponse};
use crate::core::access::oauth::person::Person;
use crate::core::access::oauth::resource::Resource;
use crate::core::access::oauth::token::{ClientAuth, TokenRequest};
use crate::core::access::oauth::{pkce, secret};
use crate::core::access::oidc::with_userinfo;
use crate::core::access::role::Role;
use crate::core::access::store::{Assigner, IssueToken, SetRole, VerifyToken};
use crate::core::actor::{Actor, ActorKind};
use crate::core::caller::Scope;

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 4, 10, 0, 0).unwrap()
}

fn ada() -> Person {
    Person { sub: "ada".into(), name: "Ada Lovelace".into(), email: Some("ada@acme.example".into()) }
}

fn person(sub: &str) -> Person {
    Person { sub: sub.into(), name: sub.into(), email: None }
}

fn owners(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(o, e)| (o.to_string(), e.to_string())).collect()
}

fn by(id: &str, scopes: &[Scope]) -> Assigner {
    Assigner { id: id.into(), above_roles: false, scopes: scopes.to_vec() }
}

fn operator() -> Assigner {
    Assigner { id: "operator".into(), above_roles: true, scopes: Vec::new() }
}

fn give(store: &MemAccess, person: &str, role: Option<Role>, who: Assigner) -> Result<RoleAssignment, Problem> {
    set_role(store, SetRole { org: "acme".into(), person: person.into(), role, by: who, now: t0() })
}

fn key(name: &str, maker: Actor, expires_at: Option<&str>) -> (KeyRecord, String) {
    let new = NewKey {
        name: name.into(),
        scopes: vec![Scope::OrgRead],
        playbooks: None,
        expires_at: expires_at.map(str::to_string),
    };
    let secret = crate::core::access::key::mint(&[name.len() as u8; 32]);
    (new.record(format!("key_{name}"), "acme", &secret, "2026-12-04T10:00:00.000Z", maker), secret)
}

fn verify(store: &MemAccess, secret: &str, now: &str) -> Option<KeyRecord> {
    verify_key(store, VerifyKey { digest: secret::digest(secret), now: now.into() }).unwrap()
}

#[test]
fn an_owner_is_made_only_from_a_verified_address_the_operator_listed() {
    let store = MemAccess::default();
    let listed = owners(&[("acme", "ADA@acme.example"), ("globex", "bob@globex.example")]);

    // The provider did not mark the address verified: it is no address, and makes no owner.
    let unverified = with_userinfo(
        person("ada"),
        r#"{"sub": "ada", "email": "ada@acme.example", "email_verified": false, "name": "Ada"}"#,
    );
    assert_eq!(unverified.email, None);
    assert!(roles_of(&store, &unverified, &listed, t0()).unwrap().is_empty());
    assert!(store.roles("acme").unwrap().is_empty());

    let first = roles_of(&store, &ada(), &listed, t0()).unwrap();
    assert_eq!(first, [("acme".to_string(), Role::Owner)], "listed for acme alone, case aside");
    let made = store.role("acme", "person:ada").unwrap().unwrap();
    assert_eq!((made.assigned_by.as_str(), made.email.as_deref()), ("operator", Some("ada@acme.example")));

    // Another person with the same verified address finds the org owned already.
    let twin = Person { sub: "ada-2".into(), ..ada() };
    assert!(roles_of(&store, &twin, &listed, t0()).unwrap().is_empty());
    // Ada signs in again under a new name: her role follows it.
    let renamed = Person { name: "Ada King".into(), ..ada() };
    assert_eq!(roles_of(&store, &renamed, &listed, t0()).unwrap(), first);
    assert_eq!(store.role("acme", "person:ada").unwrap().unwrap().name, "Ada King");
}

#[test]
fn a_stop_between_two_owners_keeps_neither_and_the_next_sign_in_makes_both() {
    let store = MemAccess::default();
    let listed = owners(&[("acme", "ada@acme.example"), ("initech", "ada@acme.example")]);
    store.faults.stop_at(2);
    assert_eq!(roles_of(&store, &ada(), &listed, t0()).unwrap_err().status(), 503);
    assert!(store.roles_held("person:ada").unwrap().is_empty(), "not one org of two");
    store.faults.restart();
    let held = roles_of(&store, &ada(), &listed, t0()).unwrap();
    assert_eq!(held, [("acme".to_string(), Role::Owner), ("initech".to_string(), Role::Owner)]);
}

#[test]
fn a_persons_key_works_while_its_maker_manages_access() {
    let store = MemAccess::default();
    give(&store, "person:ada", Some(Role::Owner), operator()).unwrap();
    give(&store, "person:bob", Some(Role::Admin), operator()).unwrap();
    let bob = Actor { kind: ActorKind::Person, id: "person:bob".into(), name: "Bob".into() };
    let (record, secret) = key("build-bot", bob, None);
    make_key(&store, &record).unwrap();
    let now = "2026-12-04T10:05:00.000Z";
    assert!(verify(&store, &secret, now).is_some());

    let everyone = by("person:ada", &Scope::ALL);
    give(&store, "person:bob", Some(Role::Editor), everyone.clone()).unwrap();
    assert!(verify(&store, &secret, now).is_none(), "an editor manages no access");
    give(&store, "person:bob", None, everyone.clone()).unwrap();
    assert!(verify(&store, &secret, now).is_none(), "nor does a person with no role");
    give(&store, "person:bob", Some(Role::Admin), everyone).unwrap();
    assert!(verify(&store, &secret, now).is_some(), "the role is back, and the key works again");

    // A key the operator made has no such person, and lives on.
    let op = Actor { kind: ActorKind::Operator, id: "operator".into(), name: "the operator".into() };
    let (kept, other) = key("ci", op, None);
    make_key(&store, &kept).unwrap();
    assert!(verify(&store, &other, now).is_some());
}

#[test]
fn a_key_is_refused_from_the_second_it_expires() {
    let store = MemAccess::default();
    let local = Actor { kind: ActorKind::LocalDeveloper, id: "local".into(), name: "ada".into() };
    let (record, secret) = key("nightly", local, Some("2026-12-05T00:00:00.000Z"));
    make_key(&store, &record).unwrap();
    assert!(verify(&store, &secret, "2026-12-04T23:59:59.000Z").is_some());
    assert!(verify(&store, &secret, "2026-12-05T00:00:00.000Z").is_none(), "at its expiry");
    assert!(verify(&store, &secret, "2026-12-05T00:00:01.000Z").is_none(), "a second after");
    assert!(verify(&store, &"x".repeat(52), "2026-12-04T10:00:00.000Z").is_none(), "an unknown key");
}

#[test]
fn a_key_is_made_once_by_name_listed_revoked_and_its_use_written_once_a_minute() {
    let store = MemAccess::default();
    let local = Actor { kind: ActorKind::LocalDeveloper, id: "local".into(), name: "ada".into() };
    let (first, secret) = key("bot", local.clone(), None);
    make_key(&store, &first).unwrap();
    let again = KeyRecord { id: "key_other".into(), digest: "d".into(), ..first.clone() };
    assert_eq!(make_key(&store, &again).unwrap_err().status(), 409, "a live key holds the name");

    let used = verify(&store, &secret, "2026-12-04T10:01:30.500Z").unwrap();
    assert_eq!(used.last_used_at.as_deref(), Some("2026-12-04T10:01:00.000Z"), "to the minute");
    let writes = store.faults.writes();
    verify(&store, &secret, "2026-12-04T10:01:50.000Z").unwrap();
    assert_eq!(store.faults.writes(), writes, "no write within the minute");

    assert_eq!(list_keys(&store, "acme").unwrap().iter().map(|k| k.id.as_str()).collect::<Vec<_>>(), ["key_bot"]);
    let revoke = || RevokeKey { org: "acme".into(), id: "key_bot".into(), now: "2026-12-04T11:00:00.000Z".into() };
    assert!(revoke_key(&store, revoke()).is_ok());
    assert!(list_keys(&store, "acme").unwrap().is_empty());
    assert!(verify(&store, &secret, "2026-12-04T11:00:01.000Z").is_none());
    assert!(revoke_key(&store, revoke()).is_ok(), "revoked twice, the same");
    make_key(&store, &again).unwrap();
    let elsewhere = RevokeKey { org: "globex".into(), ..revoke() };
    assert_eq!(revoke_key(&store, elsewhere).unwrap_err().status(), 404);
}

#[test]
fn a_role_is_given_or_taken_only_within_the_givers_scopes_and_an_owner_stays() {
    let store = MemAccess::default();
    give(&store, "person:ada", Some(Role::Owner), operator()).unwrap();
    give(&store, "person:cy", Some(Role::Viewer), operator()).unwrap();

    // Ada's client was allowed to read and not to write playbooks.
    let narrow = by("person:ada", &[Scope::OrgRead, Scope::OrgWrite, Scope::PlaybookRead]);
    assert_eq!(give(&store, "person:dee", Some(Role::Editor), narrow.clone()).unwrap_err().status(), 403);
    give(&store, "person:cy", Some(Role::Editor), operator()).unwrap();
    assert_eq!(give(&store, "person:cy", None, narrow.clone()).unwrap_err().status(), 403, "nor taken away");
    assert_eq!(store.role("acme", "person:cy").unwrap().unwrap().role, Role::Editor);
    assert!(store.role("acme", "person:dee").unwrap().is_none());
    assert_eq!(give(&store, "person:dee", Some(Role::Viewer), narrow).unwrap().assigned_by, "person:ada");

    let everyone = by("person:ada", &Scope::ALL);
    let last = give(&store, "person:ada", None, everyone.clone()).unwrap_err();
    assert_eq!(last.status(), 409, "the last owner stays: {}", last.detail);
    assert_eq!(give(&store, "person:ada", None, operator()).unwrap_err().status(), 409, "even for the operator");
    assert_eq!(give(&store, "person:ada", Some(Role::Admin), everyone.clone()).unwrap_err().status(), 409);
    give(&store, "person:cy", Some(Role::Owner), everyone.clone()).unwrap();
    assert_eq!(give(&store, "person:ada", None, everyone).unwrap().role, Role::Owner, "now one of two");
    let listed: Vec<String> = list_roles(&store, "acme").unwrap().into_iter().map(|a| a.person).collect();
    assert_eq!(listed, ["person:cy", "person:dee"]);
    assert_eq!(give(&store, "person:zed", None, operator()).unwrap_err().status(), 404);
}

fn client() -> Client {
    Client {
        client_id: "pbcl_app".into(),
        client_name: "App".into(),
        redirect_uris: vec!["https://app.example/cb".into()],
        token_endpoint_auth_method: AuthMethod::None,
        grant_types: vec![GrantType::AuthorizationCode, GrantType::RefreshToken],
        kind: ClientKind::Registered { secret_digest: None, registered_at: t0() },
    }
}

fn ask(store: &MemAccess, request: TokenRequest, now: DateTime<Utc>, n: u8) -> Result<TokenResponse, Code> {
    let auth = ClientAuth { client_id: "pbcl_app".into(), secret: None };
    let fresh = Fresh { access: [n; 32], refresh: [n.wrapping_add(100); 32] };
    let issue = IssueToken { client: Some(client()), auth, request, now, fresh };
    token(store, issue).unwrap().map_err(|e| e.code)
}

fn refreshing(token: &str) -> TokenRequest {
    TokenRequest::Refresh(RefreshRequest {
        refresh_token: token.into(),
        client_id: "pbcl_app".into(),
        scopes: None,
        resource: None,
    })
}

/// A grant of Ada's in acme, its code exchanged: its first tokens.
fn signed_in(store: &MemAccess) -> TokenResponse {
    let request = AuthorizeRequest {
        client_id: "pbcl_app".into(),
        redirect_uri: "https://app.example/cb".into(),
        redirect_uri_given: true,
        code_challenge: pkce::challenge_of(VERIFIER),
        scopes: Scope::ALL.to_vec(),
        state: None,
        resource: Resource::Mcp,
    };
    let (grant, code) = Grant::new(&[3; 16], &request, ada(), "acme", &Scope::ALL, t0(), &[4; 32]).unwrap();
    keep_grant(store, &grant).unwrap();
    let exchange = CodeExchange {
        code,
        client_id: "pbcl_app".into(),
        redirect_uri: Some("https://app.example/cb".into()),
        code_verifier: VERIFIER.into(),
        resource: None,
    };
    ask(store, TokenRequest::Code(exchange), t0(), 1).unwrap()
}

fn verified(store: &MemAccess, access_token: &str, now: DateTime<Utc>) -> Option<Role> {
    let verify = VerifyToken { digest: secret::digest(access_token), now };
    verify_token(store, verify).unwrap().map(|v| v.role.unwrap_or(Role::Viewer))
}

#[test]
fn a_refresh_token_replayed_ends_its_grant() {
    let store = MemAccess::default();
    give(&store, "person:ada", Some(Role::Owner), operator()).unwrap();
    let first = signed_in(&store);
    assert_eq!(verified(&store, &first.access_token, t0()), Some(Role::Owner));
    let second = ask(&store, refreshing(&first.refresh_token), t0() + TimeDelta::minutes(1), 2).unwrap();
    assert_eq!(verified(&store, &second.access_token, t0() + TimeDelta::minutes(1)), Some(Role::Owner));

    // The first refresh token again, past its grace: two parties hold the grant, so it ends.
    let later = t0() + TimeDelta::minutes(10);
    assert_eq!(ask(&store, refreshing(&first.refresh_token), later, 3).unwrap_err(), Code::InvalidGrant);
    assert_eq!(verified(&store, &second.access_token, later), None, "its tokens with it");
    assert_eq!(ask(&store, refreshing(&second.refresh_token), later, 4).unwrap_err(), Code::InvalidGrant);
}

#[test]
fn a_refresh_stopped_between_its_writes_keeps_the_grant_as_it_was() {
    let store = MemAccess::default();
    let first = signed_in(&store);
    let before = store.kept.borrow().clone();
    // The grant's record is written, then the runtime stops before its digests are.
    store.faults.stop_at(2);
    let at = t0() + TimeDelta::minutes(1);
    let stopped = token(
        &store,
        IssueToken {
            client: Some(client()),
            auth: ClientAuth { client_id: "pbcl_app".into(), secret: None },
            request: refreshing(&first.refresh_token),
            now: at,
            fresh: Fresh { access: [2; 32], refresh: [102; 32] },
        },
    );
    assert_eq!(stopped.unwrap_err().status(), 503);
    let after = store.kept.borrow().clone();
    assert_eq!((after.grants, after.digests), (before.grants, before.digests), "nothing half kept");
    store.faults.restart();
    assert!(verified(&store, &first.access_token, at).is_some());
    assert!(ask(&store, refreshing(&first.refresh_token), at, 2).is_ok(), "the same refresh goes through");
}

#[test]
fn a_session_is_found_while_live_and_ended_with_its_persons_others() {
    let store = MemAccess::default();
    let open = |digest: &str, at| {
        let session = Session::open(ada(), at);
        open_session(&store, crate::core::access::session::OpenSession { digest: digest.into(), session }).unwrap();
    };
    open("d1", t0());
    open("d2", t0());
    let find = |digest: &str, now| {
        find_session(&store, crate::core::access::session::FindSession { digest: digest.into(), now }).unwrap()
    };
    assert!(find("d1", t0()).is_some());
    end_session(&store, "d1").unwrap();
    assert!(find("d1", t0()).is_none() && find("d2", t0()).is_some());
    let ended = crate::core::access::session::EndSessionsOf { person: "person:ada".into() };
    assert_eq!(end_sessions_of(&store, ended).unwrap(), 1);
    assert!(find("d2", t0()).is_none());
}
