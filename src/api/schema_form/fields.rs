//! The HTML of a form's fields: each control with its label, hint, required mark and errors.

use serde_json::{Map, Value};

use super::*;

/// Ids unique on a page that shows several forms: a number per form, then one per field.
pub(super) struct Ids {
    form: u64,
    next: u32,
}

impl Ids {
    pub(super) fn new() -> Ids {
        static FORMS: AtomicU64 = AtomicU64::new(0);
        Ids { form: FORMS.fetch_add(1, Ordering::Relaxed), next: 0 }
    }

    fn take(&mut self) -> String {
        self.next += 1;
        format!("sf{}-{}", self.form, self.next)
    }
}

pub(super) struct Writer<'e> {
    pub(super) ids: Ids,
    pub(super) errors: &'e [(String, String)],
    pub(super) placed: Vec<bool>,
    /// No values were given, so each field starts at its schema's `default`.
    pub(super) defaults: bool,
}

impl Writer<'_> {
    pub(super) fn group_fields(&mut self, obj: &Map<String, Value>, path: &[String], values: Option<&Value>) -> String {
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

    pub(super) fn field(&mut self, slot: &Slot, value: Option<&Value>) -> String {
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
