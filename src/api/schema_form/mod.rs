//! A form made from a JSON Schema, such as an interaction function's `answer_schema`, and the
//! JSON value a posted form holds. No platform types here; the page that shows the form posts it
//! with its own proof and reads it with `page_forms::read`.
//!
//! Each property becomes a field named by its path, the names of nested objects joined by `.`
//! (`address.city`; a `.` or `%` inside a name is written `%2E` or `%25`):
//!
//! | the schema says | the field |
//! |---|---|
//! | `string` | a text input, or a textarea when `maxLength` is over 200 or absent; `format` `email`, `uri` and `date` take their input types |
//! | `enum`, or `oneOf`/`anyOf` of `const`s (their `title`s as labels) | radios for up to 4 choices, else a select |
//! | `boolean` | a checkbox (`value="true"`); one left unticked is `false` |
//! | `integer`, `number` | a number input with `min`, `max` and `step` |
//! | `array` whose `items` are an `enum` | a checkbox for each choice, all of one name |
//! | `object` with `properties` | a fieldset of its own fields |
//! | anything else | a textarea of JSON |
//!
//! A label is the property's `title`, else its name as words (`due_date` reads "Due date"); its
//! `description` is the hint beneath it; a required one says so. Every text is escaped. `read`
//! converts each field back to its type, leaves out what was left empty where it is optional
//! (an optional object whose fields are all empty too), and answers every problem at once, each
//! as a JSON pointer (`/address/city`) and words a person reads; what it answers fits the schema.
//! The ids of the fields are numbered per form, so several forms may share one page.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use crate::api::sign_in_pages::escape;
use crate::core::access::oauth::form::Form;
use fields::{Ids, Writer};
use read::{against_schema, walk};

mod fields;
mod read;

/// The style of the fields' classes, for a page to add to its own: `field`, `invalid`, `hint`,
/// `error`, `required`, `choice`, `check`, `json` and the `errors` no field holds.
pub const STYLE: &str = "\
.field{margin:.9rem 0;border:0;padding:0}.field>label,.field>legend{display:block;font-weight:600;margin:0 0 .25rem;padding:0}\
.field.check>label{display:inline;font-weight:600}.field .choice{display:block;font-weight:400;margin:.2rem 0}\
.field textarea,.field input[type=text],.field input[type=email],.field input[type=url],.field input[type=number],.field input[type=date],.field select{font:inherit;width:100%;box-sizing:border-box;padding:.4rem .55rem;border:1px solid #8888;border-radius:4px;background:transparent;color:inherit}\
.field .json{font-family:ui-monospace,monospace}fieldset.field fieldset.field{margin-left:1rem}\
.required{font-weight:400;font-size:.85em;opacity:.75}.field .hint,.field .error{font-size:.94rem;margin:.1rem 0 .35rem}.field .hint{opacity:.8}\
.error,.errors{color:#b91c1c}@media (prefers-color-scheme:dark){.error,.errors{color:#fca5a5}}.invalid input,.invalid textarea,.invalid select{border-color:#b91c1c}";

/// Up to this many choices are radios; more are a select.
const RADIOS_MAX: usize = 4;
/// A string that may be longer than this is written in a textarea.
const ONE_LINE_MAX: u64 = 200;

/// The fields of `schema`'s properties, filled in with `values` (else each property's `default`),
/// with each of `errors` (a JSON pointer and words) beside its field, or, where no field holds
/// its pointer, above them all.
pub fn fields(schema: &Value, values: Option<&Value>, errors: &[(String, String)]) -> String {
    let mut w = Writer { ids: Ids::new(), errors, placed: vec![false; errors.len()], defaults: values.is_none() };
    let body = match Shape::of(schema) {
        Shape::Group(obj) => w.group_fields(obj, &[], values),
        _ => w.field(&Slot { schema, path: vec![], name: JSON_NAME.into(), required: true }, values),
    };
    let unplaced: String = errors
        .iter()
        .zip(&w.placed)
        .filter(|(_, placed)| !**placed)
        .map(|((pointer, words), _)| {
            let at = if pointer.is_empty() { String::new() } else { format!("<code>{}</code>: ", escape(pointer)) };
            format!("<li>{at}{}</li>", escape(words))
        })
        .collect();
    if unplaced.is_empty() {
        body
    } else {
        format!("<ul class=\"errors\" role=\"alert\">{unplaced}</ul>{body}")
    }
}

/// The value a posted form holds, in the shape of `schema`, or every problem with it.
pub fn read(schema: &Value, form: &Form) -> Result<Value, Vec<(String, String)>> {
    let (value, mut errors) = walk(schema, form);
    if errors.is_empty() {
        errors = against_schema(schema, &value);
    }
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(errors)
    }
}

