//! Assets: the files a generation run makes and the images a tool answers, kept once and named
//! by id. Pure: the record (`Asset`, who made it in `MadeBy`), the check of what is kept (its
//! media type, size and first bytes, in `check`), and the requests the playbook's object serves.
//! The bytes sit in the asset bucket under `key`; the record in the playbook's object.

mod check;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub use check::{begins_as, check, MAX_BYTES, MEDIA_TYPES};

use super::ids::RANDOM_CHARS;

crate::core::json::tagged::tagged! {
    /// What made an asset: a generation run, or a tool a reasoning run called.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum MadeBy as "kind" {
        /// A generation function's run, which made the file through a model.
        Generation { run_id: String },
        /// A tool's answer in a reasoning run's call, as `server/tool`.
        Tool { run_id: String, tool: String },
    }
}

impl MadeBy {
    pub fn run_id(&self) -> &str {
        match self {
            MadeBy::Generation { run_id } | MadeBy::Tool { run_id, .. } => run_id,
        }
    }
}

/// A file to keep: its declared media type, its bytes, and what made it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAsset {
    pub media_type: String,
    pub bytes: Vec<u8>,
    pub made_by: MadeBy,
}

/// An asset as its playbook keeps it. Its bytes are in the asset bucket under `key()`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Asset {
    pub id: String,
    pub org: String,
    pub playbook: String,
    pub media_type: String,
    /// Bytes.
    pub size: u64,
    /// SHA-256 of the bytes, lowercase hex.
    pub sha256: String,
    pub made_by: MadeBy,
    /// RFC 3339 with milliseconds.
    pub created_at: String,
}

impl Asset {
    /// The record of `bytes` checked and digested, under the id `random` mints.
    ///
    /// # Errors
    /// `invalid_input` where the media type is not one an asset may have, the bytes are empty
    /// or more than `MAX_BYTES`, or they do not begin as the media type's files do.
    pub fn new(
        org: &str,
        playbook: &str,
        new: &NewAsset,
        now: &str,
        random: [u8; RANDOM_CHARS],
    ) -> Result<Asset, super::Problem> {
        check(&new.media_type, &new.bytes)?;
        Ok(Asset {
            id: asset_id(random),
            org: org.to_string(),
            playbook: playbook.to_string(),
            media_type: new.media_type.clone(),
            size: new.bytes.len() as u64,
            sha256: sha256_hex(&new.bytes),
            made_by: new.made_by.clone(),
            created_at: now.to_string(),
        })
    }

    /// Where its bytes are in the asset bucket: under its org and playbook, so that no two
    /// playbooks share a key.
    pub fn key(&self) -> String {
        key(&self.org, &self.playbook, &self.id)
    }

    /// The address of its bytes, which the Worker serves to a caller who may read the playbook:
    /// `base` is the runtime's public address, or empty for a path alone.
    pub fn url(&self, base: &str) -> String {
        format!(
            "{}/v1/orgs/{}/playbooks/{}/assets/{}/content",
            base.trim_end_matches('/'),
            self.org,
            self.playbook,
            self.id
        )
    }

    /// What a run's output and an event name an asset by:
    /// `{asset_id, media_type, size, sha256, url}`.
    pub fn summary(&self, base: &str) -> Value {
        json!({
            "asset_id": self.id,
            "media_type": self.media_type,
            "size": self.size,
            "sha256": self.sha256,
            "url": self.url(base),
        })
    }

    /// The asset as `get_asset` answers it: every field of the record but the org, and `url`.
    pub fn view(&self, base: &str) -> Value {
        json!({
            "asset_id": self.id,
            "playbook": self.playbook,
            "media_type": self.media_type,
            "size": self.size,
            "sha256": self.sha256,
            "made_by": self.made_by,
            "created_at": self.created_at,
            "url": self.url(base),
        })
    }
}

/// Where the bytes of asset `id` of a playbook are in the asset bucket.
pub fn key(org: &str, playbook: &str, id: &str) -> String {
    format!("{org}/{playbook}/{id}")
}

/// `ast_` followed by 16 base32 characters drawn from `random`.
pub fn asset_id(random: [u8; RANDOM_CHARS]) -> String {
    super::ids::prefixed("ast_", random)
}

/// Whether `s` has the shape of an asset id; anything else names no asset.
pub fn is_asset_id(s: &str) -> bool {
    super::ids::is_prefixed("ast_", s)
}

/// Randomness drawn from `seed`, for an id that must come out the same when the same thing is
/// kept again, such as a tool's image when a run's call is retried.
pub fn seeded(seed: &str) -> [u8; RANDOM_CHARS] {
    let digest = Sha256::digest(seed.as_bytes());
    let mut random = [0; RANDOM_CHARS];
    random.copy_from_slice(&digest[..RANDOM_CHARS]);
    random
}

/// SHA-256 of `bytes`, lowercase hex, as an asset's record carries it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The refusal of an asset id a playbook does not keep, or one not of an asset's shape.
pub fn unknown_asset(id: &str) -> super::Problem {
    super::Problem::not_found(format!("No asset {id} in this playbook; an asset's id starts with ast_ and is named by the run or the event that made it."))
}

/// Keeps an asset's record in its playbook's object, whose bytes are already in the bucket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeepAsset {
    pub playbook: String,
    pub asset: Asset,
}

/// A read of one asset's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetAsset {
    pub playbook: String,
    pub asset_id: String,
}

#[cfg(test)]
mod tests;
