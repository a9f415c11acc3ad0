//! A workflow run's step as a client reads it: its status, attempt, times, child run, what it
//! waits for and why it failed or was skipped. Kept with the run, so it names no workflow logic.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::core::run::error::RunError;

/// One step of a workflow run, as `get_run` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    pub step: String,
    /// The id as summaries read it: `review brief`.
    pub title: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<DateTime<Utc>>,
    /// The child run of the latest attempt, for a step that runs a function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// What a waiting step waits for, or when a retrying one tries again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_because: Option<String>,
}
