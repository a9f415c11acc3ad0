//! Compiling a schema: what the draft's meta-schema would refuse, said at its pointer with the
//! sentence the validator says of a value; its patterns compiled; its `$ref`s resolved.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::keywords::{count, push, type_names, ONE_SCHEMA, SCHEMA_LISTS, SCHEMA_MAPS};
use super::{Draft, Schema, SchemaError, Target, MOST_DEPTH};

/// Patterns are small; a pattern that compiles to more than this is refused as not a regex.
const MOST_PATTERN_BYTES: usize = 1 << 20;
/// The size limits a pattern is compiled under, smallest first: the first it fits stands for
/// its size, which regex-lite does not tell.
const PATTERN_SIZES: [usize; 7] = [1 << 8, 1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, MOST_PATTERN_BYTES];
const MOST_PATTERN_NESTING: u32 = 64;

pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
    let draft = draft_of(schema)?;
    // The schema's own copy, boxed so that no value in it moves: each `$ref` is then known by
    // its address, which tells apart the same words said in two resources of one document.
    let root = Box::new(schema.clone());
    let mut compiler = Compiler {
        draft,
        patterns: HashMap::new(),
        refs: Vec::new(),
        ids: HashMap::from([(String::new(), String::new())]),
        anchors: HashMap::new(),
        dynamic: HashMap::new(),
        walked: HashSet::new(),
        base: String::new(),
        resource: String::new(),
        resource_at: address(&root),
    };
    compiler.walk(&root, String::new(), 0)?;
    let mut refs = HashMap::new();
    let mut i = 0;
    // A reference may lead to a part of the document no keyword walks (under an unknown
    // keyword); that part is checked too, and its own references resolved in turn.
    while i < compiler.refs.len() {
        let met = compiler.refs[i].clone();
        i += 1;
        let (pointer, fragment) =
            compiler.resolve(&root, &met).map_err(|message| SchemaError { pointer: met.at.clone(), message })?;
        let found = root.pointer(&pointer);
        if let Some(found) = found {
            if !compiler.walked.contains(&pointer) {
                compiler.walk(found, pointer.clone(), 0)?;
            }
        }
        // A dynamic reference is one only where its target bookends it: a `$dynamicAnchor` of
        // the fragment's name (2020-12), a `$recursiveAnchor` of true (2019-09).
        let bookended = found.is_some_and(|found| match draft {
            Draft::Twenty => found.get("$dynamicAnchor").and_then(Value::as_str) == Some(&fragment),
            _ => found.get("$recursiveAnchor") == Some(&Value::Bool(true)),
        });
        // The resource the target is in: the deepest one whose pointer leads to it.
        let within = |at: &&String| pointer == **at || pointer.starts_with(&format!("{at}/"));
        let resource = compiler.ids.values().filter(within).max_by_key(|at| at.len()).cloned().unwrap_or_default();
        let resource = root.pointer(&resource).map_or(0, address);
        let dynamic = (met.dynamic && bookended).then_some(fragment);
        refs.insert(met.address, Target { pointer, resource, dynamic });
    }
    Ok(Schema { root, draft, patterns: compiler.patterns, refs, dynamic: compiler.dynamic })
}

/// A schema resource is known by the address of its object, which never moves once compiled.
pub(super) fn address(schema: &Value) -> usize {
    match schema {
        Value::Object(o) => o as *const serde_json::Map<String, Value> as usize,
        _ => 0,
    }
}

/// A `$ref` as the walk met it: where, and in which resource of the document.
#[derive(Clone)]
struct Met {
    address: usize,
    reference: String,
    at: String,
    base: String,
    resource: String,
    /// `$dynamicRef` or `$recursiveRef`, which the dynamic scope may lead elsewhere.
    dynamic: bool,
}

