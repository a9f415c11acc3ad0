//! The checks a POST to an MCP endpoint passes before anything is handled, and the plan for it:
//! refuse with a status, accept a notification, or handle its requests in one revision.

use base64::Engine;
use serde_json::{json, Value};

use super::jsonrpc::{self, Message, RpcError};
use super::revision::{self, MODERN};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// What a request speaks, and so which shapes its answers take.
#[derive(Debug, Clone, PartialEq)]
pub enum Era {
    /// 2026-07-28: stateless; the client's capabilities come with this request alone.
    Modern { capabilities: Value },
    /// A handshake revision.
    Legacy { version: String },
}

/// One item to answer: a request, or a batch element that was not a valid message.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Request { id: Value, method: String, params: Option<Value> },
    Invalid(RpcError),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Refused before handling: the HTTP status and the JSON answer.
    Refuse { status: u16, body: Value },
    /// Only notifications or responses: `202 Accepted`, no body.
    Accepted,
    /// Answer these items in this era; `batch` answers a JSON array, `stream` an event stream.
    Handle { era: Era, items: Vec<Item>, batch: bool, stream: bool },
}

/// The parts of a POST the plan reads.
#[derive(Debug, Clone, Default)]
pub struct Post<'a> {
    pub content_type: Option<&'a str>,
    pub accept: Option<&'a str>,
    pub protocol_version: Option<&'a str>,
    pub mcp_method: Option<&'a str>,
    pub mcp_name: Option<&'a str>,
    pub body: &'a [u8],
}

fn refuse(status: u16, error: RpcError) -> Plan {
    Plan::Refuse { status, body: jsonrpc::failure(&Value::Null, &error) }
}

fn refuse_with_id(status: u16, id: &Value, error: RpcError) -> Plan {
    Plan::Refuse { status, body: jsonrpc::failure(id, &error) }
}

pub fn plan(post: &Post<'_>) -> Plan {
    let stream = match wants_stream(post.accept) {
        Some(s) => s,
        None => {
            return refuse(
                406,
                RpcError::invalid_request("the Accept header must allow application/json or text/event-stream."),
            )
        }
    };
    if !post.content_type.is_some_and(is_json_type) {
        return refuse(415, RpcError::invalid_request("the Content-Type must be application/json."));
    }
    let value: Value = match serde_json::from_slice(post.body) {
        Ok(v) => v,
        Err(e) => return refuse(400, RpcError::parse_error(e)),
    };
    match value {
        Value::Array(elements) => plan_batch(post, &elements, stream),
        single => plan_single(post, &single, stream),
    }
}

fn plan_single(post: &Post<'_>, value: &Value, stream: bool) -> Plan {
    let message = match Message::from_value(value) {
        Ok(m) => m,
        Err(e) => return refuse(400, e),
    };
    let (id, method, params) = match message {
        Message::Notification { .. } | Message::Response => return Plan::Accepted,
        Message::Request { id, method, params } => (id, method, params),
    };
    let era = match era_of(post, &id, &method, &params) {
        Ok(era) => era,
        Err(plan) => return plan,
    };
    Plan::Handle { era, items: vec![Item::Request { id, method, params }], batch: false, stream }
}

fn plan_batch(post: &Post<'_>, elements: &[Value], stream: bool) -> Plan {
    if elements.is_empty() {
        return refuse(400, RpcError::invalid_request("an empty batch holds nothing to answer."));
    }
    let version = post.protocol_version.unwrap_or(revision::DEFAULT_LEGACY);
    if !revision::allows_batches(version) {
        return refuse(
            400,
            RpcError::invalid_request(format!(
                "batches were removed after 2025-03-26, and this request speaks {version}; send one message per POST."
            )),
        );
    }
    let mut items = Vec::new();
    for element in elements {
        match Message::from_value(element) {
            Err(e) => items.push(Item::Invalid(e)),
            Ok(Message::Request { method, .. }) if method == "initialize" => {
                return refuse(400, RpcError::invalid_request("initialize must not be sent in a batch."));
            }
            Ok(Message::Request { id, method, params }) => {
                if claim(&params).is_some() {
                    return refuse(
                        400,
                        RpcError::invalid_request(format!("a {MODERN} request must not be sent in a batch.")),
                    );
                }
                items.push(Item::Request { id, method, params });
            }
            Ok(_) => {}
        }
    }
    if items.is_empty() {
        return Plan::Accepted;
    }
    Plan::Handle { era: Era::Legacy { version: version.to_string() }, items, batch: true, stream }
}

