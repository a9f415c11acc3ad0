//! The thin shell: the only code that names the Workers platform. It reads requests, resolves the
//! caller, hands pure code what it needs (time, randomness, storage), and writes responses.
//!
//! Three kinds of code, apart: the doors answer requests (`doors`), the Durable Objects keep
//! state in their SQLite (`objects`), and the files here are the platform both stand on: the
//! typed calls between them, the backend port over those calls, settings, outbound fetch, and
//! the helpers each side shares. A door never names an object's code, nor an object a door's
//! (`tests/layers.rs` keeps it so).

mod backend;
mod bucket;
mod calls;
mod connection_settings;
mod do_rpc;
mod doors;
mod env;
mod http;
mod incoming;
mod models;
mod objects;
mod outbound;
mod seen_keys;
mod singletons;
mod tool_servers;
mod zones;
