//! A playbook's definitions in its Durable Object's SQLite: the current state of each, every
//! version, and which definitions each current version uses. The pure rules decide; this stores.

use serde::Deserialize;
use worker::SqlStorage;

use super::playbook::storage;
use crate::core::definition::record::{unknown_definition, Definition, DefinitionStatus, Version};
use crate::core::definition::store::{
    decide_save, DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView, Mode, SaveCommand, SaveDecision,
    LIST_LIMIT_MAX,
};
use crate::core::definition::workflow;
use crate::core::definition::workflow_calls::{check_calls, Callee};
use crate::core::definition::{Kind, Ref};
use crate::core::page::split;
use crate::core::Problem;

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
}

impl Definitions<'_> {
    /// Keeps a write. A retired playbook takes none: its object refuses them before they come here.
    pub fn run(&self, command: DefinitionCommand) -> Result<DefinitionView, Problem> {
        match command {
            DefinitionCommand::Create(save) => self.save(&save, Mode::Create),
            DefinitionCommand::Update(save) => self.save(&save, Mode::Update),
            DefinitionCommand::Change { kind, name, change, now, by } => {
                let (mut def, _) = self.current(kind, &name)?.ok_or_else(|| unknown_definition(kind, &name))?;
                match change.next(&def, &now, &by)? {
                    None => self.view(kind, &name, false),
                    Some(status) => {
                        def.status = status;
                        def.updated_at = now;
                        def.updated_by = Some(by);
                        self.put(&def)?;
                        self.view(kind, &name, true)
                    }
                }
            }
        }
    }

    pub fn get(&self, definition: &Ref) -> Result<DefinitionView, Problem> {
        self.view(definition.kind, &definition.name, false)
    }

    fn save(&self, save: &SaveCommand, mode: Mode) -> Result<DefinitionView, Problem> {
        let existing = self.current(save.kind, &save.name)?;
        let missing = self.missing(&save.uses)?;
        if save.kind == Kind::Workflow && missing.is_empty() {
            let plan = workflow::plan(&save.source)?;
            check_calls(&plan, &|r: &Ref| {
                let (def, version) = self.current(r.kind, &r.name).ok().flatten()?;
                Some(Callee::from_source(
                    matches!(def.status, DefinitionStatus::Retired { .. }),
                    r.kind,
                    &version.source,
                ))
            })?;
        }
        match decide_save(save, mode, existing.as_ref().map(|(d, v)| (d, v)), &missing)? {
            SaveDecision::Unchanged => self.view(save.kind, &save.name, false),
            SaveDecision::Keep(def, version) => {
                self.put(&def)?;
                self.put_version(&def, &version)?;
                self.view(def.kind, &def.name, true)
            }
        }
    }

    fn current(&self, kind: Kind, name: &str) -> Result<Option<(Definition, Version)>, Problem> {
        let Some(def) = self.definition(kind, name)? else {
            return Ok(None);
        };
        let rows: Vec<Record> = self
            .sql
            .exec(
                "SELECT record FROM definition_versions WHERE kind = ? AND name = ? AND version = ?",
                vec![kind.as_str().into(), name.into(), i64::from(def.version).into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let version = rows.first().ok_or_else(|| Problem::internal("a definition's current version is missing"))?;
        Ok(Some((def, decode(&version.record)?)))
    }

    fn definition(&self, kind: Kind, name: &str) -> Result<Option<Definition>, Problem> {
        let rows: Vec<Record> = self
            .sql
            .exec("SELECT record FROM definitions WHERE kind = ? AND name = ?", vec![kind.as_str().into(), name.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        rows.first().map(|r| decode(&r.record)).transpose()
    }

    /// The uses that name no active or paused definition of the playbook.
    fn missing(&self, uses: &[Ref]) -> Result<Vec<Ref>, Problem> {
        let mut missing = Vec::new();
        for r in uses {
            match self.definition(r.kind, &r.name)? {
                Some(d) if !matches!(d.status, DefinitionStatus::Retired { .. }) => {}
                _ => missing.push(r.clone()),
            }
        }
        Ok(missing)
    }

    fn put(&self, def: &Definition) -> Result<(), Problem> {
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

    fn view(&self, kind: Kind, name: &str, changed: bool) -> Result<DefinitionView, Problem> {
        let (definition, version) = self.current(kind, name)?.ok_or_else(|| unknown_definition(kind, name))?;
        let target = Ref { kind, name: name.to_string() }.key();
        let users: Vec<User> = self
            .sql
            .exec(
                "SELECT u.kind AS kind, u.name AS name FROM definition_uses u
                 JOIN definitions d ON d.kind = u.kind AND d.name = u.name
                 WHERE u.target = ? AND d.status != 'retired' ORDER BY u.kind, u.name",
                vec![target.into()],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let used_by =
            users.into_iter().filter_map(|u| Some(Ref { kind: Kind::parse(&u.kind)?, name: u.name })).collect();
        Ok(DefinitionView {
            definition,
            document: version.source,
            overview: version.overview,
            diagram: version.diagram,
            used_by,
            changed,
        })
    }

    pub fn list(&self, q: DefinitionQuery) -> Result<DefinitionPage, Problem> {
        let limit = q.limit.clamp(1, LIST_LIMIT_MAX);
        let rows: Vec<Record> = self
            .sql
            .exec(
                "SELECT record FROM definitions WHERE kind = ? AND (? OR status != 'retired') AND name > ?
                 ORDER BY name LIMIT ?",
                vec![
                    q.kind.as_str().into(),
                    i64::from(q.include_retired).into(),
                    q.after.clone().unwrap_or_default().into(),
                    ((limit + 1) as i64).into(),
                ],
            )
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        let definitions: Vec<Definition> = rows.iter().map(|r| decode(&r.record)).collect::<Result<_, _>>()?;
        let (definitions, next_cursor) = split(definitions, limit, |d| d.name.clone());
        Ok(DefinitionPage { definitions, next_cursor })
    }
}

fn encode<T: serde::Serialize>(value: &T) -> Result<String, Problem> {
    serde_json::to_string(value).map_err(|e| Problem::internal(format!("could not encode: {e}")))
}

fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Problem> {
    serde_json::from_str(text).map_err(|e| Problem::internal(format!("a stored definition could not be read: {e}")))
}
