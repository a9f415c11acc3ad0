//! Speaking MCP to a tool server, without I/O: the posts the client makes, in the revision the
//! server speaks, and reading what comes back, one JSON object or an event stream in which the
//! answer is one event among notifications.
//!
//! The client asks a server it has not settled with `server/discover` in 2026-07-28 first (no
//! handshake; `_meta` and the `Mcp-Method` and `Mcp-Name` headers on every request, and a tool's
//! `x-mcp-header` arguments as `Mcp-Param-*` headers). A server that answers with the revisions it
//! speaks, or with an error only a 2026-07-28 server gives, speaks it; any other answer, such as a
//! refusal or a result that is no `DiscoverResult`, comes from a server of the revisions before,
//! which is spoken to as they are: `initialize`, then its `Mcp-Session-Id` on every request, and
//! an event stream that ends before its answer taken up again with `Last-Event-ID`.

use base64::Engine;
use serde_json::{json, Map, Value};

use super::{Mark, MarkedBy};
use crate::core::protocol::{LEGACY, MODERN};

/// The client as it names itself to servers.
pub const CLIENT_NAME: &str = "playbook-runtime";
/// Tool descriptions are kept up to this many bytes.
pub const DESCRIPTION_MAX: usize = 4096;
/// JSON-RPC's code for a revision the server does not speak.
const UNSUPPORTED_VERSION: i64 = -32022;
/// The codes only a 2026-07-28 server answers with: headers that do not match the body, a client
/// capability the request needs and did not declare.
const HEADER_MISMATCH: i64 = -32020;
const MISSING_CAPABILITY: i64 = -32021;
const METHOD_NOT_FOUND: i64 = -32601;

/// The revision a server is spoken to in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Era {
    Modern,
    /// A handshake revision, with the session the server gave, if any.
    Legacy {
        version: String,
        session: Option<String>,
    },
}

/// One POST to the server's address.
#[derive(Debug, Clone, PartialEq)]
pub struct Post {
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// A request in the server's revision. `name` is the tool a `tools/call` names.
pub fn request(era: &Era, id: u64, method: &str, params: Value, name: Option<&str>) -> Post {
    let mut params = match params {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let mut headers = base_headers(era);
    if *era == Era::Modern {
        params.insert(
            "_meta".into(),
            json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": { "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") },
                "io.modelcontextprotocol/clientCapabilities": {},
            }),
        );
        headers.push(("Mcp-Method".into(), method.into()));
        if let Some(name) = name {
            headers.push(("Mcp-Name".into(), header_value(name)));
        }
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string();
    Post { headers, body }
}

/// The handshake of a legacy server, offering its newest revision.
pub fn initialize(id: u64) -> Post {
    let era = Era::Legacy { version: LEGACY[0].into(), session: None };
    let params = json!({
        "protocolVersion": LEGACY[0],
        "capabilities": {},
        "clientInfo": { "name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION") },
    });
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": params }).to_string();
    Post { headers: base_headers(&era), body }
}

/// What the handshake settled: the revision the server answered, if we speak it, and its session.
pub fn initialized(result: &Value, session: Option<String>) -> Result<(Era, Post), String> {
    let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or(LEGACY[0]);
    if !LEGACY.contains(&version) {
        return Err(format!("it answered the handshake in the revision {version}, which this runtime does not speak"));
    }
    let era = Era::Legacy { version: version.into(), session };
    let body = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string();
    Ok((era.clone(), Post { headers: base_headers(&era), body }))
}

fn base_headers(era: &Era) -> Vec<(String, String)> {
    let mut headers = vec![
        ("Content-Type".into(), "application/json".into()),
        ("Accept".into(), "application/json, text/event-stream".into()),
    ];
    match era {
        Era::Modern => headers.push(("MCP-Protocol-Version".into(), MODERN.into())),
        Era::Legacy { version, session } => {
            headers.push(("MCP-Protocol-Version".into(), version.clone()));
            if let Some(s) = session {
                headers.push(("Mcp-Session-Id".into(), s.clone()));
            }
        }
    }
    headers
}

