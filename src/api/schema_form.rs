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

use serde_json::{Map, Number, Value};

use crate::api::sign_in_pages::escape;
use crate::core::access::oauth::form::Form;

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

/// Ids unique on a page that shows several forms: a number per form, then one per field.
struct Ids {
    form: u64,
    next: u32,
}

impl Ids {
    fn new() -> Ids {
        static FORMS: AtomicU64 = AtomicU64::new(0);
        Ids { form: FORMS.fetch_add(1, Ordering::Relaxed), next: 0 }
    }

    fn take(&mut self) -> String {
        self.next += 1;
        format!("sf{}-{}", self.form, self.next)
    }
}

struct Writer<'e> {
    ids: Ids,
    errors: &'e [(String, String)],
    placed: Vec<bool>,
    /// No values were given, so each field starts at its schema's `default`.
    defaults: bool,
}

impl Writer<'_> {
    fn group_fields(&mut self, obj: &Map<String, Value>, path: &[String], values: Option<&Value>) -> String {
        slots(obj, path)
            .iter()
            .map(|slot| {
                let key = slot.path.last().map(String::as_str).unwrap_or_default();
                let value = values.and_then(|v| v.get(key));
                self.field(slot, value)
            })
            .collect()
    }

    /// The words of the errors at this field (and, for a field that holds a whole value, under
    /// it), marked as placed.
    fn errors_at(&mut self, pointer: &str, whole: bool) -> Vec<String> {
        let mut words = Vec::new();
        for (i, (at, said)) in self.errors.iter().enumerate() {
            let under = whole && at.strip_prefix(pointer).is_some_and(|rest| rest.starts_with('/'));
            if !self.placed[i] && (at == pointer || under) {
                self.placed[i] = true;
                words.push(said.clone());
            }
        }
        words
    }

    fn field(&mut self, slot: &Slot, value: Option<&Value>) -> String {
        let default = if self.defaults { slot.schema.get("default") } else { None };
        let value = value.or(default);
        let shape = Shape::of(slot.schema);
        let whole = !matches!(shape, Shape::Group(_));
        let errors = self.errors_at(&slot.pointer(), whole);
        let id = self.ids.take();
        let hint = slot.schema.get("description").and_then(Value::as_str).unwrap_or_default();
        let parts = Parts::new(&id, slot, hint, &errors);
        match shape {
            Shape::Text { input, multiline } => {
                let text = value.map(form_text).unwrap_or_default();
                let limits = length_attributes(slot.schema);
                let placeholder = slot
                    .schema
                    .get("examples")
                    .and_then(Value::as_array)
                    .and_then(|e| e.first())
                    .and_then(Value::as_str)
                    .map(|e| format!(" placeholder=\"{}\"", escape(e)))
                    .unwrap_or_default();
                let control = if multiline {
                    format!(
                        "<textarea id=\"{id}\" name=\"{}\" rows=\"4\"{limits}{placeholder}{}>\n{}</textarea>",
                        escape(&slot.name),
                        parts.aria(),
                        escape(&text)
                    )
                } else {
                    format!(
                        "<input type=\"{input}\" id=\"{id}\" name=\"{}\" value=\"{}\"{limits}{placeholder}{}>",
                        escape(&slot.name),
                        escape(&text),
                        parts.aria()
                    )
                };
                parts.single(&control)
            }
            Shape::Number { integer } => {
                let text = value.map(form_text).unwrap_or_default();
                let mut attrs = String::new();
                for (key, attr) in [("minimum", "min"), ("maximum", "max")] {
                    if let Some(n) = slot.schema.get(key).filter(|n| n.is_number()) {
                        attrs.push_str(&format!(" {attr}=\"{n}\""));
                    }
                }
                let step = if integer { "1" } else { "any" };
                // A number input shows no text that is not a number: what the person wrote that
                // was not one is shown back in a text input, beside the error that says so.
                let input = if value.is_some_and(|v| !v.is_number()) {
                    format!("type=\"text\" inputmode=\"{}\"", if integer { "numeric" } else { "decimal" })
                } else {
                    format!("type=\"number\" step=\"{step}\"{attrs}")
                };
                let control = format!(
                    "<input {input} id=\"{id}\" name=\"{}\" value=\"{}\"{}>",
                    escape(&slot.name),
                    escape(&text),
                    parts.aria()
                );
                parts.single(&control)
            }
            Shape::Check => {
                let checked = if value == Some(&Value::Bool(true)) { " checked" } else { "" };
                let control = format!(
                    "<input type=\"checkbox\" id=\"{id}\" name=\"{}\" value=\"true\"{checked}{}>",
                    escape(&slot.name),
                    parts.aria()
                );
                parts.check(&control)
            }
            Shape::Choice(choices) => {
                let picked = value.map(form_text);
                if choices.len() <= RADIOS_MAX {
                    let mut options: String = choices
                        .iter()
                        .map(|c| {
                            let on = if picked.as_deref() == Some(c.text().as_str()) { " checked" } else { "" };
                            let required = if slot.required { " required" } else { "" };
                            format!(
                                "<label class=\"choice\"><input type=\"radio\" name=\"{}\" value=\"{}\"{on}{required}> {}</label>",
                                escape(&slot.name),
                                escape(&c.text()),
                                escape(&c.label)
                            )
                        })
                        .collect();
                    if !slot.required {
                        let on = if picked.is_none() { " checked" } else { "" };
                        options.push_str(&format!(
                            "<label class=\"choice\"><input type=\"radio\" name=\"{}\" value=\"\"{on}> No answer</label>",
                            escape(&slot.name)
                        ));
                    }
                    parts.group(&options)
                } else {
                    let none = if slot.required {
                        let on = if picked.is_none() { " selected" } else { "" };
                        format!("<option value=\"\" disabled{on}>Pick one</option>")
                    } else {
                        "<option value=\"\">No answer</option>".to_string()
                    };
                    let options: String = choices
                        .iter()
                        .map(|c| {
                            let on = if picked.as_deref() == Some(c.text().as_str()) { " selected" } else { "" };
                            format!("<option value=\"{}\"{on}>{}</option>", escape(&c.text()), escape(&c.label))
                        })
                        .collect();
                    let required = if slot.required { " required" } else { "" };
                    let control = format!(
                        "<select id=\"{id}\" name=\"{}\"{required}{}>{none}{options}</select>",
                        escape(&slot.name),
                        parts.aria()
                    );
                    parts.single(&control)
                }
            }
            Shape::Many(choices) => {
                let picked: Vec<String> =
                    value.and_then(Value::as_array).map(|a| a.iter().map(form_text).collect()).unwrap_or_default();
                let options: String = choices
                    .iter()
                    .map(|c| {
                        let on = if picked.contains(&c.text()) { " checked" } else { "" };
                        format!(
                            "<label class=\"choice\"><input type=\"checkbox\" name=\"{}\" value=\"{}\"{on}> {}</label>",
                            escape(&slot.name),
                            escape(&c.text()),
                            escape(&c.label)
                        )
                    })
                    .collect();
                parts.group(&options)
            }
            Shape::Group(obj) => {
                let inner = self.group_fields(obj, &slot.path, value);
                parts.group(&inner)
            }
            Shape::Json => {
                let text = match value {
                    None => String::new(),
                    // Text the person wrote that was no JSON, kept where the schema wants no string.
                    Some(Value::String(s)) if !admits_string(slot.schema) => s.clone(),
                    Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
                };
                let control = format!(
                    "<textarea class=\"json\" id=\"{id}\" name=\"{}\" rows=\"6\" spellcheck=\"false\"{}>\n{}</textarea>",
                    escape(&slot.name),
                    parts.aria(),
                    escape(&text)
                );
                parts.single(&control)
            }
        }
    }
}