fn draft_of(root: &Value) -> Result<Draft, SchemaError> {
    let Some(said) = root.get("$schema") else { return Ok(Draft::Twenty) };
    let Some(uri) = said.as_str() else {
        return Err(SchemaError { pointer: "/$schema".into(), message: format!("{said} is not of type \"string\"") });
    };
    let uri = uri.trim_end_matches('#');
    let known = [
        ("json-schema.org/draft-04/schema", Draft::Four),
        ("json-schema.org/draft-06/schema", Draft::Six),
        ("json-schema.org/draft-07/schema", Draft::Seven),
        ("json-schema.org/draft/2019-09/schema", Draft::Nineteen),
        ("json-schema.org/draft/2020-12/schema", Draft::Twenty),
    ];
    let bare = uri.strip_prefix("https://").or_else(|| uri.strip_prefix("http://")).unwrap_or(uri);
    known.iter().find(|(name, _)| *name == bare).map(|(_, d)| *d).ok_or_else(|| SchemaError {
        pointer: String::new(),
        message: format!(
            "Unknown meta-schema: '{uri}'. A schema may name drafts 4, 6 and 7, 2019-09 and 2020-12 of JSON Schema"
        ),
    })
}

struct Compiler {
    draft: Draft,
    patterns: HashMap<String, (regex_lite::Regex, usize)>,
    refs: Vec<Met>,
    /// Each `$id`, read against the ids around it, with the pointer of its schema.
    ids: HashMap<String, String>,
    /// Each anchor, as `base#name` where `base` is its resource's id, with its pointer.
    anchors: HashMap<String, String>,
    /// The dynamic anchors of each resource, as `Schema::dynamic` keeps them.
    dynamic: HashMap<(usize, String), String>,
    walked: HashSet<String>,
    /// The id the walk is under, and the pointer and address of the schema that gave it.
    base: String,
    resource: String,
    resource_at: usize,
}

fn refuse<T>(pointer: &str, message: String) -> Result<T, SchemaError> {
    Err(SchemaError { pointer: pointer.to_string(), message })
}

fn not_of_type<T>(pointer: &str, value: &Value, name: &str) -> Result<T, SchemaError> {
    refuse(pointer, format!("{value} is not of type \"{name}\""))
}

fn any_of(value: &Value) -> String {
    format!("{value} is not valid under any of the schemas listed in the 'anyOf' keyword")
}

fn not_a_schema<T>(pointer: &str, value: &Value) -> Result<T, SchemaError> {
    refuse(pointer, format!("{value} is not of types \"boolean\", \"object\""))
}

impl Compiler {
    fn walk(&mut self, schema: &Value, at: String, depth: usize) -> Result<(), SchemaError> {
        if depth > MOST_DEPTH {
            return refuse(&at, format!("is nested more than {MOST_DEPTH} schemas deep"));
        }
        let object = match schema {
            Value::Bool(_) => return Ok(()),
            Value::Object(o) => o,
            other => return not_a_schema(&at, other),
        };
        self.walked.insert(at.clone());
        let id = self.id(object).map(|id| id.split('#').next().unwrap_or_default());
        let outer = match id.filter(|id| !id.is_empty()) {
            Some(id) => {
                let base = join(&self.base, id);
                self.ids.insert(base.clone(), at.clone());
                Some((
                    std::mem::replace(&mut self.base, base),
                    std::mem::replace(&mut self.resource, at.clone()),
                    std::mem::replace(&mut self.resource_at, address(schema)),
                ))
            }
            None => None,
        };
        let walked = self.keywords(object, &at, depth);
        if let Some((base, resource, resource_at)) = outer {
            self.base = base;
            self.resource = resource;
            self.resource_at = resource_at;
        }
        walked
    }