/// A header value as 2026-07-28 writes it: visible ASCII and inner spaces as is; anything else
/// (other characters, a space at either end, a value that looks encoded) in its base64 form.
fn header_value(text: &str) -> String {
    let visible = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    let plain = visible && !padded && !looks_encoded;
    if plain {
        text.to_string()
    } else {
        format!("=?base64?{}?=", base64::engine::general_purpose::STANDARD.encode(text))
    }
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Result(Value),
    Error { code: i64, message: String, data: Option<Value> },
}

/// Reads the answer to request `id` from a body of `content_type`. An event stream may carry
/// notifications and other messages first; they are passed over.
pub fn read_reply(content_type: Option<&str>, body: &str, id: u64) -> Result<Reply, String> {
    let streamed = content_type.is_some_and(is_stream);
    if !streamed {
        let value: Value = serde_json::from_str(body).map_err(|_| "it answered with what is not JSON".to_string())?;
        return reply_to(&value, id).ok_or_else(|| "its answer is not the JSON-RPC response to the request".into());
    }
    for data in events(body) {
        if let Ok(value) = serde_json::from_str::<Value>(&data) {
            if let Some(reply) = reply_to(&value, id) {
                return Ok(reply);
            }
        }
    }
    Err("its event stream ended without the response to the request".into())
}

/// Whether a content type is an event stream's.
pub fn is_stream(content_type: &str) -> bool {
    content_type.trim_start().to_ascii_lowercase().starts_with("text/event-stream")
}

/// The `data` of each event of a stream: its `data:` lines joined, comments and other fields
/// passed over.
fn events(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in body.lines().chain(std::iter::once("")) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if !data.is_empty() {
                out.push(data.join("\n"));
                data.clear();
            }
        } else if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    out
}

/// Where an event stream that ended before its answer may be taken up again, in the revisions
/// before 2026-07-28: the id of its last event, and the pause its server asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    pub last_event_id: String,
    pub retry_ms: Option<u64>,
}

/// The id and pause a stream's `id:` and `retry:` fields set last, if it gave an id to resume at.
pub fn resumption(body: &str) -> Option<Resume> {
    let mut last_event_id = None;
    let mut retry_ms = None;
    for line in body.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" if !value.contains('\0') => last_event_id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => retry_ms = value.parse().ok(),
            _ => {}
        }
    }
    last_event_id.filter(|id| !id.is_empty()).map(|last_event_id| Resume { last_event_id, retry_ms })
}

/// The headers of the GET that takes up a legacy server's stream after its event `last_event_id`.
pub fn resume(era: &Era, last_event_id: &str) -> Vec<(String, String)> {
    let mut headers = vec![("Accept".to_string(), "text/event-stream".to_string())];
    if let Era::Legacy { version, session } = era {
        headers.push(("MCP-Protocol-Version".into(), version.clone()));
        if let Some(s) = session {
            headers.push(("Mcp-Session-Id".into(), s.clone()));
        }
    }
    headers.push(("Last-Event-ID".into(), last_event_id.to_string()));
    headers
}

/// Reads the whole events at the start of `stream`, a part of an event stream that begins where
/// an event does: whether one of them is a JSON-RPC response, and how many bytes they take, so a
/// reader stops at the answer rather than at the end of a stream its server keeps open.
pub fn answered_in(stream: &[u8]) -> (bool, usize) {
    let mut used = 0;
    let mut start = 0;
    for (i, _) in stream.iter().enumerate().filter(|(_, b)| **b == b'\n') {
        let line = &stream[start..i];
        let blank = line.is_empty() || line == b"\r";
        start = i + 1;
        if !blank {
            continue;
        }
        let event = String::from_utf8_lossy(&stream[used..start]);
        used = start;
        let answers = events(&event).iter().any(|data| {
            serde_json::from_str::<Value>(data).is_ok_and(|v| {
                v.get("id").is_some()
                    && v.get("method").is_none()
                    && (v.get("result").is_some() || v.get("error").is_some())
            })
        });
        if answers {
            return (true, used);
        }
    }
    (false, used)
}

