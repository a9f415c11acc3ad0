//! The object's work over a table in memory: an add made again answers the one kept, a name is
//! held once among live connections, a failed write keeps nothing, and pages come newest first.

use serde_json::json;

use super::memory::MemConnections;
use super::*;
use crate::core::actor::{Actor, ActorKind};
use crate::core::connection::input::check;
use crate::core::connection::link;
use crate::core::connection::providers::Providers;
use crate::core::connection::store::{Cursor, GetConnection};
use crate::core::connection::{Connection, Status};

fn adding(id: &str, name: &str, by: &str, second: u32) -> ChangeConnection {
    let plan = check(&json!({ "provider": "linear", "name": name }), &Providers::compiled(), true).unwrap();
    let now = format!("2026-12-02T10:00:{second:02}.000Z");
    let at = DateTime::parse_from_rfc3339(&now).unwrap().to_utc();
    let by = Actor { kind: ActorKind::Person, id: by.into(), name: "Ada".into() };
    let token = link::mint(&[second as u8; 32]);
    let c = plan.into_connection(id.into(), "acme", link::new(&token, at, None), by, &now).unwrap();
    ChangeConnection { org: "acme".into(), find: Find::New, command: Command::Add { connection: Box::new(c) }, now }
}

#[test]
fn an_add_made_again_answers_the_kept_one_and_a_name_is_held_once() {
    let table = MemConnections::default();
    let first = change(&table, adding("con_aaaaaaaaaaaaaaaa", "linear", "person:ada", 1)).unwrap();
    let again = change(&table, adding("con_bbbbbbbbbbbbbbbb", "linear", "person:ada", 2)).unwrap();
    assert_eq!(again.id, first.id, "the same call again adds nothing");
    assert_eq!(table.rows.borrow().len(), 1);
    let other = change(&table, adding("con_cccccccccccccccc", "linear", "person:bob", 3)).unwrap_err();
    assert_eq!(other.errors[0].pointer, "/name");
    let removed = ChangeConnection {
        org: "acme".into(),
        find: Find::Id(first.id.clone()),
        command: Command::Remove,
        now: "2026-12-02T10:00:04.000Z".into(),
    };
    assert_eq!(change(&table, removed).unwrap().status, Status::Removed);
    let anew = change(&table, adding("con_dddddddddddddddd", "linear", "person:bob", 5)).unwrap();
    assert_eq!(anew.id, "con_dddddddddddddddd", "a removed connection's name is free again");
    let by_link = find(&table, &Find::Link(anew.link.clone().unwrap().digest)).unwrap();
    assert_eq!(by_link.id, anew.id);
    let get = GetConnection { org: "acme".into(), find: Find::Id("con_zzzzzzzzzzzzzzzz".into()) };
    assert_eq!(find(&table, &get.find).unwrap_err().reason, crate::core::Reason::NotFound);
}

#[test]
fn a_failed_write_keeps_nothing_and_pages_come_newest_first() {
    let table = MemConnections::default();
    table.faults.fail_on("put");
    assert!(change(&table, adding("con_aaaaaaaaaaaaaaaa", "one", "person:ada", 1)).is_err());
    assert!(table.rows.borrow().is_empty());
    for (i, id) in ["con_aaaaaaaaaaaaaaaa", "con_bbbbbbbbbbbbbbbb", "con_cccccccccccccccc"].iter().enumerate() {
        change(&table, adding(id, &format!("n{i}"), "person:ada", i as u32 + 1)).unwrap();
    }
    let query = |after: Option<Cursor>| ListConnections { org: "acme".into(), limit: 2, after, live: true };
    let page = list(&table, query(None)).unwrap();
    let names: Vec<&str> = page.connections.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["n2", "n1"]);
    let next = Cursor::decode(page.next_cursor.as_deref().unwrap()).unwrap();
    let rest = list(&table, query(Some(next))).unwrap();
    assert_eq!((rest.connections.len(), rest.next_cursor), (1, None));
}

