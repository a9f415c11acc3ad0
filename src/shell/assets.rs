//! Assets over the platform: their bytes in the R2 bucket bound as `ASSETS` (never a public
//! bucket: the Worker serves the bytes to callers who may read the playbook), and their records
//! in a table of the playbook's object, kept whole as JSON.

use serde::Deserialize;
use worker::{Bucket, Env, HttpMetadata, Response, SqlStorage};

use super::backend::Objects;
use super::env::{Settings, ASSETS};
use super::incoming::Incoming;
use super::playbook::storage;
use crate::api::Reply;
use crate::core::asset::Asset;
use crate::core::json;
use crate::core::migration::Step;
use crate::core::Caller;
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

fn bucket(env: &Env) -> Result<Bucket, Problem> {
    env.bucket(ASSETS).map_err(|e| {
        worker::console_error!("binding {ASSETS}: {e}");
        Problem::unavailable("The asset store is not reachable just now; try again.")
    })
}

fn unanswered(e: worker::Error) -> Problem {
    worker::console_error!("asset bucket: {e}");
    Problem::unavailable("The asset store did not answer just now, so nothing was kept; try again.")
}

/// Puts bytes in the bucket under `key`, with their media type.
pub async fn put(env: &Env, key: &str, media_type: &str, bytes: Vec<u8>) -> Result<(), Problem> {
    let metadata = HttpMetadata { content_type: Some(media_type.to_string()), ..HttpMetadata::default() };
    bucket(env)?.put(key, bytes).http_metadata(metadata).execute().await.map(|_| ()).map_err(unanswered)
}

/// The bytes under `key`, none where the bucket holds nothing there.
pub async fn get(env: &Env, key: &str) -> Result<Option<Vec<u8>>, Problem> {
    let Some(object) = bucket(env)?.get(key).execute().await.map_err(unanswered)? else { return Ok(None) };
    match object.body() {
        Some(body) => body.bytes().await.map(Some).map_err(unanswered),
        None => Ok(None),
    }
}

/// Serves the bytes of an asset at its `url` to a caller permitted `get_asset` on its playbook,
/// as the asset's media type, shown inline and never run: `nosniff`, and a policy that allows
/// nothing and sandboxes the document, should a browser open it as one.
pub async fn serve(
    req: &Incoming,
    path: &str,
    env: &Env,
    settings: &Settings,
    caller: &Caller,
    (org, playbook, asset_id): (String, String, String),
) -> worker::Result<Response> {
    let refused = |p: Problem| {
        let challenge = super::caller::challenge(settings, path, p.status(), p.scope.as_deref(), true, "");
        super::entry::challenged(Reply::problem(&p), challenge)
    };
    if req.method() != "GET" {
        let p = Problem::new(crate::core::Reason::MethodNotAllowed, "This route answers GET only.");
        let mut resp = super::entry::send(Reply::problem(&p))?;
        resp.headers_mut().set("allow", "GET")?;
        return Ok(resp);
    }
    let backend = Objects { env };
    let found = match backend.context(caller) {
        Ok(ctx) => crate::tools::asset_content(&ctx, &org, &playbook, &asset_id).await,
        Err(p) => Err(p),
    };
    let (asset, bytes) = match found {
        Ok(found) => found,
        Err(p) => return refused(p),
    };
    let mut resp = Response::from_bytes(bytes)?;
    let headers = resp.headers_mut();
    headers.set("content-type", &asset.media_type)?;
    headers.set("x-content-type-options", "nosniff")?;
    headers.set("content-disposition", &format!("inline; filename=\"{}\"", asset.id))?;
    headers.set("content-security-policy", "default-src 'none'; sandbox")?;
    headers.set("cross-origin-resource-policy", "same-origin")?;
    headers.set("referrer-policy", "no-referrer")?;
    // The bytes of an id never change, but who may read them can: a browser keeps them a while,
    // for this caller alone.
    headers.set("cache-control", "private, max-age=3600")?;
    headers.set("etag", &format!("\"{}\"", asset.sha256))?;
    Ok(resp)
}
