//! The roles a person holds in an org, and the scopes each grants.
