//! Why a run failed, as the run keeps it and every part that fails a run says it.

use serde::{Deserialize, Serialize};

use crate::core::code::ErrorCode;

/// Why a run failed: a stable reason and the words that explain it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunError {
    pub reason: ErrorCode,
    pub detail: String,
}

impl RunError {
    pub fn new(reason: ErrorCode, detail: impl Into<String>) -> Self {
        RunError { reason, detail: detail.into() }
    }
}
