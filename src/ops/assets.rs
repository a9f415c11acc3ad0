//! Assets: files kept once, their bytes in the asset bucket and their record in the playbook's
//! object, read by id. A generation run keeps what its model made, and a reasoning run keeps
//! the images its tools answer.
//!
//! The API other operations call (stable; `core::asset` has the types):
//!
//! ```text
//! pub async fn keep(backend: &dyn Backend, org: &str, playbook: &str, new: NewAsset,
//!                   now: DateTime<Utc>, random: [u8; RANDOM_CHARS]) -> Result<Asset, Problem>;
//! pub async fn get(backend: &dyn Backend, org: &str, playbook: &str, asset_id: &str)
//!                  -> Result<Asset, Problem>;
//! pub async fn content(backend: &dyn Backend, org: &str, playbook: &str, asset_id: &str)
//!                      -> Result<(Asset, Vec<u8>), Problem>;
//!
//! core::asset::NewAsset { media_type: String, bytes: Vec<u8>, made_by: MadeBy }
//! core::asset::MadeBy::Generation { run_id } | MadeBy::Tool { run_id, tool }   // tool: "server/tool"
//! core::asset::Asset { id, org, playbook, media_type, size: u64, sha256 /* hex */, made_by,
//!                      created_at /* RFC 3339, ms */ }
//! Asset::summary(&self, base: &str) -> Value   // {asset_id, media_type, size, sha256, url}
//! Asset::view(&self, base: &str) -> Value      // get_asset's answer: the record and url
//! Asset::url(&self, base: &str) -> String      // {base}/v1/orgs/{org}/playbooks/{pb}/assets/{id}/content
//! core::asset::seeded(seed: &str) -> [u8; RANDOM_CHARS]  // `random` that is the same on a retry
//! core::asset::{check, MEDIA_TYPES, MAX_BYTES}          // what keep refuses, checked up front
//! ```
//!
//! `base` is the runtime's public address (`ctx.connections.base` in a request), or "" for a
//! path alone. From a run's object, `backend` is `RunHost::backend()`.
//!
//! `keep` checks the file (`core::asset::check`: media type, size, first bytes), puts the bytes
//! in the bucket, then has the playbook's object keep the record, and answers the record only
//! once it is kept. Bytes come first: a failure between the two leaves bytes no record names,
//! which nothing reads (a record never names missing bytes). Kept again under the same id with
//! the same bytes (a retry with `seeded` randomness), it answers the record kept first.

use chrono::{DateTime, Utc};

use super::Backend;
use crate::core::asset::{is_asset_id, key, unknown_asset, Asset, NewAsset};
use crate::core::ids::RANDOM_CHARS;
use crate::core::text::stamp;
use crate::core::Problem;

/// The table of a playbook's assets, in its object.
pub trait AssetStore {
    fn get(&self, id: &str) -> Result<Option<Asset>, Problem>;
    fn put(&self, asset: &Asset) -> Result<(), Problem>;
}

/// Keeps a file of a playbook as an asset, bytes first, then its record; answers the record.
///
/// # Errors
/// `invalid_input` with a pointer at `/media_type` or `/bytes` for a file that may not be kept
/// (`core::asset::check`), and nothing is written; `unavailable` where the bucket or the
/// playbook's object did not answer; `not_found` for a playbook the org does not keep.
pub async fn keep(
    backend: &dyn Backend,
    org: &str,
    playbook: &str,
    new: NewAsset,
    now: DateTime<Utc>,
    random: [u8; RANDOM_CHARS],
) -> Result<Asset, Problem> {
    let asset = Asset::new(org, playbook, &new, &stamp(now), random)?;
    backend.put_asset_bytes(&asset.key(), &asset.media_type, new.bytes).await?;
    backend.keep_asset(asset).await
}

/// The record of one asset of a playbook.
///
/// # Errors
/// `not_found` for an id of no asset of the playbook, or a playbook the org does not keep.
pub async fn get(backend: &dyn Backend, org: &str, playbook: &str, asset_id: &str) -> Result<Asset, Problem> {
    if !is_asset_id(asset_id) {
        return Err(unknown_asset(asset_id));
    }
    backend.get_asset(org, playbook, asset_id).await
}

/// An asset's record and its bytes, for the route that serves them.
///
/// # Errors
/// As `get`; `internal` where the record names bytes the bucket does not hold, or holds another
/// number of bytes than it says. (Their SHA-256 is not computed again on every read: a Worker's
/// time is short, and the bucket checks what it keeps.)
pub async fn content(
    backend: &dyn Backend,
    org: &str,
    playbook: &str,
    asset_id: &str,
) -> Result<(Asset, Vec<u8>), Problem> {
    let asset = get(backend, org, playbook, asset_id).await?;
    let Some(bytes) = backend.asset_bytes(&key(org, playbook, &asset.id)).await? else {
        return Err(Problem::internal(format!("asset {} has a record but no bytes in the bucket", asset.id)));
    };
    if bytes.len() as u64 != asset.size {
        return Err(Problem::internal(format!(
            "the bucket holds {} bytes of asset {}, not {}",
            bytes.len(),
            asset.id,
            asset.size
        )));
    }
    Ok((asset, bytes))
}

/// Keeps a record in the playbook's object, which answers the record kept: a record kept again
/// with the same bytes answers the first, and one that names other bytes under the same id is
/// refused (ids are random, so that is a fault).
pub fn record(store: &dyn AssetStore, asset: Asset) -> Result<Asset, Problem> {
    match store.get(&asset.id)? {
        Some(kept) if kept.sha256 == asset.sha256 => Ok(kept),
        Some(_) => Err(Problem::internal(format!("asset {} is kept already with other bytes", asset.id))),
        None => {
            store.put(&asset)?;
            Ok(asset)
        }
    }
}

/// A playbook's assets in memory, for host tests; can be told to fail.
#[cfg(not(target_arch = "wasm32"))]
pub mod memory {
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    use super::AssetStore;
    use crate::core::asset::Asset;
    use crate::core::Problem;
    use crate::ops::faults::Faults;

    #[derive(Default)]
    pub struct MemAssets {
        pub rows: RefCell<BTreeMap<String, Asset>>,
        pub faults: Faults,
    }

    impl AssetStore for MemAssets {
        fn get(&self, id: &str) -> Result<Option<Asset>, Problem> {
            Ok(self.rows.borrow().get(id).cloned())
        }

        fn put(&self, asset: &Asset) -> Result<(), Problem> {
            self.faults.write("put")?;
            self.rows.borrow_mut().insert(asset.id.clone(), asset.clone());
            Ok(())
        }
    }

    /// The asset bucket in memory: each key's media type and bytes; can be told to fail.
    pub struct MemBucket {
        pub objects: RefCell<BTreeMap<String, (String, Vec<u8>)>>,
        pub faults: Faults,
    }

    impl Default for MemBucket {
        fn default() -> Self {
            MemBucket { objects: RefCell::default(), faults: Faults::named("The asset bucket") }
        }
    }

    impl MemBucket {
        pub fn put(&self, key: &str, media_type: &str, bytes: Vec<u8>) -> Result<(), Problem> {
            self.faults.write("put")?;
            self.objects.borrow_mut().insert(key.to_string(), (media_type.to_string(), bytes));
            Ok(())
        }

        pub fn get(&self, key: &str) -> Option<Vec<u8>> {
            self.objects.borrow().get(key).map(|(_, bytes)| bytes.clone())
        }
    }
}

#[cfg(test)]
#[path = "assets_tests.rs"]
mod tests;
