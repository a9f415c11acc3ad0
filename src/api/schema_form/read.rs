//! A posted form read back into a value of its schema, with every problem at its pointer.

use serde_json::{Map, Number, Value};

use super::*;

/// The value a form holds, and what could not be read of it.
pub(super) fn walk(schema: &Value, form: &Form) -> (Value, Vec<(String, String)>) {
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
pub(super) fn against_schema(schema: &Value, value: &Value) -> Vec<(String, String)> {
    match crate::core::schema::compiled(schema) {
        Ok(validator) => validator.iter_errors(value).map(|e| (e.pointer.clone(), e.to_string())).collect(),
        Err(_) => vec![(String::new(), "This form's schema is not a valid JSON Schema, so no answer fits it.".into())],
    }
}
