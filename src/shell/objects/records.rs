//! Rows that keep one JSON record each, as the Access and Sign-in objects keep them: the records
//! a query answers, a statement run, a record written, and a time as every stored time is.

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use worker::{SqlStorage, SqlStorageValue};

use super::sql::storage;
use crate::core::{json, Problem};

#[derive(Deserialize)]
struct Row {
    record: String,
}

/// The records one query answers, each read from its `record` column's JSON; one that cannot be
/// read is skipped.
pub fn records<T: DeserializeOwned>(sql: &SqlStorage, query: &str, args: &[&str]) -> Result<Vec<T>, Problem> {
    let rows: Vec<Row> = sql
        .exec(query, args.iter().map(|a| a.to_string().into()).collect::<Vec<_>>())
        .and_then(|c| c.to_array())
        .map_err(storage)?;
    Ok(rows.iter().filter_map(|r| json::from_str(&r.record).ok()).collect())
}

/// The first record one query answers.
pub fn record<T: DeserializeOwned>(sql: &SqlStorage, query: &str, args: &[&str]) -> Result<Option<T>, Problem> {
    Ok(records(sql, query, args)?.into_iter().next())
}

/// Runs one statement.
pub fn run(sql: &SqlStorage, query: &str, args: Vec<SqlStorageValue>) -> Result<(), Problem> {
    sql.exec(query, args).map(|_| ()).map_err(storage)
}

/// A record as it is kept: its JSON.
pub fn encode<T: serde::Serialize>(record: &T) -> Result<String, Problem> {
    serde_json::to_string(record).map_err(|e| Problem::internal(format!("a record could not be written: {e}")))
}

/// A time as every stored time is written, so that times compare as text.
pub fn time(at: DateTime<Utc>) -> String {
    crate::core::text::stamp(at)
}
