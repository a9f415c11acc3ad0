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
use crate::core::connection::Status;

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
    table.down.set(1);
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
