//! The authorization server's grants, found by the digest of any of their codes and tokens: a
//! token request decided by `core::access::oauth::exchange` and kept in the same step, so two
//! refreshes of one grant meet one after the other; a revocation; and an access token verified
//! with its person's role as it stands now.

use super::AccessStore;
use crate::core::access::oauth::error::OAuthError;
use crate::core::access::oauth::exchange::{exchange_code, refresh, Decision, TokenResponse};
use crate::core::access::oauth::grant::Grant;
use crate::core::access::oauth::secret;
use crate::core::access::oauth::token::{admit, authenticate, TokenRequest};
use crate::core::access::store::{IssueToken, RevokeToken, Verified, VerifyToken};
use crate::core::Problem;

/// Answers a token request: the tokens, or the OAuth error the client is sent.
///
/// # Errors
/// A failed write of the grant; a stop keeps none of it.
pub fn token(store: &dyn AccessStore, issue: IssueToken) -> Result<Result<TokenResponse, OAuthError>, Problem> {
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
        let grant = grant_of(store, presented).ok().flatten().ok_or_else(|| {
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
        store.batch(&mut || store.put_grant(grant))?;
    }
    Ok(decision.answer)
}

/// A client's revocation of a token, which ends its whole grant; answered as RFC 7009 answers,
/// alike for a token known or not.
///
/// # Errors
/// A failed read or write.
pub fn revoke_token(store: &dyn AccessStore, revoke: RevokeToken) -> Result<Result<(), OAuthError>, Problem> {
    let RevokeToken { client, auth, token, now } = revoke;
    let client = client.filter(|c| c.client_id == auth.client_id);
    match client.as_ref().map(|c| authenticate(c, &auth)) {
        None => return Ok(Err(OAuthError::invalid_client("This client is not registered here."))),
        Some(Err(e)) => return Ok(Err(e)),
        Some(Ok(())) => {}
    }
    if let Some(revoked) = grant_of(store, &token)?.and_then(|g| g.revoke(&token, &auth.client_id, now)) {
        store.batch(&mut || store.put_grant(&revoked))?;
    }
    Ok(Ok(()))
}

/// The access token with this digest at `now`, with its person's role now; none for one unknown,
/// revoked or expired.
///
/// # Errors
/// A failed read.
pub fn verify_token(store: &dyn AccessStore, verify: VerifyToken) -> Result<Option<Verified>, Problem> {
    let VerifyToken { digest, now } = verify;
    let Some(access) = store.grant(&digest)?.and_then(|g| g.verify_access(&digest, now)) else {
        return Ok(None);
    };
    let held = store.role(&access.org, &access.person.id())?;
    Ok(Some(Verified::of(access, held.map(|h| h.role))))
}

/// Keeps a person's new grant, and forgets the grants nothing can use any more.
///
/// # Errors
/// A failed write; a stop keeps none of it.
pub fn keep_grant(store: &dyn AccessStore, grant: &Grant) -> Result<(), Problem> {
    store.batch(&mut || {
        store.sweep_grants(grant.created_at)?;
        store.put_grant(grant)
    })
}

fn grant_of(store: &dyn AccessStore, credential: &str) -> Result<Option<Grant>, Problem> {
    store.grant(&secret::digest(credential))
}
