//! Who made a record: the caller behind a request, or the trigger or workflow step that started a
//! run. Kept on every record a person or key makes, so an agent can tell the person it acts for
//! from the others.

use serde::{Deserialize, Serialize};

use super::caller::{Caller, Principal};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActorKind {
    /// The developer at this computer, in local mode.
    LocalDeveloper,
    /// An API key, by the name it was given.
    Key,
    /// A person signed in through the runtime's authorization server.
    Person,
    /// The operator, by `ADMIN_TOKEN`.
    Operator,
    /// A workflow's trigger: a schedule, an interval, set times or an event.
    Trigger,
    /// A workflow run's step, which started a run of its function.
    Workflow,
    /// A tool that read a person's reply, by its `server/tool`.
    Tool,
    /// A rehearsal's stand-in, which answered in a person's place.
    StandIn,
}

/// `{kind, id, name}`: a stable id to compare, and a name to say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub kind: ActorKind,
    pub id: String,
    pub name: String,
}

impl Actor {
    pub fn of(caller: &Caller) -> Self {
        match &caller.principal {
            Principal::LocalDeveloper { account } => Actor {
                kind: ActorKind::LocalDeveloper,
                id: caller.id.clone(),
                name: account.clone().unwrap_or_else(|| "the local developer".into()),
            },
            Principal::Key { name } => Actor { kind: ActorKind::Key, id: caller.id.clone(), name: name.clone() },
            Principal::Person { name, .. } => {
                Actor { kind: ActorKind::Person, id: caller.id.clone(), name: name.clone() }
            }
            Principal::Operator => {
                Actor { kind: ActorKind::Operator, id: caller.id.clone(), name: "the operator".into() }
            }
        }
    }

    /// A trigger of a workflow, by its place in the workflow's `triggers`.
    pub fn trigger(workflow: &str, index: i64) -> Self {
        Actor {
            kind: ActorKind::Trigger,
            id: format!("workflow/{workflow}/triggers/{index}"),
            name: format!("the trigger {index} of the workflow {}", super::text::quote(workflow)),
        }
    }

    /// A tool that read a person's reply to a request it was sent through.
    pub fn tool(named: &str) -> Self {
        Actor { kind: ActorKind::Tool, id: named.to_string(), name: format!("the tool {named}") }
    }

    /// The stand-in that answered a rehearsal's request in the place of a person.
    pub fn stand_in(function: &str) -> Self {
        Actor {
            kind: ActorKind::StandIn,
            id: format!("stand_ins/people/{function}"),
            name: "the rehearsal's stand-in".into(),
        }
    }

    /// A workflow run's step: the id names the workflow run, the name its step.
    pub fn step(workflow_run: &str, step: &str) -> Self {
        Actor { kind: ActorKind::Workflow, id: workflow_run.to_string(), name: step.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_is_named_by_its_account_or_key() {
        let local = Actor::of(&Caller::local(Some("ada".into())));
        assert_eq!((local.kind, local.id.as_str(), local.name.as_str()), (ActorKind::LocalDeveloper, "local", "ada"));
        assert_eq!(Actor::of(&Caller::local(None)).name, "the local developer");
        let key = Caller {
            principal: Principal::Key { name: "build-bot".into() },
            id: "key_1".into(),
            ..Caller::local(None)
        };
        assert_eq!(
            serde_json::to_value(Actor::of(&key)).ok(),
            Some(serde_json::json!({"kind": "key", "id": "key_1", "name": "build-bot"}))
        );
    }
}
