//! The runtime's Access object as platform-free code: the org's API keys, who holds which role
//! in each org, the authorization server's grants and the pages' sessions. Each operation loads
//! the rows it needs from an `AccessStore`, decides in `core::access`, and keeps what changed; one
//! that writes more than once writes in one `batch`, so a stop between its writes keeps none of
//! them. The object's SQLite implements the store (`shell::objects::access`); `memory` keeps it
//! for host tests and fails on demand.

mod grants;
mod keys;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
mod roles;
mod sessions;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};

pub use grants::{keep_grant, revoke_token, token, verify_token};
pub use keys::{list_keys, make_key, revoke_key, verify_key};
pub use roles::{list_roles, roles_of, set_role};
pub use sessions::{end_session, end_sessions_of, find_session, open_session};

use crate::core::access::key::KeyRecord;
use crate::core::access::oauth::client::Client;
use crate::core::access::oauth::grant::Grant;
use crate::core::access::role::RoleAssignment;
use crate::core::access::session::Session;
use crate::core::Problem;

/// The Access object's rows. Each call is synchronous, and an operation makes its calls with no
/// await between, so no other request comes between its read and its write.
pub trait AccessStore {
    /// Makes the writes of `writes` as one: all of them, or (should the runtime stop) none.
    fn batch(&self, writes: &mut dyn FnMut() -> Result<(), Problem>) -> Result<(), Problem>;

    /// The key with this digest, live or not.
    fn key(&self, digest: &str) -> Result<Option<KeyRecord>, Problem>;
    /// The org's key with this id, live or not.
    fn key_of(&self, org: &str, id: &str) -> Result<Option<KeyRecord>, Problem>;
    /// The org's live key of this name.
    fn live_key_named(&self, org: &str, name: &str) -> Result<Option<KeyRecord>, Problem>;
    /// The org's live keys, newest first.
    fn live_keys(&self, org: &str) -> Result<Vec<KeyRecord>, Problem>;
    fn add_key(&self, record: &KeyRecord) -> Result<(), Problem>;
    /// Keeps a key as revoked, by its id.
    fn revoke_key(&self, record: &KeyRecord) -> Result<(), Problem>;
    /// Keeps a key's last use, by its digest.
    fn touch_key(&self, record: &KeyRecord) -> Result<(), Problem>;

    /// The org's assignments, by person.
    fn roles(&self, org: &str) -> Result<Vec<RoleAssignment>, Problem>;
    fn role(&self, org: &str, person: &str) -> Result<Option<RoleAssignment>, Problem>;
    /// Every assignment the person holds, in any org.
    fn roles_held(&self, person: &str) -> Result<Vec<RoleAssignment>, Problem>;
    fn put_role(&self, assignment: &RoleAssignment) -> Result<(), Problem>;
    fn remove_role(&self, org: &str, person: &str) -> Result<(), Problem>;

    /// The grant one of whose codes or tokens has this digest.
    fn grant(&self, digest: &str) -> Result<Option<Grant>, Problem>;
    /// Keeps a grant and the digests it answers to now, and none it no longer answers to.
    fn put_grant(&self, grant: &Grant) -> Result<(), Problem>;
    /// Forgets the grants nothing could use after `now`.
    fn sweep_grants(&self, now: DateTime<Utc>) -> Result<(), Problem>;
    /// A client kept here before the Sign-in object kept them.
    fn old_client(&self, client_id: &str) -> Result<Option<Client>, Problem>;

    /// The session whose token has this digest, live or not.
    fn session(&self, digest: &str) -> Result<Option<Session>, Problem>;
    fn put_session(&self, digest: &str, session: &Session) -> Result<(), Problem>;
    /// Forgets the sessions that expired before `now`.
    fn sweep_sessions(&self, now: DateTime<Utc>) -> Result<(), Problem>;
    fn end_session(&self, digest: &str) -> Result<(), Problem>;
    /// Ends every session of the person; answers how many there were.
    fn end_sessions_of(&self, person: &str) -> Result<u32, Problem>;
}