    /// The schema's id, where its draft reads one: before 2019-09 a `$ref` hides the words
    /// beside it, its `$id` too.
    fn id<'v>(&self, object: &'v serde_json::Map<String, Value>) -> Option<&'v str> {
        match self.draft {
            Draft::Four if !object.contains_key("$ref") => object.get("id"),
            Draft::Six | Draft::Seven if !object.contains_key("$ref") => object.get("$id"),
            Draft::Nineteen | Draft::Twenty => object.get("$id"),
            _ => None,
        }
        .and_then(Value::as_str)
    }

    fn keywords(&mut self, object: &serde_json::Map<String, Value>, at: &str, depth: usize) -> Result<(), SchemaError> {
        let at = at.to_string();
        for (keyword, value) in object {
            let here = push(&at, keyword);
            self.keyword(keyword, value, &here, &at)?;
            if keyword == "items" && self.draft < Draft::Twenty {
                // A schema or a list of them: the meta-schema says either misfits as the whole.
                let walked = match value {
                    Value::Array(list) => self.schema_list(list, &here, depth, false),
                    _ => self.walk(value, here.clone(), depth + 1),
                };
                walked.or_else(|_| refuse(&here, any_of(value)))?;
            } else if ONE_SCHEMA.contains(&keyword.as_str()) {
                self.walk(value, here, depth + 1)?;
            } else if SCHEMA_LISTS.contains(&keyword.as_str()) {
                let Value::Array(list) = value else { return not_of_type(&here, value, "array") };
                self.schema_list(list, &here, depth, true)?;
            } else if SCHEMA_MAPS.contains(&keyword.as_str()) {
                let Value::Object(map) = value else { return not_of_type(&here, value, "object") };
                for (name, sub) in map {
                    let there = push(&here, name);
                    if keyword == "patternProperties" {
                        self.pattern(name, &there)?;
                    }
                    self.walk(sub, there, depth + 1)?;
                }
            } else if keyword == "dependencies" {
                let Value::Object(map) = value else { return not_of_type(&here, value, "object") };
                for (name, sub) in map {
                    let there = push(&here, name);
                    let walked = match sub {
                        Value::Array(names) => self.names(names, &there),
                        _ => self.walk(sub, there.clone(), depth + 1),
                    };
                    walked.or_else(|_| refuse(&there, any_of(sub)))?;
                }
            }
        }
        Ok(())
    }

    fn schema_list(&mut self, list: &[Value], at: &str, depth: usize, non_empty: bool) -> Result<(), SchemaError> {
        if non_empty && list.is_empty() {
            return refuse(at, "[] has less than 1 item".into());
        }
        for (i, sub) in list.iter().enumerate() {
            self.walk(sub, push(at, &i.to_string()), depth + 1)?;
        }
        Ok(())
    }

    /// The shape of one keyword's value, as the meta-schema holds it.
    fn keyword(&mut self, keyword: &str, value: &Value, here: &str, at: &str) -> Result<(), SchemaError> {
        let draft = self.draft;
        let four = draft == Draft::Four;
        match keyword {
            "type" if type_names(value).is_none() => return refuse(here, any_of(value)),
            "$schema" | "$comment" | "title" | "description" | "format" | "contentEncoding" | "contentMediaType"
                if !value.is_string() =>
            {
                return not_of_type(here, value, "string")
            }
            // Each draft reads only its own kind of reference and anchor; another's is an unknown word.
            "$ref" | "$dynamicRef" | "$recursiveRef"
                if keyword == "$ref"
                    || ((keyword == "$dynamicRef") == (draft == Draft::Twenty) && draft >= Draft::Nineteen) =>
            {
                let Some(reference) = value.as_str() else { return not_of_type(here, value, "string") };
                self.refs.push(Met {
                    address: value as *const Value as usize,
                    reference: reference.to_string(),
                    at: here.to_string(),
                    base: self.base.clone(),
                    resource: self.resource.clone(),
                    dynamic: keyword != "$ref",
                });
            }
            "$id" | "id" if keyword == "$id" || four => {
                let Some(id) = value.as_str() else { return not_of_type(here, value, "string") };
                if let Some(anchor) = id.strip_prefix('#').filter(|a| !a.is_empty() && draft < Draft::Nineteen) {
                    self.anchors.insert(format!("{}#{anchor}", self.base), at.to_string());
                }
            }
            "$anchor" | "$dynamicAnchor"
                if draft >= Draft::Nineteen && (keyword == "$anchor" || draft == Draft::Twenty) =>
            {
                let Some(anchor) = value.as_str() else { return not_of_type(here, value, "string") };
                if !is_anchor(anchor) {
                    return refuse(here, format!("{value} does not match \"^[A-Za-z_][-A-Za-z0-9._]*$\""));
                }
                self.anchors.insert(format!("{}#{anchor}", self.base), at.to_string());
                if keyword == "$dynamicAnchor" {
                    self.dynamic.insert((self.resource_at, anchor.to_string()), at.to_string());
                }
            }
            "$recursiveAnchor" if draft == Draft::Nineteen && value == &Value::Bool(true) && at == self.resource => {
                self.dynamic.insert((self.resource_at, String::new()), at.to_string());
            }
            "pattern" => {
                let Some(pattern) = value.as_str() else { return not_of_type(here, value, "string") };
                self.pattern(pattern, here)?;
            }
            "enum" | "examples" if !value.is_array() => return not_of_type(here, value, "array"),
            "required" => {
                let Value::Array(names) = value else { return not_of_type(here, value, "array") };
                self.names(names, here)?;
            }
            "dependentRequired" => {
                let Value::Object(map) = value else { return not_of_type(here, value, "object") };
                for (name, names) in map {
                    let there = push(here, name);
                    let Value::Array(names) = names else { return not_of_type(&there, names, "array") };
                    self.names(names, &there)?;
                }
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" | "minContains"
            | "maxContains"
                if count(value).is_none() =>
            {
                return match value.as_f64() {
                    Some(n) if n < 0.0 && n.fract() == 0.0 => {
                        refuse(here, format!("{value} is less than the minimum of 0"))
                    }
                    _ => not_of_type(here, value, "integer"),
                };
            }
            "minimum" | "maximum" if !value.is_number() => return not_of_type(here, value, "number"),
            "exclusiveMinimum" | "exclusiveMaximum" if four && !value.is_boolean() => {
                return not_of_type(here, value, "boolean")
            }
            "exclusiveMinimum" | "exclusiveMaximum" if !four && !value.is_number() => {
                return not_of_type(here, value, "number")
            }
            "multipleOf" => match value.as_f64() {
                Some(n) if n > 0.0 => {}
                Some(_) => return refuse(here, format!("{value} is less than or equal to the minimum of 0")),
                None => return not_of_type(here, value, "number"),
            },
            "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" if !value.is_boolean() => {
                return not_of_type(here, value, "boolean")
            }
            _ => {}
        }
        Ok(())
    }

    /// A list of property names: strings, each once.
    fn names(&self, names: &[Value], at: &str) -> Result<(), SchemaError> {
        for (i, name) in names.iter().enumerate() {
            if !name.is_string() {
                return not_of_type(&push(at, &i.to_string()), name, "string");
            }
            if names[..i].contains(name) {
                return refuse(at, format!("{} has non-unique elements", Value::Array(names.to_vec())));
            }
        }
        Ok(())
    }

    fn pattern(&mut self, pattern: &str, at: &str) -> Result<(), SchemaError> {
        if self.patterns.contains_key(pattern) {
            return Ok(());
        }
        for size in PATTERN_SIZES {
            let built =
                regex_lite::RegexBuilder::new(pattern).size_limit(size).nest_limit(MOST_PATTERN_NESTING).build();
            if let Ok(regex) = built {
                self.patterns.insert(pattern.to_string(), (regex, size));
                return Ok(());
            }
        }
        refuse(at, format!("{} is not a \"regex\"", Value::from(pattern)))
    }

    /// The pointer into the document a `$ref` leads to, with its fragment, or why it leads nowhere.
    fn resolve(&self, root: &Value, met: &Met) -> Result<(String, String), String> {
        let (resource, fragment) = met.reference.split_once('#').unwrap_or((&met.reference, ""));
        let (base, start) = if resource.is_empty() {
            (met.base.clone(), met.resource.clone())
        } else {
            let absolute = join(&met.base, resource);
            match self.ids.get(&absolute) {
                Some(at) => (absolute, at.clone()),
                None => {
                    return Err(format!(
                        "Resource '{absolute}' is not present in this schema; schemas elsewhere are not fetched"
                    ))
                }
            }
        };
        let target = if fragment.is_empty() {
            start
        } else if fragment.starts_with('/') {
            let decoded = percent_decode(fragment);
            let target = format!("{start}{decoded}");
            if root.pointer(&target).is_none() {
                return Err(format!("Pointer '{decoded}' does not exist"));
            }
            target
        } else {
            let found = self.anchors.get(&format!("{base}#{fragment}"));
            found.cloned().ok_or_else(|| format!("Anchor '{fragment}' does not exist"))?
        };
        Ok((target, fragment.to_string()))
    }
}

