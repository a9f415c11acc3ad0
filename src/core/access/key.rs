//! API keys: their format, their digest, and what a kept key grants.
