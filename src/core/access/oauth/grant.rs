//! A grant: what a person allowed one client to do, and the code and tokens that carry it.
//!
//! The shell keeps each grant as one row of a SQLite Durable Object, which runs one request at a
//! time; every transition reads the row, decides here, and writes the row back before answering.
//! Only digests of codes and tokens are kept, and `digests` lists the ones to look a grant up by.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::authorize::AuthorizeRequest;
use super::error::{Code, OAuthError};
use super::person::Person;
use super::resource::Resource;
use super::secret;
use crate::core::access::role::{self, Role};
use crate::core::caller::{Principal, Scope};
use crate::core::Caller;

pub const CODE_TTL: TimeDelta = TimeDelta::minutes(10);
pub const ACCESS_TTL: TimeDelta = TimeDelta::hours(1);
/// Counted from each refresh, so a person who keeps working stays signed in.
pub const REFRESH_TTL: TimeDelta = TimeDelta::days(30);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub id: String,
    pub client_id: String,
    pub person: Person,
    pub org: String,
    /// What the person allowed: never more than the client asked for.
    pub scopes: Vec<Scope>,
    pub resource: Resource,
    pub created_at: DateTime<Utc>,
    pub stage: Stage,
}

crate::core::json::tagged::tagged! {
    /// Where a grant is in its life; each stage carries what only it has.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Stage as "stage" {
        /// The person consented and the code is out.
        Pending {
            code: AuthCode,
        },
        /// The code was exchanged; its digest stays so that a second use is recognised.
        Active {
            used_code: String,
            tokens: Tokens,
        },
        Revoked {
            at: DateTime<Utc>,
            why: Revocation,
        },
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthCode {
    pub digest: String,
    pub redirect_uri: String,
    pub redirect_uri_given: bool,
    pub challenge: String,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    /// Access tokens not yet expired, oldest first; a refresh leaves the earlier ones working.
    pub access: Vec<AccessToken>,
    /// The newest refresh tokens: one, or a few minted from `parent` by concurrent refreshes.
    pub refresh: Vec<Issued>,
    /// The refresh token those were minted from, accepted again for a short grace (see `exchange`).
    pub parent: Option<Parent>,
    /// Digests of the refresh tokens used before the parent, newest last: one presented again
    /// was copied, so it ends the grant (see `exchange`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessToken {
    pub digest: String,
    pub expires_at: DateTime<Utc>,
    /// Those of the grant, or fewer if the refresh that minted it asked for fewer.
    pub scopes: Vec<Scope>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issued {
    pub digest: String,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parent {
    pub digest: String,
    pub used_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Revocation {
    /// A client revoked one of its tokens (RFC 7009).
    ByClient,
    /// The code was presented twice, so someone else may hold it (OAuth 2.1 §4.1.3).
    CodeReused,
    /// A refresh token used already was presented past its grace, so someone else may hold one
    /// of the grant's tokens (RFC 9700 §4.14.2).
    RefreshReused,
    /// The person or an admin ended it.
    Ended,
}

/// What a valid access token lets the shell act as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub grant_id: String,
    pub client_id: String,
    pub person: Person,
    pub org: String,
    pub scopes: Vec<Scope>,
    pub resource: Resource,
    pub expires_at: DateTime<Utc>,
}

impl Access {
    /// The caller a request acts as, its scopes narrowed to the role the person holds now. A
    /// token for one playbook's endpoint reaches that playbook alone.
    pub fn caller(&self, role: Option<Role>) -> Caller {
        let playbooks = match &self.resource {
            Resource::Playbook { playbook, .. } | Resource::Run { playbook: Some(playbook), .. } => {
                Some(vec![playbook.clone()])
            }
            _ => None,
        };
        Caller {
            id: self.person.id(),
            principal: Principal::Person { name: self.person.name.clone(), email: self.person.email.clone() },
            org: self.org.clone(),
            scopes: role::narrow(&self.scopes, role),
            playbooks,
        }
    }
}

/// `now + delta`, saturating instead of panicking at the end of time.
pub(super) fn later(now: DateTime<Utc>, delta: TimeDelta) -> DateTime<Utc> {
    now.checked_add_signed(delta).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl Grant {
    /// The grant a person's consent makes, with its code in plain words for the redirect. The
    /// scopes are those both asked for and allowed; a resource that names an org must name `org`.
    pub fn new(
        id: &[u8; 16],
        request: &AuthorizeRequest,
        person: Person,
        org: &str,
        allowed: &[Scope],
        now: DateTime<Utc>,
        code: &secret::Bytes,
    ) -> Result<(Grant, String), OAuthError> {
        if request.resource.org().is_some_and(|o| o != org) {
            return Err(OAuthError::new(Code::InvalidTarget, format!("The resource is not in the org {org}.")));
        }
        let plain = secret::mint(secret::CODE_PREFIX, code);
        let grant = Grant {
            id: secret::mint(secret::GRANT_ID_PREFIX, id),
            client_id: request.client_id.clone(),
            person,
            org: org.to_string(),
            scopes: request.scopes.iter().copied().filter(|s| allowed.contains(s)).collect(),
            resource: request.resource.clone(),
            created_at: now,
            stage: Stage::Pending {
                code: AuthCode {
                    digest: secret::digest(&plain),
                    redirect_uri: request.redirect_uri.clone(),
                    redirect_uri_given: request.redirect_uri_given,
                    challenge: request.code_challenge.clone(),
                    expires_at: later(now, CODE_TTL),
                },
            },
        };
        Ok((grant, plain))
    }

    /// The digests the shell indexes this grant by; a revoked grant answers to none.
    pub fn digests(&self) -> Vec<&str> {
        match &self.stage {
            Stage::Pending { code } => vec![&code.digest],
            Stage::Active { used_code, tokens } => std::iter::once(used_code.as_str())
                .chain(tokens.access.iter().map(|t| t.digest.as_str()))
                .chain(tokens.refresh.iter().map(|t| t.digest.as_str()))
                .chain(tokens.parent.iter().map(|p| p.digest.as_str()))
                .chain(tokens.retired.iter().map(String::as_str))
                .collect(),
            Stage::Revoked { .. } => Vec::new(),
        }
    }

    /// When nothing of the grant can be used any more, so the shell may delete it.
    pub fn useless_after(&self) -> DateTime<Utc> {
        match &self.stage {
            Stage::Pending { code } => code.expires_at,
            Stage::Active { tokens, .. } => {
                let expiries =
                    tokens.access.iter().map(|t| t.expires_at).chain(tokens.refresh.iter().map(|t| t.expires_at));
                expiries.max().unwrap_or(self.created_at)
            }
            Stage::Revoked { at, .. } => *at,
        }
    }

    /// What the access token with this digest lets a request do, if it is one of this grant's
    /// and has not expired.
    pub fn verify_access(&self, digest: &str, now: DateTime<Utc>) -> Option<Access> {
        let Stage::Active { tokens, .. } = &self.stage else {
            return None;
        };
        let token = tokens.access.iter().find(|t| secret::same(&t.digest, digest) && now < t.expires_at)?;
        Some(Access {
            grant_id: self.id.clone(),
            client_id: self.client_id.clone(),
            person: self.person.clone(),
            org: self.org.clone(),
            scopes: token.scopes.clone(),
            resource: self.resource.clone(),
            expires_at: token.expires_at,
        })
    }

    /// RFC 7009: revoking any access or refresh token of the grant ends the whole grant, since a
    /// client revokes to sign out. `None` when nothing changes: the token is not this grant's, or
    /// belongs to another client. The endpoint answers 200 either way, telling nothing.
    pub fn revoke(&self, token: &str, client_id: &str, now: DateTime<Utc>) -> Option<Grant> {
        let Stage::Active { tokens, .. } = &self.stage else {
            return None;
        };
        let digest = secret::digest(token);
        let ours = tokens.access.iter().map(|t| &t.digest).chain(tokens.refresh.iter().map(|t| &t.digest));
        let ours = ours.chain(tokens.parent.iter().map(|p| &p.digest)).any(|d| secret::same(d, &digest));
        (ours && client_id == self.client_id).then(|| self.end(now, Revocation::ByClient))
    }

    /// The grant revoked, for whatever reason.
    pub fn end(&self, now: DateTime<Utc>, why: Revocation) -> Grant {
        Grant { stage: Stage::Revoked { at: now, why }, ..self.clone() }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::access::oauth::pkce;
    use chrono::TimeZone;

    pub const PB: &str = "pb_abcdefghijklmnop";
    pub const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

    pub fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap()
    }

    pub fn ada() -> Person {
        Person { sub: "user_2ada".into(), name: "Ada Lovelace".into(), email: Some("ada@acme.example".into()) }
    }

    pub fn request(resource: Resource) -> AuthorizeRequest {
        AuthorizeRequest {
            client_id: "pbcl_app".into(),
            redirect_uri: "https://app.example/cb".into(),
            redirect_uri_given: true,
            code_challenge: pkce::challenge_of(VERIFIER),
            scopes: Scope::ALL.to_vec(),
            state: Some("s".into()),
            resource,
        }
    }

    /// A pending grant for the org acme and its code.
    pub fn pending(resource: Resource) -> (Grant, String) {
        Grant::new(&[3; 16], &request(resource), ada(), "acme", &Scope::ALL, t0(), &[4; 32]).unwrap()
    }

    #[test]
    fn consent_makes_a_pending_grant() {
        let (grant, code) = pending(Resource::Org { org: "acme".into() });
        assert!(code.starts_with("pbac_") && grant.id.starts_with("gr_"));
        assert_eq!(grant.digests(), [secret::digest(&code).as_str()]);
        assert_eq!(grant.useless_after(), t0() + CODE_TTL);
        assert!(grant.verify_access(&secret::digest(&code), t0()).is_none());
        let fewer = Grant::new(&[3; 16], &request(Resource::Mcp), ada(), "acme", &[Scope::OrgRead], t0(), &[4; 32]);
        assert_eq!(fewer.unwrap().0.scopes, [Scope::OrgRead]);
        let elsewhere = Grant::new(
            &[3; 16],
            &request(Resource::Org { org: "globex".into() }),
            ada(),
            "acme",
            &Scope::ALL,
            t0(),
            &[4; 32],
        );
        assert_eq!(elsewhere.unwrap_err().code, Code::InvalidTarget);
        let kept: Grant = serde_json::from_value(serde_json::to_value(&grant).unwrap()).unwrap();
        assert_eq!(kept, grant);
    }

    #[test]
    fn a_playbook_token_reaches_its_playbook() {
        let access = Access {
            grant_id: "gr_x".into(),
            client_id: "pbcl_app".into(),
            person: ada(),
            org: "acme".into(),
            scopes: Scope::ALL.to_vec(),
            resource: Resource::Playbook { org: "acme".into(), playbook: PB.into() },
            expires_at: t0(),
        };
        let caller = access.caller(Some(Role::Editor));
        assert_eq!(caller.id, "person:user_2ada");
        assert_eq!(caller.scopes, [Scope::OrgRead, Scope::PlaybookRead, Scope::PlaybookWrite]);
        assert!(caller.reaches(PB) && !caller.reaches("pb_other"));
        // The person's role was taken away: the token still verifies, and grants nothing.
        assert_eq!(access.caller(None).scopes, []);
    }
}
