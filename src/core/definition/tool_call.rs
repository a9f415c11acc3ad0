//! A call of one tool a document writes without a model, as a lookup reads through a tool and an
//! interaction sends through one: the tool, as `server/tool`, and its arguments, each string of
//! which, however deep, is a template over the names the document's type gives it.

use serde_json::{Map, Value};

use super::check::{escape, Findings};
use super::template::{self, environment};
use crate::core::run::RunError;
use crate::core::ErrorCode;

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallSpec {
    /// `server/tool`.
    pub name: String,
    /// A mapping, as written.
    pub arguments: Value,
    /// Whether it is called with no one to ask (a lookup's read, a request's replies read again
    /// and again), so that it must be marked `reads`.
    pub must_read: bool,
}

impl ToolCallSpec {
    /// Reads `<at>/tool` and `<at>/arguments` (or `<at>/<tool_key>`), reporting each problem; the
    /// templates may use `names`.
    pub fn check(
        f: &mut Findings<'_>,
        at: &str,
        tool_key: &str,
        names: &[&str],
        must_read: bool,
    ) -> Option<ToolCallSpec> {
        let tool_at = format!("{at}/{tool_key}");
        let name = match f.get(&tool_at).cloned() {
            Some(v) => {
                let name = f.tool_name(&tool_at, &v, false);
                if let Some(named) = f.tools.last_mut().filter(|n| n.pointer == tool_at) {
                    named.must_read = must_read;
                }
                name
            }
            None => {
                f.error(tool_at, "is required: the tool to call, as server/tool");
                None
            }
        };
        let args_at = format!("{at}/arguments");
        let arguments = match f.mapping(&args_at, false) {
            Some(args) => {
                let args = args.clone();
                for (key, value) in &args {
                    f.templated(&format!("{args_at}/{}", escape(key)), value, names);
                }
                Value::Object(args)
            }
            None => Value::Object(Map::new()),
        };
        Some(ToolCallSpec { name: name?, arguments, must_read })
    }

    /// The arguments for one call over the input alone.
    pub fn arguments_for(&self, input: &Value) -> Result<Map<String, Value>, RunError> {
        let mut scope = Map::new();
        scope.insert("input".into(), input.clone());
        self.render(&scope)
    }

    /// The arguments for one call: each string rendered over `scope`.
    pub fn render(&self, scope: &Map<String, Value>) -> Result<Map<String, Value>, RunError> {
        match render(&self.arguments, scope, "")? {
            Value::Object(map) => Ok(map),
            _ => Ok(Map::new()),
        }
    }
}

fn render(value: &Value, scope: &Map<String, Value>, at: &str) -> Result<Value, RunError> {
    Ok(match value {
        Value::String(text) => {
            let rendered = template::render(&environment(), text, scope).map_err(|e| {
                RunError::new(
                    ErrorCode::Template,
                    format!(
                        "the argument at {} could not be written: {}",
                        at_or_whole(at),
                        e.detail().unwrap_or("it failed")
                    ),
                )
            })?;
            Value::String(rendered)
        }
        Value::Array(items) => Value::Array(
            items.iter().enumerate().map(|(i, v)| render(v, scope, &format!("{at}/{i}"))).collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), render(v, scope, &format!("{at}/{}", escape(k)))?)))
                .collect::<Result<_, RunError>>()?,
        ),
        other => other.clone(),
    })
}

fn at_or_whole(at: &str) -> &str {
    if at.is_empty() {
        "/"
    } else {
        at
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn strings_render_however_deep_and_the_rest_goes_as_written() {
        let spec = ToolCallSpec {
            must_read: false,
            name: "chat/post_message".into(),
            arguments: json!({ "text": "Approved {{ input.title }}", "n": 3, "tags": ["{{ input.tag }}", true] }),
        };
        let scope = json!({ "input": { "title": "Autumn", "tag": "q4" } });
        let rendered = spec.render(scope.as_object().unwrap()).unwrap();
        assert_eq!(Value::Object(rendered), json!({ "text": "Approved Autumn", "n": 3, "tags": ["q4", true] }));
        let missing = spec.render(json!({ "input": {} }).as_object().unwrap()).unwrap_err();
        assert_eq!(missing.reason, ErrorCode::Template);
        assert!(missing.detail.contains("/text"), "{}", missing.detail);
    }
}
