//! The MCP protocol revisions: those the server serves, how the revision of a request is told, and
//! what the client speaks to tool servers.

pub const MODERN: &str = "2026-07-28";
/// The handshake revisions, newest first; `initialize` answers the first when the client's is unknown.
pub const LEGACY: [&str; 5] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
/// What a request without a header and without a claim is taken to speak (spec: transports, 2025-06-18).
pub const DEFAULT_LEGACY: &str = "2025-03-26";

pub fn is_supported(version: &str) -> bool {
    version == MODERN || LEGACY.contains(&version)
}

pub fn all_supported() -> Vec<&'static str> {
    let mut v = vec![MODERN];
    v.extend(LEGACY);
    v
}

/// The revision `initialize` answers: the client's when served, otherwise the newest handshake one.
pub fn negotiate(requested: Option<&str>) -> &'static str {
    requested.and_then(|r| LEGACY.iter().find(|v| **v == r).copied()).unwrap_or(LEGACY[0])
}

/// Batches were accepted in 2025-03-26 only; later revisions removed them.
pub fn allows_batches(version: &str) -> bool {
    matches!(version, "2025-03-26" | "2024-11-05" | "2024-10-07")
}

/// The methods a 2026-07-28 request may name; anything else is refused before handling.
pub const MODERN_METHODS: [&str; 8] = [
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/read",
    "resources/templates/list",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_echoes_or_counter_offers() {
        assert_eq!(negotiate(Some("2025-06-18")), "2025-06-18");
        assert_eq!(negotiate(Some("2024-10-07")), "2024-10-07");
        assert_eq!(negotiate(Some("1999-01-01")), "2025-11-25");
        assert_eq!(negotiate(Some(MODERN)), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
        assert!(is_supported(MODERN) && !is_supported("2025-01-01"));
    }
}