fn is_anchor(anchor: &str) -> bool {
    let mut chars = anchor.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// `reference` (with no fragment) resolved against `base`, as RFC 3986 section 5.2 says.
pub(super) fn join(base: &str, reference: &str) -> String {
    let (scheme, authority, path, query) = parts(reference);
    let (base_scheme, base_authority, base_path, base_query) = parts(base);
    let (authority, path, query) = if scheme.is_some() || authority.is_some() {
        (authority, remove_dots(path), query)
    } else if path.is_empty() {
        (base_authority, base_path.to_string(), query.or(base_query))
    } else if path.starts_with('/') {
        (base_authority, remove_dots(path), query)
    } else if base_authority.is_some() && base_path.is_empty() {
        (base_authority, remove_dots(&format!("/{path}")), query)
    } else {
        let kept = base_path.rfind('/').map_or("", |end| &base_path[..=end]);
        (base_authority, remove_dots(&format!("{kept}{path}")), query)
    };
    let mut out = String::new();
    if let Some(scheme) = scheme.or(base_scheme) {
        out = format!("{scheme}:");
    }
    if let Some(authority) = authority {
        out = format!("{out}//{authority}");
    }
    out.push_str(&path);
    if let Some(query) = query {
        out = format!("{out}?{query}");
    }
    out
}

/// A URI reference's scheme, authority, path and query.
fn parts(uri: &str) -> (Option<&str>, Option<&str>, &str, Option<&str>) {
    let (rest, query) = match uri.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (uri, None),
    };
    let scheme_end = rest.find(':').filter(|&end| {
        let name = &rest[..end];
        name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    let (scheme, rest) = match scheme_end {
        Some(end) => (Some(&rest[..end]), &rest[end + 1..]),
        None => (None, rest),
    };
    match rest.strip_prefix("//") {
        Some(rest) => {
            let end = rest.find('/').unwrap_or(rest.len());
            (scheme, Some(&rest[..end]), &rest[end..], query)
        }
        None => (scheme, None, rest, query),
    }
}

/// A path without its `.` and `..` segments (RFC 3986, 5.2.4).
fn remove_dots(path: &str) -> String {
    let mut input = path;
    let mut out = String::new();
    while !input.is_empty() {
        if let Some(rest) = input.strip_prefix("../").or_else(|| input.strip_prefix("./")) {
            input = rest;
        } else if input.starts_with("/./") || input == "/." {
            input = &input[2..];
            if input.is_empty() {
                input = "/";
            }
        } else if input.starts_with("/../") || input == "/.." {
            input = &input[3..];
            if input.is_empty() {
                input = "/";
            }
            out.truncate(out.rfind('/').unwrap_or(0));
        } else if input == "." || input == ".." {
            input = "";
        } else {
            let end = input[1..].find('/').map_or(input.len(), |end| end + 1);
            out.push_str(&input[..end]);
            input = &input[end..];
        }
    }
    out
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}
