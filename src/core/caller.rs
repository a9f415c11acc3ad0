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

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.as_str() == s)
    }
}

/// What kind of principal the caller is; each kind carries what only it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// Local mode: the developer at this computer, by the account name the runtime runs as, if known.
    LocalDeveloper { account: Option<String> },
    /// An API key, by the name it was given; the caller's id is the key's id.
    Key { name: String },
    /// A person signed in through the runtime's authorization server; the caller's id is
    /// `person:<their id at the identity provider>`.
    Person { name: String, email: Option<String> },
    /// The operator, by the Worker secret `ADMIN_TOKEN`: manages the keys and roles of any org,
    /// and does nothing else.
    Operator,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub id: String,
    pub principal: Principal,
    pub org: String,
    pub scopes: Vec<Scope>,
    /// The playbooks a key is kept to; `None` reaches every playbook of the org.
    pub playbooks: Option<Vec<String>>,
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
            playbooks: None,
        }
    }

    /// The operator in the org a route names, for that route's access operations alone.
    pub fn operator(org: &str) -> Self {
        Caller {
            id: "operator".into(),
            principal: Principal::Operator,
            org: org.to_string(),
            scopes: Vec::new(),
            playbooks: None,
        }
    }

    /// Whether the caller may act inside this playbook: every playbook of its org, unless it
    /// is kept to some.
    pub fn reaches(&self, playbook: &str) -> bool {
        self.playbooks.as_ref().is_none_or(|kept| kept.iter().any(|p| p == playbook))
    }

    /// Whether the caller may manage the org's keys and roles: the local developer, the
    /// operator, or a person whose role holds `org:write`. A key never does.
    pub fn manages_access(&self) -> bool {
        match self.principal {
            Principal::LocalDeveloper { .. } | Principal::Operator => true,
            Principal::Person { .. } => self.allows(Scope::OrgWrite) && self.playbooks.is_none(),
            Principal::Key { .. } => false,
        }
    }

    pub fn allows(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }

    /// May act on every playbook of the org and change the org: the caller an empty org welcomes.
    pub fn may_make_first_playbook(&self) -> bool {
        self.allows(Scope::OrgWrite) && self.allows(Scope::PlaybookWrite) && self.playbooks.is_none()
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
            Principal::Person { name, .. } => {
                format!("This connection acts as {name} ({}) in the org {}.", self.id, self.org)
            }
            Principal::Operator => {
                "This connection acts as the operator, by ADMIN_TOKEN, which manages keys and roles and nothing else."
                    .to_string()
            }
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

    #[test]
    fn each_principal_says_whom_it_acts_as() {
        let ada = Caller {
            id: "person:user_2ada".into(),
            principal: Principal::Person { name: "Ada Lovelace".into(), email: None },
            org: "acme".into(),
            ..Caller::local(None)
        };
        assert_eq!(ada.acts_as_sentence(), "This connection acts as Ada Lovelace (person:user_2ada) in the org acme.");
        let key = Caller { principal: Principal::Key { name: "build-bot".into() }, ..ada.clone() };
        assert_eq!(key.acts_as_sentence(), "This connection acts as the key build-bot in the org acme.");
        assert!(!key.manages_access() && ada.manages_access() && Caller::operator("acme").manages_access());
        let reader = Caller { scopes: vec![Scope::OrgRead], ..ada };
        assert!(!reader.manages_access());
    }

    #[test]
    fn a_kept_caller_reaches_its_playbooks_alone() {
        let kept = Caller { playbooks: Some(vec!["pb_a".into()]), ..Caller::local(None) };
        assert!(kept.reaches("pb_a") && !kept.reaches("pb_b"));
        assert!(!kept.may_make_first_playbook());
        assert!(Caller::local(None).reaches("pb_b"));
        assert_eq!(Scope::parse("org:read"), Some(Scope::OrgRead));
        assert_eq!(Scope::parse("org:admin"), None);
    }
}