fn reply_to(value: &Value, id: u64) -> Option<Reply> {
    if value.get("id").and_then(Value::as_u64) != Some(id) {
        return None;
    }
    if let Some(result) = value.get("result") {
        return Some(Reply::Result(result.clone()));
    }
    let error = value.get("error")?;
    Some(Reply::Error {
        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
        message: error.get("message").and_then(Value::as_str).unwrap_or("").chars().take(500).collect(),
        data: error.get("data").cloned(),
    })
}

/// What a server's answer to `server/discover` in 2026-07-28 says of the revision it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discovered {
    /// It speaks 2026-07-28.
    Modern,
    /// It refused the request's revision while naming 2026-07-28 among those it speaks: ask again.
    Again,
    /// It speaks the revisions before, through `initialize`.
    Legacy,
}

/// Tells a server's revision by its answer to `server/discover`, as 2026-07-28 says a client of
/// both eras does: a `DiscoverResult` naming 2026-07-28, or an error only a 2026-07-28 server
/// gives, is a modern server; any other answer, a result that names no such revision (as a server
/// of earlier revisions may answer a method it does not know) or a refusal, a legacy one. None
/// when the answer says neither, such as a server error, which the caller reports as it came.
pub fn discovered(status: u16, reply: Option<&Reply>) -> Option<Discovered> {
    match reply {
        Some(Reply::Result(result)) if lists_modern(result.get("supportedVersions")) => Some(Discovered::Modern),
        Some(Reply::Result(_)) => Some(Discovered::Legacy),
        Some(Reply::Error { code, data, .. }) => Some(match *code {
            UNSUPPORTED_VERSION if lists_modern(data.as_ref().and_then(|d| d.get("supported"))) => Discovered::Again,
            HEADER_MISMATCH | MISSING_CAPABILITY => Discovered::Modern,
            // A 2026-07-28 server answers a method it lacks with 404; one of earlier revisions in
            // the body of a 200.
            METHOD_NOT_FOUND if status == 404 => Discovered::Modern,
            _ => Discovered::Legacy,
        }),
        None if matches!(status, 400 | 404 | 405) => Some(Discovered::Legacy),
        None => None,
    }
}

/// Whether an answer refuses the request's revision while naming 2026-07-28 among those the
/// server speaks, so that the request goes again once.
pub fn asks_again(reply: Option<&Reply>) -> bool {
    matches!(reply, Some(Reply::Error { code: UNSUPPORTED_VERSION, data, .. })
        if lists_modern(data.as_ref().and_then(|d| d.get("supported"))))
}

fn lists_modern(versions: Option<&Value>) -> bool {
    versions.and_then(Value::as_array).is_some_and(|v| v.iter().any(|v| v.as_str() == Some(MODERN)))
}

/// Whether a server's answer to a 2026-07-28 request says it speaks only the revisions before.
pub fn refuses_modern(status: u16, reply: Option<&Reply>) -> bool {
    match reply {
        Some(Reply::Error { code, data, .. }) if *code == UNSUPPORTED_VERSION => {
            !lists_modern(data.as_ref().and_then(|d| d.get("supported")))
        }
        // A server of earlier revisions knows no request before `initialize`, and answers so.
        Some(Reply::Error { .. }) => status == 400,
        Some(Reply::Result(_)) => false,
        None => matches!(status, 400 | 404 | 405),
    }
}

/// What MCP's hints on a tool say, as its server gives them.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Hints {
    #[serde(rename = "readOnlyHint", skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(rename = "destructiveHint", skip_serializing_if = "Option::is_none")]
    pub destructive: Option<bool>,
    #[serde(rename = "idempotentHint", skip_serializing_if = "Option::is_none")]
    pub idempotent: Option<bool>,
    #[serde(rename = "openWorldHint", skip_serializing_if = "Option::is_none")]
    pub open_world: Option<bool>,
}

/// A tool as its server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: Value,
    pub hints: Hints,
    pub mark: Mark,
    pub marked_by: MarkedBy,
}