/// What the person wrote, to show the form again after `read` refused it: each field converted
/// where it could be and kept as the text written where it could not.
pub fn kept(schema: &Value, form: &Form) -> Value {
    walk(schema, form).0
}

/// The name of the one field of a schema that is not an object of properties.
const JSON_NAME: &str = "json";

/// What kind of field a schema takes.
enum Shape<'s> {
    Text { input: &'static str, multiline: bool },
    Choice(Vec<Choice<'s>>),
    Check,
    Number { integer: bool },
    Many(Vec<Choice<'s>>),
    Group(&'s Map<String, Value>),
    Json,
}

/// One value a person may pick, and what the form calls it.
struct Choice<'s> {
    value: &'s Value,
    label: String,
}

impl<'s> Choice<'s> {
    /// The value as the form sends it: a string as it is, anything else as JSON.
    fn text(&self) -> String {
        form_text(self.value)
    }
}

fn form_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl<'s> Shape<'s> {
    fn of(schema: &'s Value) -> Shape<'s> {
        let Some(obj) = schema.as_object() else {
            return Shape::Json;
        };
        if let Some(choices) = choices(obj) {
            return Shape::Choice(choices);
        }
        match types(obj).as_slice() {
            ["string"] => {
                let format = obj.get("format").and_then(Value::as_str);
                let input = match format {
                    Some("email") => "email",
                    Some("uri" | "url") => "url",
                    Some("date") => "date",
                    _ => "text",
                };
                let long = obj.get("maxLength").and_then(Value::as_u64).is_none_or(|max| max > ONE_LINE_MAX);
                Shape::Text { input, multiline: format.is_none() && long }
            }
            ["boolean"] => Shape::Check,
            ["integer"] => Shape::Number { integer: true },
            ["number"] => Shape::Number { integer: false },
            ["array"] => match obj.get("items").and_then(Value::as_object).and_then(choices) {
                Some(choices) if choices.iter().all(|c| !c.value.is_object() && !c.value.is_array()) => {
                    Shape::Many(choices)
                }
                _ => Shape::Json,
            },
            ["object"] => match obj.get("properties").and_then(Value::as_object) {
                Some(props) if !props.is_empty() => Shape::Group(obj),
                _ => Shape::Json,
            },
            _ => Shape::Json,
        }
    }
}

/// The types a schema names, but `null`: a nullable field is an optional one.
fn types(obj: &Map<String, Value>) -> Vec<&str> {
    match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => Vec::new(),
    }
}

/// The choices of an `enum`, or of a `oneOf`/`anyOf` whose every option is a `const`.
fn choices(obj: &Map<String, Value>) -> Option<Vec<Choice<'_>>> {
    if let Some(Value::Array(values)) = obj.get("enum") {
        let picks: Vec<Choice> =
            values.iter().filter(|v| !v.is_null()).map(|v| Choice { value: v, label: form_text(v) }).collect();
        return (!picks.is_empty()).then_some(picks);
    }
    if let Some(value) = obj.get("const") {
        return Some(vec![Choice { value, label: form_text(value) }]);
    }
    let options = obj.get("oneOf").or_else(|| obj.get("anyOf"))?.as_array()?;
    let picks: Option<Vec<Choice>> = options
        .iter()
        .map(|o| {
            let value = o.get("const")?;
            let label = o.get("title").and_then(Value::as_str).map_or_else(|| form_text(value), str::to_string);
            Some(Choice { value, label })
        })
        .collect();
    picks.filter(|p| !p.is_empty())
}

/// A property where it sits: its schema, its path of names from the root, and whether its
/// object requires it.
struct Slot<'s> {
    schema: &'s Value,
    path: Vec<String>,
    name: String,
    required: bool,
}

impl Slot<'_> {
    fn pointer(&self) -> String {
        self.path.iter().map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1"))).collect()
    }

    /// The schema's `title`, else the name as words: `due_date` reads "Due date".
    fn label(&self) -> String {
        if let Some(title) = self.schema.get("title").and_then(Value::as_str) {
            return title.to_string();
        }
        let name = self.path.last().map_or("answer", String::as_str).replace(['_', '-'], " ");
        let mut chars = name.chars();
        chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
    }
}

/// The form's name of a path: each name with `%` and `.` written out, joined by `.`.
fn field_name(path: &[String]) -> String {
    path.iter().map(|p| p.replace('%', "%25").replace('.', "%2E")).collect::<Vec<_>>().join(".")
}

/// Each property of an object schema, with whether the object requires it.
fn slots<'s>(obj: &'s Map<String, Value>, parent: &[String]) -> Vec<Slot<'s>> {
    let required: Vec<&str> =
        obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    obj.get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, schema)| {
            let mut path = parent.to_vec();
            path.push(name.clone());
            Slot { schema, name: field_name(&path), path, required: required.contains(&name.as_str()) }
        })
        .collect()
}

#[cfg(test)]
mod tests;
