//! The words of a refusal that names a tool server or a tool: each says what `search` shows, so
//! the agent that reads it knows where to look, and what mends a server that cannot be used.

use super::settings::Server;
use super::Because;
use crate::core::text::{count, join_and, quote};
use crate::core::{ErrorCode, FieldError, Problem};

/// Where the README tells an operator how to add a server.
pub const SETUP: &str =
    "whoever runs the runtime sets one up in TOOL_SERVERS, as the README's section Add a tool server says";

/// `playbook` may use no server `server`; `serving` are the servers it may use.
pub fn no_server(playbook: &str, server: &str, serving: &[String]) -> Problem {
    let shows = if serving.is_empty() {
        format!("no tool server serves it: {SETUP}")
    } else {
        format!("search shows the servers it may use: {}", join_and(serving))
    };
    let why = if super::is_server_name(server) {
        "is not a tool server this playbook may use"
    } else {
        "is not a server's name"
    };
    let mut p =
        Problem::not_found(format!("The playbook {playbook} may use no tool server {}; {shows}.", quote(server)));
    p.errors.push(FieldError::new("/server", why));
    p
}

/// `server` offers no `tool` to the playbook; `offered` are the tools it does offer.
pub fn no_tool(server: &str, tool: &str, offered: &[String]) -> Problem {
    let some: Vec<String> = offered.iter().take(5).cloned().collect();
    let shows = match offered.len() {
        0 => format!("it offers none, as its entry in TOOL_SERVERS allows no tool it lists; {SETUP}"),
        n => {
            format!("search with server {server} lists the {} it offers, such as {}", count(n, "tool"), join_and(&some))
        }
    };
    let mut p = Problem::not_found(format!(
        "The tool server {} offers no tool {} to this playbook; {shows}.",
        quote(server),
        quote(tool)
    ));
    p.errors.push(FieldError::new("/tool", "is not a tool this server offers the playbook"));
    p
}

/// A server that cannot be used just now, in words that say why and what mends it.
pub fn unavailable(server: &Server, because: Because, detail: &str) -> Problem {
    Problem::unavailable(format!(
        "The tool server {} cannot be used just now ({}): {}",
        quote(&server.name),
        because.as_str(),
        failure(server, because, detail)
    ))
    .with_kind(ErrorCode::ToolUnavailable)
}

/// What happened to a server and what mends it, as one sentence: the failure's words, then what
/// mends its `because`, unless the words say so already, as those of an entry of the settings
/// that cannot be read, or that names a secret not set, do.
pub fn failure(server: &Server, because: Because, detail: &str) -> String {
    let detail = detail.trim_end().trim_end_matches('.');
    if server.state.is_err() {
        format!("{detail}.")
    } else {
        format!("{detail}; {}.", because.mends())
    }
}
