//! The token endpoint's two transitions of a grant: a code for tokens, and a refresh token for
//! new ones. Each returns the grant to save (if it changed) and the answer to send.
//!
//! Refresh tokens rotate, and two refreshes with the same token must not sign the person out:
//! clients refresh from several places at once, and with plain rotation the loser of the race
//! holds a dead token. So the refresh token a rotation consumed (the parent) stays accepted for
//! `REFRESH_GRACE`, and only until one of the tokens minted from it is used: each use in the grace
//! mints a sibling that stays valid beside the others, so whichever answer the client kept works.
//! Past the grace, a token used already is proof that two parties hold the grant's tokens: the
//! thief or the person, nobody can tell which, so the grant ends with every token it gave (RFC
//! 9700 §4.14.2). The grant remembers the last `RETIRED_KEPT` tokens it rotated for this; one
//! older still is refused as unknown. A sibling never used and dropped is refused, not a proof.

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::error::{Code, OAuthError};
use super::grant::{later, AccessToken, Grant, Issued, Parent, Revocation, Stage, Tokens, ACCESS_TTL, REFRESH_TTL};
use super::resource::Resource;
use super::{pkce, secret};
use crate::core::caller::Scope;

pub const REFRESH_GRACE: TimeDelta = TimeDelta::minutes(2);
/// Siblings kept from one parent: more concurrent refreshes than this drop the oldest.
const MAX_SIBLINGS: usize = 4;
/// Unexpired access tokens kept per grant: beyond this the oldest stop working early.
const MAX_ACCESS: usize = 8;
/// Refresh tokens used before the parent that a grant remembers, so that one replayed ends it.
pub const RETIRED_KEPT: usize = 16;

/// Random bytes for one token response.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fresh {
    pub access: secret::Bytes,
    pub refresh: secret::Bytes,
}

/// An `authorization_code` token request, its client already authenticated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeExchange {
    pub code: String,
    pub client_id: String,
    pub redirect_uri: Option<String>,
    pub code_verifier: String,
    pub resource: Option<Resource>,
}

/// A `refresh_token` token request, its client already authenticated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefreshRequest {
    pub refresh_token: String,
    pub client_id: String,
    /// Fewer scopes than the grant's for the new access token; `None` keeps the grant's.
    pub scopes: Option<Vec<Scope>>,
    pub resource: Option<Resource>,
}

/// The token response of RFC 6749 §5.1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: i64,
    pub refresh_token: String,
    pub scope: String,
}

/// What the shell does: save `save` if there is one, then send `answer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub save: Option<Grant>,
    pub answer: Result<TokenResponse, OAuthError>,
}

impl Decision {
    fn refuse(error: OAuthError) -> Decision {
        Decision { save: None, answer: Err(error) }
    }
}

/// Exchanges a code. A code works once, within `CODE_TTL`, for the client, redirect URI, PKCE
/// verifier and resource it was issued with; presented again, it revokes the grant.
pub fn exchange_code(grant: &Grant, request: &CodeExchange, now: DateTime<Utc>, fresh: &Fresh) -> Decision {
    let digest = secret::digest(&request.code);
    let code = match &grant.stage {
        Stage::Pending { code } if secret::same(&code.digest, &digest) => code,
        Stage::Active { used_code, .. } if secret::same(used_code, &digest) => {
            return Decision {
                save: Some(grant.end(now, Revocation::CodeReused)),
                answer: Err(OAuthError::invalid_grant(
                    "The code was already used, so the grant it made is revoked; start the authorization again.",
                )),
            };
        }
        _ => return Decision::refuse(OAuthError::invalid_grant("The code is not known, or was revoked.")),
    };
    let refusal = if now >= code.expires_at {
        Some(OAuthError::invalid_grant("The code expired; start the authorization again."))
    } else if request.client_id != grant.client_id {
        Some(OAuthError::invalid_grant("The code was issued to another client."))
    } else if request.redirect_uri.as_deref().map_or(code.redirect_uri_given, |u| u != code.redirect_uri) {
        Some(OAuthError::invalid_grant("The redirect_uri must be the one the authorization request named."))
    } else if !pkce::verify(&request.code_verifier, &code.challenge) {
        Some(OAuthError::invalid_grant("The code_verifier does not match the code_challenge."))
    } else {
        wrong_resource(grant, request.resource.as_ref())
    };
    if let Some(error) = refusal {
        return Decision::refuse(error);
    }
    let tokens = Tokens { access: Vec::new(), refresh: Vec::new(), parent: None, retired: Vec::new() };
    issue(grant, digest, tokens, grant.scopes.clone(), now, fresh)
}

