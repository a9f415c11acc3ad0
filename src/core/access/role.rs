//! The roles a person holds in an org, and the scopes each grants.
//!
//! A person's token carries what they allowed when they consented; each request is narrowed to
//! what their role grants now, so taking a role away takes effect at once, without revoking tokens.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::caller::Scope;
use crate::core::{FieldError, Problem};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Everything, including making and unmaking owners.
    Owner,
    /// Everything an owner does except touching the owner role.
    Admin,
    /// Reads the org; reads and changes its playbooks.
    Editor,
    /// Reads.
    Viewer,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Owner, Role::Admin, Role::Editor, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Admin => "admin",
            Role::Editor => "editor",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// Whether the role manages the org's keys and roles: owner and admin, whose scopes hold
    /// `org:write`.
    pub fn manages_access(self) -> bool {
        self.scopes().contains(&Scope::OrgWrite)
    }

    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Role::Owner | Role::Admin => &Scope::ALL,
            Role::Editor => &[Scope::OrgRead, Scope::PlaybookRead, Scope::PlaybookWrite],
            Role::Viewer => &[Scope::OrgRead, Scope::PlaybookRead],
        }
    }
}

/// What a person's token may do in this request: what they allowed, and their role grants. A
/// person without a role in the org gets nothing.
pub fn narrow(allowed: &[Scope], role: Option<Role>) -> Vec<Scope> {
    let granted = role.map_or(&[][..], Role::scopes);
    Scope::ALL.into_iter().filter(|s| allowed.contains(s) && granted.contains(s)).collect()
}

/// Whether a person holding `assigner` may give someone `role`: owners give any role, admins
/// any but owner, editors and viewers none.
pub fn may_assign(assigner: Role, role: Role) -> bool {
    match assigner {
        Role::Owner => true,
        Role::Admin => role != Role::Owner,
        Role::Editor | Role::Viewer => false,
    }
}

/// Whether `assigner` may take `current` away from someone: the same rule, so an admin cannot
/// demote an owner.
pub fn may_remove(assigner: Role, current: Role) -> bool {
    may_assign(assigner, current)
}

/// Whether `assigner` may move someone from `current` to `next` (`None`: no role).
pub fn may_change(assigner: Role, current: Option<Role>, next: Option<Role>) -> bool {
    current.is_none_or(|c| may_remove(assigner, c)) && next.is_none_or(|n| may_assign(assigner, n))
}

/// One person's role in one org.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleAssignment {
    pub org: String,
    /// The caller id `person:<subject at the identity provider>`.
    pub person: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    pub role: Role,
    pub assigned_at: DateTime<Utc>,
    /// The caller id of whoever assigned it.
    pub assigned_by: String,
}

/// Refuses a change that would leave an org that has an owner without one, since nobody but the
/// operator could then make owners again. `assignments` are the org's as they stand.
pub fn keeps_an_owner(assignments: &[RoleAssignment], person: &str, next: Option<Role>) -> Result<(), Problem> {
    let owners = assignments.iter().filter(|a| a.role == Role::Owner);
    let others = owners.clone().filter(|a| a.person != person).count();
    let was_owner = owners.count() > others;
    if was_owner && others == 0 && next != Some(Role::Owner) {
        return Err(Problem::conflict(format!(
            "{person} is the last owner of the org; make another person owner first."
        )));
    }
    Ok(())
}

/// The body of `assign_role`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignRole {
    pub person: String,
    pub role: Role,
}

impl AssignRole {
    /// Reads `{person, role}`; other fields are left to the operation's schema.
    pub fn parse(body: &Value) -> Result<AssignRole, Problem> {
        let Some(doc) = body.as_object() else {
            return Err(Problem::invalid("", "The body must be a JSON object with person and role."));
        };
        let mut errors = Vec::new();
        let person = match doc.get("person").and_then(Value::as_str) {
            Some(p) if is_person_id(p) => Some(p.to_string()),
            _ => {
                errors.push(FieldError::new(
                    "/person",
                    "must be a person's id, person:<their id at the identity provider>",
                ));
                None
            }
        };
        let role = doc.get("role").and_then(Value::as_str).and_then(Role::parse);
        if role.is_none() {
            errors.push(FieldError::new("/role", "must be owner, admin, editor or viewer"));
        }
        match (person, role) {
            (Some(person), Some(role)) => Ok(AssignRole { person, role }),
            _ => Err(Problem::invalid_fields(errors)),
        }
    }
}

