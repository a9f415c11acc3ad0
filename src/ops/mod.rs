//! The operations layer: the ports an operation reaches storage and the world through, and the
//! operations that both a tool and a Durable Object start, such as starting a run. Tools call down
//! into it, and so do the objects' alarms (a trigger, a workflow's step); it calls only `core`.
//! Work an object does over its own tables, such as keeping triggers, reaches them through a
//! store trait the object implements.

pub mod access;
pub mod api_client;
pub mod assets;
mod backend;
pub mod claims;
pub mod comments;
pub mod connections;
pub mod directory;
#[cfg(not(target_arch = "wasm32"))]
pub mod faults;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
#[cfg(not(target_arch = "wasm32"))]
pub mod memory_tools;
pub mod outbound;
pub mod playbook;
pub mod run;
pub mod run_start;
pub mod service_auth;
pub mod tool_binding;
pub mod tool_client;
pub mod tool_servers;
pub mod triggers;

pub use backend::{Backend, Ctx};
