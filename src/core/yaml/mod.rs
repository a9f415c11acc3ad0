//! YAML read as JSON: a definition's front matter, an OpenAPI document, a guide's front matter.
//!
//! The parser's events are built into a `serde_json::Value` here, under one set of rules for all
//! three. A serde deserializer for YAML did this before, and with the error drawing it linked it
//! made the gzip upload 112 KB larger (docs/size.md), for texts that are only ever read as JSON.

mod scalar;

use std::borrow::Cow;
use std::collections::HashMap;

use granit_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use serde_json::{Map, Value};

use scalar::Asked;

/// How deep collections may nest.
pub const DEPTH_MAX: usize = 64;

/// How many values one text may make, each copy an alias makes counted: aliases of aliases
/// otherwise multiply a short text into billions of values (the "billion laughs"). A value held
/// as JSON takes about 130 bytes at the peak of a read, so this keeps one read near 20 MiB
/// (`tests/hostile_text` holds it to 32), while an OpenAPI document of the 1 MiB the runtime
/// reads makes about 70,000.
pub const VALUES_MAX: usize = 150_000;

/// How many bytes of scalars one text may make, copies counted: a long string aliased a few
/// thousand times is as costly as many values.
pub const BYTES_MAX: usize = 4 * 1024 * 1024;

/// Why a text is not YAML: the parser's words, and where, when it knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub words: String,
    /// The line and column, from 1, counted within the text given.
    pub at: Option<(usize, usize)>,
}

/// The text as JSON: one document, its scalars read by YAML 1.2's core schema (`scalar`), its
/// anchors and merge keys (`<<`) followed, a key given twice in one mapping refused; and within
/// `DEPTH_MAX`, `VALUES_MAX` and `BYTES_MAX`, so that no text makes more work than its size.
pub fn parse(text: &str) -> Result<Value, Unreadable> {
    let mut options = granit_parser::Options::default();
    options.flow_nesting_limit = DEPTH_MAX;
    options.block_nesting_limit = DEPTH_MAX;
    let mut reader = Reader::default();
    for item in Parser::new_from_str_with_options(text, options) {
        let (event, span) = item.map_err(|e| scan_error(&e))?;
        reader.take(event, span)?;
    }
    Ok(reader.done.unwrap_or(Value::Null))
}

/// A node read whole.
#[derive(Clone)]
struct Node {
    value: Value,
    size: Size,
    /// The text of a scalar not read as a string, for when it is a mapping's key: `200` or `true`.
    text: Option<String>,
    /// A plain `<<`: the key that merges other mappings into this one.
    merge: bool,
}

enum Key {
    Named(String),
    Merge,
}

/// A collection being read.
enum Open {
    Sequence { anchor: usize, items: Vec<Value>, size: Size },
    Mapping { anchor: usize, map: Map<String, Value>, size: Size, key: Option<Key>, merged: Vec<Map<String, Value>> },
}

/// What a node holds, itself included: values, and bytes of scalars.
#[derive(Clone, Copy, Default)]
struct Size {
    values: usize,
    bytes: usize,
}

impl Size {
    const ONE: Size = Size { values: 1, bytes: 0 };

    fn add(&mut self, other: Size) {
        self.values = self.values.saturating_add(other.values);
        self.bytes = self.bytes.saturating_add(other.bytes);
    }
}

#[derive(Default)]
struct Reader {
    open: Vec<Open>,
    anchors: HashMap<usize, Node>,
    documents: usize,
    made: Size,
    done: Option<Value>,
}

