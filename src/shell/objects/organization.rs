//! The Organization Durable Object: the org's directory of playbooks. It lists them without
//! asking each one, and it is where a name is claimed: `ops::directory` makes each change over
//! the rows kept here (`SqlDirectory`) and the playbooks' objects (`PlaybookObjects`). A change
//! claims its playbook and the name it gives it for as long as it is in flight, so changes that
//! share either run one after the other, and the rest overlap across their playbooks' round trips.

use futures::future::LocalBoxFuture;
use serde::Deserialize;
use worker::{durable_object, DurableObject, Env, Request, Response, SqlStorage, State};

use super::comments::SqlComments;
use super::connections::SqlConnections;
use super::migrate;
use super::sql::storage;
use crate::core::actor::Actor;
use crate::core::comment::{Among, ListComments, WriteComment};
use crate::core::connection::store::{ChangeConnection, GetConnection, ListConnections};
use crate::core::directory::{Change, GetPlaybook, ListQuery, Save};
use crate::core::json;
use crate::core::migration::Step;
use crate::core::playbook::{name_key, Playbook, Status};
use crate::core::Problem;
use crate::ops::claims::Claims;
use crate::ops::connections;
use crate::ops::directory::{self, Claim, Directory, DirectoryStore, Playbooks};
use crate::shell::backend;
use crate::shell::do_rpc::{self, serve, Call};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS playbooks (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  description TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  retired_at TEXT,
  makers TEXT
);
CREATE INDEX IF NOT EXISTS playbooks_newest ON playbooks (created_at DESC, id DESC);
CREATE UNIQUE INDEX IF NOT EXISTS playbooks_active_name ON playbooks (name_key) WHERE status = 'active';
";

/// The directory's tables, one step at a time: append only, since a step's place is its version.
/// Who made and changed each playbook was added after the first orgs were made.
/// The org's connections came after both, and its own comments after them.
const STEPS: &[Step] = &[
    Step::Sql(SCHEMA),
    Step::AddColumn { table: "playbooks", column: "makers", declared: "TEXT" },
    Step::Sql(super::connections::SCHEMA),
    super::comments::TABLE,
];

/// The actors of a row, kept as one JSON column.
#[derive(serde::Serialize, Deserialize, Default)]
struct Makers {
    #[serde(default)]
    created_by: Option<Actor>,
    #[serde(default)]
    updated_by: Option<Actor>,
    #[serde(default)]
    retired_by: Option<Actor>,
}

#[durable_object]
pub struct OrganizationObject {
    sql: SqlStorage,
    env: Env,
    /// What the changes in flight hold: a change awaits the playbook's object, and meanwhile no
    /// other change may take its playbook or the name it claims.
    claims: Claims<Claim>,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    migrated: Result<(), Problem>,
}

#[derive(Deserialize)]
struct Row {
    id: String,
    name: String,
    description: String,
    status: String,
    created_at: String,
    updated_at: String,
    retired_at: Option<String>,
    #[serde(default)]
    makers: Option<String>,
}

impl Row {
    fn into_playbook(self) -> Playbook {
        let makers: Makers = self.makers.as_deref().and_then(|m| json::from_str(m).ok()).unwrap_or_default();
        Playbook {
            id: self.id,
            name: self.name,
            description: self.description,
            status: if self.status == "retired" { Status::Retired } else { Status::Active },
            created_at: self.created_at,
            updated_at: self.updated_at,
            retired_at: self.retired_at,
            page: String::new(),
            created_by: makers.created_by,
            updated_by: makers.updated_by,
            retired_by: makers.retired_by,
        }
    }
}

#[derive(Deserialize)]
struct Id {
    id: String,
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

impl DurableObject for OrganizationObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let migrated = migrate::ready(&sql, "organization", STEPS).map(drop);
        OrganizationObject { sql, env, claims: Claims::default(), migrated }
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        if let Err(p) = &self.migrated {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        match req.path().as_str() {
            Change::PATH => {
                serve(&mut req, async |c: Change| {
                    let playbooks = PlaybookObjects { env: &self.env, org: &c.org };
                    let rows = SqlDirectory(&self.sql);
                    Directory { rows: &rows, playbooks: &playbooks, claims: &self.claims }.change(c.command).await
                })
                .await
            }
            ListQuery::PATH => {
                serve(&mut req, async |query: ListQuery| directory::list(&SqlDirectory(&self.sql), query)).await
            }
            // A connection's change reads and writes with no await between, so no other change
            // comes between them: it needs no claim.
            ChangeConnection::PATH => {
                serve(&mut req, async |c: ChangeConnection| connections::change(&SqlConnections(&self.sql), c)).await
            }
            GetConnection::PATH => {
                serve(&mut req, async |g: GetConnection| connections::find(&SqlConnections(&self.sql), &g.find)).await
            }
            ListConnections::PATH => {
                serve(&mut req, async |q: ListConnections| connections::list(&SqlConnections(&self.sql), q)).await
            }
            // The org's own comments; a playbook's are in its own object.
            WriteComment::PATH => {
                serve(&mut req, async |w: WriteComment| {
                    crate::ops::comments::write(&SqlComments { sql: &self.sql }, w.command, &Among::Org)
                })
                .await
            }
            ListComments::PATH => {
                serve(&mut req, async |l: ListComments| {
                    crate::ops::comments::list(&SqlComments { sql: &self.sql }, l.query)
                })
                .await
            }
            other => do_rpc::reply::<()>(Err(Problem::internal(format!("no endpoint {other}")))),
        }
    }
}

