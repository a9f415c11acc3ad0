//! Who holds which role in each org, in the Access object.

use serde_json::{json, Value};

use super::AccessObject;
use crate::core::access::role::RoleAssignment;
use crate::core::access::store::{change_role, RoleCommand};
use crate::core::Problem;

impl AccessObject {
    pub(super) fn roles(&self, command: RoleCommand) -> Result<Value, Problem> {
        match command {
            RoleCommand::List { org } => {
                let held: Vec<RoleAssignment> =
                    self.records("SELECT record FROM roles WHERE org = ? ORDER BY person", &[&org])?;
                Ok(json!({ "assignments": held }))
            }
            RoleCommand::Set { org, person, role, by, now } => {
                let held: Vec<RoleAssignment> = self.records("SELECT record FROM roles WHERE org = ?", &[&org])?;
                let before = held.iter().find(|a| a.person == person).cloned();
                match change_role(&held, &org, &person, role, &by, now)? {
                    Some(assignment) => {
                        self.put_role(&assignment)?;
                        Ok(json!({ "assignment": assignment }))
                    }
                    None => {
                        let Some(before) = before else {
                            return Err(Problem::not_found(format!("{person} holds no role in the org {org}.")));
                        };
                        self.run("DELETE FROM roles WHERE org = ? AND person = ?", vec![org.into(), person.into()])?;
                        Ok(json!({ "assignment": before }))
                    }
                }
            }
        }
    }
}