/// The tools of one page of `tools/list`, and the cursor of the next. A tool without a name or
/// with an input schema that is not an object is passed over, as a client would.
pub fn read_tools(result: &Value) -> Result<(Vec<Listed>, Option<String>), String> {
    let tools = result.get("tools").and_then(Value::as_array).ok_or("its tools/list answer holds no list of tools")?;
    let listed = tools.iter().filter_map(listed).collect();
    let next = result.get("nextCursor").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_string);
    Ok((listed, next))
}

fn listed(tool: &Value) -> Option<Listed> {
    let name = tool.get("name")?.as_str()?.to_string();
    let input_schema = tool.get("inputSchema").filter(|s| s.is_object())?.clone();
    // A tool whose `x-mcp-header` marks break 2026-07-28's rules is left out, as the revision
    // says a client of HTTP does, so that the server's other tools stay usable.
    header_params(&input_schema).ok()?;
    let hint = |key: &str| tool.get("annotations").and_then(|a| a.get(key)).and_then(Value::as_bool);
    let hints = Hints {
        read_only: hint("readOnlyHint"),
        destructive: hint("destructiveHint"),
        idempotent: hint("idempotentHint"),
        open_world: hint("openWorldHint"),
    };
    let description = shortened(tool.get("description").and_then(Value::as_str).unwrap_or("").to_string());
    let title = tool
        .get("title")
        .or_else(|| tool.get("annotations").and_then(|a| a.get("title")))
        .and_then(Value::as_str)
        .map(str::to_string);
    Some(Listed {
        name,
        title,
        description,
        input_schema,
        mark: Mark::from_read_only_hint(hints.read_only),
        hints,
        marked_by: MarkedBy::Server,
    })
}

/// An argument a tool's input schema marks with `x-mcp-header`: the name its header is
/// `Mcp-Param-{name}` by, and the `properties` keys that lead to it from the schema's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    pub name: String,
    pub path: Vec<String>,
}

/// The arguments an input schema marks with `x-mcp-header`, or why its marks break 2026-07-28's
/// rules: a mark names a header by a nonempty token of RFC 9110's characters, unique whatever the
/// case, on an argument of type string, integer or boolean that `properties` alone lead to.
pub fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    marks(schema, &mut Vec::new(), true, &mut found)?;
    for (i, param) in found.iter().enumerate() {
        if found[..i].iter().any(|p| p.name.eq_ignore_ascii_case(&param.name)) {
            return Err(format!("two of its arguments name the header Mcp-Param-{}", param.name));
        }
    }
    Ok(found)
}

