//! How often one client address may call the routes anyone may call before holding a credential:
//! registering a client, starting and finishing a sign-in, and the token and revocation
//! endpoints. Cloudflare's rate limiting bindings count (`[[ratelimits]]` in `wrangler.toml`, which
//! `wrangler dev` runs too), by the address Cloudflare names in `CF-Connecting-IP`.

use worker::{Env, Request};

/// Which count a route takes from.
#[derive(Debug, Clone, Copy)]
pub enum Limit {
    /// `/oauth/register`: few per address, since a client registers once.
    Register,
    /// Starting a sign-in, its callback, the token and revocation endpoints.
    SignIn,
}

impl Limit {
    fn binding(self) -> &'static str {
        match self {
            Limit::Register => "REGISTER_LIMIT",
            Limit::SignIn => "SIGN_IN_LIMIT",
        }
    }
}

/// Whether the address `req` comes from may make one more call of `route` now. A runtime whose
/// binding is missing or does not answer lets the call through, and says so in the log: a limit
/// is a guard against floods, not a way in.
pub async fn admit(env: &Env, limit: Limit, route: &str, req: &Request) -> bool {
    let address = req.headers().get("cf-connecting-ip").ok().flatten();
    let Ok(limiter) = env.rate_limiter(limit.binding()) else {
        worker::console_warn!("rate limits: the binding {} is not set; {route} is not limited", limit.binding());
        return true;
    };
    let key = format!("{route}|{}", address.as_deref().unwrap_or("unknown"));
    match limiter.limit(key).await {
        Ok(outcome) => outcome.success,
        Err(e) => {
            worker::console_warn!("rate limits: {} did not answer ({e}); {route} is let through", limit.binding());
            true
        }
    }
}
