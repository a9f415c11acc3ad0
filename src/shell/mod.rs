//! The thin shell: the only code that names the Workers platform. It reads requests, resolves the
//! caller, hands pure code what it needs (time, randomness, storage), and writes responses.

mod access;
mod assets;
mod backend;
mod caller;
mod calls;
mod catalog;
mod comments;
mod connect_page;
mod connection_settings;
mod connections;
mod cors;
mod debug_page;
mod definitions;
mod do_rpc;
mod entry;
mod env;
mod events;
mod incoming;
mod mcp_http;
mod migrate;
mod models;
mod organization;
mod outbound;
mod page_caller;
mod page_forms;
mod page_session;
mod playbook;
mod requests;
mod run;
mod runs_index;
mod sign_in;
mod studio;
mod tool_servers;
mod triggers;
mod zones;
