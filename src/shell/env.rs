//! Settings from `wrangler.toml` variables, the caller of a request, and the values pure code is
//! handed: the time and fresh randomness.

use worker::Env;

use crate::core::ids::RANDOM_CHARS;
use crate::core::Problem;

pub const ORGANIZATIONS: &str = "ORGANIZATIONS";
pub const PLAYBOOKS: &str = "PLAYBOOKS";
pub const RUNS: &str = "RUNS";
pub const CATALOG: &str = "CATALOG";
pub const ACCESS: &str = "ACCESS";
pub const SIGN_IN: &str = "SIGN_IN";
/// The R2 bucket of assets' bytes, never public: the Worker serves them.
pub const ASSETS: &str = "ASSETS";

pub struct Settings {
    /// Local mode, which the operator turns on with `LOCAL_MODE` (as `scripts/dev` does) and which
    /// `PUBLIC_URL` turns off: no request can open it, whatever its `Host` says.
    pub local: bool,
    pub local_user: Option<String>,
    /// The operator's bootstrap secret, which manages keys and roles of any org.
    pub admin_token: Option<String>,
    /// Where the runtime is reached from outside; set, people sign in and local mode is off.
    pub public_url: Option<String>,
    /// The team's OpenID provider, at which people sign in.
    pub oidc: Option<Oidc>,
    /// `org=email` pairs: who becomes an org's first owner on signing in, while it has none.
    pub owners: Vec<(String, String)>,
    pub max_body_bytes: usize,
    pub allowed_origins: Vec<String>,
}

pub struct Oidc {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
}

thread_local! {
    static SETTINGS: std::cell::OnceCell<&'static Settings> = const { std::cell::OnceCell::new() };
}

impl Settings {
    /// The settings of this isolate, read at its first request: a Worker's variables and secrets
    /// change only with a deploy, which starts new isolates.
    pub fn of(env: &Env) -> &'static Settings {
        SETTINGS.with(|cell| *cell.get_or_init(|| Box::leak(Box::new(Settings::read(env)))))
    }

    fn read(env: &Env) -> Settings {
        let var = |name: &str| env.var(name).map(|v| v.to_string()).unwrap_or_default();
        let secret = |name: &str| {
            env.secret(name).map(|v| v.to_string()).ok().or_else(|| env.var(name).ok().map(|v| v.to_string()))
        };
        let public_url = Some(var("PUBLIC_URL").trim().trim_end_matches('/').to_string()).filter(|u| !u.is_empty());
        let local_mode = local_mode(&var("LOCAL_MODE"));
        if local_mode && public_url.is_some() {
            worker::console_warn!("LOCAL_MODE is ignored: PUBLIC_URL is set, so people sign in and local mode is off.");
        }
        Settings {
            local: local_mode && public_url.is_none(),
            local_user: Some(var("LOCAL_USER")).filter(|s| !s.trim().is_empty()),
            // A token too short to resist guessing is no token: the runtime ignores it.
            admin_token: secret("ADMIN_TOKEN").filter(|t| t.trim().len() >= 32),
            public_url,
            oidc: match (var("OIDC_ISSUER"), var("OIDC_CLIENT_ID"), secret("OIDC_CLIENT_SECRET")) {
                (issuer, id, Some(secret)) if !issuer.trim().is_empty() && !id.trim().is_empty() => Some(Oidc {
                    issuer: issuer.trim().trim_end_matches('/').to_string(),
                    client_id: id.trim().to_string(),
                    client_secret: secret.trim().to_string(),
                }),
                _ => None,
            },
            owners: var("OWNERS")
                .split(',')
                .filter_map(|pair| pair.split_once('='))
                .map(|(org, email)| (org.trim().to_string(), email.trim().to_string()))
                .filter(|(org, email)| !org.is_empty() && email.contains('@'))
                .collect(),
            max_body_bytes: var("MAX_BODY_BYTES").trim().parse().unwrap_or(1_048_576),
            allowed_origins: var("ALLOWED_ORIGINS")
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        }
    }
}

impl Settings {
    /// Whether the runtime is reached from outside, so that it refuses what names a loopback or
    /// private host, such as a tool server's: anything but local mode or a `PUBLIC_URL` on
    /// loopback (a runtime tried on one machine). One with neither is reached under a host name
    /// of the platform's.
    pub fn deployed(&self) -> bool {
        use crate::core::access::oauth::url;
        let on_loopback = self
            .public_url
            .as_deref()
            .and_then(url::parse)
            .and_then(|u| u.authority)
            .is_some_and(|a| a.host.is_loopback());
        !self.local && !on_loopback
    }
}

/// Whether `LOCAL_MODE` turns local mode on: `on`, `true`, `yes` or `1`.
fn local_mode(value: &str) -> bool {
    matches!(value.trim().to_ascii_lowercase().as_str(), "on" | "true" | "yes" | "1")
}

/// The time now as RFC 3339 with milliseconds, the form every stored time takes.
pub fn now() -> String {
    crate::core::text::stamp(instant())
}

/// The time now, for pure code that computes with it.
pub fn instant() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_millis(worker::Date::now().as_millis() as i64).unwrap_or_default()
}

/// 32 random bytes, for a secret.
pub fn secret() -> Result<[u8; 32], Problem> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Problem::unavailable(format!("No randomness was available to mint a secret: {e}.")))?;
    Ok(bytes)
}

pub fn random() -> Result<[u8; RANDOM_CHARS], Problem> {
    let mut bytes = [0u8; RANDOM_CHARS];
    getrandom::fill(&mut bytes)
        .map_err(|e| Problem::unavailable(format!("No randomness was available to mint an id: {e}.")))?;
    Ok(bytes)
}