/// Whether a string may be the value: a schema that names no type, or names `string`.
fn admits_string(schema: &Value) -> bool {
    match schema.get("type") {
        None => true,
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        Some(_) => false,
    }
}

fn length_attributes(schema: &Value) -> String {
    let mut attrs = String::new();
    for (key, attr) in [("minLength", "minlength"), ("maxLength", "maxlength")] {
        if let Some(n) = schema.get(key).and_then(Value::as_u64) {
            attrs.push_str(&format!(" {attr}=\"{n}\""));
        }
    }
    attrs
}

/// The pieces around one field's control: its label, hint, required mark and errors.
struct Parts<'a> {
    id: &'a str,
    label: String,
    hint: &'a str,
    required: bool,
    errors: &'a [String],
    json: bool,
}

impl<'a> Parts<'a> {
    fn new(id: &'a str, slot: &Slot, hint: &'a str, errors: &'a [String]) -> Parts<'a> {
        Parts {
            id,
            label: slot.label(),
            hint,
            required: slot.required,
            errors,
            json: matches!(Shape::of(slot.schema), Shape::Json),
        }
    }

    fn class(&self) -> &'static str {
        if self.errors.is_empty() {
            "field"
        } else {
            "field invalid"
        }
    }

    fn mark(&self) -> &'static str {
        if self.required {
            " <span class=\"required\">required</span>"
        } else {
            ""
        }
    }

    /// The hint, then what the JSON textarea takes, then the errors, each with its id.
    fn notes(&self) -> String {
        let id = self.id;
        let mut out = String::new();
        if !self.hint.is_empty() {
            out.push_str(&format!("<p class=\"hint\" id=\"{id}-hint\">{}</p>", escape(self.hint)));
        }
        if self.json {
            out.push_str(&format!("<p class=\"hint\" id=\"{id}-json\">Written as JSON.</p>"));
        }
        if !self.errors.is_empty() {
            let words: Vec<String> = self.errors.iter().map(|e| escape(e)).collect();
            out.push_str(&format!("<p class=\"error\" id=\"{id}-error\">{}</p>", words.join(" ")));
        }
        out
    }

    /// `aria-describedby` naming the notes, and `aria-invalid` where an error is shown.
    fn aria(&self) -> String {
        let id = self.id;
        let mut described = Vec::new();
        if !self.hint.is_empty() {
            described.push(format!("{id}-hint"));
        }
        if self.json {
            described.push(format!("{id}-json"));
        }
        if !self.errors.is_empty() {
            described.push(format!("{id}-error"));
        }
        let mut attrs = String::new();
        if !described.is_empty() {
            attrs.push_str(&format!(" aria-describedby=\"{}\"", described.join(" ")));
        }
        if !self.errors.is_empty() {
            attrs.push_str(" aria-invalid=\"true\"");
        }
        attrs
    }

    /// A label, then its notes, then one control.
    fn single(&self, control: &str) -> String {
        format!(
            "<div class=\"{}\"><label for=\"{}\">{}{}</label>{}{control}</div>",
            self.class(),
            self.id,
            escape(&self.label),
            self.mark(),
            self.notes()
        )
    }

    /// A checkbox before its label.
    fn check(&self, control: &str) -> String {
        format!(
            "<div class=\"{} check\">{control} <label for=\"{}\">{}{}</label>{}</div>",
            self.class(),
            self.id,
            escape(&self.label),
            self.mark(),
            self.notes()
        )
    }

    /// A fieldset whose legend is the label: radios, checkboxes, or a nested object's fields.
    fn group(&self, inner: &str) -> String {
        let described = if self.hint.is_empty() && self.errors.is_empty() { String::new() } else { self.aria() };
        format!(
            "<fieldset class=\"{}\" id=\"{}\"{described}><legend>{}{}</legend>{}{inner}</fieldset>",
            self.class(),
            self.id,
            escape(&self.label),
            self.mark(),
            self.notes()
        )
    }
}