#[test]
fn a_connection_is_a_server_with_its_credential_where_its_kind_says() {
    use super::memory::Plain;
    use super::serve::{breaks, server};
    use crate::core::connection::machine::decide;
    use crate::core::tool_server::settings::Place;
    use crate::core::tool_server::Because;
    use std::rc::Rc;

    let settings = Settings { sealer: Some(Rc::new(Plain)), ..Settings::default() };
    let args = json!({ "name": "crm", "type": "mcp", "entry": { "url": "https://crm.example.com/mcp", "playbooks": ["pb_a"] },
                       "credential": { "kind": "secret", "name": "key", "in": "query",
                                       "instructions": "Make a key under [Keys](https://crm.example.com/keys).", "key_page": "https://crm.example.com/keys" } });
    let plan = check(&args, &Providers::compiled(), true).unwrap();
    let at = DateTime::parse_from_rfc3339("2026-12-02T10:00:00Z").unwrap().to_utc();
    let token = link::mint(&[1; 32]);
    let by = Actor { kind: ActorKind::Person, id: "person:ada".into(), name: "Ada".into() };
    let c = plan
        .into_connection(
            "con_aaaaaaaaaaaaaaaa".into(),
            "acme",
            link::new(&token, at, None),
            by.clone(),
            "2026-12-02T10:00:00.000Z",
        )
        .unwrap();
    let pending = server(&c, &settings).unwrap();
    let u = pending.state.clone().unwrap_err();
    assert_eq!(u.because, Because::ConnectionPending);
    assert!(u.detail.contains("reconnect_connection"), "{}", u.detail);
    assert!(
        pending.serves("acme", Some("pb_a")) && !pending.serves("acme", Some("pb_b")) && !pending.serves("other", None)
    );

    let d = link::digest(&token);
    let sealed = Plain.seal(&aad("acme", &c.id, "credential"), br#"{"key":"s3cret"}"#).unwrap();
    let c = decide(
        Command::GiveCredential { digest: d.clone(), by: by.id.clone(), sealed, misses_pattern: false },
        Some(c),
        at,
    )
    .unwrap();
    let c = decide(Command::Approve { digest: d, by: by.id.clone() }, Some(c), at).unwrap();
    let s = server(&c, &settings).unwrap();
    let entry = s.state.clone().unwrap();
    let carried = entry.credential.unwrap();
    assert_eq!((carried.secret.0.as_str(), carried.place), ("s3cret", Place::Query { name: "key".into() }));
    assert_eq!(s.connection.as_deref(), Some("con_aaaaaaaaaaaaaaaa"));
    let locked = server(&c, &Settings::default()).unwrap().state.unwrap_err();
    assert_eq!(locked.because, Because::ConnectionUnavailable, "without the key, the credential cannot be read");

    assert!(breaks(&c, &settings, Because::KeyRefused, "HTTP 401").is_some());
    assert!(breaks(&c, &settings, Because::Failing, "HTTP 500").is_none());
    let slack = Connection { provider: Some("slack".into()), ..c.clone() };
    let (kind, _) = breaks(&slack, &settings, Because::Failing, "it answered an error: token_revoked").unwrap();
    assert_eq!(kind, crate::core::connection::BreakKind::FailureCode);
    let broken = decide(Command::Broken { kind, detail: "token_revoked".into() }, Some(c), at).unwrap();
    assert_eq!(server(&broken, &settings).unwrap().state.unwrap_err().because, Because::ConnectionBroken);
    let narrowed = Settings {
        providers: Rc::new(
            Providers::read(|n| (n == "CONNECTION_PROVIDERS").then(|| r#"{"slack": false}"#.to_string())).0,
        ),
        ..settings.clone()
    };
    let gone = Connection { provider: Some("slack".into()), broken: None, ..broken.clone() };
    assert_eq!(server(&gone, &narrowed).unwrap().state.unwrap_err().because, Because::ConnectionNotAllowed);
    let removed = decide(Command::Remove, Some(broken), at).unwrap();
    assert!(server(&removed, &settings).is_none());
}

/// A connection of a reference kept before its variable had to be listed, or kept when it was and
/// unlisted since: at use, the list is asked again, and it sends nothing where it does not admit it.
#[test]
fn a_kept_reference_sends_its_variable_only_while_the_list_admits_it() {
    use crate::core::connection::variables::{runtime_own, ConnectionVariables};
    use crate::core::connection::{Credential, In};
    use crate::core::model::Secret;
    use crate::core::tool_server::Because;
    use std::rc::Rc;
    let plan = check(&json!({ "provider": "linear", "name": "leaky" }), &Providers::compiled(), true).unwrap();
    let at = DateTime::parse_from_rfc3339("2026-12-02T10:00:01.000Z").unwrap().to_utc();
    let by = Actor { kind: ActorKind::Person, id: "person:ada".into(), name: "Ada".into() };
    let mut c = plan
        .into_connection("con_aaaaaaaaaaaaaaaa".into(), "acme", link::new(&link::mint(&[1; 32]), at, None), by, "x")
        .unwrap();
    c.status = Status::Connected;
    c.credential = Credential::Reference {
        variable: "ADMIN_TOKEN".into(),
        name: "x-leak".into(),
        place: In::Header,
        scheme: None,
    };
    let read = |c: &Connection, listed: &str| {
        let settings = Settings {
            variable: Rc::new(|_| Some(Secret("the operator's own".into()))),
            listed: Rc::new(ConnectionVariables::read(Some(listed), &runtime_own(|_| None)).0),
            ..Settings::default()
        };
        serve::server(c, &settings).unwrap().state
    };
    let leak = read(&c, r#"{"ADMIN_TOKEN": {"orgs": "*", "hosts": ["mcp.linear.app"]}}"#).unwrap_err();
    assert_eq!(leak.because, Because::ConnectionNotAllowed);
    assert!(leak.detail.contains("ADMIN_TOKEN") && leak.detail.contains("has not listed"), "{}", leak.detail);
    c.credential =
        Credential::Reference { variable: "LINEAR_KEY".into(), name: "x-key".into(), place: In::Header, scheme: None };
    let unlisted = read(&c, "{}").unwrap_err();
    assert_eq!(unlisted.because, Because::ConnectionNotAllowed);
    let entry = read(&c, r#"{"LINEAR_KEY": {"orgs": ["acme"], "hosts": ["mcp.linear.app"]}}"#).unwrap();
    assert_eq!(entry.credential.map(|c| c.secret.0), Some("the operator's own".to_string()));
    let elsewhere = read(&c, r#"{"LINEAR_KEY": {"orgs": ["globex"], "hosts": ["mcp.linear.app"]}}"#).unwrap_err();
    assert!(elsewhere.detail.contains("org acme"), "{}", elsewhere.detail);
}
