//! Who a request acts as, resolved once per request: the local developer on loopback with no
//! credential, else the API key, the person's access token, or the operator's `ADMIN_TOKEN`,
//! that `Authorization` carries.
//! A request that carries `Authorization` is checked as such wherever it arrives, so that a
//! developer can try a read-only key on their own machine.

use worker::Env;

use crate::core::access::key::{self, VerifyKey};
use crate::core::access::oauth::metadata;
use crate::core::access::oauth::resource::{token_serves, Resource};
use crate::core::access::oauth::secret;
use crate::core::access::store::VerifyToken;
use crate::core::address::Address;
use crate::core::caller::Scope;
use crate::core::{Caller, Problem, Reason};
use crate::shell::do_rpc;
use crate::shell::env::{self, Settings, ACCESS};
use crate::shell::singletons::ACCESS_NAME as NAME;

/// A header longer than any credential this runtime makes is refused unread.
const AUTHORIZATION_MAX: usize = 1_024;

/// The caller of a request to `address` that carries `authorization`.
pub async fn resolve(
    env: &Env,
    settings: &Settings,
    address: &Address,
    authorization: Option<&str>,
) -> Result<Caller, Problem> {
    let Some(header) = authorization else {
        return unauthenticated(&address.host, settings);
    };
    let Some(credential) = bearer(header) else {
        return Err(refused(
            "The Authorization header must be Bearer followed by a key or token, as in Authorization: Bearer pbk_….",
        ));
    };
    if let Some(admin) = settings.admin_token.as_deref() {
        if secret::same(&secret::digest(credential), &secret::digest(admin)) {
            return Ok(Caller::operator(&path_org(&address.path)));
        }
    }
    if key::well_formed(credential) {
        return by_key(env, &secret::digest(credential)).await;
    }
    if credential.starts_with(secret::ACCESS_PREFIX) && settings.public_url.is_some() {
        return by_token(env, credential, &address.path).await;
    }
    Err(not_known())
}

/// A person's access token: found by its digest with the person's role now, so a role taken
/// away takes effect on the next request; refused where it was not granted for.
async fn by_token(env: &Env, token: &str, path: &str) -> Result<Caller, Problem> {
    let verify = VerifyToken { digest: secret::digest(token), now: env::instant() };
    let verified = do_rpc::send(&access(env)?, &verify).await?;
    let Some(verified) = verified else {
        return Err(not_known());
    };
    // The HTTP API is the same operations as /mcp, in the same org: a token for /mcp serves both.
    let serves = match path.strip_prefix("/v1/") {
        Some(_) => verified.resource == Resource::Mcp,
        None => token_serves(&verified.resource, path),
    };
    if !serves {
        return Err(refused(&format!(
            "This token was granted for {}, and does not serve {path}. Sign in again for this endpoint.",
            verified.resource.path()
        )));
    }
    Ok(verified.caller())
}

fn access(env: &Env) -> Result<worker::Stub, Problem> {
    env.durable_object(ACCESS).and_then(|ns| ns.get_by_name(NAME)).map_err(|e| {
        worker::console_error!("binding {ACCESS}: {e}");
        Problem::unavailable("The key store is not reachable just now; try again.")
    })
}

/// The `WWW-Authenticate` challenge of a refusal: with sign-in on, it points a client at the
/// endpoint's protected resource metadata, and names every scope an operation lacks.
pub fn challenge(
    settings: &Settings,
    path: &str,
    status: u16,
    scope: Option<&str>,
    credential_sent: bool,
    detail: &str,
) -> Option<String> {
    let Some(public) = settings.public_url.as_deref() else {
        return (status == 401).then(|| "Bearer realm=\"playbook-runtime\"".to_string());
    };
    let resource = Resource::from_path(path).unwrap_or(Resource::Mcp);
    match (status, scope.and_then(Scope::parse)) {
        (401, _) => Some(metadata::unauthorized(public, &resource, &Scope::ALL, credential_sent.then_some(detail))),
        (403, Some(needed)) => Some(metadata::insufficient_scope(public, &resource, &[needed], detail)),
        _ => None,
    }
}

async fn by_key(env: &Env, digest: &str) -> Result<Caller, Problem> {
    let now_ms = worker::Date::now().as_millis() as f64;
    if let Some(caller) = crate::shell::seen_keys::fresh(digest, now_ms) {
        return Ok(caller);
    }
    let stub = access(env)?;
    let now = env::now();
    let record = do_rpc::send(&stub, &VerifyKey { digest: digest.to_string(), now: now.clone() }).await?;
    let expires_ms = record
        .as_ref()
        .and_then(|r| r.expires_at.as_deref())
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
        .map(|at| at.timestamp_millis() as f64);
    let Some(caller) = record.and_then(|r| r.caller(&now)) else {
        crate::shell::seen_keys::drop(digest);
        return Err(not_known());
    };
    crate::shell::seen_keys::keep(digest, &caller, now_ms, expires_ms);
    Ok(caller)
}

/// A request with no credential: local mode, where the operator turned it on, on loopback.
fn unauthenticated(host: &str, settings: &Settings) -> Result<Caller, Problem> {
    if settings.local && crate::core::access::session::loopback(host) {
        return Ok(Caller::local(settings.local_user.clone()));
    }
    let detail = if settings.public_url.is_some() {
        "This request carries no credential. Sign in from your MCP client: the WWW-Authenticate header of this answer points it to this runtime's sign-in. Or send an API key of your org as Authorization: Bearer <key>.".to_string()
    } else if settings.local {
        format!(
            "This request carries no credential. Send an API key of your org as Authorization: Bearer <key>; whoever manages the org's access makes one with POST /v1/orgs/<org>/keys. Local mode, with no credential, answers only requests made on the computer that runs the runtime, to 127.0.0.1; this one came to {host}."
        )
    } else {
        "This request carries no credential. Send an API key of your org as Authorization: Bearer <key>; whoever manages the org's access makes one with POST /v1/orgs/<org>/keys. Local mode is off here: only its operator turns it on, with LOCAL_MODE, on the computer that runs the runtime.".to_string()
    };
    Err(Problem::new(Reason::Unauthorized, detail))
}

/// The value of `Bearer <value>`, the scheme in any case; none for another scheme or shape.
fn bearer(header: &str) -> Option<&str> {
    if header.len() > AUTHORIZATION_MAX {
        return None;
    }
    let (scheme, value) = header.trim().split_once(' ')?;
    let value = value.trim();
    let printable = !value.is_empty() && value.bytes().all(|b| b.is_ascii_graphic());
    (scheme.eq_ignore_ascii_case("bearer") && printable).then_some(value)
}

/// The org a `/v1/orgs/{org}/…` path names, which the operator then acts in.
fn path_org(path: &str) -> String {
    let mut parts = path.split('/').skip(1);
    match (parts.next(), parts.next(), parts.next()) {
        (Some("v1"), Some("orgs"), Some(org)) => org.to_string(),
        _ => String::new(),
    }
}

/// The one refusal of an unknown, revoked or expired key, so that none tells which it was.
fn not_known() -> Problem {
    refused("The key or token this request carries is not one this runtime knows, or it was revoked or has expired. Use a live key, or sign in again.")
}

fn refused(detail: &str) -> Problem {
    Problem::new(Reason::Unauthorized, detail)
}
