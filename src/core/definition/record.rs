//! A definition as the playbook keeps it: its current state, its versions, and the lifecycle
//! rules of pause, resume, retire and restore, decided without storage.

use serde::{Deserialize, Serialize};

use super::{Kind, Ref};
use crate::core::actor::Actor;
use crate::core::error::Problem;
use crate::core::text::quote;

crate::core::json::tagged::tagged! {
    /// Where a definition stands; each state carries what only it has.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum DefinitionStatus as "status" {
        Active,
        /// Nothing starts a run of it until it is resumed.
        Paused {
            paused_at: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            reason: Option<String>,
            /// Who paused it, or restored it (which brings it back paused).
            #[serde(default, skip_serializing_if = "Option::is_none")]
            by: Option<Actor>,
        },
        /// Kept with its name and history; restoring brings it back paused.
        Retired {
            retired_at: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            by: Option<Actor>,
        },
    }
}

impl DefinitionStatus {
    pub fn word(&self) -> &'static str {
        match self {
            DefinitionStatus::Active => "active",
            DefinitionStatus::Paused { .. } => "paused",
            DefinitionStatus::Retired { .. } => "retired",
        }
    }
}

/// The current state of a definition: the row the playbook lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Definition {
    #[serde(rename = "type")]
    pub kind: Kind,
    pub name: String,
    pub version: u32,
    #[serde(flatten)]
    pub status: DefinitionStatus,
    pub description: String,
    pub has_page: bool,
    /// The tool a workflow offers itself as, on a playbook's run-mode endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<crate::core::definition::workflow_tool::ToolOffer>,
    pub created_at: String,
    pub updated_at: String,
    /// Who saved the first version, and who saved the current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_by: Option<Actor>,
}

/// One saved version: the document as written, with what was given beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Version {
    pub version: u32,
    pub source: String,
    pub overview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<String>,
    pub uses: Vec<Ref>,
    pub saved_at: String,
    /// Who saved this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<Actor>,
}

crate::core::json::tagged::tagged! {
    /// A change of state a caller asks for.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Lifecycle as "op" {
        Pause { reason: Option<String> },
        Resume,
        Retire,
        Restore,
    }
}

impl Lifecycle {
    /// The status after the change, or `None` when the definition already stands so (each
    /// change is idempotent).
    pub fn next(&self, def: &Definition, now: &str, by: &Actor) -> Result<Option<DefinitionStatus>, Problem> {
        let by = Some(by.clone());
        use DefinitionStatus as S;
        let retired = || {
            Problem::conflict(format!(
                "The {} {} is retired; restore it with restore_definition first, and it comes back paused.",
                def.kind.noun(),
                quote(&def.name)
            ))
        };
        Ok(match (self, &def.status) {
            (Lifecycle::Pause { .. }, S::Retired { .. }) | (Lifecycle::Resume, S::Retired { .. }) => {
                return Err(retired())
            }
            (Lifecycle::Pause { reason }, S::Paused { reason: was, .. }) if reason.is_none() || reason == was => None,
            (Lifecycle::Pause { reason }, S::Paused { paused_at, .. }) => {
                Some(S::Paused { paused_at: paused_at.clone(), reason: reason.clone(), by })
            }
            (Lifecycle::Pause { reason }, S::Active) => {
                Some(S::Paused { paused_at: now.into(), reason: reason.clone(), by })
            }
            (Lifecycle::Resume, S::Active) => None,
            (Lifecycle::Resume, S::Paused { .. }) => Some(S::Active),
            (Lifecycle::Retire, S::Retired { .. }) => None,
            (Lifecycle::Retire, _) => Some(S::Retired { retired_at: now.into(), by }),
            (Lifecycle::Restore, S::Retired { .. }) => Some(S::Paused { paused_at: now.into(), reason: None, by }),
            (Lifecycle::Restore, _) => None,
        })
    }
}

/// The refusal of a name that no definition of the type holds in the playbook.
pub fn unknown_definition(kind: Kind, name: &str) -> Problem {
    Problem::not_found(format!(
        "This playbook holds no {} {}. list_definitions with type {} lists those it holds.",
        kind.noun(),
        quote(name),
        kind.as_str()
    ))
    .with_field("/name", "names no definition of this type in the playbook")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> Actor {
        Actor::of(&crate::core::Caller::local(Some("ada".into())))
    }

    fn def(status: DefinitionStatus) -> Definition {
        Definition {
            kind: Kind::Computation,
            name: "add-vat".into(),
            version: 1,
            status,
            description: "d".into(),
            has_page: false,
            tool: None,
            created_at: "t0".into(),
            updated_at: "t0".into(),
            created_by: None,
            updated_by: None,
        }
    }

    #[test]
    fn lifecycle_is_idempotent_and_restore_comes_back_paused() {
        let active = def(DefinitionStatus::Active);
        let paused = Lifecycle::Pause { reason: Some("holiday".into()) }.next(&active, "t1", &ada()).unwrap().unwrap();
        let by = Some(ada());
        assert_eq!(paused, DefinitionStatus::Paused { paused_at: "t1".into(), reason: Some("holiday".into()), by });
        assert_eq!(Lifecycle::Pause { reason: None }.next(&def(paused.clone()), "t2", &ada()).unwrap(), None);
        assert_eq!(Lifecycle::Resume.next(&active, "t2", &ada()).unwrap(), None);
        let retired = def(DefinitionStatus::Retired { retired_at: "t3".into(), by: None });
        assert!(Lifecycle::Resume.next(&retired, "t4", &ada()).is_err());
        assert_eq!(Lifecycle::Retire.next(&retired, "t4", &ada()).unwrap(), None);
        assert!(matches!(
            Lifecycle::Restore.next(&retired, "t4", &ada()).unwrap(),
            Some(DefinitionStatus::Paused { .. })
        ));
        let json = serde_json::to_value(def(paused)).unwrap();
        assert_eq!((json["status"].as_str(), json["reason"].as_str()), (Some("paused"), Some("holiday")));
        assert_eq!(json["by"]["name"], "ada", "a pause records who paused");
    }
}
