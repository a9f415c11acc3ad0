//! The pure core: no I/O, no clock, no randomness. The shell hands in time, ids and storage.

pub mod access;
pub mod actor;
pub mod address;
pub mod asset;
pub mod caller;
pub mod code;
pub mod comment;
pub mod connection;
pub mod definition;
pub mod directory;
pub mod error;
pub mod event;
pub mod generation;
pub mod ids;
pub mod json;
pub mod markup;
pub mod memo;
pub mod migration;
pub mod model;
pub mod page;
pub mod picture;
pub mod playbook;
pub mod protocol;
pub mod redirect;
pub mod run;
pub mod schema;
pub mod service_auth;
pub mod studio;
pub mod text;
pub mod tool_server;
pub mod workflow;
pub mod yaml;
pub mod zone;

pub use caller::Caller;
pub use code::ErrorCode;
pub use error::{FieldError, Problem, Reason};
