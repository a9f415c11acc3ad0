//! What the runtime's Access object is asked to keep for sign-in and roles, one request each,
//! and the pure decisions it applies to the roles it holds.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::oauth::authorize::AuthorizeRequest;
use super::oauth::client::Client;
use super::oauth::exchange::Fresh;
use super::oauth::grant::{Access, Grant};
use super::oauth::person::Person;
use super::oauth::token::{ClientAuth, TokenRequest};
use super::role::{keeps_an_owner, may_change, Role, RoleAssignment};
use crate::core::Problem;

/// A sign-in at the identity provider in flight: the client's request, and what the runtime
/// must check when the provider sends the person back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub request: AuthorizeRequest,
    pub client_name: String,
    /// The runtime's own PKCE verifier and nonce for the provider.
    pub verifier: String,
    pub nonce: String,
    pub expires_at: DateTime<Utc>,
    /// The digest of the browser's binding cookie (`session::BROWSER_COOKIE`).
    #[serde(default)]
    pub browser: String,
}

/// A person signed in, waiting on the consent page: what they may allow, in which orgs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Consent {
    pub request: AuthorizeRequest,
    pub client_name: String,
    pub person: Person,
    /// The orgs the person holds a role in that the request may act in, with that role.
    pub orgs: Vec<(String, Role)>,
    /// The digest of the value the page's form and cookie both carry.
    pub csrf: String,
    pub expires_at: DateTime<Utc>,
}

/// What a valid access token is, with the role its person holds now in its org.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verified {
    pub grant_id: String,
    pub person: Person,
    pub org: String,
    pub scopes: Vec<crate::core::caller::Scope>,
    pub resource: super::oauth::resource::Resource,
    pub role: Option<Role>,
}

impl Verified {
    pub fn of(access: Access, role: Option<Role>) -> Verified {
        Verified {
            grant_id: access.grant_id,
            person: access.person,
            org: access.org,
            scopes: access.scopes,
            resource: access.resource,
            role,
        }
    }

    pub fn caller(&self) -> crate::core::Caller {
        Access {
            grant_id: self.grant_id.clone(),
            client_id: String::new(),
            person: self.person.clone(),
            org: self.org.clone(),
            scopes: self.scopes.clone(),
            resource: self.resource.clone(),
            expires_at: DateTime::<Utc>::MAX_UTC,
        }
        .caller(self.role)
    }
}

// What sign-in asks the Access object, one request per step; each is atomic there.

/// Keeps a client: one registered, or one read from its metadata document. Registered clients
/// nobody signed in with are forgotten after `client::UNUSED_TTL`, and the oldest of them once
/// `client::UNUSED_MAX` wait, so open registration cannot fill the store.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PutClient {
    pub client: Client,
    pub now: DateTime<Utc>,
}

/// The client kept under this id in the Access object, where clients were kept before the
/// sign-in store: read once, then kept in the sign-in store.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GetClient {
    pub client_id: String,
}

/// The client the sign-in store keeps under this id, and when it was kept.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FindClient {
    pub client_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptClient {
    pub client: Client,
    pub kept_at: DateTime<Utc>,
}

/// Keeps a sign-in in flight by the digest of its `state`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BeginSignIn {
    pub state: String,
    pub pending: Pending,
}

/// Takes a sign-in in flight, once; none when unknown, used or expired.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TakePending {
    pub state: String,
    pub now: DateTime<Utc>,
}

/// The orgs a person holds a role in, with that role, after making them owner where the
/// operator named their verified address (`OWNERS`) and the org has no owner yet.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RolesOf {
    pub person: Person,
    pub owners: Vec<(String, String)>,
    pub now: DateTime<Utc>,
}

/// Keeps a consent waiting on its page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PutConsent {
    pub id: String,
    pub consent: Consent,
}

/// Takes a consent, once, if its form carried the page's value; none otherwise.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TakeConsent {
    pub id: String,
    pub csrf: String,
    pub now: DateTime<Utc>,
}

/// Keeps a grant, found later by the digest of any of its codes and tokens.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SaveGrant {
    pub grant: Grant,
}

/// A token request, decided and kept in one step, so two refreshes meet one after the other.
/// It answers the tokens, or the OAuth error the client is sent.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IssueToken {
    /// The client `auth` names, as the sign-in store keeps it; none where it is not known.
    pub client: Option<Client>,
    pub auth: ClientAuth,
    pub request: TokenRequest,
    pub now: DateTime<Utc>,
    pub fresh: Fresh,
}

/// A client's revocation of a token, answered as the OAuth revocation endpoint answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RevokeToken {
    /// The client `auth` names, as the sign-in store keeps it; none where it is not known.
    pub client: Option<Client>,
    pub auth: ClientAuth,
    pub token: String,
    pub now: DateTime<Utc>,
}

/// The access token with this digest, with its person's role now; none for a token unknown,
/// revoked or expired.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerifyToken {
    pub digest: String,
    pub now: DateTime<Utc>,
}

/// Who changes a role: the operator and the local developer may change any; a person by the
/// role they hold in the org.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assigner {
    pub id: String,
    /// Whether the caller is above roles: the operator or the local developer.
    pub above_roles: bool,
    /// What the caller may do in this request: a person's token carries what they allowed a
    /// client, so a role is given or taken only where each of its scopes is in these.
    #[serde(default)]
    pub scopes: Vec<crate::core::caller::Scope>,
}

