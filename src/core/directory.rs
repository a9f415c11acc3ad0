//! The org's directory of playbooks: the commands that change it, the list query, and its cursor.
//! These travel as JSON between the Worker and the organization's Durable Object.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::actor::Actor;
use super::error::Problem;
use super::playbook::{Changes, Playbook, Status};

pub const LIST_LIMIT_DEFAULT: usize = 50;
pub const LIST_LIMIT_MAX: usize = 100;

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Command as "op" {
        Create { id: String, changes: Changes, now: String, by: Actor },
        Update { id: String, changes: Changes, now: String, by: Actor },
        Retire { id: String, now: String, by: Actor },
        Restore { id: String, now: String, by: Actor },
    }
}

/// A command with the org it is for, which names the playbooks' objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub org: String,
    pub command: Command,
}

/// A read of a playbook, from its own object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetPlaybook {
    pub id: String,
}

/// What the directory asks a playbook's object to keep: the whole record, or all of it but the
/// page, which only the playbook holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Save {
    pub record: Playbook,
    pub keep_page: bool,
}

impl Save {
    /// The record the playbook keeps when this save comes over what it holds: its page where the
    /// save keeps it, and what it held where nothing but the time would change, so that repeating
    /// a change changes nothing at all.
    pub fn over(self, stored: Option<Playbook>) -> Playbook {
        let mut record = self.record;
        if self.keep_page {
            record.page = stored.as_ref().map(|p| p.page.clone()).unwrap_or_default();
        }
        Playbook::settle(stored, record)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListQuery {
    pub include_retired: bool,
    pub limit: usize,
    pub after: Option<Cursor>,
    /// The playbooks a kept caller reaches, the only ones it is shown; `None` lists them all.
    #[serde(default)]
    pub only: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListPage {
    /// Each playbook as listed: every field but its page.
    pub playbooks: Vec<Value>,
    pub next_cursor: Option<String>,
    /// Whether the org holds any playbook at all, active or retired: an empty org is welcomed.
    pub org_has_playbooks: bool,
}

/// Where a page of the newest-first list ends: the last row's creation time and id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    pub created_at: String,
    pub id: String,
}

impl Cursor {
    pub fn encode(&self) -> String {
        crate::core::page::after(&self.created_at, &self.id)
    }

    pub fn decode(token: &str) -> Result<Cursor, Problem> {
        let (created_at, id) = crate::core::page::read_after(token, super::ids::is_playbook_id)?;
        Ok(Cursor { created_at, id })
    }
}

/// What the directory does with a command, decided from the playbook as it stands (its row, with
/// no page) and the id of the active playbook that holds the name the command would give it.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // lives for one change; over the limit on 64-bit hosts only
pub enum Decision {
    /// Keep this record; `keep_page` keeps the page the playbook already holds.
    Save(Save),
    /// Nothing to change: answer the playbook as it stands.
    Unchanged,
}

impl Command {
    pub fn id(&self) -> &str {
        match self {
            Command::Create { id, .. }
            | Command::Update { id, .. }
            | Command::Retire { id, .. }
            | Command::Restore { id, .. } => id,
        }
    }

    /// The name the playbook will hold once the command is done, where it must be free.
    pub fn claimed_name<'a>(&'a self, current: Option<&'a Playbook>) -> Option<&'a str> {
        match self {
            Command::Create { changes, .. } | Command::Update { changes, .. } => {
                changes.name.as_deref().or(current.map(|c| c.name.as_str()))
            }
            Command::Restore { .. } => current.map(|c| c.name.as_str()),
            Command::Retire { .. } => None,
        }
    }
}

/// The refusal of an id that names no playbook of the org.
pub fn unknown_playbook(id: &str) -> Problem {
    Problem::not_found(format!(
        "No playbook {id} is in this org. list_playbooks lists its playbooks, with include_retired for retired ones."
    ))
    .with_field("/playbook", "names no playbook of this org")
}

/// The refusal of a change to a retired playbook, or to anything in it, such as a definition.
pub fn retired_playbook(name: &str) -> Problem {
    Problem::conflict(format!(
        "The playbook {} is retired, and nothing in a retired playbook changes. Restore it with restore_playbook first.",
        super::text::quote(name)
    ))
}

pub fn decide(command: &Command, current: Option<&Playbook>, name_held_by: Option<&str>) -> Result<Decision, Problem> {
    let taken = |name: &str| {
        Problem::conflict(format!(
            "An active playbook of this org is already called {}. Give this one another name, or retire or rename the other first.",
            super::text::quote(name)
        ))
        .with_field("/name", "is the name of another active playbook")
    };
    let held_by_other = |id: &str| name_held_by.is_some_and(|holder| holder != id);
    match (command, current) {
        (Command::Create { id, .. }, Some(_)) => {
            Err(Problem::conflict(format!("A playbook {id} exists already; nothing was created.")))
        }
        (Command::Create { id, changes, now, by }, None) => {
            let name = changes.name.clone().unwrap_or_default();
            if held_by_other(id) {
                return Err(taken(&name));
            }
            Ok(Decision::Save(Save {
                record: Playbook {
                    id: id.clone(),
                    name,
                    description: changes.description.clone().unwrap_or_default(),
                    status: Status::Active,
                    created_at: now.clone(),
                    updated_at: now.clone(),
                    retired_at: None,
                    page: changes.page.clone().unwrap_or_default(),
                    created_by: Some(by.clone()),
                    updated_by: Some(by.clone()),
                    retired_by: None,
                },
                keep_page: false,
            }))
        }
        (_, None) => Err(unknown_playbook(command.id())),
        (Command::Update { id, changes, now, by }, Some(cur)) => {
            if cur.is_retired() {
                return Err(retired_playbook(&cur.name));
            }
            let name = changes.name.clone().unwrap_or_else(|| cur.name.clone());
            if changes.name.is_some() && held_by_other(id) {
                return Err(taken(&name));
            }
            let description = changes.description.clone().unwrap_or_else(|| cur.description.clone());
            if name == cur.name && description == cur.description && changes.page.is_none() {
                return Ok(Decision::Unchanged);
            }
            let mut record = cur.clone();
            record.name = name;
            record.description = description;
            record.updated_at = now.clone();
            record.updated_by = Some(by.clone());
            record.page = changes.page.clone().unwrap_or_default();
            Ok(Decision::Save(Save { record, keep_page: changes.page.is_none() }))
        }
        (Command::Retire { now, by, .. }, Some(cur)) => {
            if cur.is_retired() {
                return Ok(Decision::Unchanged);
            }
            let mut record = cur.clone();
            record.status = Status::Retired;
            record.retired_at = Some(now.clone());
            record.retired_by = Some(by.clone());
            record.updated_at = now.clone();
            record.updated_by = Some(by.clone());
            Ok(Decision::Save(Save { record, keep_page: true }))
        }
        (Command::Restore { id, now, by }, Some(cur)) => {
            if !cur.is_retired() {
                return Ok(Decision::Unchanged);
            }
            if held_by_other(id) {
                return Err(taken(&cur.name));
            }
            let mut record = cur.clone();
            record.status = Status::Active;
            record.retired_at = None;
            record.retired_by = None;
            record.updated_at = now.clone();
            record.updated_by = Some(by.clone());
            Ok(Decision::Save(Save { record, keep_page: true }))
        }
    }
}

#[cfg(test)]
mod tests {
    fn row(id: &str, name: &str, status: Status) -> Playbook {
        Playbook {
            id: id.into(),
            name: name.into(),
            description: String::new(),
            status,
            created_at: "t0".into(),
            updated_at: "t0".into(),
            retired_at: None,
            page: String::new(),
            created_by: None,
            updated_by: None,
            retired_by: None,
        }
    }

    fn ada() -> Actor {
        Actor::of(&crate::core::Caller::local(Some("ada".into())))
    }

    fn named(name: &str) -> Changes {
        Changes { name: Some(name.into()), ..Changes::default() }
    }

    #[test]
    fn names_stay_unique_among_active_playbooks() {
        let create = Command::Create { id: "pb_a".into(), changes: named("Close"), now: "t1".into(), by: ada() };
        assert!(matches!(decide(&create, None, None), Ok(Decision::Save(_))));
        let p = decide(&create, None, Some("pb_b")).unwrap_err();
        assert_eq!((p.reason, p.errors[0].pointer.as_str()), (super::super::Reason::Conflict, "/name"));
        let cur = row("pb_a", "Close", Status::Active);
        let rename_to_self =
            Command::Update { id: "pb_a".into(), changes: named("Close"), now: "t1".into(), by: ada() };
        assert_eq!(decide(&rename_to_self, Some(&cur), Some("pb_a")), Ok(Decision::Unchanged));
        let retired = row("pb_a", "Close", Status::Retired);
        let restore = Command::Restore { id: "pb_a".into(), now: "t2".into(), by: ada() };
        assert!(decide(&restore, Some(&retired), Some("pb_b")).is_err());
        assert!(matches!(decide(&restore, Some(&retired), None), Ok(Decision::Save(_))));
    }

    #[test]
    fn retire_and_restore_are_idempotent_and_retired_playbooks_do_not_change() {
        let retired = row("pb_a", "Close", Status::Retired);
        let retire = Command::Retire { id: "pb_a".into(), now: "t2".into(), by: ada() };
        assert_eq!(decide(&retire, Some(&retired), None), Ok(Decision::Unchanged));
        let active = row("pb_a", "Close", Status::Active);
        match decide(&retire, Some(&active), None) {
            Ok(Decision::Save(s)) => {
                assert_eq!(s.record.status, Status::Retired);
                assert_eq!(s.record.retired_at.as_deref(), Some("t2"));
                assert_eq!(s.record.retired_by, Some(ada()), "a retire records who did it");
                assert!(s.keep_page);
            }
            other => panic!("{other:?}"),
        }
        let update = Command::Update { id: "pb_a".into(), changes: named("New"), now: "t3".into(), by: ada() };
        assert_eq!(decide(&update, Some(&retired), None).unwrap_err().reason, super::super::Reason::Conflict);
        assert_eq!(decide(&update, None, None).unwrap_err().reason, super::super::Reason::NotFound);
    }

    use super::*;

    #[test]
    fn cursor_round_trips_and_refuses_junk() {
        let c = Cursor { created_at: "2026-12-02T10:00:00.000Z".into(), id: "pb_aaaaaaaaaaaaaaaa".into() };
        assert_eq!(Cursor::decode(&c.encode()), Ok(c));
        for junk in ["zz", "abc", "", "6162"] {
            assert_eq!(Cursor::decode(junk).unwrap_err().errors[0].pointer, "/cursor");
        }
    }

    #[test]
    fn commands_travel_as_tagged_json() {
        let c = Command::Retire { id: "pb_x".into(), now: "t".into(), by: ada() };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["op"], "retire");
        assert_eq!(serde_json::from_value::<Command>(v).unwrap(), c);
    }
}
