//! One operation of a document read into a tool: its parameters (the path item's and its own)
//! and JSON body as arguments, each argument's place and style, its words, and its credential's
//! place; or why it is passed over.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::schema::{follow, Inliner};
use super::{security, segment, In, Operation, Parameter, Refusal, Style, BODY};
use crate::core::tool_server::mcp::{shortened, Hints, Listed};
use crate::core::tool_server::{Mark, MarkedBy};

/// Header parameters OpenAPI says are ignored: the request sets them itself.
const OWN_HEADERS: [&str; 3] = ["accept", "content-type", "authorization"];

/// What reading one operation comes to.
pub(super) enum Read {
    Tool(Box<Operation>),
    PassedOver(Refusal),
}

fn passed(at: impl Into<String>, detail: impl Into<String>) -> Result<Read, Refusal> {
    Ok(Read::PassedOver(Refusal::at(at, detail)))
}

/// A parameter as the document writes it, resolved, with its place in the document.
struct Written<'a> {
    value: &'a Value,
    at: String,
    name: &'a str,
    place: &'a str,
}

/// The operation `op` of the path item `item`, each with its place in the document.
pub(super) fn operation(
    inliner: &mut Inliner,
    (item, item_at): (&Value, &str),
    (op, at): (&Value, &str),
    path: &str,
    method: &'static str,
    name: &str,
) -> Result<Read, Refusal> {
    let root = inliner.root;
    // The path item's parameters, then the operation's, which win where both name one.
    let mut written: Vec<Written> = Vec::new();
    for (owner, owner_at) in [(item, item_at), (op, at)] {
        let list = owner.get("parameters").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for (i, p) in list.iter().enumerate() {
            let (value, p_at) = follow(root, p, format!("{owner_at}/parameters/{i}"))?;
            let text = |key: &str| value.get(key).and_then(Value::as_str);
            let (Some(name), Some(place)) = (text("name"), text("in")) else {
                return passed(p_at, "is a parameter without a name or without in");
            };
            written.retain(|w| !(w.name == name && w.place == place));
            written.push(Written { value, at: p_at, name, place });
        }
    }
    let template = variables(path);
    let mut kept: Vec<(Written, In)> = Vec::new();
    for w in written {
        let required = w.value.get("required") == Some(&Value::Bool(true));
        let place = match w.place {
            "path" if template.contains(&w.name) => In::Path,
            // A path parameter its path does not name has no place to go.
            "path" => continue,
            "query" => In::Query,
            "header" if OWN_HEADERS.contains(&w.name.to_ascii_lowercase().as_str()) => continue,
            "header" => In::Header,
            // The runtime sends no cookies: an operation that needs one is passed over, and a
            // cookie it may go without is left out.
            "cookie" if required => {
                return passed(w.at, format!("is the cookie {}, which the runtime does not send", w.name))
            }
            "cookie" => continue,
            other => return passed(w.at, format!("is in {other}, where path, query, header or cookie are read")),
        };
        kept.push((w, place));
    }
    if let Some(missing) = template.iter().find(|v| !kept.iter().any(|(w, p)| *p == In::Path && w.name == **v)) {
        return passed(at, format!("has the path {path}, whose {{{missing}}} no parameter describes"));
    }
    kept.sort_by_key(|(_, place)| *place);

    inliner.next_tool();
    let body = match op.get("requestBody") {
        None => None,
        Some(b) => {
            let (b, b_at) = follow(root, b, format!("{at}/requestBody"))?;
            let required = b.get("required") == Some(&Value::Bool(true));
            if matches!(method, "GET" | "HEAD") {
                // Fetch sends no body with GET or HEAD: one it may go without is left out.
                if required {
                    return passed(b_at, format!("is a request body, which the runtime cannot send with {method}"));
                }
                None
            } else {
                let content = b.get("content").and_then(Value::as_object);
                let Some((media_type, media)) = content.and_then(json_media) else {
                    let types: Vec<&str> = content.iter().flat_map(|c| c.keys()).map(String::as_str).collect();
                    // Forms and files are not JSON, and the runtime sends only JSON bodies.
                    return passed(
                        format!("{b_at}/content"),
                        format!(
                            "offers the request body only as {}, and the runtime sends JSON bodies alone",
                            types.join(", ")
                        ),
                    );
                };
                let mut schema = match media.get("schema") {
                    Some(s) => inliner.schema(s, &format!("{b_at}/content/{}/schema", segment(media_type)))?,
                    None => json!({}),
                };
                describe(&mut schema, b.get("description"));
                Some((media_type.clone(), schema, required))
            }
        }
    };

    let mut taken: BTreeSet<String> = BTreeSet::new();
    if body.is_some() {
        taken.insert(BODY.into());
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut parameters = Vec::new();
    for (w, place) in kept {
        let (style, schema_at) = match style(&w, place) {
            Ok(style) => style,
            Err(why) => return Ok(Read::PassedOver(why)),
        };
        let mut schema = match w.value.pointer(&schema_at) {
            Some(s) => inliner.schema(s, &format!("{}{schema_at}", w.at))?,
            None => json!({}),
        };
        describe(&mut schema, w.value.get("description"));
        let argument = unique(&mut taken, w.name, place);
        if place == In::Path || w.value.get("required") == Some(&Value::Bool(true)) {
            required.push(Value::from(argument.clone()));
        }
        properties.insert(argument.clone(), schema);
        parameters.push(Parameter { argument, name: w.name.to_string(), place, style });
    }
    let body = body.map(|(media_type, schema, is_required)| {
        properties.insert(BODY.into(), schema);
        if is_required {
            required.push(Value::from(BODY));
        }
        media_type
    });
    let mut input_schema = json!({ "type": "object", "properties": properties, "additionalProperties": false });
    if !required.is_empty() {
        input_schema["required"] = Value::Array(required);
    }

    let text = |key: &str| op.get(key).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    let (description, title) = match (text("description"), text("summary")) {
        (Some(d), summary) => (d.to_string(), summary.map(str::to_string)),
        (None, Some(summary)) => (summary.to_string(), None),
        (None, None) => (format!("Calls {method} {path} of the API."), None),
    };
    let tool = Listed {
        name: name.to_string(),
        title,
        description: shortened(description),
        input_schema,
        hints: Hints::default(),
        mark: Mark::from_method(method),
        marked_by: MarkedBy::Method,
    };
    let auth = security::auth(root, op)?;
    Ok(Read::Tool(Box::new(Operation { tool, method, path: path.to_string(), parameters, body, auth })))
}

/// How a parameter is written, and where its schema is within it; or why it is passed over.
fn style(w: &Written, place: In) -> Result<(Style, String), Refusal> {
    if let Some(content) = w.value.get("content").and_then(Value::as_object) {
        let Some((media_type, _)) = json_media(content) else {
            return Err(Refusal::at(format!("{}/content", w.at), "describes the parameter as what is not JSON"));
        };
        return Ok((Style::Json, format!("/content/{}/schema", segment(media_type))));
    }
    let style = w.value.get("style").and_then(Value::as_str);
    let explode = w.value.get("explode").and_then(Value::as_bool);
    let style = match (place, style) {
        (In::Path | In::Header, None | Some("simple")) => Style::Joined(','),
        (In::Query, None | Some("form")) if explode.unwrap_or(true) => Style::Exploded,
        (In::Query, None | Some("form")) => Style::Joined(','),
        (In::Query, Some("pipeDelimited")) if explode != Some(true) => Style::Joined('|'),
        (In::Query, Some("spaceDelimited")) if explode != Some(true) => Style::Joined(' '),
        (In::Query, Some("pipeDelimited" | "spaceDelimited")) => Style::Exploded,
        (In::Query, Some("deepObject")) => Style::DeepObject,
        (_, Some(other)) => {
            return Err(Refusal::at(
                format!("{}/style", w.at),
                format!("is {other}, a style the runtime does not write in the {}", place.as_str()),
            ))
        }
    };
    Ok((style, "/schema".into()))
}

/// A parameter's argument: its name, or where an argument of that name is already taken (by a
/// parameter of another place, or by `body`), its name and place, such as `id__query`.
fn unique(taken: &mut BTreeSet<String>, name: &str, place: In) -> String {
    let mut argument = name.to_string();
    let mut n = 1;
    while taken.contains(&argument) {
        argument = format!("{name}__{}", place.as_str());
        if n > 1 {
            argument.push_str(&n.to_string());
        }
        n += 1;
    }
    taken.insert(argument.clone());
    argument
}

/// A schema takes the words of what holds it where it has none of its own.
fn describe(schema: &mut Value, description: Option<&Value>) {
    let Some(description) = description.filter(|d| d.as_str().is_some_and(|d| !d.trim().is_empty())) else {
        return;
    };
    if *schema == Value::Bool(true) {
        *schema = json!({});
    }
    if let Some(map) = schema.as_object_mut() {
        map.entry("description").or_insert_with(|| description.clone());
    }
}

/// The JSON media type of a `content`: `application/json` first, then any other JSON type, such
/// as `application/merge-patch+json`.
fn json_media(content: &Map<String, Value>) -> Option<(&String, &Value)> {
    let essence = |t: &str| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    content.iter().find(|(t, _)| essence(t) == "application/json").or_else(|| {
        content.iter().find(|(t, _)| {
            let e = essence(t);
            e.ends_with("+json") || e.ends_with("/json")
        })
    })
}

/// The names a path template holds in braces, such as `petId` in `/pets/{petId}`.
fn variables(path: &str) -> Vec<&str> {
    path.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(name, _)| name)).collect()
}