/// The org's role assignments, by person.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ListRoles {
    pub org: String,
}

/// Gives `person` the role, or takes their role away when `role` is none; answers the
/// assignment made, or the one taken away.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SetRole {
    pub org: String,
    pub person: String,
    pub role: Option<Role>,
    pub by: Assigner,
    pub now: DateTime<Utc>,
}

/// What a change of one person's role makes of the org's assignments, or why it is refused.
/// `assignments` are the org's as they stand.
pub fn change_role(
    assignments: &[RoleAssignment],
    org: &str,
    person: &str,
    role: Option<Role>,
    by: &Assigner,
    now: DateTime<Utc>,
) -> Result<Option<RoleAssignment>, Problem> {
    let current = assignments.iter().find(|a| a.person == person);
    if !by.above_roles {
        let beyond = [current.map(|c| c.role), role]
            .into_iter()
            .flatten()
            .find(|r| r.scopes().iter().any(|s| !by.scopes.contains(s)));
        if let Some(r) = beyond {
            let held: Vec<&str> = by.scopes.iter().map(|s| s.as_str()).collect();
            return Err(Problem::forbidden(format!(
                "The role {} grants more than this request may do ({}): a role is given or taken only up to what the giver holds. Sign in again allowing every scope of the role.",
                r.as_str(),
                if held.is_empty() { "nothing".to_string() } else { held.join(", ") }
            )));
        }
        let mine = assignments.iter().find(|a| a.person == by.id).map(|a| a.role);
        let allowed = mine.is_some_and(|m| may_change(m, current.map(|c| c.role), role));
        if !allowed {
            let what = match role {
                Some(r) => format!("give the role {}", r.as_str()),
                None => "take a role away".to_string(),
            };
            return Err(Problem::forbidden(format!(
                "Your role in the org {org} does not let you {what} here: owners change every role, admins every role but owner."
            )));
        }
    }
    keeps_an_owner(assignments, person, role)?;
    Ok(role.map(|role| RoleAssignment {
        org: org.to_string(),
        person: person.to_string(),
        name: current.map_or_else(|| person.to_string(), |c| c.name.clone()),
        email: current.and_then(|c| c.email.clone()),
        role,
        assigned_at: now,
        assigned_by: by.id.clone(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::caller::Scope;
    use chrono::TimeZone;

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 4, 10, 0, 0).unwrap()
    }

    fn held(person: &str, role: Role) -> RoleAssignment {
        RoleAssignment {
            org: "acme".into(),
            person: person.into(),
            name: person.into(),
            email: None,
            role,
            assigned_at: at(),
            assigned_by: "operator".into(),
        }
    }

    #[test]
    fn roles_change_by_the_assigner_role_and_keep_an_owner() {
        let org = [held("person:ada", Role::Owner), held("person:bob", Role::Admin), held("person:cy", Role::Viewer)];
        let by = |id: &str| Assigner { id: id.into(), above_roles: false, scopes: Scope::ALL.to_vec() };
        let operator = Assigner { id: "operator".into(), above_roles: true, scopes: Vec::new() };
        let made = change_role(&org, "acme", "person:dee", Some(Role::Editor), &by("person:bob"), at()).unwrap();
        assert_eq!(made.map(|a| (a.role, a.assigned_by)), Some((Role::Editor, "person:bob".to_string())));
        assert!(
            change_role(&org, "acme", "person:ada", None, &by("person:bob"), at()).is_err(),
            "an admin keeps owners"
        );
        assert!(change_role(&org, "acme", "person:dee", Some(Role::Viewer), &by("person:cy"), at()).is_err());
        assert!(change_role(&org, "acme", "person:dee", Some(Role::Viewer), &by("person:zed"), at()).is_err());
        let last = change_role(&org, "acme", "person:ada", None, &operator, at()).unwrap_err();
        assert_eq!(last.status(), 409, "the last owner stays");
        assert_eq!(change_role(&org, "acme", "person:cy", None, &operator, at()).unwrap(), None);
    }

    #[test]
    fn a_role_is_given_and_taken_only_up_to_what_the_giver_holds_now() {
        let org = [held("person:ada", Role::Owner), held("person:cy", Role::Viewer)];
        // Ada, owner, through a client she allowed org:write alone.
        let narrow = Assigner { id: "person:ada".into(), above_roles: false, scopes: vec![Scope::OrgWrite] };
        for role in Role::ALL {
            let refused = change_role(&org, "acme", "person:dee", Some(role), &narrow, at()).unwrap_err();
            assert_eq!(refused.status(), 403, "{}", role.as_str());
            assert!(refused.detail.contains("up to what the giver holds"), "{}", refused.detail);
        }
        assert!(change_role(&org, "acme", "person:cy", None, &narrow, at()).is_err(), "nor taken away");
        let editorial = Assigner {
            scopes: vec![Scope::OrgRead, Scope::OrgWrite, Scope::PlaybookRead, Scope::PlaybookWrite],
            ..narrow.clone()
        };
        assert!(change_role(&org, "acme", "person:dee", Some(Role::Owner), &editorial, at()).is_ok());
        let no_org_read =
            Assigner { scopes: vec![Scope::OrgWrite, Scope::PlaybookRead, Scope::PlaybookWrite], ..narrow };
        assert!(change_role(&org, "acme", "person:dee", Some(Role::Editor), &no_org_read, at()).is_err());
    }
}