/// The value a form holds, and what could not be read of it.
fn walk(schema: &Value, form: &Form) -> (Value, Vec<(String, String)>) {
    let mut errors = Vec::new();
    let value = match Shape::of(schema) {
        Shape::Group(obj) => Value::Object(read_group(obj, &[], form, &mut errors)),
        _ => {
            let slot = Slot { schema, path: vec![], name: JSON_NAME.into(), required: true };
            read_field(&slot, form, &mut errors).unwrap_or(Value::Null)
        }
    };
    (value, errors)
}

fn read_group(
    obj: &Map<String, Value>,
    path: &[String],
    form: &Form,
    errors: &mut Vec<(String, String)>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for slot in slots(obj, path) {
        if let Some(v) = read_field(&slot, form, errors) {
            out.insert(slot.path.last().cloned().unwrap_or_default(), v);
        }
    }
    out
}

/// One field's value; `None` where it was left empty, with an error where it is required.
fn read_field(slot: &Slot, form: &Form, errors: &mut Vec<(String, String)>) -> Option<Value> {
    let pointer = slot.pointer();
    let mut refuse = |words: String| errors.push((pointer.clone(), words));
    let shape = Shape::of(slot.schema);
    // A field holds one value, but a group of checkboxes many and a fieldset none of its own.
    let one = match shape {
        Shape::Many(_) | Shape::Group(_) => None,
        _ => match form.one(&slot.name) {
            Ok(v) => v.map(|t| t.replace("\r\n", "\n")).filter(|t| !t.trim().is_empty()),
            Err(_) => {
                refuse("is given more than once: give one value.".into());
                return None;
            }
        },
    };
    let needs_one = matches!(shape, Shape::Text { .. } | Shape::Number { .. } | Shape::Choice(_) | Shape::Json);
    if needs_one && one.is_none() {
        if slot.required {
            refuse("is required: fill it in.".into());
        }
        return None;
    }
    let given = one.is_some();
    let text = one.unwrap_or_default();
    match shape {
        Shape::Text { .. } => {
            let chars = text.chars().count() as u64;
            if let Some(min) = slot.schema.get("minLength").and_then(Value::as_u64).filter(|m| chars < *m) {
                refuse(format!("is too short: write at least {min} characters."));
            }
            if let Some(max) = slot.schema.get("maxLength").and_then(Value::as_u64).filter(|m| chars > *m) {
                refuse(format!("is too long: write at most {max} characters; it has {chars}."));
            }
            Some(Value::String(text))
        }
        Shape::Check => Some(Value::Bool(given)),
        Shape::Number { integer } => {
            let Some(n) = number(text.trim(), integer) else {
                refuse(
                    if integer { "must be a whole number, such as 3." } else { "must be a number, such as 2.5." }
                        .into(),
                );
                return Some(Value::String(text));
            };
            if let Some(words) = out_of_range(slot.schema, &n) {
                refuse(words);
            }
            Some(Value::Number(n))
        }
        Shape::Choice(choices) => match choices.iter().find(|c| c.text() == text) {
            Some(c) => Some(c.value.clone()),
            None => {
                let names: Vec<String> = choices.iter().map(|c| c.label.clone()).collect();
                refuse(format!("must be one of the choices: {}.", names.join(", ")));
                Some(Value::String(text))
            }
        },
        Shape::Many(choices) => {
            let ticked: Vec<&str> = form.all(&slot.name).collect();
            if let Some(odd) = ticked.iter().find(|t| !choices.iter().any(|c| c.text() == **t)) {
                refuse(format!("holds {odd}, which is not one of the choices."));
            }
            let picked: Vec<Value> =
                choices.iter().filter(|c| ticked.contains(&c.text().as_str())).map(|c| c.value.clone()).collect();
            if picked.is_empty() && !slot.required {
                return None;
            }
            let count = picked.len() as u64;
            if let Some(min) = slot.schema.get("minItems").and_then(Value::as_u64).filter(|m| count < *m) {
                refuse(format!("needs at least {min} ticked."));
            }
            if let Some(max) = slot.schema.get("maxItems").and_then(Value::as_u64).filter(|m| count > *m) {
                refuse(format!("may have at most {max} ticked."));
            }
            Some(Value::Array(picked))
        }
        Shape::Group(obj) => {
            let mut inner_errors = Vec::new();
            let inner = read_group(obj, &slot.path, form, &mut inner_errors);
            // An optional object left empty is left out, with nothing to say of its fields; a
            // box left unticked says nothing on its own.
            if !slot.required && inner.values().all(|v| *v == Value::Bool(false)) {
                return None;
            }
            errors.append(&mut inner_errors);
            Some(Value::Object(inner))
        }
        Shape::Json => match serde_json::from_str::<Value>(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                refuse(format!("is not JSON: {e}."));
                Some(Value::String(text))
            }
        },
    }
}

