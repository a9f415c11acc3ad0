//! The playbook runtime: a Cloudflare Worker that serves playbooks to AI agents over MCP and HTTP.
//!
//! `core`, `ops`, `guides`, `tools`, `mcp` and `api` are plain Rust that `cargo test` runs on the host;
//! `shell` is the only module that names the Workers platform, and it only compiles to WebAssembly.

pub mod api;
pub mod core;
pub mod guides;
pub mod mcp;
pub mod ops;
pub mod tools;

#[cfg(target_arch = "wasm32")]
mod shell;
