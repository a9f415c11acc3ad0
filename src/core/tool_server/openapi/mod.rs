//! An HTTP API as its OpenAPI 3.0 or 3.1 document describes it, read into tools: each operation
//! with an `operationId` is one, its parameters and JSON body are its arguments, and it keeps
//! what a call needs to put each argument in its place. The document is walked as JSON, which
//! reads both revisions alike; Swagger 2.0 and anything else is refused.
//!
//! A document that cannot be read, or offers no tool, is refused at its place (a JSON pointer).
//! An operation the runtime cannot call as written is passed over, with why, and the rest are
//! offered: one odd operation should not take a whole API away.

pub mod call;
mod operation;
pub mod schema;
pub mod security;

use std::collections::BTreeSet;

use serde_json::Value;

use super::mcp::Listed;
use super::TOOLS_MAX;
use operation::{operation, Read};
use schema::{follow, Inliner, DOCUMENT_VALUES_MAX};
pub use security::Auth;

/// The most a document may hold.
pub const DOCUMENT_MAX_BYTES: usize = 1024 * 1024;
/// The argument that holds a request's JSON body.
pub const BODY: &str = "body";
/// The methods whose operations are read, as a path item names them and as a request sends them.
const METHODS: [(&str, &str); 7] = [
    ("get", "GET"),
    ("put", "PUT"),
    ("post", "POST"),
    ("delete", "DELETE"),
    ("patch", "PATCH"),
    ("head", "HEAD"),
    ("options", "OPTIONS"),
];

/// An API's operations that are tools, and those passed over with why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Api {
    pub operations: Vec<Operation>,
    pub passed_over: Vec<Refusal>,
}

/// One operation: the tool it is, and where a call puts each argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub tool: Listed,
    /// `GET`, `POST`, …
    pub method: &'static str,
    /// The path as the document writes it, such as `/pets/{petId}`.
    pub path: String,
    pub parameters: Vec<Parameter>,
    /// The media type of its JSON body, which the argument `body` holds, if it takes one.
    pub body: Option<String>,
    pub auth: Auth,
}

/// A parameter: the argument that holds it, and its name and place in the request.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub argument: String,
    pub name: String,
    pub place: In,
    pub style: Style,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum In {
    Path,
    Query,
    Header,
}

impl In {
    pub fn as_str(self) -> &'static str {
        match self {
            In::Path => "path",
            In::Query => "query",
            In::Header => "header",
        }
    }
}

/// How a list or an object goes into its place; a single value goes as its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Each item of a list as a `name=item` of its own: a query's `form` style, exploded.
    Exploded,
    /// A list's items joined: `,` (`simple`, and `form` not exploded), `|` or a space.
    Joined(char),
    /// An object as `name[key]=value`: a query's `deepObject` style.
    DeepObject,
    /// The value as JSON text: a parameter described by its JSON `content`.
    Json,
}

/// Why a document, or one operation of it, is not read: the place, as a JSON pointer into the
/// document (empty for the whole), and words that say what is there.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub pointer: String,
    pub detail: String,
}

impl Refusal {
    fn at(pointer: impl Into<String>, detail: impl Into<String>) -> Refusal {
        Refusal { pointer: pointer.into(), detail: detail.into() }
    }

    /// The place and the words, as a sentence says them.
    pub fn words(&self) -> String {
        if self.pointer.is_empty() {
            format!("the document {}", self.detail)
        } else {
            format!("{} {}", self.pointer, self.detail)
        }
    }
}

impl Api {
    /// The tools its operations are.
    pub fn tools(&self) -> Vec<Listed> {
        self.operations.iter().map(|o| o.tool.clone()).collect()
    }

    pub fn operation(&self, tool: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.tool.name == tool)
    }
}

