//! Who may come in, and as whom: API keys, the roles people hold in an org, and the OAuth 2.1
//! authorization server that signs people in. Pure: the shell keeps what these decide.

pub mod csrf;
pub mod key;
pub mod oauth;
pub mod oidc;
pub mod role;
pub mod session;
pub mod store;
