//! The authorization server's grants, in the Access object, found by the digest of any of their
//! codes and tokens, and the roles sign-in reads. Each command reads, decides in core and writes
//! with no wait between, so it is atomic.

use chrono::{DateTime, Utc};

use super::AccessObject;
use crate::core::access::oauth::client::Client;
use crate::core::access::oauth::error::OAuthError;
use crate::core::access::oauth::exchange::{exchange_code, refresh, Decision, TokenResponse};
use crate::core::access::oauth::grant::Grant;
use crate::core::access::oauth::person::Person;
use crate::core::access::oauth::secret;
use crate::core::access::oauth::token::{admit, authenticate, TokenRequest};
use crate::core::access::role::{Role, RoleAssignment};
use crate::core::access::store::{IssueToken, RevokeToken, Verified, VerifyToken};
use crate::core::Problem;
use crate::shell::objects::records::{encode, time};

impl AccessObject {
    pub(super) fn token(&self, issue: IssueToken) -> Result<Result<TokenResponse, OAuthError>, Problem> {
        let IssueToken { client, auth, request, now, fresh } = issue;
        let presented = match &request {
            TokenRequest::Code(c) => &c.code,
            TokenRequest::Refresh(r) => &r.refresh_token,
        };
        let decided = (|| -> Result<Decision, OAuthError> {
            let client = client
                .filter(|c| c.client_id == auth.client_id)
                .ok_or_else(|| OAuthError::invalid_client("This client is not registered here; register it again."))?;
            admit(&client, &auth, &request)?;
            let grant = self.grant_of(presented).ok().flatten().ok_or_else(|| {
                OAuthError::invalid_grant("The code or refresh token is unknown, used or expired; sign in again.")
            })?;
            Ok(match &request {
                TokenRequest::Code(c) => exchange_code(&grant, c, now, &fresh),
                TokenRequest::Refresh(r) => refresh(&grant, r, now, &fresh),
            })
        })();
        let decision = match decided {
            Ok(d) => d,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(grant) = &decision.save {
            self.save(grant)?;
        }
        Ok(decision.answer)
    }

    pub(super) fn revoke_token(&self, revoke: RevokeToken) -> Result<Result<(), OAuthError>, Problem> {
        let RevokeToken { client, auth, token, now } = revoke;
        let client = client.filter(|c| c.client_id == auth.client_id);
        match client.as_ref().map(|c| authenticate(c, &auth)) {
            None => return Ok(Err(OAuthError::invalid_client("This client is not registered here."))),
            Some(Err(e)) => return Ok(Err(e)),
            Some(Ok(())) => {}
        }
        if let Some(revoked) = self.grant_of(&token)?.and_then(|g| g.revoke(&token, &auth.client_id, now)) {
            self.save(&revoked)?;
        }
        Ok(Ok(()))
    }

    pub(super) fn verify_token(&self, verify: VerifyToken) -> Result<Option<Verified>, Problem> {
        let VerifyToken { digest, now } = verify;
        let grant: Option<Grant> = self.record(
            "SELECT g.record FROM grants g JOIN grant_digests d ON d.grant_id = g.id WHERE d.digest = ?",
            &[&digest],
        )?;
        let Some(access) = grant.and_then(|g| g.verify_access(&digest, now)) else {
            return Ok(None);
        };
        let held: Option<RoleAssignment> =
            self.record("SELECT record FROM roles WHERE org = ? AND person = ?", &[&access.org, &access.person.id()])?;
        Ok(Some(Verified::of(access, held.map(|h| h.role))))
    }

    /// A client kept here before the Sign-in object kept them.
    pub(super) fn client(&self, client_id: &str) -> Result<Option<Client>, Problem> {
        self.record("SELECT record FROM clients WHERE client_id = ?", &[client_id])
    }

    fn grant_of(&self, credential: &str) -> Result<Option<Grant>, Problem> {
        self.record(
            "SELECT g.record FROM grants g JOIN grant_digests d ON d.grant_id = g.id WHERE d.digest = ?",
            &[&secret::digest(credential)],
        )
    }

    /// Keeps a grant and the digests it answers to now, and nothing it no longer answers to.
    pub(super) fn save(&self, grant: &Grant) -> Result<(), Problem> {
        self.run(
            "INSERT OR REPLACE INTO grants (id, record, useless_after) VALUES (?, ?, ?)",
            vec![grant.id.clone().into(), encode(grant)?.into(), time(grant.useless_after()).into()],
        )?;
        self.run("DELETE FROM grant_digests WHERE grant_id = ?", vec![grant.id.clone().into()])?;
        for digest in grant.digests() {
            self.run(
                "INSERT OR REPLACE INTO grant_digests (digest, grant_id) VALUES (?, ?)",
                vec![digest.to_string().into(), grant.id.clone().into()],
            )?;
        }
        Ok(())
    }

    /// Keeps a person's new grant, and forgets the grants nothing can use any more.
    pub(super) fn keep_grant(&self, grant: &Grant) -> Result<(), Problem> {
        let now = time(grant.created_at);
        self.run(
            "DELETE FROM grant_digests WHERE grant_id IN (SELECT id FROM grants WHERE useless_after < ?)",
            vec![now.clone().into()],
        )?;
        self.run("DELETE FROM grants WHERE useless_after < ?", vec![now.into()])?;
        self.save(grant)
    }

    /// The orgs the person holds a role in. First, where the operator named the person's
    /// verified address as an org's owner and the org has none yet, they become its owner; and
    /// each role they hold carries their name as it now stands.
    pub(super) fn roles_of(
        &self,
        person: &Person,
        owners: &[(String, String)],
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, Role)>, Problem> {
        let id = person.id();
        if let Some(email) = &person.email {
            for (org, _) in owners.iter().filter(|(_, o)| o.eq_ignore_ascii_case(email)) {
                let held: Vec<RoleAssignment> =
                    self.records("SELECT record FROM roles WHERE org = ? AND person = ?", &[org, &id])?;
                let org_owners: Vec<RoleAssignment> = self
                    .records("SELECT record FROM roles WHERE org = ?", &[org])?
                    .into_iter()
                    .filter(|a: &RoleAssignment| a.role == Role::Owner)
                    .collect();
                if held.is_empty() && org_owners.is_empty() {
                    let first = RoleAssignment {
                        org: org.clone(),
                        person: id.clone(),
                        name: person.name.clone(),
                        email: person.email.clone(),
                        role: Role::Owner,
                        assigned_at: now,
                        assigned_by: "operator".into(),
                    };
                    self.put_role(&first)?;
                }
            }
        }
        let mut held: Vec<RoleAssignment> = self.records("SELECT record FROM roles WHERE person = ?", &[&id])?;
        for a in held.iter_mut().filter(|a| a.name != person.name || a.email != person.email) {
            a.name = person.name.clone();
            a.email = person.email.clone();
            self.put_role(a)?;
        }
        Ok(held.into_iter().map(|a| (a.org, a.role)).collect())
    }

    pub(super) fn put_role(&self, a: &RoleAssignment) -> Result<(), Problem> {
        self.run(
            "INSERT OR REPLACE INTO roles (org, person, record) VALUES (?, ?, ?)",
            vec![a.org.clone().into(), a.person.clone().into(), encode(a)?.into()],
        )
    }
}