fn claim(params: &Option<Value>) -> Option<&Value> {
    params.as_ref()?.get("_meta")?.get(META_VERSION)
}

/// Tells the revision of one request, following the dual-era rules (notes: mcp-revisions §1).
fn era_of(post: &Post<'_>, id: &Value, method: &str, params: &Option<Value>) -> Result<Era, Plan> {
    let header = post.protocol_version;
    if let Some(claimed) = claim(params) {
        let Some(claimed) = claimed.as_str() else {
            return Err(refuse_with_id(
                400,
                id,
                RpcError::invalid_params(format!("_meta[\"{META_VERSION}\"] must be a string.")),
            ));
        };
        if revision::LEGACY.contains(&claimed) {
            // A claim of a handshake revision is served as that revision, as the TypeScript SDK does.
            return Ok(Era::Legacy { version: claimed.to_string() });
        }
        let Some(header) = header else {
            return Err(mismatch(
                id,
                format!(
                    "the MCP-Protocol-Version header is required and must equal _meta[\"{META_VERSION}\"] ({claimed})."
                ),
            ));
        };
        if header != claimed {
            return Err(mismatch(
                id,
                format!(
                    "the MCP-Protocol-Version header ({header}) differs from _meta[\"{META_VERSION}\"] ({claimed})."
                ),
            ));
        }
        if claimed != MODERN {
            return Err(refuse_with_id(
                400,
                id,
                RpcError::new(jsonrpc::UNSUPPORTED_VERSION, format!("Unsupported protocol version: {claimed}."))
                    .with_data(json!({ "supported": revision::all_supported(), "requested": claimed })),
            ));
        }
        let capabilities = params.as_ref().and_then(|p| p["_meta"].get(META_CAPABILITIES)).cloned();
        let Some(capabilities @ Value::Object(_)) = capabilities else {
            return Err(refuse_with_id(400, id, RpcError::invalid_params(format!("_meta[\"{META_CAPABILITIES}\"] is required on every {MODERN} request and must be an object ({{}} for none)."))));
        };
        if post.mcp_method != Some(method) {
            return Err(mismatch(id, format!("the Mcp-Method header must equal the method ({method}).")));
        }
        if let Some(field) = named_by(method) {
            let expected = params.as_ref().and_then(|p| p.get(field)).and_then(Value::as_str);
            let given = post.mcp_name.map(decode_header_value);
            if expected.is_none() || given.as_deref() != expected {
                return Err(mismatch(id, format!("the Mcp-Name header must equal params.{field}.")));
            }
        }
        if !revision::MODERN_METHODS.contains(&method) {
            return Err(refuse_with_id(404, id, RpcError::method_not_found(method)));
        }
        return Ok(Era::Modern { capabilities });
    }
    match header {
        Some(h) if h == MODERN && method != "initialize" => Err(refuse_with_id(
            400,
            id,
            RpcError::invalid_params(format!("a request with MCP-Protocol-Version {MODERN} needs params._meta with \"{META_VERSION}\" and \"{META_CAPABILITIES}\".")),
        )),
        Some(h) if !revision::is_supported(h) => Err(refuse_with_id(
            400,
            id,
            RpcError::invalid_request(format!("Unsupported protocol version: {h}. This server speaks {}.", revision::all_supported().join(", ")))
                .with_data(json!({ "supported": revision::all_supported(), "requested": h })),
        )),
        Some(h) if h != MODERN => Ok(Era::Legacy { version: h.to_string() }),
        _ => Ok(Era::Legacy { version: revision::DEFAULT_LEGACY.to_string() }),
    }
}

fn mismatch(id: &Value, why: String) -> Plan {
    refuse_with_id(400, id, RpcError::new(jsonrpc::HEADER_MISMATCH, format!("Header mismatch: {why}")))
}

/// The param a method's `Mcp-Name` header repeats.
fn named_by(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// Header values that are not plain ASCII come as `=?base64?<b64>?=`.
fn decode_header_value(raw: &str) -> String {
    raw.strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| raw.to_string())
}

