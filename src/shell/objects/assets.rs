//! Assets' records in a table of the playbook's object, kept whole as JSON; their bytes are in
//! the bucket (`shell::bucket`).

use serde::Deserialize;
use worker::SqlStorage;

use super::sql::storage;
use crate::core::asset::Asset;
use crate::core::json;
use crate::core::migration::Step;
use crate::core::Problem;
use crate::ops::assets::AssetStore;

/// The step that adds the table to the playbook's object.
pub const TABLE: Step = Step::Sql(
    "CREATE TABLE IF NOT EXISTS assets (
  id TEXT PRIMARY KEY, created_at TEXT NOT NULL, record TEXT NOT NULL
);",
);

#[derive(Deserialize)]
struct Row {
    record: String,
}

pub struct SqlAssets<'s> {
    pub sql: &'s SqlStorage,
}

impl AssetStore for SqlAssets<'_> {
    fn get(&self, id: &str) -> Result<Option<Asset>, Problem> {
        let rows: Vec<Row> = self
            .sql
            .exec("SELECT record FROM assets WHERE id = ?", vec![id.into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        rows.first()
            .map(|r| json::from_str(&r.record))
            .transpose()
            .map_err(|e| Problem::internal(format!("a stored asset could not be read: {e}")))
    }

    fn put(&self, asset: &Asset) -> Result<(), Problem> {
        let record =
            serde_json::to_string(asset).map_err(|e| Problem::internal(format!("could not encode an asset: {e}")))?;
        self.sql
            .exec(
                "INSERT INTO assets (id, created_at, record) VALUES (?, ?, ?)",
                vec![asset.id.clone().into(), asset.created_at.clone().into(), record.into()],
            )
            .map(|_| ())
            .map_err(storage)
    }
}
