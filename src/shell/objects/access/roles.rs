//! Who holds which role in each org, in the Access object.

use super::AccessObject;
use crate::core::access::role::RoleAssignment;
use crate::core::access::store::{change_role, SetRole};
use crate::core::Problem;

impl AccessObject {
    pub(super) fn list_roles(&self, org: &str) -> Result<Vec<RoleAssignment>, Problem> {
        self.records("SELECT record FROM roles WHERE org = ? ORDER BY person", &[org])
    }

    pub(super) fn set_role(&self, set: SetRole) -> Result<RoleAssignment, Problem> {
        let SetRole { org, person, role, by, now } = set;
        let held: Vec<RoleAssignment> = self.records("SELECT record FROM roles WHERE org = ?", &[&org])?;
        let before = held.iter().find(|a| a.person == person).cloned();
        match change_role(&held, &org, &person, role, &by, now)? {
            Some(assignment) => {
                self.put_role(&assignment)?;
                Ok(assignment)
            }
            None => {
                let Some(before) = before else {
                    return Err(Problem::not_found(format!("{person} holds no role in the org {org}.")));
                };
                self.run("DELETE FROM roles WHERE org = ? AND person = ?", vec![org.into(), person.into()])?;
                Ok(before)
            }
        }
    }
}