fn is_json_type(content_type: &str) -> bool {
    content_type.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"))
}

/// `Some(true)` for an event stream, `Some(false)` for plain JSON, `None` when the client takes neither.
fn wants_stream(accept: Option<&str>) -> Option<bool> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Some(true);
    };
    let types: Vec<String> =
        accept.split(',').filter_map(|t| t.split(';').next()).map(|t| t.trim().to_ascii_lowercase()).collect();
    let has = |t: &str| types.iter().any(|x| x == t);
    if has("text/event-stream") || has("*/*") || has("text/*") {
        Some(true)
    } else if has("application/json") || has("application/*") {
        Some(false)
    } else {
        None
    }
}

/// Whether a browser `Origin` may call: absent (not a browser), the runtime's own, or allowed by name.
pub fn origin_allowed(origin: Option<&str>, own: &str, allowed: &[String]) -> bool {
    match origin {
        None => true,
        Some(o) => {
            let o = o.trim_end_matches('/');
            o.eq_ignore_ascii_case(own) || allowed.iter().any(|a| a.trim_end_matches('/').eq_ignore_ascii_case(o))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(body: &str) -> Post<'_> {
        Post {
            content_type: Some("application/json"),
            accept: Some("application/json, text/event-stream"),
            body: body.as_bytes(),
            ..Post::default()
        }
    }

    fn status(plan: &Plan) -> Option<(u16, i64)> {
        match plan {
            Plan::Refuse { status, body } => Some((*status, body["error"]["code"].as_i64().unwrap_or(0))),
            _ => None,
        }
    }

    #[test]
    fn refusals_before_handling() {
        assert_eq!(status(&plan(&post("{nope"))), Some((400, -32700)));
        assert_eq!(status(&plan(&post("{}"))), Some((400, -32600)));
        assert_eq!(status(&plan(&post("[]"))), Some((400, -32600)));
        let mut p = post("{}");
        p.content_type = Some("text/plain");
        assert_eq!(status(&plan(&p)), Some((415, -32600)));
        let mut p = post("{}");
        p.accept = Some("text/html");
        assert_eq!(status(&plan(&p)), Some((406, -32600)));
        let mut p = post(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        p.protocol_version = Some("1999-01-01");
        assert_eq!(status(&plan(&p)), Some((400, -32600)));
    }

    #[test]
    fn notifications_and_responses_are_accepted() {
        assert_eq!(plan(&post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)), Plan::Accepted);
        assert_eq!(plan(&post(r#"{"jsonrpc":"2.0","id":3,"result":{}}"#)), Plan::Accepted);
    }

    #[test]
    fn modern_requests_follow_the_header_ladder() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_guide","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        let mut p = post(body);
        assert_eq!(status(&plan(&p)), Some((400, -32020)));
        p.protocol_version = Some("2026-07-28");
        assert_eq!(status(&plan(&p)), Some((400, -32020)));
        p.mcp_method = Some("tools/call");
        assert_eq!(status(&plan(&p)), Some((400, -32020)));
        p.mcp_name = Some("=?base64?Z2V0X2d1aWRl?=");
        assert!(matches!(plan(&p), Plan::Handle { era: Era::Modern { .. }, .. }));
        let no_meta = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        let mut p = post(no_meta);
        p.protocol_version = Some("2026-07-28");
        assert_eq!(status(&plan(&p)), Some((400, -32602)));
    }

    #[test]
    fn batches_only_in_2025_03_26() {
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"x":1}]"#;
        match plan(&post(batch)) {
            Plan::Handle { items, batch: true, .. } => assert_eq!(items.len(), 2),
            other => panic!("{other:?}"),
        }
        let mut p = post(batch);
        p.protocol_version = Some("2025-06-18");
        assert_eq!(status(&plan(&p)), Some((400, -32600)));
    }

    #[test]
    fn origins() {
        assert!(origin_allowed(None, "http://127.0.0.1:8787", &[]));
        assert!(origin_allowed(Some("http://127.0.0.1:8787"), "http://127.0.0.1:8787", &[]));
        assert!(!origin_allowed(Some("http://evil.example"), "http://127.0.0.1:8787", &[]));
        assert!(origin_allowed(
            Some("http://localhost:6274"),
            "http://127.0.0.1:8787",
            &["http://localhost:6274".into()]
        ));
    }
}
