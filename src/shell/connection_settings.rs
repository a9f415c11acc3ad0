//! The connection settings of this Worker: the providers and the sealer under `CONNECTIONS_KEY`,
//! read once per isolate (what cannot be read said in the log; every request builds a context
//! with them, docs/performance.md), and whether people may add connections here.

use std::rc::Rc;

use worker::Env;

use crate::core::connection::providers::Providers;
use crate::core::connection::variables::{self, runtime_own, ConnectionVariables};
use crate::core::model::Secret;
use crate::core::service_auth::seal;
use crate::core::Problem;
use crate::ops::connections::{Sealer, Settings};
use crate::shell::env::Settings as EnvSettings;

/// Seals under `CONNECTIONS_KEY`, a fresh nonce each time.
struct Keyed(String);

impl Sealer for Keyed {
    fn seal(&self, aad: &str, plaintext: &[u8]) -> Result<String, Problem> {
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce)
            .map_err(|e| Problem::unavailable(format!("No randomness was available to seal a credential: {e}.")))?;
        seal::seal(&self.0, aad, plaintext, nonce)
            .map_err(|e| Problem::unavailable(format!("A credential cannot be sealed just now: {e}.")))
    }

    fn open(&self, aad: &str, sealed: &str) -> Result<Vec<u8>, Problem> {
        seal::open(&self.0, aad, sealed)
            .map_err(|e| Problem::unavailable(format!("The credential cannot be read just now: {e}.")))
    }
}

/// What the isolate reads once: the providers, the sealer if `CONNECTIONS_KEY` is usable, and the
/// variables connections may send.
type Kept = (Rc<Providers>, Option<Rc<dyn Sealer>>, Rc<ConnectionVariables>);

thread_local! {
    static KEPT: std::cell::OnceCell<Kept> = const { std::cell::OnceCell::new() };
}

fn var(env: &Env, name: &str) -> Option<String> {
    env.secret(name).map(|s| s.to_string()).or_else(|_| env.var(name).map(|v| v.to_string())).ok()
}

/// The settings of one request; `origin` is the address it came to, where links point while
/// `PUBLIC_URL` is not set.
pub fn settings(env: &Env, origin: &str) -> Settings {
    let (providers, sealer, listed) = KEPT.with(|cell| {
        cell.get_or_init(|| {
            let own = runtime_own(|name| var(env, name));
            let (listed, log) = ConnectionVariables::read(var(env, variables::SETTING).as_deref(), &own);
            for line in log {
                worker::console_warn!("connection variables: {line}");
            }
            let (mut providers, log) = Providers::read(|name| var(env, name));
            // A provider's way of a reference is offered only where its variable is listed.
            providers.offer_references(|name| listed.listed(name));
            for line in log {
                worker::console_warn!("connection providers: {line}");
            }
            let sealer = var(env, "CONNECTIONS_KEY")
                .filter(|k| seal::check_key(k).is_ok())
                .map(|k| Rc::new(Keyed(k)) as Rc<dyn Sealer>);
            (Rc::new(providers), sealer, Rc::new(listed))
        })
        .clone()
    });
    let s = EnvSettings::of(env);
    let local = s.local;
    Settings {
        providers,
        base: s.public_url.clone().unwrap_or_else(|| origin.trim_end_matches('/').to_string()),
        people: local || s.oidc.is_some(),
        deployed: s.deployed(),
        variable: {
            let env = env.clone();
            Rc::new(move |name: &str| var(&env, name).filter(|v| !v.is_empty()).map(Secret))
        },
        sealer,
        listed,
        lists_providers: true,
    }
}
