//! The findings of checking one document: every problem at once, each at its place, and small
//! readers over the front matter that record what is wrong as they read.

use serde_json::{Map, Value};

use super::document::Document;
use super::template::environment;
use crate::core::error::{FieldError, Problem};

pub const DESCRIPTION_MAX: usize = 300;
/// Names the template engine itself gives every template and expression.
pub(super) const GLOBALS: &[&str] =
    &["range", "dict", "namespace", "debug", "loop", "self", "super", "caller", "varargs", "kwargs"];
pub const PAGE_MAX_BYTES: usize = 65_536;

pub struct Findings<'d> {
    pub doc: &'d Document<'d>,
    errors: Vec<FieldError>,
    /// Each tool the document names, at its pointer, for the save to check against the servers.
    pub tools: Vec<NamedTool>,
}

/// A tool a document names, `server/tool` or `server/*`, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedTool {
    pub pointer: String,
    pub name: String,
    /// Whether the function calls it with no one to ask, so that it must be marked `reads`.
    pub must_read: bool,
}

impl<'d> Findings<'d> {
    pub fn new(doc: &'d Document<'d>) -> Self {
        Findings { doc, errors: Vec::new(), tools: Vec::new() }
    }

    pub fn error(&mut self, pointer: impl Into<String>, detail: impl Into<String>) {
        self.errors.push(FieldError::new(pointer, detail).within("source"));
    }

    pub fn error_at_line(&mut self, line: usize, column: usize, detail: impl Into<String>) {
        self.errors.push(FieldError::new("/body", detail).at(line, column).within("source"));
    }

    pub fn finish(self) -> Result<(), Problem> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Problem::invalid_fields(self.errors))
        }
    }

    /// The value at a JSON pointer of the front matter.
    pub fn get(&self, pointer: &str) -> Option<&'d Value> {
        self.doc.front.pointer(pointer)
    }

    /// Refuses every key of the mapping at `pointer` that is not in `known`.
    pub fn only_keys(&mut self, pointer: &str, known: &[&str], what: &str) {
        let Some(Value::Object(map)) = self.get(pointer) else {
            return;
        };
        for key in map.keys() {
            if !known.contains(&key.as_str()) {
                self.error(
                    format!("{pointer}/{}", escape(key)),
                    format!("is not a key of {what}; its keys are {}", known.join(", ")),
                );
            }
        }
    }

    pub fn string(&mut self, pointer: &str, required: bool, max_chars: usize) -> Option<&'d str> {
        match self.get(pointer) {
            None | Some(Value::Null) => {
                if required {
                    self.error(pointer, "is required");
                }
                None
            }
            Some(Value::String(s)) if s.chars().count() > max_chars => {
                self.error(pointer, format!("is longer than {max_chars} characters"));
                None
            }
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                self.error(pointer, "must be text");
                None
            }
        }
    }

    pub fn mapping(&mut self, pointer: &str, required: bool) -> Option<&'d Map<String, Value>> {
        match self.get(pointer) {
            None | Some(Value::Null) => {
                if required {
                    self.error(pointer, "is required");
                }
                None
            }
            Some(Value::Object(m)) => Some(m),
            Some(_) => {
                self.error(pointer, "must be a mapping of keys to values");
                None
            }
        }
    }

    pub fn integer(&mut self, pointer: &str, min: i64, max: i64) -> Option<i64> {
        match self.get(pointer) {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_i64() {
                Some(n) if (min..=max).contains(&n) => Some(n),
                _ => {
                    self.error(pointer, format!("must be a whole number from {min} to {max}"));
                    None
                }
            },
        }
    }

    pub fn number(&mut self, pointer: &str, min: f64, max: f64) -> Option<f64> {
        match self.get(pointer) {
            None | Some(Value::Null) => None,
            Some(v) => match v.as_f64() {
                Some(n) if n >= min && n <= max => Some(n),
                _ => {
                    self.error(pointer, format!("must be a number from {min} to {max}"));
                    None
                }
            },
        }
    }

    /// `description`: one line that says what the function does; summaries quote it.
    pub fn description(&mut self) -> String {
        let d = self.string("/description", true, DESCRIPTION_MAX).unwrap_or_default();
        if d.contains('\n') {
            self.error("/description", "must be one line");
        } else if self.get("/description").is_some() && d.trim().is_empty() {
            self.error("/description", "must say what the function does");
        }
        d.trim().to_string()
    }

    /// A JSON Schema at `pointer`: it must compile, and where `object` is set, describe an object.
    pub fn schema(&mut self, pointer: &str, required: bool, object: bool) -> Option<&'d Value> {
        let schema = match self.get(pointer) {
            None | Some(Value::Null) => {
                if required {
                    self.error(pointer, "is required: the JSON Schema of the value");
                }
                return None;
            }
            Some(s) => s,
        };
        if !schema.is_object() {
            self.error(pointer, "must be a JSON Schema, written as a mapping such as {type: object, properties: {…}}");
            return None;
        }
        if let Err(e) = crate::core::schema::compiled(schema) {
            let inner = e.pointer.clone();
            self.error(format!("{pointer}{inner}"), format!("is not valid JSON Schema: {e}"));
            return None;
        }
        if object && schema.get("type").and_then(Value::as_str) != Some("object") {
            self.error(format!("{pointer}/type"), "must be object: the value is a mapping of named fields");
        }
        Some(schema)
    }

    /// Compiles a template that starts `line_offset` lines into the source, and checks that it
    /// names only the variables in `allowed`.
    pub fn template(&mut self, pointer: &str, text: &str, line_offset: Option<usize>, allowed: &[&str]) {
        if let Some(why) = super::template::refusal(text) {
            self.error(pointer, format!("the template {why}"));
            return;
        }
        let env = environment();
        match env.template_from_str(text) {
            Err(e) => {
                let detail = format!("the template does not compile: {}", e.detail().unwrap_or("syntax error"));
                match (line_offset, e.line()) {
                    (Some(offset), Some(line)) => {
                        let column = e.range().map(|r| column_of(text, r.start)).unwrap_or(1);
                        self.error_at_line(offset + line - 1, column, detail);
                    }
                    _ => self.error(pointer, detail),
                }
            }
            Ok(t) => {
                let mut unknown: Vec<String> = t
                    .undeclared_variables(false)
                    .into_iter()
                    .filter(|v| !allowed.contains(&v.as_str()) && !GLOBALS.contains(&v.as_str()))
                    .collect();
                unknown.sort();
                if !unknown.is_empty() {
                    let detail = format!(
                        "the template uses {}, which it is not given; it may use {}",
                        unknown.join(", "),
                        allowed.join(", ")
                    );
                    match line_offset {
                        Some(offset) => {
                            let at = unknown.first().and_then(|u| find_in_tags(text, u)).unwrap_or(0);
                            self.error_at_line(offset + text[..at].matches('\n').count(), column_of(text, at), detail);
                        }
                        None => self.error(pointer, detail),
                    }
                }
            }
        }
    }

    /// Compiles a template expression (no braces), checking the variables it names.
    pub fn expression(&mut self, pointer: &str, expr: &str, allowed: &[String]) {
        let env = environment();
        match env.compile_expression(expr) {
            Err(e) => self
                .error(pointer, format!("the expression does not compile: {}", e.detail().unwrap_or("syntax error"))),
            Ok(x) => {
                let mut unknown: Vec<String> = x
                    .undeclared_variables(false)
                    .into_iter()
                    .filter(|v| !allowed.contains(v) && !GLOBALS.contains(&v.as_str()))
                    .collect();
                unknown.sort();
                if !unknown.is_empty() {
                    self.error(
                        pointer,
                        format!(
                            "the expression uses {}, which it is not given; it may use {}",
                            unknown.join(", "),
                            allowed.join(", ")
                        ),
                    );
                }
            }
        }
    }

    /// The body must hold nothing but white space, for types whose document is all front matter.
    pub fn empty_body(&mut self, what: &str) {
        if let Some(at) = self.doc.body.find(|c: char| !c.is_whitespace()) {
            let line = self.doc.body_line + self.doc.body[..at].matches('\n').count();
            self.error_at_line(
                line,
                column_of(self.doc.body, at),
                format!("{what} takes no body: everything it needs is in the front matter"),
            );
        }
    }

    /// Arguments are JSON whose strings, however deep, are templates over `names`.
    pub fn templated(&mut self, pointer: &str, value: &Value, names: &[&str]) {
        match value {
            Value::String(s) => self.template(pointer, s, None, names),
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    self.templated(&format!("{pointer}/{i}"), v, names);
                }
            }
            Value::Object(map) => {
                for (k, v) in map {
                    self.templated(&format!("{pointer}/{}", escape(k)), v, names);
                }
            }
            _ => {}
        }
    }

    /// `server/tool` or `server/*`, as a tool server names its tools.
    pub fn tool_name(&mut self, pointer: &str, value: &Value, wildcard: bool) -> Option<String> {
        let ok = value.as_str().and_then(|s| {
            let (server, tool) = s.split_once('/')?;
            let word = |w: &str| {
                !w.is_empty() && w.len() <= 64 && w.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b))
            };
            (word(server) && (word(tool) || (wildcard && tool == "*"))).then(|| s.to_string())
        });
        match &ok {
            Some(name) => {
                self.tools.push(NamedTool { pointer: pointer.to_string(), name: name.clone(), must_read: false })
            }
            None => {
                let form =
                    if wildcard { "server/tool, or server/* for every tool the server allows" } else { "server/tool" };
                self.error(
                    pointer,
                    format!("must name a tool as {form}, with letters, digits, _ . and - in each name"),
                );
            }
        }
        ok
    }
}

