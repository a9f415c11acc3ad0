//! Tool servers: the MCP servers and HTTP APIs whose tools a playbook's functions may call, as
//! the operator lists them in `TOOL_SERVERS`. A connection a person adds (a later issue) becomes
//! one more source of the same `Server`.
//!
//! Every tool carries a mark, which says whether it only reads, and who said so. A server that
//! cannot be used is listed with `because`, in words that say what mends it.

pub mod mcp;
pub mod offer;
pub mod openapi;
pub mod settings;
pub mod words;

use serde::Serialize;

pub use settings::{Credential, Place, ServerEntry, ServerKind, ToolServers};

/// The most tools kept from one server, listed or read from its document.
pub const TOOLS_MAX: usize = 1000;

/// One HTTP request to a tool server, as the shell's transport sends it: an MCP post, a fetch of
/// an API's document, or a call to one of its operations.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `GET`, `POST`, …, in capitals.
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// Whether a tool only reads. `Unmarked` counts as `Acts`: nothing vouches that it does not act.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mark {
    Reads,
    Acts,
    Unmarked,
}

impl Mark {
    /// The word serde writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Mark::Reads => "reads",
            Mark::Acts => "acts",
            Mark::Unmarked => "unmarked",
        }
    }

    pub fn reads(self) -> bool {
        self == Mark::Reads
    }

    /// The mark an MCP server gives by its hints: `readOnlyHint: true` reads, `false` acts, and
    /// no hint leaves the tool unmarked.
    pub fn from_read_only_hint(hint: Option<bool>) -> Mark {
        match hint {
            Some(true) => Mark::Reads,
            Some(false) => Mark::Acts,
            None => Mark::Unmarked,
        }
    }

    /// The mark an HTTP operation takes from its method: `GET` and `HEAD` read.
    pub fn from_method(method: &str) -> Mark {
        if method.eq_ignore_ascii_case("get") || method.eq_ignore_ascii_case("head") {
            Mark::Reads
        } else {
            Mark::Acts
        }
    }
}

/// Who gave a tool its mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkedBy {
    /// The hints its MCP server lists it with, or their lack.
    Server,
    /// The HTTP method of an operation of an HTTP API.
    Method,
    /// The entry of its provider in the runtime's catalogue.
    Catalogue,
    /// Its entry in the operator's settings.
    Settings,
}

impl MarkedBy {
    /// The word serde writes.
    pub fn as_str(self) -> &'static str {
        match self {
            MarkedBy::Server => "server",
            MarkedBy::Method => "method",
            MarkedBy::Catalogue => "catalogue",
            MarkedBy::Settings => "settings",
        }
    }
}

/// Why a server cannot be used now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Because {
    /// It could not be reached, or gave no answer in time; this may pass.
    Unreachable,
    /// It answered with errors, or with what is not MCP; this may pass.
    Failing,
    /// It asked the runtime to slow down; this passes.
    RateLimited,
    /// It did not accept the runtime's credential.
    KeyRefused,
    /// Its entry in `TOOL_SERVERS` cannot be read as written.
    SettingsInvalid,
    /// Its entry names a Worker secret that is not set.
    SecretNotSet,
    /// The OpenAPI document its entry names cannot be read as one, or offers no tool.
    DocumentRefused,
    /// A connection nobody has approved yet.
    ConnectionPending,
    /// A connection whose server refused its credential, or whose consent ended.
    ConnectionBroken,
    /// A connection a rule of the operator no longer takes.
    ConnectionNotAllowed,
    /// A connection whose credential cannot be read just now.
    ConnectionUnavailable,
}

impl Because {
    pub fn as_str(self) -> &'static str {
        match self {
            Because::Unreachable => "unreachable",
            Because::Failing => "failing",
            Because::RateLimited => "rate_limited",
            Because::KeyRefused => "key_refused",
            Because::SettingsInvalid => "settings_invalid",
            Because::SecretNotSet => "secret_not_set",
            Because::DocumentRefused => "document_refused",
            Because::ConnectionPending => "connection_pending",
            Because::ConnectionBroken => "connection_broken",
            Because::ConnectionNotAllowed => "connection_not_allowed",
            Because::ConnectionUnavailable => "connection_unavailable",
        }
    }

    /// What mends it, and who does.
    pub fn mends(self) -> &'static str {
        match self {
            Because::Unreachable => "it may be down or between restarts, and a later call may find it back; if it stays so, whoever runs the runtime checks its address in TOOL_SERVERS",
            Because::Failing => "a later call may find it mended; if not, whoever runs the server looks into its errors",
            Because::RateLimited => "wait a minute and call again",
            Because::KeyRefused => "whoever runs the runtime puts a credential the server accepts in the Worker secret its entry names",
            Because::SettingsInvalid => "whoever runs the runtime corrects its entry in TOOL_SERVERS",
            Because::SecretNotSet => "whoever runs the runtime sets the secret its entry names, with wrangler secret put",
            Because::DocumentRefused => "whoever runs the runtime mends the document its entry names, at its document address or as its document_text in TOOL_SERVERS, or names another",
            Because::ConnectionPending => "the person who added it approves it on the page of its link; once the link has expired, reconnect_connection gives a new one",
            Because::ConnectionBroken => "reconnect_connection gives a link on which the person gives its credential or signs in again",
            Because::ConnectionNotAllowed => "whoever runs the runtime allows it again in its settings, or the person removes it with remove_connection",
            Because::ConnectionUnavailable => "a later call may find its credential readable again; if not, whoever runs the runtime checks CONNECTIONS_KEY",
        }
    }
}

/// A server's name: what a function writes before its tools, lowercase letters, digits, `-` and
/// `_`, starting with a letter, at most 64 characters.
pub fn is_server_name(name: &str) -> bool {
    name.len() <= 64
        && name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_say_the_words_serde_writes() {
        for mark in [Mark::Reads, Mark::Acts, Mark::Unmarked] {
            assert_eq!(serde_json::to_value(mark).unwrap(), mark.as_str());
        }
        for by in [MarkedBy::Server, MarkedBy::Method, MarkedBy::Catalogue, MarkedBy::Settings] {
            assert_eq!(serde_json::to_value(by).unwrap(), by.as_str());
        }
        for because in [
            Because::Unreachable,
            Because::Failing,
            Because::RateLimited,
            Because::KeyRefused,
            Because::SettingsInvalid,
            Because::SecretNotSet,
            Because::DocumentRefused,
            Because::ConnectionPending,
            Because::ConnectionBroken,
            Because::ConnectionNotAllowed,
            Because::ConnectionUnavailable,
        ] {
            assert_eq!(serde_json::to_value(because).unwrap(), because.as_str());
        }
    }

    #[test]
    fn marks_come_from_hints_and_methods() {
        assert_eq!(Mark::from_read_only_hint(Some(true)), Mark::Reads);
        assert_eq!(Mark::from_read_only_hint(Some(false)), Mark::Acts);
        assert_eq!(Mark::from_read_only_hint(None), Mark::Unmarked);
        assert!(!Mark::Unmarked.reads());
        assert_eq!(Mark::from_method("HEAD"), Mark::Reads);
        assert_eq!(Mark::from_method("post"), Mark::Acts);
    }
}