/// `person:` and a subject of 1 to 255 visible characters.
pub fn is_person_id(id: &str) -> bool {
    id.strip_prefix("person:")
        .is_some_and(|sub| (1..=255).contains(&sub.len()) && sub.chars().all(|c| !c.is_whitespace() && !c.is_control()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    #[test]
    fn roles_grant_scopes() {
        assert_eq!(Role::Owner.scopes(), Scope::ALL);
        assert_eq!(Role::Admin.scopes(), Scope::ALL);
        assert_eq!(Role::Editor.scopes(), [Scope::OrgRead, Scope::PlaybookRead, Scope::PlaybookWrite]);
        assert_eq!(Role::Viewer.scopes(), [Scope::OrgRead, Scope::PlaybookRead]);
        assert_eq!(serde_json::to_value(Role::Editor).unwrap(), json!("editor"));
        assert_eq!(Role::parse("admin"), Some(Role::Admin));
        assert_eq!(Role::parse("Admin"), None);
    }

    #[test]
    fn narrowing() {
        assert_eq!(narrow(&Scope::ALL, Some(Role::Viewer)), [Scope::OrgRead, Scope::PlaybookRead]);
        assert_eq!(
            narrow(&[Scope::PlaybookWrite, Scope::OrgRead], Some(Role::Owner)),
            [Scope::OrgRead, Scope::PlaybookWrite]
        );
        assert_eq!(narrow(&[Scope::OrgWrite], Some(Role::Editor)), []);
        // The role taken away: the token still says what the person allowed, and grants nothing.
        assert_eq!(narrow(&Scope::ALL, None), []);
    }

    #[test]
    fn who_assigns_what() {
        assert!(Role::ALL.iter().all(|r| may_assign(Role::Owner, *r)));
        assert!(may_assign(Role::Admin, Role::Admin) && may_assign(Role::Admin, Role::Viewer));
        assert!(!may_assign(Role::Admin, Role::Owner));
        assert!(!may_assign(Role::Editor, Role::Viewer) && !may_assign(Role::Viewer, Role::Viewer));
        assert!(!may_remove(Role::Admin, Role::Owner) && may_remove(Role::Owner, Role::Owner));
        assert!(!may_change(Role::Admin, Some(Role::Owner), Some(Role::Editor)));
        assert!(may_change(Role::Admin, Some(Role::Editor), None));
        assert!(may_change(Role::Admin, None, Some(Role::Admin)));
        assert!(!may_change(Role::Admin, None, Some(Role::Owner)));
    }

    fn assignment(person: &str, role: Role) -> RoleAssignment {
        RoleAssignment {
            org: "acme".into(),
            person: person.into(),
            name: person.into(),
            email: None,
            role,
            assigned_at: Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap(),
            assigned_by: "operator".into(),
        }
    }

    #[test]
    fn the_last_owner_stays() {
        let one = [assignment("person:ada", Role::Owner), assignment("person:bob", Role::Admin)];
        let refused = keeps_an_owner(&one, "person:ada", Some(Role::Admin)).unwrap_err();
        assert_eq!(refused.reason, crate::core::Reason::Conflict);
        assert!(keeps_an_owner(&one, "person:ada", None).is_err());
        assert!(keeps_an_owner(&one, "person:ada", Some(Role::Owner)).is_ok());
        assert!(keeps_an_owner(&one, "person:bob", None).is_ok());
        let two = [assignment("person:ada", Role::Owner), assignment("person:bob", Role::Owner)];
        assert!(keeps_an_owner(&two, "person:ada", None).is_ok());
        // An org the operator filled without an owner is not stuck.
        let none = [assignment("person:bob", Role::Admin)];
        assert!(keeps_an_owner(&none, "person:bob", None).is_ok());
    }

    #[test]
    fn assign_role_bodies() {
        let ok = AssignRole::parse(&json!({"person": "person:user_2ada", "role": "editor"})).unwrap();
        assert_eq!(ok, AssignRole { person: "person:user_2ada".into(), role: Role::Editor });
        let refused = AssignRole::parse(&json!({"person": "ada", "role": "boss"})).unwrap_err();
        let pointers: Vec<&str> = refused.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, ["/person", "/role"]);
        let refused = AssignRole::parse(&json!({"person": "person: ada", "role": "owner"})).unwrap_err();
        assert_eq!(refused.errors[0].pointer, "/person");
        assert!(AssignRole::parse(&json!({"role": "owner"})).is_err());
        assert_eq!(AssignRole::parse(&json!("x")).unwrap_err().errors[0].pointer, "");
        let json = serde_json::to_value(assignment("person:ada", Role::Owner)).unwrap();
        assert_eq!(json["role"], "owner");
        assert!(json.get("email").is_none());
    }
}
