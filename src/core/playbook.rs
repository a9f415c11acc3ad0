//! A playbook: its record, its limits, and the checks a create or an update must pass.

use serde::{Deserialize, Serialize};

use super::actor::Actor;
use super::error::{FieldError, Problem};

pub const NAME_MAX_CHARS: usize = 80;
pub const DESCRIPTION_MAX_CHARS: usize = 1000;
pub const PAGE_MAX_BYTES: usize = 65_536;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Active,
    Retired,
}

/// The whole record, as the playbook's Durable Object keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Playbook {
    pub id: String,
    pub name: String,
    pub description: String,
    pub status: Status,
    pub created_at: String,
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<String>,
    pub page: String,
    /// Who made the playbook and who last changed it; records kept before these were recorded
    /// have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_by: Option<Actor>,
}

impl Playbook {
    /// The record as `list_playbooks` shows it: every field but the page.
    pub fn listed(&self) -> Result<serde_json::Value, super::Problem> {
        let mut v = super::error::encoded(self)?;
        if let Some(o) = v.as_object_mut() {
            o.remove("page");
        }
        Ok(v)
    }

    pub fn is_retired(&self) -> bool {
        self.status == Status::Retired
    }

    /// What to keep when `incoming` is saved over `stored`: a save that changes nothing but the
    /// time keeps the record as it was, so that repeating an update changes nothing at all.
    pub fn settle(stored: Option<Playbook>, incoming: Playbook) -> Playbook {
        match stored {
            Some(s)
                if Playbook {
                    updated_at: s.updated_at.clone(),
                    updated_by: s.updated_by.clone(),
                    ..incoming.clone()
                } == s =>
            {
                s
            }
            _ => incoming,
        }
    }
}

/// The fields a create sets and an update may change; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Changes {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub page: Option<String>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.description.is_none() && self.page.is_none()
    }

    /// The checks a schema cannot say in words an agent can act on. Lengths are checked again
    /// here so that the rule holds whichever door the input came through.
    pub fn check(&self) -> Result<(), Problem> {
        let mut errors = Vec::new();
        if let Some(name) = &self.name {
            if let Some(why) = name_problem(name) {
                errors.push(FieldError::new("/name", why));
            }
        }
        if let Some(d) = &self.description {
            if d.chars().count() > DESCRIPTION_MAX_CHARS {
                errors.push(FieldError::new(
                    "/description",
                    format!("is longer than {DESCRIPTION_MAX_CHARS} characters"),
                ));
            }
        }
        if let Some(p) = &self.page {
            if p.len() > PAGE_MAX_BYTES {
                errors.push(FieldError::new(
                    "/page",
                    format!("is {} bytes, more than the {PAGE_MAX_BYTES} a page may hold", p.len()),
                ));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Problem::invalid_fields(errors))
        }
    }
}

fn name_problem(name: &str) -> Option<String> {
    let n = name.chars().count();
    if n == 0 || name.trim().is_empty() {
        return Some("must not be empty".into());
    }
    if n > NAME_MAX_CHARS {
        return Some(format!("is {n} characters, more than the {NAME_MAX_CHARS} a name may have"));
    }
    if name.chars().any(char::is_control) {
        return Some("must not contain control characters such as a line break or a tab".into());
    }
    if name.trim() != name {
        return Some("must not start or end with white space".into());
    }
    None
}

/// The key under which a name is unique among an org's active playbooks.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str) -> Changes {
        Changes { name: Some(name.into()), ..Changes::default() }
    }

    #[test]
    fn names_are_checked_with_a_pointer() {
        assert!(named("Monthly close").check().is_ok());
        for bad in ["", "   ", " padded", "two\nlines", &"n".repeat(81)] {
            let p = named(bad).check().unwrap_err();
            assert_eq!(p.errors[0].pointer, "/name", "{bad:?}");
        }
        assert!(named(&"é".repeat(80)).check().is_ok());
    }

    #[test]
    fn page_limit_counts_bytes() {
        let c = Changes { page: Some("é".repeat(PAGE_MAX_BYTES / 2 + 1)), ..Changes::default() };
        assert_eq!(c.check().unwrap_err().errors[0].pointer, "/page");
    }

    #[test]
    fn a_save_that_changes_nothing_keeps_the_time() {
        let stored = Playbook {
            id: "pb_x".into(),
            name: "n".into(),
            description: String::new(),
            status: Status::Active,
            created_at: "t0".into(),
            updated_at: "t1".into(),
            retired_at: None,
            page: String::new(),
            created_by: None,
            updated_by: None,
            retired_by: None,
        };
        let same = Playbook { updated_at: "t2".into(), ..stored.clone() };
        assert_eq!(Playbook::settle(Some(stored.clone()), same).updated_at, "t1");
        let other = Playbook { page: "p".into(), updated_at: "t2".into(), ..stored.clone() };
        assert_eq!(Playbook::settle(Some(stored), other).updated_at, "t2");
    }

    #[test]
    fn listed_leaves_out_the_page() {
        let p = Playbook {
            id: "pb_x".into(),
            name: "n".into(),
            description: String::new(),
            status: Status::Active,
            created_at: "t".into(),
            updated_at: "t".into(),
            retired_at: None,
            page: "# Page".into(),
            created_by: None,
            updated_by: None,
            retired_by: None,
        };
        assert!(p.listed().unwrap().get("page").is_none());
        assert_eq!(p.listed().unwrap()["status"], "active");
    }
}
