//! A playbook's definitions in its Durable Object's SQLite: the current state of each, every
//! version, and which definitions each current version uses. `ops::playbook` decides; this keeps.

use serde::Deserialize;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::definition::record::{Definition, Version};
use crate::core::definition::store::DefinitionQuery;
use crate::core::definition::{Kind, Ref};
use crate::core::json;
use crate::core::memo::Memo;
use crate::core::Problem;
use crate::ops::playbook::DefinitionStore;

pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS definitions (
  kind TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (kind, name)
);
CREATE TABLE IF NOT EXISTS definition_versions (
  kind TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (kind, name, version)
);
CREATE TABLE IF NOT EXISTS definition_uses (
  kind TEXT NOT NULL, name TEXT NOT NULL, target TEXT NOT NULL,
  PRIMARY KEY (kind, name, target)
);
CREATE INDEX IF NOT EXISTS definition_uses_target ON definition_uses (target);
";

#[derive(Deserialize)]
struct Record {
    record: String,
}

#[derive(Deserialize)]
struct User {
    kind: String,
    name: String,
}

pub struct Definitions<'s> {
    pub sql: &'s SqlStorage,
    pub known: &'s Known,
}

/// What the object has read of its definitions since it was loaded or last changed one: every run
/// of a function reads its definition, current version and users first, and only the object
/// writes them, through `Definitions`, which forgets all of it at each write.
pub struct Known {
    definitions: Memo<Option<Definition>>,
    versions: Memo<Option<Version>>,
    users: Memo<Vec<Ref>>,
}

/// How many of each the object keeps in mind before it starts again (a playbook may hold
/// thousands of definitions; a run reads a few).
const KNOWN_MAX: usize = 256;

impl Default for Known {
    fn default() -> Self {
        Known { definitions: Memo::new(KNOWN_MAX), versions: Memo::new(KNOWN_MAX), users: Memo::new(KNOWN_MAX) }
    }
}

impl Known {
    fn forget(&self) {
        self.definitions.forget();
        self.versions.forget();
        self.users.forget();
    }
}

impl Definitions<'_> {
    fn records<T: serde::de::DeserializeOwned>(
        &self,
        query: &str,
        bindings: Vec<worker::SqlStorageValue>,
    ) -> Result<Vec<T>, Problem> {
        let rows: Vec<Record> = self.sql.exec(query, bindings).and_then(|c| c.to_array()).map_err(storage)?;
        rows.iter().map(|r| decode(&r.record)).collect()
    }

    fn read_users(&self, target: &Ref) -> Result<Vec<Ref>, Problem> {
        let users: Vec<User> = self
            .sql
            .exec(
                "SELECT u.kind AS kind, u.name AS name FROM definition_uses u
                 JOIN definitions d ON d.kind = u.kind AND d.name = u.name
                 WHERE u.target = ? AND d.status != 'retired' ORDER BY u.kind, u.name",
                vec![target.key().into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        Ok(users.into_iter().filter_map(|u| Some(Ref { kind: Kind::parse(&u.kind)?, name: u.name })).collect())
    }
}

impl DefinitionStore for Definitions<'_> {
    fn definition(&self, kind: Kind, name: &str) -> Result<Option<Definition>, Problem> {
        self.known.definitions.get_or_try(&Ref { kind, name: name.to_string() }.key(), || {
            let query = "SELECT record FROM definitions WHERE kind = ? AND name = ?";
            Ok(self.records(query, vec![kind.as_str().into(), name.into()])?.into_iter().next())
        })
    }

    fn version(&self, kind: Kind, name: &str, version: u32) -> Result<Option<Version>, Problem> {
        let key = format!("{}#{version}", Ref { kind, name: name.to_string() }.key());
        self.known.versions.get_or_try(&key, || {
            let query = "SELECT record FROM definition_versions WHERE kind = ? AND name = ? AND version = ?";
            let bindings = vec![kind.as_str().into(), name.into(), i64::from(version).into()];
            Ok(self.records(query, bindings)?.into_iter().next())
        })
    }

    fn put(&self, def: &Definition) -> Result<(), Problem> {
        self.known.forget();
        let record = encode(def)?;
        self.sql
            .exec(
                "INSERT INTO definitions (kind, name, status, record) VALUES (?, ?, ?, ?)
                 ON CONFLICT (kind, name) DO UPDATE SET status = excluded.status, record = excluded.record",
                vec![def.kind.as_str().into(), def.name.clone().into(), def.status.word().into(), record.into()],
            )
            .map_err(storage)?;
        Ok(())
    }

    fn put_version(&self, def: &Definition, version: &Version) -> Result<(), Problem> {
        self.known.forget();
        let (kind, name) = (def.kind.as_str(), def.name.clone());
        self.sql
            .exec(
                "INSERT INTO definition_versions (kind, name, version, record) VALUES (?, ?, ?, ?)",
                vec![kind.into(), name.clone().into(), i64::from(version.version).into(), encode(version)?.into()],
            )
            .map_err(storage)?;
        self.sql
            .exec("DELETE FROM definition_uses WHERE kind = ? AND name = ?", vec![kind.into(), name.clone().into()])
            .map_err(storage)?;
        for target in &version.uses {
            self.sql
                .exec(
                    "INSERT OR IGNORE INTO definition_uses (kind, name, target) VALUES (?, ?, ?)",
                    vec![kind.into(), name.clone().into(), target.key().into()],
                )
                .map_err(storage)?;
        }
        Ok(())
    }

    fn users(&self, target: &Ref) -> Result<Vec<Ref>, Problem> {
        self.known.users.get_or_try(&target.key(), || self.read_users(target))
    }

    fn page(&self, q: &DefinitionQuery, take: usize) -> Result<Vec<Definition>, Problem> {
        self.records(
            "SELECT record FROM definitions WHERE kind = ? AND (? OR status != 'retired') AND name > ?
             ORDER BY name LIMIT ?",
            vec![
                q.kind.as_str().into(),
                i64::from(q.include_retired).into(),
                q.after.clone().unwrap_or_default().into(),
                (take as i64).into(),
            ],
        )
    }
}

fn encode<T: serde::Serialize>(value: &T) -> Result<String, Problem> {
    serde_json::to_string(value).map_err(|e| Problem::internal(format!("could not encode: {e}")))
}

fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Problem> {
    json::from_str(text).map_err(|e| Problem::internal(format!("a stored definition could not be read: {e}")))
}