/// A number as the form wrote it: a whole number stays whole, whatever the type.
fn number(text: &str, integer: bool) -> Option<Number> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(Number::from(n));
    }
    if integer {
        return None;
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}

/// Words for a number outside `minimum`, `maximum` and their exclusive kinds.
fn out_of_range(schema: &Value, n: &Number) -> Option<String> {
    let x = n.as_f64()?;
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64).map(|b| (b, schema[key].to_string()));
    if let Some((_, said)) = bound("minimum").filter(|(b, _)| x < *b) {
        return Some(format!("must be at least {said}."));
    }
    if let Some((_, said)) = bound("exclusiveMinimum").filter(|(b, _)| x <= *b) {
        return Some(format!("must be more than {said}."));
    }
    if let Some((_, said)) = bound("maximum").filter(|(b, _)| x > *b) {
        return Some(format!("must be at most {said}."));
    }
    if let Some((_, said)) = bound("exclusiveMaximum").filter(|(b, _)| x >= *b) {
        return Some(format!("must be less than {said}."));
    }
    None
}

/// What the schema itself refuses of a value the fields could all read, such as a pattern.
fn against_schema(schema: &Value, value: &Value) -> Vec<(String, String)> {
    match crate::core::schema::compiled(schema) {
        Ok(validator) => {
            validator.iter_errors(value).map(|e| (e.instance_path().as_str().to_string(), e.to_string())).collect()
        }
        Err(_) => vec![(String::new(), "This form's schema is not a valid JSON Schema, so no answer fits it.".into())],
    }
}

#[cfg(test)]
mod tests;
