//! Generation: the models a generation function may name, from the catalogue compiled into the
//! runtime, the words `list_generation_models` says of them, and the wire a run speaks to the
//! operator's gateway.

pub mod catalog;
pub mod wire;

pub use catalog::{Kind, Limits, Model, References, Retired, CATALOGUE};