/// The playbooks' objects of one org, reached by a stub each.
struct PlaybookObjects<'a> {
    env: &'a Env,
    org: &'a str,
}

impl Playbooks for PlaybookObjects<'_> {
    fn save<'a>(&'a self, save: &'a Save) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        Box::pin(async move { do_rpc::send(&backend::playbook(self.env, self.org, &save.record.id)?, save).await })
    }

    fn get<'a>(&'a self, id: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        Box::pin(async move {
            do_rpc::send(&backend::playbook(self.env, self.org, id)?, &GetPlaybook { id: id.to_string() }).await
        })
    }
}

/// The directory's rows in the object's SQLite.
struct SqlDirectory<'a>(&'a SqlStorage);

impl DirectoryStore for SqlDirectory<'_> {
    fn row(&self, id: &str) -> Result<Option<Playbook>, Problem> {
        let rows: Vec<Row> = self
            .0
            .exec("SELECT * FROM playbooks WHERE id = ?", vec![id.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.into_iter().next().map(Row::into_playbook))
    }

    fn holder(&self, key: &str) -> Result<Option<String>, Problem> {
        let rows: Vec<Id> = self
            .0
            .exec("SELECT id FROM playbooks WHERE name_key = ? AND status = 'active'", vec![key.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.into_iter().next().map(|r| r.id))
    }

    fn put(&self, p: &Playbook) -> Result<(), Problem> {
        let status = if p.is_retired() { "retired" } else { "active" };
        let makers = Makers {
            created_by: p.created_by.clone(),
            updated_by: p.updated_by.clone(),
            retired_by: p.retired_by.clone(),
        };
        let makers = serde_json::to_string(&makers).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.0
            .exec(
                "INSERT INTO playbooks (id, name, name_key, description, status, created_at, updated_at, retired_at, makers)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT(id) DO UPDATE SET name = excluded.name, name_key = excluded.name_key,
                   description = excluded.description, status = excluded.status,
                   updated_at = excluded.updated_at, retired_at = excluded.retired_at, makers = excluded.makers",
                vec![
                    p.id.clone().into(),
                    p.name.clone().into(),
                    name_key(&p.name).into(),
                    p.description.clone().into(),
                    status.into(),
                    p.created_at.clone().into(),
                    p.updated_at.clone().into(),
                    p.retired_at.clone().into(),
                    makers.into(),
                ],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn page(&self, query: &ListQuery, take: usize) -> Result<Vec<Playbook>, Problem> {
        let (after_time, after_id) = match &query.after {
            Some(c) => (c.created_at.clone(), c.id.clone()),
            None => ("\u{10ffff}".to_string(), String::new()),
        };
        let rows: Vec<Row> = self
            .0
            .exec(
                "SELECT * FROM playbooks
                 WHERE (? OR status = 'active')
                   AND (? OR id IN (SELECT value FROM json_each(?)))
                   AND (created_at < ? OR (created_at = ? AND id < ?))
                 ORDER BY created_at DESC, id DESC LIMIT ?",
                vec![
                    i64::from(query.include_retired).into(),
                    i64::from(query.only.is_none()).into(),
                    serde_json::to_string(&query.only)
                        .map_err(|e| Problem::internal(format!("could not encode: {e}")))?
                        .into(),
                    after_time.clone().into(),
                    after_time.into(),
                    after_id.into(),
                    i64::try_from(take).unwrap_or(i64::MAX).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(rows.into_iter().map(Row::into_playbook).collect())
    }

    fn any(&self) -> Result<bool, Problem> {
        let counts: Vec<Count> =
            self.0.exec("SELECT COUNT(*) AS n FROM playbooks", None).and_then(|c| c.to_array()).map_err(storage)?;
        Ok(counts.first().is_some_and(|c| c.n > 0))
    }
}