impl Reader {
    fn take(&mut self, event: Event<'_>, span: Span) -> Result<(), Unreadable> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(at(&span, "the text holds more than one YAML document"));
                }
                Ok(())
            }
            Event::Scalar(text, style, anchor, tag) => {
                // The parser writes a node left empty as `~`; as a key its text is empty.
                let empty = span.is_empty() && style == ScalarStyle::Plain && tag.is_none() && text == "~";
                let text = if empty { Cow::Borrowed("") } else { text };
                let size = Size { values: 1, bytes: text.len() };
                self.count(size, &span)?;
                let value = read_scalar(&text, style, tag.as_deref()).map_err(|words| at(&span, &words))?;
                let merge = style == ScalarStyle::Plain && tag.as_deref().is_none_or(is_merge) && text == "<<";
                let text = (!value.is_string()).then(|| text.into_owned());
                self.finish(Node { value, size, text, merge }, anchor, &span)
            }
            Event::Alias(id) => {
                let node =
                    self.anchors.get(&id).cloned().ok_or_else(|| at(&span, "an alias names no anchor before it"))?;
                self.count(node.size, &span)?;
                self.finish(node, 0, &span)
            }
            Event::SequenceStart(_, anchor, _) => {
                self.opening(&span)?;
                self.open.push(Open::Sequence { anchor, items: Vec::new(), size: Size::ONE });
                Ok(())
            }
            Event::MappingStart(_, anchor, _) => {
                self.opening(&span)?;
                let map = Map::new();
                self.open.push(Open::Mapping { anchor, map, size: Size::ONE, key: None, merged: Vec::new() });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => match self.open.pop() {
                Some(Open::Sequence { anchor, items, size }) => {
                    self.finish(Node { value: Value::Array(items), size, text: None, merge: false }, anchor, &span)
                }
                Some(Open::Mapping { anchor, mut map, size, merged, .. }) => {
                    // Keys the mapping names win over merged ones, and earlier merged mappings
                    // over later ones.
                    for (key, value) in merged.into_iter().flatten() {
                        map.entry(key).or_insert(value);
                    }
                    self.finish(Node { value: Value::Object(map), size, text: None, merge: false }, anchor, &span)
                }
                None => Err(at(&span, "a collection ends that never began")),
            },
            _ => Ok(()),
        }
    }

    fn count(&mut self, size: Size, span: &Span) -> Result<(), Unreadable> {
        self.made.add(size);
        if self.made.values > VALUES_MAX {
            return Err(at(
                span,
                &format!("the text makes more than {VALUES_MAX} values, its aliases' copies counted"),
            ));
        }
        if self.made.bytes > BYTES_MAX {
            let mib = BYTES_MAX / (1024 * 1024);
            return Err(at(
                span,
                &format!("the text makes more than {mib} MiB of strings, its aliases' copies counted"),
            ));
        }
        Ok(())
    }

    fn opening(&mut self, span: &Span) -> Result<(), Unreadable> {
        if self.open.len() >= DEPTH_MAX {
            return Err(at(span, &format!("collections nest more than {DEPTH_MAX} deep")));
        }
        self.count(Size::ONE, span)
    }

    /// A node read whole goes where it belongs: into the collection around it, as a mapping's
    /// key or its value, or as the document.
    fn finish(&mut self, node: Node, anchor: usize, span: &Span) -> Result<(), Unreadable> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.open.last_mut() {
            None => self.done = Some(node.value),
            Some(Open::Sequence { items, size, .. }) => {
                size.add(node.size);
                items.push(node.value);
            }
            Some(Open::Mapping { map, size, key, merged, .. }) => {
                size.add(node.size);
                match key.take() {
                    None => *key = Some(key_of(node, map, span)?),
                    Some(Key::Named(name)) => {
                        map.insert(name, node.value);
                    }
                    Some(Key::Merge) => match node.value {
                        Value::Object(m) => merged.push(m),
                        Value::Array(list) if list.iter().all(Value::is_object) => {
                            merged.extend(list.into_iter().filter_map(|v| match v {
                                Value::Object(m) => Some(m),
                                _ => None,
                            }))
                        }
                        _ => return Err(at(span, "a merge key `<<` takes a mapping, or a list of mappings")),
                    },
                }
            }
        }
        Ok(())
    }
}

/// A mapping's key: a scalar's text, never a collection, and never one the mapping has already.
fn key_of(node: Node, map: &Map<String, Value>, span: &Span) -> Result<Key, Unreadable> {
    if node.merge {
        return Ok(Key::Merge);
    }
    let name = match (node.value, node.text) {
        (Value::String(s), _) => s,
        (Value::Array(_) | Value::Object(_), _) => {
            return Err(at(span, "a mapping's key must be a scalar, not a list or a mapping"))
        }
        (_, Some(text)) => text,
        (other, None) => other.to_string(),
    };
    if map.contains_key(&name) {
        return Err(at(span, &format!("duplicate key `{name}` in one mapping")));
    }
    Ok(Key::Named(name))
}

/// A scalar's value: a tag of the core schema asks for its type (`!!str 42` is a string), `!`
/// makes it a string, and other tags are read past; untagged, a plain scalar is resolved by the
/// core schema and a quoted or block one is a string.
fn read_scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    let asked = match tag.and_then(Tag::core_suffix) {
        Some("str") => return Ok(Value::String(text.to_string())),
        Some("null") => Some((Asked::Null, "null")),
        Some("bool") => Some((Asked::Bool, "a boolean")),
        Some("int") => Some((Asked::Int, "an integer")),
        Some("float") => Some((Asked::Float, "a number")),
        _ => None,
    };
    if let Some((asked, noun)) = asked {
        return scalar::tagged(text, asked).ok_or_else(|| format!("`{text}` is tagged as {noun} but is not one"));
    }
    let non_specific = tag.is_some_and(|t| t.parts() == ("", "!"));
    Ok(if style == ScalarStyle::Plain && !non_specific { scalar::plain(text) } else { Value::String(text.to_string()) })
}

/// `!!merge`, the merge key's own tag, which `!!merge <<` names it by.
fn is_merge(tag: &Tag) -> bool {
    tag.parts() == ("tag:yaml.org,2002:", "merge")
}

fn at(span: &Span, words: &str) -> Unreadable {
    Unreadable { words: words.to_string(), at: Some((span.start.line(), span.start.col() + 1)) }
}

fn scan_error(e: &ScanError) -> Unreadable {
    // Its words go into a JSON answer on one line: no control characters.
    let words: String = e.info().chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let words = words.trim();
    Unreadable {
        words: if words.is_empty() { "it does not parse".to_string() } else { words.to_string() },
        at: Some((e.marker().line(), e.marker().col() + 1)),
    }
}

#[cfg(test)]
mod tests;
