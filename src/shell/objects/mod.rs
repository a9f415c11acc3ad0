//! The Durable Objects, each over its own SQLite: the org's directory (`organization`), a
//! playbook (`playbook`, with its tables in the files beside it), a run (`run`), the runtime's
//! one Access object and one Sign-in object, and the catalog of models. Each reads a call,
//! decides in `ops` or `core`, keeps, then acts.

mod access;
mod assets;
mod catalog;
mod comments;
mod connections;
mod definitions;
mod events;
mod migrate;
mod organization;
mod playbook;
mod records;
mod requests;
mod run;
mod runs_index;
mod sign_in_store;
mod sql;
mod triggers;
