//! Assets' bytes in the R2 bucket bound as `ASSETS`: never a public bucket, since the Worker
//! serves the bytes to callers who may read the playbook.

use worker::{Bucket, Env, HttpMetadata};

use crate::core::Problem;
use crate::shell::env::ASSETS;

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
