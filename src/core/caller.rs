//! Who a request acts as: resolved once per request by the shell and handed to every operation.

use serde::{Deserialize, Serialize};

/// A permission an operation needs. Every tool names the one it needs; `allows` is the only check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    #[serde(rename = "org:read")]
    OrgRead,
    #[serde(rename = "org:write")]
    OrgWrite,
    #[serde(rename = "playbook:read")]
    PlaybookRead,
    #[serde(rename = "playbook:write")]
    PlaybookWrite,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::OrgRead, Scope::OrgWrite, Scope::PlaybookRead, Scope::PlaybookWrite];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::OrgRead => "org:read",
            Scope::OrgWrite => "org:write",
            Scope::PlaybookRead => "playbook:read",
            Scope::PlaybookWrite => "playbook:write",
        }
    }
}

/// What kind of principal the caller is; each kind carries what only it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// Local mode: the developer at this computer, by the account name the runtime runs as, if known.
    LocalDeveloper { account: Option<String> },
    /// An API key, by the name it was given.
    Key { name: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub id: String,
    pub principal: Principal,
    pub org: String,
    pub scopes: Vec<Scope>,
}

impl Caller {
    /// The local developer in the org `local`, with every permission.
    pub fn local(account: Option<String>) -> Self {
        let account = account.map(|a| a.trim().to_string()).filter(|a| !a.is_empty());
        Caller {
            id: "local".into(),
            principal: Principal::LocalDeveloper { account },
            org: "local".into(),
            scopes: Scope::ALL.to_vec(),
        }
    }

    pub fn allows(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }

    /// May act on every playbook of the org and change the org: the caller an empty org welcomes.
    pub fn may_make_first_playbook(&self) -> bool {
        self.allows(Scope::OrgWrite) && self.allows(Scope::PlaybookWrite)
    }

    /// The sentence of the instructions that says whom a connection acts as.
    pub fn acts_as_sentence(&self) -> String {
        match &self.principal {
            Principal::LocalDeveloper { account: Some(name) } => {
                format!("This connection acts as the local developer {name} ({}) in the org {}.", self.id, self.org)
            }
            Principal::LocalDeveloper { account: None } => {
                format!("This connection acts as the local developer ({}) in the org {}.", self.id, self.org)
            }
            Principal::Key { name } => format!("This connection acts as the key {name} in the org {}.", self.org),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_developer_is_named_when_known() {
        let c = Caller::local(Some("ada".into()));
        assert_eq!(c.acts_as_sentence(), "This connection acts as the local developer ada (local) in the org local.");
        let c = Caller::local(Some("  ".into()));
        assert_eq!(c.acts_as_sentence(), "This connection acts as the local developer (local) in the org local.");
        assert!(c.may_make_first_playbook());
    }
}
