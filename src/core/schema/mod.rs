//! JSON Schema, our own: a schema is checked once when it is compiled (what the draft's
//! meta-schema would refuse, each refusal with a pointer into the schema), then values are
//! validated against it, each misfit with a pointer into the value and a sentence.
//!
//! What is covered: drafts 4, 6, 7, 2019-09 and 2020-12 as far as a schema of one document goes
//! (no schema is ever fetched); `$ref` to `#`, a JSON pointer, an anchor or an `$id` of the
//! same document, ids resolved as RFC 3986 says, and `$dynamicRef` (2020-12) and `$recursiveRef`
//! (2019-09) through the dynamic scope; every validation keyword of 2020-12 and the older `items` arrays,
//! `additionalItems` and `dependencies`; `format` as an assertion where the draft makes it one
//! (drafts 4 to 7), an annotation otherwise; `pattern` through `regex-lite`, so a pattern it
//! cannot compile (look-around, back-references, `\p{…}`) is refused where the schema is saved.
//! Nothing panics on any schema or value: nesting and `$ref` depth are bounded, and so is the
//! work of checking one value (`validate::Budget`). `tests/schema_suite.rs` holds it to the official
//! JSON-Schema-Test-Suite, `tests/schema_differential.rs` to the `jsonschema` crate.
//!
//! Compiling costs more than checking a value, and a function's schemas are checked on every run
//! of it, so a compiled schema is kept per isolate.

mod alike;
mod budget;
mod compile;
mod format;
mod keywords;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use serde_json::Value;

use super::memo::Memo;

/// How deep subschemas may nest, and how many `$ref`s one value may pass through at once.
const MOST_DEPTH: usize = 128;

/// Which draft a schema is read by: it changes what a few keywords mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Draft {
    Four,
    Six,
    Seven,
    Nineteen,
    Twenty,
}

/// A schema that compiled: the document itself, with its patterns compiled and its `$ref`s
/// resolved to pointers into it.
pub struct Schema {
    /// Never changed once compiled: `refs` knows each `$ref` in it by the address of its value.
    root: Box<Value>,
    draft: Draft,
    /// Each pattern, with the size limit it compiled under: its match costs that much.
    patterns: HashMap<String, (regex_lite::Regex, usize)>,
    refs: HashMap<usize, Target>,
    /// The dynamic anchors of each resource (by its address): a `$dynamicAnchor`'s name, or ""
    /// for a `$recursiveAnchor` of true, with the pointer of its schema.
    dynamic: HashMap<(usize, String), String>,
}

/// Where a `$ref` leads: the pointer of its schema and the address of the resource that holds
/// it; for a `$dynamicRef` or `$recursiveRef` its target bookends, the anchor's name (or "") the
/// dynamic scope is searched for first.
struct Target {
    pointer: String,
    resource: usize,
    dynamic: Option<String>,
}

/// Why a schema does not compile: where in the schema, and what is wrong there.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    pub pointer: String,
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One way a value misfits a schema: the pointer into the value and the sentence that says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub pointer: String,
    pub message: String,
    pub kind: InvalidKind,
}

/// What callers tell apart: a missing property and unexpected ones point at the property.
#[derive(Debug, Clone, PartialEq)]
pub enum InvalidKind {
    Required(String),
    Additional(Vec<String>),
    Other,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Schema {
    /// Compiles `schema`, or says the first thing wrong with it.
    pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
        compile::compile(schema)
    }

    /// Every misfit of `value`, in the order of the schema's keywords.
    pub fn iter_errors(&self, value: &Value) -> std::vec::IntoIter<Invalid> {
        let mut found = Vec::new();
        let mut walk = validate::Walk::new(self, &mut found);
        walk.check(&self.root, value, &mut String::new());
        if walk.spent() {
            found.push(validate::too_costly());
        }
        found.into_iter()
    }

    /// Whether `value` fits; one whose check spends the whole budget does not.
    pub fn is_valid(&self, value: &Value) -> bool {
        let mut walk = validate::Walk::quiet(self);
        walk.fits(&self.root, value) && !walk.spent()
    }
}

thread_local! {
    // Keyed by the schema's text; 256 schemas are more than the functions one isolate runs.
    static COMPILED: Memo<Rc<Schema>> = Memo::new(256);
}

/// The schema compiled, from the cache when this isolate compiled the same schema before. A
/// schema that does not compile is not kept.
pub fn compiled(schema: &Value) -> Result<Rc<Schema>, SchemaError> {
    COMPILED.with(|memo| memo.get_or_try(&schema.to_string(), || Schema::compile(schema).map(Rc::new)))
}

/// Checks `value` against a kept schema, as a refusal whose problems point under `at` (such as
/// `/input`) and carry `kind`. A schema that no longer compiles is an internal failure.
pub fn check(
    schema: &Value,
    value: &Value,
    at: &str,
    kind: crate::core::ErrorCode,
) -> Result<(), crate::core::Problem> {
    use crate::core::{FieldError, Problem};
    let schema =
        compiled(schema).map_err(|e| Problem::internal(format!("a saved schema for {at} does not compile: {e}")))?;
    let errors: Vec<FieldError> =
        schema.iter_errors(value).map(|e| FieldError::new(format!("{at}{}", e.pointer), e.message)).collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors).with_kind(kind))
    }
}