/// Reads a document, JSON or YAML, into the operations it offers as tools, at most `TOOLS_MAX`.
pub fn read(text: &str) -> Result<Api, Refusal> {
    if text.len() > DOCUMENT_MAX_BYTES {
        return Err(Refusal::at(
            "",
            format!("holds {} bytes, over the {DOCUMENT_MAX_BYTES} the runtime reads", text.len()),
        ));
    }
    let root = parse(text)?;
    revision(&root)?;
    let paths = root.get("paths").and_then(Value::as_object).ok_or_else(|| {
        Refusal::at("", "has no paths, so it describes no operation; give a document whose paths describe the API")
    })?;
    let mut api = Api::default();
    let mut names = BTreeSet::new();
    let mut inliner = Inliner::new(&root);
    'paths: for (path, item) in paths {
        let (item, item_at) = follow(&root, item, format!("/paths/{}", segment(path)))?;
        for (key, method) in METHODS {
            let Some(op) = item.get(key) else { continue };
            let at = format!("{item_at}/{key}");
            if api.operations.len() == TOOLS_MAX || inliner.spent() {
                let bound = if inliner.spent() {
                    format!("{DOCUMENT_VALUES_MAX} values of input schemas")
                } else {
                    format!("{TOOLS_MAX} tools")
                };
                api.passed_over.push(Refusal::at(
                    at,
                    format!("and those after it are past the {bound} the runtime keeps of one document"),
                ));
                break 'paths;
            }
            // Names first, as they cost nothing: an operation without one is not worth reading.
            let name = match op.get("operationId") {
                None => {
                    api.passed_over.push(Refusal::at(at, "has no operationId, which would name its tool"));
                    continue;
                }
                Some(id) => match id.as_str().filter(|id| is_tool_name(id)) {
                    Some(id) => id,
                    None => {
                        api.passed_over.push(Refusal::at(
                            format!("{at}/operationId"),
                            "is not a tool's name: 1 to 128 letters, digits, _, - and .",
                        ));
                        continue;
                    }
                },
            };
            // Ids are unique by the specification; where a document repeats one, the first in
            // the document keeps it, so that which is called does not hang on chance.
            if !names.insert(name.to_string()) {
                api.passed_over.push(Refusal::at(
                    format!("{at}/operationId"),
                    format!("repeats {name}, an earlier operation's id"),
                ));
                continue;
            }
            match operation(&mut inliner, (item, &item_at), (op, &at), path, method, name)? {
                Read::Tool(operation) => api.operations.push(*operation),
                Read::PassedOver(why) => api.passed_over.push(why),
            }
        }
    }
    if api.operations.is_empty() {
        let detail = match api.passed_over.first() {
            None => "describes no operation, so it offers no tool".to_string(),
            Some(first) => format!(
                "offers no tool: none of its {} operations can be one, as {}",
                api.passed_over.len(),
                first.words()
            ),
        };
        return Err(Refusal::at("/paths", detail));
    }
    Ok(api)
}

/// The document as JSON, from JSON or from YAML.
fn parse(text: &str) -> Result<Value, Refusal> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('{') {
        return serde_json::from_str(text).map_err(|e| Refusal::at("", format!("is not JSON: {e}")));
    }
    crate::core::yaml::parse(text).map_err(|e| Refusal::at("", format!("is neither JSON nor YAML: {}", e.words)))
}

/// Whether the document is OpenAPI 3.0 or 3.1, the revisions read.
fn revision(root: &Value) -> Result<(), Refusal> {
    let give = "give an OpenAPI 3.0 or 3.1 document";
    if !root.is_object() {
        return Err(Refusal::at("", format!("is not a mapping of keys to values, as an OpenAPI document is; {give}")));
    }
    if let Some(swagger) = root.get("swagger") {
        return Err(Refusal::at(
            "/swagger",
            format!("says the document is Swagger {}, which the runtime does not read; {give}, which a converter such as swagger2openapi makes of it", text_of(swagger)),
        ));
    }
    let version = match root.get("openapi") {
        Some(v) => text_of(v),
        None => {
            return Err(Refusal::at("", format!("names no openapi version, so it is not an OpenAPI document; {give}")))
        }
    };
    if ["3.0", "3.1"].iter().any(|read| version == *read || version.starts_with(&format!("{read}."))) {
        Ok(())
    } else {
        Err(Refusal::at("/openapi", format!("is {version}, which the runtime does not read; {give}")))
    }
}

/// A version as text; YAML reads an unquoted `3.1` as a number.
fn text_of(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

/// A tool's name as MCP allows one.
fn is_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

use crate::core::text::pointer_segment as segment;

/// Documents the tests read: a petstore in OpenAPI 3.0 JSON, and a notes API in 3.1 YAML.
#[cfg(test)]
pub mod fixtures {
    pub const PETSTORE: &str = include_str!("fixtures/petstore-3.0.json");
    pub const NOTES: &str = include_str!("fixtures/notes-3.1.yaml");
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
