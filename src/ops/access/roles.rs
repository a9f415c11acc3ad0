//! Who holds which role in each org: changed within the giver's role and scopes
//! (`core::access::store::change_role`), never leaving an org without an owner; and the roles
//! sign-in reads, where the operator's `OWNERS` make an org's first owner.

use chrono::{DateTime, Utc};

use super::AccessStore;
use crate::core::access::oauth::person::Person;
use crate::core::access::role::{Role, RoleAssignment};
use crate::core::access::store::{change_role, SetRole};
use crate::core::Problem;

/// The org's assignments, by person.
///
/// # Errors
/// A failed read.
pub fn list_roles(store: &dyn AccessStore, org: &str) -> Result<Vec<RoleAssignment>, Problem> {
    store.roles(org)
}

/// Gives a person a role or takes it away; answers the assignment made, or the one taken away.
///
/// # Errors
/// What `change_role` refuses; not found where a role to take away is not held; a failed read
/// or write.
pub fn set_role(store: &dyn AccessStore, set: SetRole) -> Result<RoleAssignment, Problem> {
    let SetRole { org, person, role, by, now } = set;
    let held = store.roles(&org)?;
    let before = held.iter().find(|a| a.person == person).cloned();
    match change_role(&held, &org, &person, role, &by, now)? {
        Some(assignment) => {
            store.put_role(&assignment)?;
            Ok(assignment)
        }
        None => {
            let Some(before) = before else {
                return Err(Problem::not_found(format!("{person} holds no role in the org {org}.")));
            };
            store.remove_role(&org, &person)?;
            Ok(before)
        }
    }
}

/// The orgs the person holds a role in, with that role. First, where the operator named the
/// person's address as an org's owner (`owners`, org and address) and the org has no owner yet,
/// they become its owner; and each role they hold takes their name as it now stands. A person's
/// address is there only where their provider marked it verified (`core::access::oidc`).
///
/// # Errors
/// A failed read or write; a stop keeps none of the writes.
pub fn roles_of(
    store: &dyn AccessStore,
    person: &Person,
    owners: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Vec<(String, Role)>, Problem> {
    let id = person.id();
    let mut made: Vec<RoleAssignment> = Vec::new();
    if let Some(email) = &person.email {
        for (org, _) in owners.iter().filter(|(_, o)| o.eq_ignore_ascii_case(email)) {
            let unowned = !store.roles(org)?.iter().any(|a| a.person == id || a.role == Role::Owner);
            if unowned && !made.iter().any(|m| &m.org == org) {
                made.push(RoleAssignment {
                    org: org.clone(),
                    person: id.clone(),
                    name: person.name.clone(),
                    email: person.email.clone(),
                    role: Role::Owner,
                    assigned_at: now,
                    assigned_by: "operator".into(),
                });
            }
        }
    }
    let mut held = store.roles_held(&id)?;
    let mut renamed = Vec::new();
    for a in held.iter_mut().filter(|a| a.name != person.name || a.email != person.email) {
        a.name = person.name.clone();
        a.email = person.email.clone();
        renamed.push(a.clone());
    }
    store.batch(&mut || made.iter().chain(&renamed).try_for_each(|a| store.put_role(a)))?;
    held.extend(made);
    Ok(held.into_iter().map(|a| (a.org, a.role)).collect())
}
