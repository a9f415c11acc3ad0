//! One call to an operation of an HTTP API, without I/O: the request its arguments make, and its
//! answer read as a tool's. Calls go to the entry's `base_url` alone, never to the document's
//! `servers`: the operator chose the one, and whoever wrote the document the other.

use serde_json::{Map, Value};

use super::{Auth, In, Operation, Style, BODY};
use crate::core::access::oauth::form::encode;
use crate::core::text::{cap, quote};
use crate::core::tool_server::mcp::Answered;
use crate::core::tool_server::{Credential, Place, Request};

/// The most characters of a failed answer's body its words repeat.
pub const ERROR_SHOWN: usize = 1000;

/// The request that calls `op` with `arguments` at `base_url`, carrying `credential` where the
/// operation's scheme (or, where it names none, the entry) puts it. Fails, in words for whoever
/// called the tool, where the arguments do not fit the operation.
///
/// A list goes as the parameter's style says; an object as `name[key]=value` in a query of the
/// `deepObject` style, and as JSON text anywhere else, which is what a parameter described by
/// JSON `content` takes and the one reading other APIs can make sense of.
pub fn request(
    op: &Operation,
    base_url: &str,
    arguments: &Value,
    credential: Option<&Credential>,
) -> Result<Request, String> {
    let none = Map::new();
    let arguments = match arguments {
        Value::Object(map) => map,
        Value::Null => &none,
        _ => return Err("its arguments are not a JSON object".into()),
    };
    let known = |key: &str| op.parameters.iter().any(|p| p.argument == key) || (op.body.is_some() && key == BODY);
    if let Some(unknown) = arguments.keys().find(|k| !known(k)) {
        return Err(format!("it takes no argument {}", quote(unknown)));
    }
    let given = |argument: &str| arguments.get(argument).filter(|v| !v.is_null());

    let mut path = String::new();
    let mut rest = op.path.as_str();
    while let Some((before, after)) = rest.split_once('{') {
        let Some((name, after)) = after.split_once('}') else { break };
        path.push_str(before);
        let p = op.parameters.iter().find(|p| p.place == In::Path && p.name == name);
        let value = p.and_then(|p| given(&p.argument)).ok_or_else(|| {
            format!("the argument {} is required: it goes in the path", quote(p.map_or(name, |p| &p.argument)))
        })?;
        let segment = match value {
            Value::Array(items) => items.iter().map(|i| encode(&text(i))).collect::<Vec<_>>().join(","),
            one => encode(&text(one)),
        };
        // Fetch reads `.` and `..` (encoded or not) as steps up the path, out of the operation.
        if matches!(segment.as_str(), "" | "." | "..") {
            return Err(format!(
                "the argument {} is {}, which names no place in the path",
                quote(name),
                quote(&segment)
            ));
        }
        path.push_str(&segment);
        rest = after;
    }
    path.push_str(rest);

    let mut query: Vec<(String, String)> = Vec::new();
    let mut headers: Vec<(String, String)> = vec![("accept".into(), "application/json".into())];
    for p in &op.parameters {
        let Some(value) = given(&p.argument) else { continue };
        match (p.place, p.style, value) {
            (In::Path, ..) => {}
            (In::Query, Style::Json, v) => query.push((p.name.clone(), encode(&v.to_string()))),
            (In::Query, Style::Exploded, Value::Array(items)) => {
                query.extend(items.iter().map(|i| (p.name.clone(), encode(&text(i)))))
            }
            (In::Query, Style::Joined(by), Value::Array(items)) => {
                let by = if by == ',' { ",".to_string() } else { encode(&by.to_string()) };
                query.push((p.name.clone(), items.iter().map(|i| encode(&text(i))).collect::<Vec<_>>().join(&by)));
            }
            (In::Query, Style::DeepObject, Value::Object(map)) => {
                query.extend(map.iter().map(|(k, v)| (format!("{}[{k}]", p.name), encode(&text(v)))))
            }
            (In::Query, _, v) => query.push((p.name.clone(), encode(&text(v)))),
            (In::Header, Style::Json, v) => headers.push((p.name.clone(), v.to_string())),
            (In::Header, _, Value::Array(items)) => {
                headers.push((p.name.clone(), items.iter().map(text).collect::<Vec<_>>().join(",")))
            }
            (In::Header, _, v) => headers.push((p.name.clone(), text(v))),
        }
    }
    let body = match (&op.body, given(BODY)) {
        (Some(media_type), Some(value)) => {
            headers.push(("content-type".into(), media_type.clone()));
            Some(value.to_string())
        }
        _ => None,
    };

    let place = match (&op.auth, credential) {
        (Auth::Nothing, _) | (_, None) => None,
        (Auth::Entry, Some(c)) => Some(&c.place),
        (Auth::At(place), Some(_)) => Some(place),
    };
    if let (Some(place), Some(c)) = (place, credential) {
        let secret = &c.secret.0;
        match place {
            Place::Header { name, scheme } => {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                let value = scheme.as_ref().map_or_else(|| secret.clone(), |s| format!("{s} {secret}"));
                headers.push((name.clone(), value));
            }
            Place::Query { name } => {
                query.retain(|(n, _)| n != name);
                query.push((name.clone(), encode(secret)));
            }
        }
    }

    let (base, base_query) = base_url.split_once('?').map_or((base_url, ""), |(b, q)| (b, q));
    let mut url = base.trim_end_matches('/').to_string();
    if !path.starts_with('/') {
        url.push('/');
    }
    url.push_str(&path);
    let pairs = query.iter().map(|(name, value)| format!("{}={value}", encode(name)));
    let parts: Vec<String> = Some(base_query.to_string()).filter(|q| !q.is_empty()).into_iter().chain(pairs).collect();
    if !parts.is_empty() {
        url.push('?');
        url.push_str(&parts.join("&"));
    }
    Ok(Request { method: op.method, url, headers, body })
}

/// A value as the text a path, query or header carries: a string as it is, anything else as JSON.
fn text(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

/// What the API answered, as a tool's answer: a 2xx is the body (JSON written compactly, and
/// kept as structured content where it is an object), anything else a tool error that starts
/// with its status. How much is read, the transport bounds.
pub fn answered(status: u16, content_type: Option<&str>, body: &str) -> Answered {
    let says_json = content_type.is_none_or(|t| t.to_ascii_lowercase().contains("json"));
    let json = if says_json { serde_json::from_str::<Value>(body).ok() } else { None };
    let text = json.as_ref().map_or_else(|| body.to_string(), Value::to_string);
    let ok = (200..300).contains(&status);
    if text.trim().is_empty() {
        return Answered {
            text: format!("HTTP {status}, with an empty body."),
            structured: None,
            is_error: !ok,
            images: Vec::new(),
        };
    }
    if ok {
        Answered { text, structured: json.filter(Value::is_object), is_error: false, images: Vec::new() }
    } else {
        Answered {
            text: format!("HTTP {status}: {}", cap(text.trim(), ERROR_SHOWN)),
            structured: None,
            is_error: true,
            images: Vec::new(),
        }
    }
}

#[cfg(test)]
#[path = "call_tests.rs"]
mod tests;
