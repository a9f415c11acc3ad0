//! The request doors: the Worker's fetch handler and its route table (`entry`), who a request
//! acts as (`caller`), MCP over streamable HTTP, the sign-in routes, and the runtime's own pages.
//! A door reaches state only through the backend port or a typed call to an object.

mod answers;
mod assets;
pub mod caller;
mod connect_page;
mod cors;
mod debug_page;
mod entry;
mod identity;
mod limits;
mod mcp_http;
mod page_caller;
mod page_forms;
mod page_session;
mod sign_in;
mod studio;