/// Trades a refresh token for new tokens; see the module's comment for the race.
pub fn refresh(grant: &Grant, request: &RefreshRequest, now: DateTime<Utc>, fresh: &Fresh) -> Decision {
    let Stage::Active { used_code, tokens } = &grant.stage else {
        return Decision::refuse(OAuthError::invalid_grant("The grant was revoked; sign in again."));
    };
    if request.client_id != grant.client_id {
        return Decision::refuse(OAuthError::invalid_grant("The refresh token was issued to another client."));
    }
    if let Some(error) = wrong_resource(grant, request.resource.as_ref()) {
        return Decision::refuse(error);
    }
    let scopes = match &request.scopes {
        Some(asked) if asked.iter().any(|s| !grant.scopes.contains(s)) => {
            return Decision::refuse(OAuthError::new(
                Code::InvalidScope,
                "A refresh cannot widen the scopes of its grant.",
            ))
        }
        Some(asked) => asked.clone(),
        None => grant.scopes.clone(),
    };
    let digest = secret::digest(&request.refresh_token);
    let mut next = tokens.clone();
    if let Some(current) = tokens.refresh.iter().find(|t| secret::same(&t.digest, &digest)) {
        if now >= current.expires_at {
            return Decision::refuse(OAuthError::invalid_grant("The refresh token expired; sign in again."));
        }
        // A new generation: its siblings are dropped, and this token becomes the parent.
        next.refresh.clear();
        if let Some(old) = next.parent.take() {
            next.retired.push(old.digest);
            let over = next.retired.len().saturating_sub(RETIRED_KEPT);
            next.retired.drain(..over);
        }
        next.parent = Some(Parent { digest, used_at: now });
    } else {
        let parent = tokens.parent.as_ref().filter(|p| secret::same(&p.digest, &digest));
        let retired = tokens.retired.iter().any(|r| secret::same(r, &digest));
        match parent {
            Some(p) if now < later(p.used_at, REFRESH_GRACE) => {
                if next.refresh.len() >= MAX_SIBLINGS {
                    next.refresh.remove(0);
                }
            }
            _ if parent.is_some() || retired => {
                return Decision {
                    save: Some(grant.end(now, Revocation::RefreshReused)),
                    answer: Err(OAuthError::invalid_grant(
                        "The refresh token was used already, so another party may hold this grant's tokens: the grant is revoked with every token it gave. Sign in again.",
                    )),
                };
            }
            _ => {
                return Decision::refuse(OAuthError::invalid_grant(
                    "The refresh token was already used, or is not known; use the newest one, or sign in again.",
                ))
            }
        }
    }
    issue(grant, used_code.clone(), next, scopes, now, fresh)
}

/// `invalid_target` when a token request names a resource other than the grant's (RFC 8707 §2.2).
fn wrong_resource(grant: &Grant, asked: Option<&Resource>) -> Option<OAuthError> {
    asked
        .filter(|r| **r != grant.resource)
        .map(|_| OAuthError::new(Code::InvalidTarget, "The resource is not the one this grant was made for."))
}

