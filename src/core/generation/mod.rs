//! Generation: the models a generation function may name, from the catalogue compiled into the
//! runtime, and the words `list_generation_models` says of them. Running one through a gateway,
//! and keeping what it makes as assets, is not here yet.

pub mod catalog;

pub use catalog::{Kind, Limits, Model, References, Retired, CATALOGUE};
