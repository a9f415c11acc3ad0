//! The objects the runtime has one of, by name, so that a door reaches them without naming the
//! object's code: the Access object (keys, grants, sessions, roles) and the Sign-in object.

use worker::Env;

use crate::core::Problem;
use crate::shell::do_rpc::{self, Call};

/// The name of the one Access object.
pub const ACCESS_NAME: &str = "access";
/// The name of the one Sign-in object.
pub const SIGN_IN_NAME: &str = "sign-in";

/// Sends one call to the one Sign-in object.
pub async fn sign_in<C: Call>(env: &Env, request: &C) -> Result<C::Reply, Problem> {
    let stub =
        env.durable_object(crate::shell::env::SIGN_IN).and_then(|ns| ns.get_by_name(SIGN_IN_NAME)).map_err(|e| {
            worker::console_error!("binding {}: {e}", crate::shell::env::SIGN_IN);
            Problem::unavailable("Sign-in's store is not reachable just now; try again.")
        })?;
    do_rpc::send(&stub, request).await
}