/// Walks a schema for `x-mcp-header` marks. `reached` says whether `properties` alone led here
/// from the root; `path` holds their keys.
fn marks(node: &Value, path: &mut Vec<String>, reached: bool, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    match node {
        Value::Object(map) => {
            if let Some(mark) = map.get("x-mcp-header") {
                let at = if path.is_empty() { "its root".to_string() } else { format!("/{}", path.join("/")) };
                if !reached || path.is_empty() {
                    return Err(format!(
                        "an x-mcp-header mark under {at} is not on an argument that properties alone lead to"
                    ));
                }
                let name = mark.as_str().unwrap_or("");
                let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
                if name.is_empty() || !name.bytes().all(token) {
                    return Err(format!("the argument {at} names the header {mark}, which is no HTTP token"));
                }
                let primitive = |t: &Value| matches!(t.as_str(), Some("string" | "integer" | "boolean"));
                let typed = match map.get("type") {
                    Some(Value::Array(types)) => {
                        types.iter().any(primitive) && types.iter().all(|t| primitive(t) || t.as_str() == Some("null"))
                    }
                    Some(t) => primitive(t),
                    None => false,
                };
                if !typed {
                    return Err(format!(
                        "the argument {at} is marked for a header but is not of type string, integer or boolean"
                    ));
                }
                found.push(HeaderParam { name: name.to_string(), path: path.clone() });
            }
            for (key, value) in map {
                match key.as_str() {
                    "properties" => {
                        for (property, schema) in value.as_object().into_iter().flatten() {
                            path.push(property.clone());
                            marks(schema, path, reached, found)?;
                            path.pop();
                        }
                    }
                    // Values, not schemas: a mark inside them is data.
                    "x-mcp-header" | "enum" | "const" | "default" | "examples" => {}
                    _ => marks(value, path, false, found)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|item| marks(item, path, false, found)),
        _ => Ok(()),
    }
}

/// The `Mcp-Param-*` headers of a call of a tool with `schema` and `arguments`: the value at each
/// marked argument's path, as text (an integer in decimal, a boolean as true or false), encoded as
/// header values are; a value that is missing or null is left out.
pub fn param_headers(schema: &Value, arguments: &Value) -> Vec<(String, String)> {
    let params = header_params(schema).unwrap_or_default();
    params
        .iter()
        .filter_map(|param| {
            let value = param.path.iter().try_fold(arguments, |v, key| v.get(key))?;
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => match n.as_f64() {
                    Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => format!("{f:.0}"),
                    _ => n.to_string(),
                },
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", param.name), header_value(&text)))
        })
        .collect()
}

/// A tool's description, cut to `DESCRIPTION_MAX` bytes where it is longer.
pub fn shortened(description: String) -> String {
    match crate::core::text::start_within(&description, DESCRIPTION_MAX).len() {
        kept if kept < description.len() => description[..kept].to_string(),
        _ => description,
    }
}

/// What a tool answered: its text as a model reads it, its structured content, and whether the
/// tool said it failed (a tool error, which a model may recover from, not a protocol error).
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    pub text: String,
    pub structured: Option<Value>,
    pub is_error: bool,
    /// The image blocks, in order, each shown in `text` by its words, which a run that keeps it
    /// as an asset replaces (`named`).
    pub images: Vec<Image>,
}

/// An image block of a tool's answer: its media type, its data (base64, as MCP carries it), and
/// the words `text` shows it by.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub media_type: String,
    pub data: String,
    pub shown: String,
}

/// `text` with each image's words replaced by those `names` gives it, in order; an image without
/// a name keeps its words.
pub fn named(text: &str, images: &[Image], names: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    for (image, name) in images.iter().zip(names) {
        let Some(at) = rest.find(&image.shown) else { continue };
        out.push_str(&rest[..at]);
        out.push_str(name);
        rest = &rest[at + image.shown.len()..];
    }
    out.push_str(rest);
    out
}

/// What a call whose server asks for input first (2026-07-28's `input_required`) fails with: the
/// runtime's client declares no capability a server may ask through.
const ASKS_FOR_INPUT: &str = "it asked for input before it answers (input_required), which the runtime cannot \
     give: its client declares no elicitation, sampling or roots";

pub fn read_call(result: &Value) -> Result<Answered, String> {
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Err(ASKS_FOR_INPUT.into());
    }
    let content = result.get("content").and_then(Value::as_array).ok_or("its tools/call answer holds no content")?;
    let mut images = Vec::new();
    let parts: Vec<String> = content
        .iter()
        .map(|block| match block.get("type").and_then(Value::as_str) {
            Some("image") => {
                let shown = described(block);
                let media_type = block.get("mimeType").and_then(Value::as_str);
                if let (Some(media_type), Some(data)) = (media_type, block.get("data").and_then(Value::as_str)) {
                    images.push(Image {
                        media_type: media_type.to_string(),
                        data: data.to_string(),
                        shown: shown.clone(),
                    });
                }
                shown
            }
            Some("text") => block.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
            Some("resource") => block
                .pointer("/resource/text")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| described(block)),
            _ => described(block),
        })
        .collect();
    Ok(Answered {
        text: parts.join("\n"),
        structured: result.get("structuredContent").cloned(),
        is_error: result.get("isError").and_then(Value::as_bool).unwrap_or(false),
        images,
    })
}

/// A block a model cannot read as text, said in words.
fn described(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("unknown");
    let media = block.get("mimeType").and_then(Value::as_str).unwrap_or("of no stated type");
    let size = block.get("data").and_then(Value::as_str).map_or(0, |d| d.len() * 3 / 4);
    format!("[{kind} {media}, about {size} bytes]")
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
