//! A reasoning function: a model reads the input, guided by a system part and a user part, and
//! answers text, or JSON of the output schema's shape. It may call the tools it names.

mod check;
pub mod dialogue;
mod run;

pub(super) use check::check;
pub use check::is_model_ref;
pub use run::{finish, prepare, Prepared};

use serde_json::Value;

pub const TOOLS_MAX: usize = 32;
pub const MAX_TOKENS_DEFAULT: u64 = 4096;

/// A reasoning function as its runs follow it; only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct ReasoningSpec {
    /// As the function names it, `provider/model`.
    model: String,
    /// At most `TOOLS_MAX`, each named once.
    tools: Vec<String>,
    input_schema: Value,
    output_schema: Option<Value>,
    /// 1 to 128 000.
    max_tokens: u64,
    temperature: Option<f64>,
    /// The templates of the system part, if the body has one, and of the user part.
    system: Option<String>,
    user: String,
}

impl ReasoningSpec {
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }

    /// The schema of its output, where it answers a structured one.
    pub fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    pub fn model(&self) -> &str {
        &self.model
    }

    pub fn tools(&self) -> &[String] {
        &self.tools
    }
}
