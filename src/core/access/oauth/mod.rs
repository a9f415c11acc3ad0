//! The runtime as its own OAuth 2.1 authorization server, decided in pure code.

pub mod authorize;
pub mod cimd;
pub mod client;
pub mod error;
pub mod exchange;
pub mod form;
pub mod grant;
pub mod metadata;
pub mod person;
pub mod pkce;
pub mod redirect;
pub mod resource;
pub mod secret;
pub mod token;
pub mod url;
