//! MCP over streamable HTTP, without sessions: the wire types, the protocol revisions, the checks
//! a POST passes before it is handled, and the dispatch of each method. No transport I/O here.

mod connect_link;
mod elicit;
pub mod endpoint;
pub mod instructions;
pub mod jsonrpc;
pub mod offered;
pub mod prompts;
pub mod resources;
pub mod result;
pub use crate::core::protocol as revision;
pub mod server;
pub mod transport;

/// The name and version every answer gives as `serverInfo`.
pub const SERVER_NAME: &str = "auto-runtime";
pub const SERVER_TITLE: &str = "Auto Runtime";
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
