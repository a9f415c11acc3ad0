//! Settings from `wrangler.toml` variables, the caller of a request, and the values pure code is
//! handed: the time and fresh randomness.

use worker::{Env, Url};

use crate::core::ids::RANDOM_CHARS;
use crate::core::{Caller, Problem};

pub const ORGANIZATIONS: &str = "ORGANIZATIONS";
pub const PLAYBOOKS: &str = "PLAYBOOKS";
pub const RUNS: &str = "RUNS";
pub const CATALOG: &str = "CATALOG";

pub struct Settings {
    pub local_user: Option<String>,
    pub max_body_bytes: usize,
    pub allowed_origins: Vec<String>,
}

impl Settings {
    pub fn read(env: &Env) -> Settings {
        let var = |name: &str| env.var(name).map(|v| v.to_string()).unwrap_or_default();
        Settings {
            local_user: Some(var("LOCAL_USER")).filter(|s| !s.trim().is_empty()),
            max_body_bytes: var("MAX_BODY_BYTES").trim().parse().unwrap_or(1_048_576),
            allowed_origins: var("ALLOWED_ORIGINS")
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }
}

/// Resolves who a request acts as, once. With no credential configured the runtime is in local
/// mode, which trusts only requests that reach it on a loopback address.
pub fn caller(url: &Url, settings: &Settings) -> Result<Caller, Problem> {
    let host = url.host_str().unwrap_or_default();
    if matches!(host, "127.0.0.1" | "localhost" | "[::1]" | "::1") {
        return Ok(Caller::local(settings.local_user.clone()));
    }
    Err(Problem::forbidden(format!(
        "This runtime is in local mode, which answers only requests made on this computer, to 127.0.0.1, ::1 or localhost; this one came to {host}. \
         Local mode must never be exposed through a tunnel or a proxy. To serve other hosts, configure API keys for the runtime; until then, connect to http://127.0.0.1 on the machine that runs it."
    )))
}

/// The time now as RFC 3339 with milliseconds, the form every stored time takes.
pub fn now() -> String {
    stamp(instant())
}

/// A time as runs and events write it: RFC 3339 with milliseconds.
pub fn stamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The time now, for pure code that computes with it.
pub fn instant() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_millis(worker::Date::now().as_millis() as i64).unwrap_or_default()
}

pub fn random() -> Result<[u8; RANDOM_CHARS], Problem> {
    let mut bytes = [0u8; RANDOM_CHARS];
    getrandom::fill(&mut bytes)
        .map_err(|e| Problem::unavailable(format!("No randomness was available to mint an id: {e}.")))?;
    Ok(bytes)
}
