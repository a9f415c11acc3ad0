//! The Sign-in Durable Object: one for the runtime, keeping what sign-in needs before anyone holds
//! a credential: the clients of the authorization server, sign-ins in flight at the identity
//! provider (a client's and a page's), and consents waiting on their page. It is apart from the
//! Access object, which verifies every key and token, so that a flood of registrations and
//! sign-ins, which anyone can send, does not slow the requests of those who hold one. Each command
//! reads and writes with no wait between, so it is atomic.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::migrate;
use super::records::{self, encode, time};
use super::sql::storage;
use crate::core::access::oauth::client::{Client, ClientKind, UNUSED_MAX, UNUSED_TTL};
use crate::core::access::oauth::secret;
use crate::core::access::session::{BeginPageSignIn, PageSignIn, TakePageSignIn};
use crate::core::access::store::{
    BeginSignIn, Consent, FindClient, KeptClient, Pending, PutClient, PutConsent, TakeConsent, TakePending,
};
use crate::core::json;
use crate::core::migration::Step;
use crate::core::Problem;
use crate::shell::do_rpc::{self, serve, Call};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS clients (
  client_id TEXT PRIMARY KEY, record TEXT NOT NULL, kept_at TEXT NOT NULL, signed_in INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS clients_unused ON clients (signed_in, kept_at);
CREATE TABLE IF NOT EXISTS pending (digest TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS consents (id TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS page_sign_ins (digest TEXT PRIMARY KEY, record TEXT NOT NULL, expires_at TEXT NOT NULL);
";

/// How a sign-in in flight is taken once: the statement that reads it, and the one that deletes it.
type Take = (&'static str, &'static str);
const TAKE_PENDING: Take = ("SELECT record FROM pending WHERE digest = ?", "DELETE FROM pending WHERE digest = ?");
const TAKE_PAGE_SIGN_IN: Take =
    ("SELECT record FROM page_sign_ins WHERE digest = ?", "DELETE FROM page_sign_ins WHERE digest = ?");

/// The object's tables, one step at a time: append only, since a step's place is its version.
const STEPS: &[Step] = &[Step::Sql(SCHEMA)];

#[durable_object]
pub struct SignInObject {
    sql: SqlStorage,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    migrated: Result<(), Problem>,
}

#[derive(Deserialize)]
struct ClientRow {
    record: String,
    kept_at: String,
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

impl DurableObject for SignInObject {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        let migrated = migrate::ready(&sql, "sign-in", STEPS).map(drop);
        SignInObject { sql, migrated }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        if let Err(p) = &self.migrated {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        let req = &mut req;
        match req.path().as_str() {
            PutClient::PATH => serve(req, async |p: PutClient| self.put_client(&p.client, p.now)).await,
            FindClient::PATH => serve(req, async |f: FindClient| self.client(&f.client_id)).await,
            BeginSignIn::PATH => serve(req, async |b: BeginSignIn| self.begin(b)).await,
            TakePending::PATH => serve(req, async |t: TakePending| self.take_pending(t)).await,
            PutConsent::PATH => serve(req, async |p: PutConsent| self.put_consent(p)).await,
            TakeConsent::PATH => serve(req, async |t: TakeConsent| self.take_consent(t)).await,
            BeginPageSignIn::PATH => serve(req, async |b: BeginPageSignIn| self.begin_page(b)).await,
            TakePageSignIn::PATH => serve(req, async |t: TakePageSignIn| self.take_page(&t.state, t.now)).await,
            other => do_rpc::reply::<()>(Err(Problem::internal(format!("the sign-in store has no endpoint {other}")))),
        }
    }
}

impl SignInObject {
    fn run(&self, query: &str, args: Vec<worker::SqlStorageValue>) -> Result<(), Problem> {
        records::run(&self.sql, query, args)
    }

    fn record<T: serde::de::DeserializeOwned>(&self, query: &str, key: &str) -> Result<Option<T>, Problem> {
        records::record(&self.sql, query, &[key])
    }

    /// Takes a row once, found by `key` with `select` and deleted with `delete` whatever it held.
    fn take<T: serde::de::DeserializeOwned>(&self, (select, delete): Take, key: &str) -> Result<Option<T>, Problem> {
        let found = self.record(select, key)?;
        self.run(delete, vec![key.to_string().into()])?;
        Ok(found)
    }

    /// Keeps a client, and forgets registered ones nobody signed in with: those past their time,
    /// then the oldest past the bound.
    fn put_client(&self, client: &Client, now: DateTime<Utc>) -> Result<(), Problem> {
        if matches!(client.kind, ClientKind::Registered { .. }) {
            self.run("DELETE FROM clients WHERE signed_in = 0 AND kept_at < ?", vec![time(now - UNUSED_TTL).into()])?;
            let counted: Vec<Count> = self
                .sql
                .exec("SELECT COUNT(*) AS n FROM clients WHERE signed_in = 0", None)
                .and_then(|c| c.to_array())
                .map_err(storage)?;
            let waiting = counted.first().map_or(0, |c| usize::try_from(c.n).unwrap_or(0));
            if waiting >= UNUSED_MAX {
                let over = i64::try_from(waiting + 1 - UNUSED_MAX).unwrap_or(1);
                self.run(
                    "DELETE FROM clients WHERE client_id IN (SELECT client_id FROM clients WHERE signed_in = 0 ORDER BY kept_at LIMIT ?)",
                    vec![over.into()],
                )?;
            }
        }
        // A client kept again keeps the mark of a sign-in made with it.
        self.run(
            "INSERT INTO clients (client_id, record, kept_at) VALUES (?, ?, ?) ON CONFLICT (client_id) DO UPDATE SET record = excluded.record, kept_at = excluded.kept_at",
            vec![client.client_id.clone().into(), encode(client)?.into(), time(now).into()],
        )
    }

    fn client(&self, client_id: &str) -> Result<Option<KeptClient>, Problem> {
        let rows: Vec<ClientRow> = self
            .sql
            .exec("SELECT record, kept_at FROM clients WHERE client_id = ?", vec![client_id.to_string().into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.first().and_then(|r| {
            let kept_at = DateTime::parse_from_rfc3339(&r.kept_at).ok()?.to_utc();
            Some(KeptClient { client: json::from_str(&r.record).ok()?, kept_at })
        }))
    }

    fn begin(&self, begin: BeginSignIn) -> Result<(), Problem> {
        let BeginSignIn { state, pending } = begin;
        self.sweep(pending.expires_at - chrono::TimeDelta::minutes(10))?;
        self.run(
            "INSERT INTO pending (digest, record, expires_at) VALUES (?, ?, ?)",
            vec![secret::digest(&state).into(), encode(&pending)?.into(), time(pending.expires_at).into()],
        )
    }

    fn take_pending(&self, take: TakePending) -> Result<Option<Pending>, Problem> {
        let pending: Option<Pending> = self.take(TAKE_PENDING, &secret::digest(&take.state))?;
        Ok(pending.filter(|p| take.now < p.expires_at))
    }

    /// Keeps a consent waiting on its page. The person signed in at the provider for its client,
    /// which is then one somebody uses and is kept.
    fn put_consent(&self, put: PutConsent) -> Result<(), Problem> {
        let PutConsent { id, consent } = put;
        self.run(
            "UPDATE clients SET signed_in = 1 WHERE client_id = ?",
            vec![consent.request.client_id.clone().into()],
        )?;
        self.run(
            "INSERT INTO consents (id, record, expires_at) VALUES (?, ?, ?)",
            vec![id.into(), encode(&consent)?.into(), time(consent.expires_at).into()],
        )
    }

    fn take_consent(&self, take: TakeConsent) -> Result<Option<Consent>, Problem> {
        let TakeConsent { id, csrf, now } = take;
        let consent: Option<Consent> = self.record("SELECT record FROM consents WHERE id = ?", &id)?;
        let Some(consent) = consent.filter(|c| now < c.expires_at) else {
            return Ok(None);
        };
        // A form without the page's value is no consent, and leaves the page usable.
        if !secret::same(&consent.csrf, &secret::digest(&csrf)) {
            return Ok(None);
        }
        self.run("DELETE FROM consents WHERE id = ?", vec![id.into()])?;
        Ok(Some(consent))
    }

    fn begin_page(&self, begin: BeginPageSignIn) -> Result<(), Problem> {
        let BeginPageSignIn { state, sign_in } = begin;
        // Whatever began before this one's own start and is still here was abandoned.
        let started = time(sign_in.expires_at - crate::core::access::session::SIGN_IN_TTL);
        self.run("DELETE FROM page_sign_ins WHERE expires_at < ?", vec![started.into()])?;
        self.run(
            "INSERT INTO page_sign_ins (digest, record, expires_at) VALUES (?, ?, ?)",
            vec![secret::digest(&state).into(), encode(&sign_in)?.into(), time(sign_in.expires_at).into()],
        )
    }

    fn take_page(&self, state: &str, now: DateTime<Utc>) -> Result<Option<PageSignIn>, Problem> {
        let sign_in: Option<PageSignIn> = self.take(TAKE_PAGE_SIGN_IN, &secret::digest(state))?;
        Ok(sign_in.filter(|s| now < s.expires_at))
    }

    /// Forgets sign-ins and consents past their time.
    fn sweep(&self, now: DateTime<Utc>) -> Result<(), Problem> {
        let now = time(now);
        self.run("DELETE FROM pending WHERE expires_at < ?", vec![now.clone().into()])?;
        self.run("DELETE FROM consents WHERE expires_at < ?", vec![now.into()])
    }
}
