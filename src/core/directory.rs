//! The org's directory of playbooks: the commands that change it, the list query, and its cursor.
//! These travel as JSON between the Worker and the organization's Durable Object.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::Problem;
use super::playbook::Changes;

pub const LIST_LIMIT_DEFAULT: usize = 50;
pub const LIST_LIMIT_MAX: usize = 100;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Command {
    Create { id: String, changes: Changes, now: String },
    Update { id: String, changes: Changes, now: String },
    Retire { id: String, now: String },
    Restore { id: String, now: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListQuery {
    pub include_retired: bool,
    pub limit: usize,
    pub after: Option<Cursor>,
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
    /// An opaque token: hex of `created_at id`, so that callers pass it back rather than build it.
    pub fn encode(&self) -> String {
        format!("{} {}", self.created_at, self.id).bytes().map(|b| format!("{b:02x}")).collect()
    }

    pub fn decode(token: &str) -> Result<Cursor, Problem> {
        let bad = || Problem::invalid("/cursor", "is not a cursor this list gave; pass next_cursor as it came");
        if token.len() % 2 != 0 || token.len() > 256 {
            return Err(bad());
        }
        let bytes: Option<Vec<u8>> =
            (0..token.len()).step_by(2).map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok()).collect();
        let text = String::from_utf8(bytes.ok_or_else(bad)?).map_err(|_| bad())?;
        let (created_at, id) = text.split_once(' ').ok_or_else(bad)?;
        if !super::ids::is_playbook_id(id) || created_at.is_empty() {
            return Err(bad());
        }
        Ok(Cursor { created_at: created_at.to_string(), id: id.to_string() })
    }
}

#[cfg(test)]
mod tests {
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
        let c = Command::Retire { id: "pb_x".into(), now: "t".into() };
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["op"], "retire");
        assert_eq!(serde_json::from_value::<Command>(v).unwrap(), c);
    }
}
