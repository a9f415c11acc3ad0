//! The Access Durable Object: one for the runtime, keeping every org's API keys by digest, the
//! grants of its authorization server, the pages' sessions, and who holds which role in each org
//! (what sign-in needs before then is the Sign-in object's, `sign_in_store`). A key or token names
//! no org, so the one object that can find any by its digest is the runtime's own. It is strongly
//! consistent and does one thing at a time, so two refreshes of one grant meet one after the
//! other rather than racing. Each call is `ops::access` over the rows kept here (`SqlAccess`).

mod store;

use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::migrate;
use crate::core::access::key::{ListKeys, MakeKey, RevokeKey, VerifyKey};
use crate::core::access::session::{EndSession, EndSessionsOf, FindSession, OpenSession};
use crate::core::access::store::{
    GetClient, IssueToken, ListRoles, RevokeToken, RolesOf, SaveGrant, SetRole, VerifyToken,
};
use crate::core::migration::Step;
use crate::core::Problem;
use crate::ops::access::{self, AccessStore};
use crate::shell::do_rpc::{self, serve, Call};
use store::SqlAccess;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS keys (
  digest TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, org TEXT NOT NULL, name TEXT NOT NULL,
  record TEXT NOT NULL, revoked_at TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS keys_live_name ON keys (org, name) WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS keys_org ON keys (org, revoked_at);
CREATE TABLE IF NOT EXISTS clients (client_id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pending (digest TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS consents (id TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS grants (id TEXT PRIMARY KEY, record TEXT NOT NULL, useless_after TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS grant_digests (digest TEXT PRIMARY KEY, grant_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS grant_digests_grant ON grant_digests (grant_id);
CREATE TABLE IF NOT EXISTS roles (
  org TEXT NOT NULL, person TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (org, person)
);
";

/// The sessions of the runtime's own pages, and their sign-ins in flight.
const SESSIONS: &str = "
CREATE TABLE IF NOT EXISTS page_sign_ins (digest TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  digest TEXT PRIMARY KEY, person TEXT NOT NULL, record TEXT NOT NULL, expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_person ON sessions (person);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);
";

/// Spent grants are swept by when they became useless.
const GRANTS_BY_USE: &str = "CREATE INDEX IF NOT EXISTS grants_useless ON grants (useless_after);";

/// The object's tables, one step at a time: append only, since a step's place is its version.
/// Clients, `pending`, `consents` and `page_sign_ins` moved to the Sign-in object; the clients
/// kept here before are read from here once (`GetClient`), and the rest lived minutes.
const STEPS: &[Step] = &[Step::Sql(SCHEMA), Step::Sql(SESSIONS), Step::Sql(GRANTS_BY_USE)];

#[durable_object]
pub struct AccessObject {
    sql: SqlStorage,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    migrated: Result<(), Problem>,
}

impl DurableObject for AccessObject {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        let migrated = migrate::ready(&sql, "access", STEPS).map(drop);
        AccessObject { sql, migrated }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        if let Err(p) = &self.migrated {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        let req = &mut req;
        let rows = &SqlAccess(&self.sql);
        match req.path().as_str() {
            MakeKey::PATH => serve(req, async |m: MakeKey| access::make_key(rows, &m.record)).await,
            ListKeys::PATH => serve(req, async |l: ListKeys| access::list_keys(rows, &l.org)).await,
            RevokeKey::PATH => serve(req, async |r: RevokeKey| access::revoke_key(rows, r)).await,
            VerifyKey::PATH => serve(req, async |v: VerifyKey| access::verify_key(rows, v)).await,
            ListRoles::PATH => serve(req, async |l: ListRoles| access::list_roles(rows, &l.org)).await,
            SetRole::PATH => serve(req, async |s: SetRole| access::set_role(rows, s)).await,
            GetClient::PATH => serve(req, async |g: GetClient| rows.old_client(&g.client_id)).await,
            RolesOf::PATH => serve(req, async |r: RolesOf| access::roles_of(rows, &r.person, &r.owners, r.now)).await,
            SaveGrant::PATH => serve(req, async |s: SaveGrant| access::keep_grant(rows, &s.grant)).await,
            IssueToken::PATH => serve(req, async |t: IssueToken| access::token(rows, t)).await,
            RevokeToken::PATH => serve(req, async |r: RevokeToken| access::revoke_token(rows, r)).await,
            VerifyToken::PATH => serve(req, async |v: VerifyToken| access::verify_token(rows, v)).await,
            OpenSession::PATH => serve(req, async |o: OpenSession| access::open_session(rows, o)).await,
            FindSession::PATH => serve(req, async |f: FindSession| access::find_session(rows, f)).await,
            EndSession::PATH => serve(req, async |e: EndSession| access::end_session(rows, &e.digest)).await,
            EndSessionsOf::PATH => serve(req, async |e: EndSessionsOf| access::end_sessions_of(rows, e)).await,
            other => do_rpc::reply::<()>(Err(Problem::internal(format!("the access object has no endpoint {other}")))),
        }
    }
}
