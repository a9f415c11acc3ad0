//! A computation function: a deterministic calculation with no model. Each output field is a
//! template expression over `input` and the fields computed before it, held to the output schema.

mod check;
mod run;

pub(super) use check::check;
pub use run::evaluate;

use serde_json::Value;

pub const FIELDS_MAX: usize = 64;

/// A computation function as its runs follow it; only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputationSpec {
    input_schema: Value,
    output_schema: Value,
    /// Each output field and its expression, in the order computed: 1 to `FIELDS_MAX`.
    fields: Vec<(String, String)>,
}

impl ComputationSpec {
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    pub fn output_schema(&self) -> &Value {
        &self.output_schema
    }
}