/// Where `name` first stands as a whole word inside `{{ … }}` or `{% … %}`.
pub(super) fn find_in_tags(text: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(rel) = text.get(from..)?.find("{") {
        let open = from + rel;
        let kind = text.get(open + 1..open + 2)?;
        let close_mark = match kind {
            "{" => "}}",
            "%" => "%}",
            _ => {
                from = open + 1;
                continue;
            }
        };
        let end = open + text[open..].find(close_mark).unwrap_or(text.len() - open);
        let inside = &text[open..end];
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let mut search = 0;
        while let Some(hit) = inside.get(search..).and_then(|s| s.find(name)) {
            let at = search + hit;
            let before = at.checked_sub(1).map(|i| inside.as_bytes()[i]);
            let after = inside.as_bytes().get(at + name.len()).copied();
            if !before.is_some_and(word) && before != Some(b'.') && !after.is_some_and(word) {
                return Some(open + at);
            }
            search = at + name.len();
        }
        from = end.max(open + 1);
    }
    None
}

fn column_of(text: &str, byte: usize) -> usize {
    let line_start = text[..byte.min(text.len())].rfind('\n').map(|i| i + 1).unwrap_or(0);
    text[line_start..byte.min(text.len())].chars().count() + 1
}

pub use crate::core::text::pointer_segment as escape;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_found_inside_a_tag_not_in_prose() {
        let text = "Read the file.\n{{ file }}";
        assert_eq!(find_in_tags(text, "file"), Some(18));
        assert_eq!(find_in_tags("{{ input.file }}", "file"), None);
        assert_eq!(find_in_tags("{% for x in files %}{{ x }}{% endfor %}", "files"), Some(12));
    }
}
