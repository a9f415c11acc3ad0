use futures::executor::block_on;

use super::memory::MemOrganization;
use super::{list, DirectoryStore};
use crate::core::actor::Actor;
use crate::core::directory::{Command, ListQuery};
use crate::core::playbook::{Changes, Playbook};
use crate::core::{Problem, Reason};

fn ada() -> Actor {
    Actor::of(&crate::core::Caller::local(Some("ada".into())))
}

fn create(id: &str, name: &str, now: &str) -> Command {
    let changes = Changes { name: Some(name.into()), page: Some(format!("# {name}")), ..Changes::default() };
    Command::Create { id: id.into(), changes, now: now.into(), by: ada() }
}

fn update(id: &str, changes: Changes, now: &str) -> Command {
    Command::Update { id: id.into(), changes, now: now.into(), by: ada() }
}

fn change(org: &MemOrganization, command: Command) -> Result<Playbook, Problem> {
    block_on(org.directory().change(command))
}

fn all(org: &MemOrganization) -> Vec<String> {
    let query = ListQuery { include_retired: true, limit: 100, after: None, only: None };
    let page = list(&org.rows, query).unwrap();
    page.playbooks.iter().map(|p| p["id"].as_str().unwrap().to_string()).collect()
}

/// What must hold after any failure: every playbook the directory lists is one its object holds.
fn listed_can_be_read(org: &MemOrganization) {
    for id in all(org) {
        assert!(org.playbooks.record(&id).is_ok(), "{id} is listed and its object holds it");
    }
}

#[test]
fn a_name_claimed_twice_at_once_goes_to_one_playbook() {
    let org = MemOrganization::default();
    org.playbooks.slow.set(true);
    let (a, b) = block_on(futures::future::join(
        org.directory().change(create("pb_aaaaaaaaaaaaaaaa", "Close", "t1")),
        org.directory().change(create("pb_bbbbbbbbbbbbbbbb", "close", "t1")),
    ));
    assert_eq!(a.unwrap().name, "Close");
    let refused = b.unwrap_err();
    assert_eq!((refused.reason, refused.errors[0].pointer.as_str()), (Reason::Conflict, "/name"));
    assert_eq!(all(&org), ["pb_aaaaaaaaaaaaaaaa"]);
    assert!(org.playbooks.records.borrow().get("pb_bbbbbbbbbbbbbbbb").is_none(), "the second kept nothing");

    // Apart, the same two meet the same rule through the rows alone.
    let apart = MemOrganization::default();
    change(&apart, create("pb_aaaaaaaaaaaaaaaa", "Close", "t1")).unwrap();
    assert_eq!(change(&apart, create("pb_bbbbbbbbbbbbbbbb", "CLOSE", "t2")).unwrap_err().reason, Reason::Conflict);
}

#[test]
fn changes_of_different_names_overlap_and_both_land() {
    let org = MemOrganization::default();
    org.playbooks.slow.set(true);
    let (a, b) = block_on(futures::future::join(
        org.directory().change(create("pb_aaaaaaaaaaaaaaaa", "Close", "t1")),
        org.directory().change(create("pb_bbbbbbbbbbbbbbbb", "Open", "t2")),
    ));
    assert!(a.is_ok() && b.is_ok());
    assert_eq!(all(&org), ["pb_bbbbbbbbbbbbbbbb", "pb_aaaaaaaaaaaaaaaa"], "newest first");
}

#[test]
fn a_stop_before_either_write_lists_nothing_unreadable_and_the_same_change_finishes_it() {
    let id = "pb_aaaaaaaaaaaaaaaa";
    for stops_first in [true, false] {
        let org = MemOrganization::default();
        let stopping = if stops_first { &org.playbooks.faults } else { &org.rows.faults };
        stopping.stop_at(1);
        let stopped = change(&org, create(id, "Close", "t1")).unwrap_err();
        assert_eq!(stopped.status(), 503);
        assert!(all(&org).is_empty(), "nothing is listed (stopped at the playbook's write: {stops_first})");
        listed_can_be_read(&org);
        assert!(org.rows.row(id).unwrap().is_none());
        stopping.restart();

        // The same change again finishes what the first began, once.
        let made = change(&org, create(id, "Close", "t1")).unwrap();
        assert_eq!(all(&org), [id]);
        assert_eq!(org.playbooks.record(id).unwrap(), made);
        assert_eq!(made.page, "# Close");
        assert_eq!(org.rows.row(id).unwrap().map(|r| r.page), Some(String::new()), "the row keeps no page");
    }
}

#[test]
fn an_update_keeps_the_page_and_a_repeat_changes_nothing() {
    let org = MemOrganization::default();
    let id = "pb_aaaaaaaaaaaaaaaa";
    change(&org, create(id, "Close", "t1")).unwrap();
    let described = Changes { description: Some("Closes the books.".into()), ..Changes::default() };
    let saved = change(&org, update(id, described.clone(), "t2")).unwrap();
    assert_eq!((saved.page.as_str(), saved.updated_at.as_str()), ("# Close", "t2"), "keep_page");
    let again = change(&org, update(id, described, "t3")).unwrap();
    assert_eq!(again.updated_at, "t2", "nothing changed, so nothing was written");

    // Sent the page it holds, the playbook settles on what it had.
    let same_page = Changes { page: Some("# Close".into()), ..Changes::default() };
    assert_eq!(change(&org, update(id, same_page, "t4")).unwrap().updated_at, "t2");
    let new_page = Changes { page: Some("# Closing".into()), ..Changes::default() };
    let paged = change(&org, update(id, new_page, "t5")).unwrap();
    assert_eq!((paged.page.as_str(), paged.updated_at.as_str()), ("# Closing", "t5"));

    let retired = change(&org, Command::Retire { id: id.into(), now: "t6".into(), by: ada() }).unwrap();
    assert!(retired.is_retired());
    assert_eq!(retired.page, "# Closing", "a retire keeps the page");
    let listed = list(&org.rows, ListQuery { include_retired: false, limit: 10, after: None, only: None }).unwrap();
    assert!(listed.playbooks.is_empty() && listed.org_has_playbooks, "retired: not listed, but the org has one");
}

#[test]
fn a_page_ends_where_the_next_begins() {
    let org = MemOrganization::default();
    for (i, id) in ["pb_aaaaaaaaaaaaaaaa", "pb_bbbbbbbbbbbbbbbb", "pb_cccccccccccccccc"].iter().enumerate() {
        change(&org, create(id, &format!("n{i}"), &format!("t{i}"))).unwrap();
    }
    let first = list(&org.rows, ListQuery { include_retired: false, limit: 2, after: None, only: None }).unwrap();
    assert_eq!(first.playbooks.len(), 2);
    let after = crate::core::directory::Cursor::decode(first.next_cursor.as_deref().unwrap()).unwrap();
    let rest = list(&org.rows, ListQuery { include_retired: false, limit: 2, after: Some(after), only: None }).unwrap();
    assert_eq!(rest.playbooks[0]["id"], "pb_aaaaaaaaaaaaaaaa");
    assert_eq!(rest.next_cursor, None);
    let empty = MemOrganization::default();
    assert!(
        !list(&empty.rows, ListQuery { include_retired: true, limit: 0, after: None, only: None })
            .unwrap()
            .org_has_playbooks
    );
}