/// Mints an access and a refresh token into `tokens` and answers with them.
fn issue(
    grant: &Grant,
    used_code: String,
    mut tokens: Tokens,
    scopes: Vec<Scope>,
    now: DateTime<Utc>,
    fresh: &Fresh,
) -> Decision {
    let access = secret::mint(secret::ACCESS_PREFIX, &fresh.access);
    let refresh = secret::mint(secret::REFRESH_PREFIX, &fresh.refresh);
    tokens.access.retain(|t| now < t.expires_at);
    if tokens.access.len() >= MAX_ACCESS {
        tokens.access.remove(0);
    }
    let expires_at = later(now, ACCESS_TTL);
    tokens.access.push(AccessToken { digest: secret::digest(&access), expires_at, scopes: scopes.clone() });
    tokens.refresh.push(Issued { digest: secret::digest(&refresh), expires_at: later(now, REFRESH_TTL) });
    let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
    let answer = TokenResponse {
        access_token: access,
        token_type: "Bearer".into(),
        expires_in: ACCESS_TTL.num_seconds(),
        refresh_token: refresh,
        scope: names.join(" "),
    };
    Decision { save: Some(Grant { stage: Stage::Active { used_code, tokens }, ..grant.clone() }), answer: Ok(answer) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::access::oauth::grant::tests::{pending, t0, PB, VERIFIER};
    use crate::core::access::oauth::grant::CODE_TTL;

    fn fresh(n: u8) -> Fresh {
        Fresh { access: [n; 32], refresh: [n.wrapping_add(100); 32] }
    }

    fn exchange(code: &str) -> CodeExchange {
        CodeExchange {
            code: code.into(),
            client_id: "pbcl_app".into(),
            redirect_uri: Some("https://app.example/cb".into()),
            code_verifier: VERIFIER.into(),
            resource: None,
        }
    }

    fn refreshing(token: &str) -> RefreshRequest {
        RefreshRequest { refresh_token: token.into(), client_id: "pbcl_app".into(), scopes: None, resource: None }
    }

    /// An active grant for `/mcp` and its first tokens.
    fn active() -> (Grant, TokenResponse) {
        let (grant, code) = pending(Resource::Mcp);
        let d = exchange_code(&grant, &exchange(&code), t0(), &fresh(1));
        (d.save.unwrap(), d.answer.unwrap())
    }

    fn code_of(d: &Decision) -> Code {
        d.answer.as_ref().unwrap_err().code
    }

    #[test]
    fn a_code_buys_tokens_once() {
        let (grant, code) = pending(Resource::Mcp);
        let d = exchange_code(&grant, &exchange(&code), t0(), &fresh(1));
        let saved = d.save.unwrap();
        let answer = d.answer.unwrap();
        assert!(answer.access_token.starts_with("pbat_") && answer.refresh_token.starts_with("pbrt_"));
        assert_eq!((answer.token_type.as_str(), answer.expires_in), ("Bearer", 3600));
        assert_eq!(answer.scope, "org:read org:write playbook:read playbook:write");
        let json = serde_json::to_value(&answer).unwrap();
        assert_eq!(json["token_type"], "Bearer");
        let access = saved.verify_access(&secret::digest(&answer.access_token), t0()).unwrap();
        assert_eq!((access.org.as_str(), access.resource), ("acme", Resource::Mcp));
        assert!(saved.verify_access(&secret::digest(&answer.access_token), t0() + ACCESS_TTL).is_none());
        assert!(saved.verify_access(&secret::digest(&answer.refresh_token), t0()).is_none());
        assert_eq!(saved.digests().len(), 3);

        // The code again: refused, and the grant it made is revoked with its tokens.
        let again = exchange_code(&saved, &exchange(&code), t0() + TimeDelta::seconds(5), &fresh(2));
        assert_eq!(code_of(&again), Code::InvalidGrant);
        let revoked = again.save.unwrap();
        assert!(matches!(revoked.stage, Stage::Revoked { why: Revocation::CodeReused, .. }));
        assert!(revoked.verify_access(&secret::digest(&answer.access_token), t0()).is_none());
        assert_eq!(
            code_of(&refresh(&revoked, &refreshing(&answer.refresh_token), t0(), &fresh(3))),
            Code::InvalidGrant
        );
    }

    #[test]
    fn a_code_is_bound() {
        let (grant, code) = pending(Resource::Org { org: "acme".into() });
        let refused = |change: &dyn Fn(&mut CodeExchange), at| {
            let mut req = exchange(&code);
            change(&mut req);
            let d = exchange_code(&grant, &req, at, &fresh(1));
            assert!(d.save.is_none());
            code_of(&d)
        };
        let soon = t0() + TimeDelta::minutes(1);
        assert_eq!(refused(&|_| {}, t0() + CODE_TTL), Code::InvalidGrant);
        assert_eq!(refused(&|r| r.client_id = "pbcl_other".into(), soon), Code::InvalidGrant);
        assert_eq!(refused(&|r| r.redirect_uri = None, soon), Code::InvalidGrant);
        assert_eq!(refused(&|r| r.redirect_uri = Some("https://app.example/other".into()), soon), Code::InvalidGrant);
        assert_eq!(refused(&|r| r.code_verifier = "x".repeat(43), soon), Code::InvalidGrant);
        assert_eq!(refused(&|r| r.code = "pbac_guess".into(), soon), Code::InvalidGrant);
        let other_org = Resource::Org { org: "globex".into() };
        assert_eq!(refused(&|r| r.resource = Some(other_org.clone()), soon), Code::InvalidTarget);
        assert_eq!(refused(&|r| r.resource = Some(Resource::Mcp), soon), Code::InvalidTarget);
        let same = |r: &mut CodeExchange| r.resource = Some(Resource::Org { org: "acme".into() });
        let mut req = exchange(&code);
        same(&mut req);
        assert!(exchange_code(&grant, &req, soon, &fresh(1)).answer.is_ok());
    }

    #[test]
    fn a_token_for_one_resource_serves_no_other() {
        let (grant, code) = pending(Resource::Org { org: "acme".into() });
        let d = exchange_code(&grant, &exchange(&code), t0(), &fresh(1));
        let answer = d.answer.unwrap();
        let access = d.save.unwrap().verify_access(&secret::digest(&answer.access_token), t0()).unwrap();
        use crate::core::access::oauth::resource::token_serves;
        assert!(token_serves(&access.resource, "/orgs/acme/mcp"));
        assert!(token_serves(&access.resource, &format!("/orgs/acme/playbooks/{PB}/mcp")));
        assert!(!token_serves(&access.resource, "/orgs/globex/mcp") && !token_serves(&access.resource, "/mcp"));
    }

    #[test]
    fn refresh_rotates() {
        let (grant, first) = active();
        let later_on = t0() + TimeDelta::minutes(50);
        let d = refresh(&grant, &refreshing(&first.refresh_token), later_on, &fresh(2));
        let grant = d.save.unwrap();
        let second = d.answer.unwrap();
        // The earlier access token keeps working until it expires.
        assert!(grant.verify_access(&secret::digest(&first.access_token), later_on).is_some());
        assert!(grant.verify_access(&secret::digest(&second.access_token), later_on).is_some());
        // Using the newest token ends the grace of the one before it.
        let d = refresh(&grant, &refreshing(&second.refresh_token), later_on + TimeDelta::seconds(1), &fresh(3));
        let grant = d.save.unwrap();
        let stale = refresh(&grant, &refreshing(&first.refresh_token), later_on + TimeDelta::seconds(2), &fresh(4));
        assert_eq!(code_of(&stale), Code::InvalidGrant);
        // Used, then presented once its grace is over: a copy, which ends the grant.
        assert!(matches!(stale.save.map(|g| g.stage), Some(Stage::Revoked { why: Revocation::RefreshReused, .. })));
        // Narrowing is allowed for the new access token, widening is not.
        let grant_read = Grant { scopes: vec![Scope::OrgRead, Scope::PlaybookRead], ..grant.clone() };
        let third = d.answer.unwrap();
        let mut narrow = refreshing(&third.refresh_token);
        narrow.scopes = Some(vec![Scope::OrgRead]);
        let n = refresh(&grant_read, &narrow, later_on, &fresh(5));
        assert_eq!(n.answer.unwrap().scope, "org:read");
        narrow.scopes = Some(vec![Scope::OrgWrite]);
        assert_eq!(code_of(&refresh(&grant_read, &narrow, later_on, &fresh(5))), Code::InvalidScope);
        let mut elsewhere = refreshing(&third.refresh_token);
        elsewhere.resource = Some(Resource::Directory);
        assert_eq!(code_of(&refresh(&grant, &elsewhere, later_on, &fresh(5))), Code::InvalidTarget);
        let mut thief = refreshing(&third.refresh_token);
        thief.client_id = "pbcl_other".into();
        assert_eq!(code_of(&refresh(&grant, &thief, later_on, &fresh(5))), Code::InvalidGrant);
        let end = later_on + TimeDelta::seconds(1) + REFRESH_TTL;
        let expired = refresh(&grant, &refreshing(&third.refresh_token), end, &fresh(5));
        assert_eq!(code_of(&expired), Code::InvalidGrant);
    }

    #[test]
    fn a_refresh_race_signs_nobody_out() {
        let (grant, first) = active();
        let at = t0() + TimeDelta::minutes(59);
        // Two refreshes with the same token, one after the other in the grant's object.
        let a = refresh(&grant, &refreshing(&first.refresh_token), at, &fresh(2));
        let grant = a.save.unwrap();
        let b = refresh(&grant, &refreshing(&first.refresh_token), at + TimeDelta::seconds(1), &fresh(3));
        let grant = b.save.unwrap();
        let (a, b) = (a.answer.unwrap(), b.answer.unwrap());
        assert_ne!(a.refresh_token, b.refresh_token);
        // Whichever answer the client kept, its tokens work.
        let now = at + TimeDelta::seconds(2);
        assert!(grant.verify_access(&secret::digest(&a.access_token), now).is_some());
        assert!(grant.verify_access(&secret::digest(&b.access_token), now).is_some());
        let with_a = refresh(&grant, &refreshing(&a.refresh_token), now, &fresh(4));
        let with_b = refresh(&grant, &refreshing(&b.refresh_token), now, &fresh(5));
        assert!(with_a.answer.is_ok() && with_b.answer.is_ok());
    }

    #[test]
    fn a_replay_after_the_grace_ends_the_grant_for_both_holders() {
        let (grant, first) = active();
        let d = refresh(&grant, &refreshing(&first.refresh_token), t0(), &fresh(2));
        let grant = d.save.unwrap();
        let second = d.answer.unwrap();
        let replay = refresh(&grant, &refreshing(&first.refresh_token), t0() + REFRESH_GRACE, &fresh(3));
        assert_eq!(code_of(&replay), Code::InvalidGrant);
        let ended = replay.save.expect("the grant ends");
        assert!(matches!(ended.stage, Stage::Revoked { why: Revocation::RefreshReused, .. }));
        let after = t0() + REFRESH_GRACE + TimeDelta::seconds(1);
        assert!(ended.verify_access(&secret::digest(&second.access_token), after).is_none());
        assert_eq!(code_of(&refresh(&ended, &refreshing(&second.refresh_token), after, &fresh(4))), Code::InvalidGrant);
        assert!(ended.digests().is_empty());
    }

    #[test]
    fn a_token_used_generations_ago_ends_the_grant_and_an_unknown_one_does_not() {
        let (mut grant, first) = active();
        let mut tokens = vec![first.refresh_token.clone()];
        for n in 0..(RETIRED_KEPT as u8 + 3) {
            let d = refresh(
                &grant,
                &refreshing(tokens.last().unwrap()),
                t0() + TimeDelta::minutes(i64::from(n)),
                &fresh(n + 2),
            );
            grant = d.save.unwrap();
            tokens.push(d.answer.unwrap().refresh_token);
        }
        let later = t0() + TimeDelta::hours(2);
        // Forgotten past the bound: refused as unknown, and the grant stands.
        let oldest = refresh(&grant, &refreshing(&tokens[0]), later, &fresh(90));
        assert_eq!((code_of(&oldest), oldest.save.is_none()), (Code::InvalidGrant, true));
        let unknown = refresh(&grant, &refreshing("pbrt_never_given"), later, &fresh(91));
        assert!(unknown.save.is_none());
        // Three generations back, still remembered: the grant ends.
        let thief = refresh(&grant, &refreshing(&tokens[tokens.len() - 4]), later, &fresh(92));
        assert!(matches!(thief.save.map(|g| g.stage), Some(Stage::Revoked { why: Revocation::RefreshReused, .. })));
        assert!(grant.digests().len() <= 3 + MAX_ACCESS + RETIRED_KEPT);
    }

    #[test]
    fn revocation_ends_the_grant() {
        let (grant, first) = active();
        assert_eq!(grant.revoke("pbrt_unknown", "pbcl_app", t0()), None);
        assert_eq!(grant.revoke(&first.refresh_token, "pbcl_other", t0()), None);
        for token in [&first.access_token, &first.refresh_token] {
            let revoked = grant.revoke(token, "pbcl_app", t0()).unwrap();
            assert!(matches!(revoked.stage, Stage::Revoked { why: Revocation::ByClient, .. }));
            assert!(revoked.verify_access(&secret::digest(&first.access_token), t0()).is_none());
            assert!(revoked.digests().is_empty());
            let d = refresh(&revoked, &refreshing(&first.refresh_token), t0(), &fresh(2));
            assert_eq!(code_of(&d), Code::InvalidGrant);
        }
    }

    #[test]
    fn siblings_and_access_tokens_are_bounded() {
        let (mut grant, first) = active();
        let mut answers = Vec::new();
        for n in 0..6u8 {
            let d =
                refresh(&grant, &refreshing(&first.refresh_token), t0() + TimeDelta::seconds(n.into()), &fresh(10 + n));
            grant = d.save.unwrap();
            answers.push(d.answer.unwrap());
        }
        let Stage::Active { tokens, .. } = &grant.stage else { panic!("not active") };
        assert_eq!(tokens.refresh.len(), MAX_SIBLINGS);
        assert!(tokens.access.len() <= MAX_ACCESS);
        let now = t0() + TimeDelta::seconds(10);
        assert!(refresh(&grant, &refreshing(&answers[0].refresh_token), now, &fresh(50)).answer.is_err());
        assert!(refresh(&grant, &refreshing(&answers[5].refresh_token), now, &fresh(50)).answer.is_ok());
    }
}
