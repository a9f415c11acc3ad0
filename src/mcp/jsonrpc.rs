//! JSON-RPC 2.0 as MCP uses it: what a posted message is, and the error objects we answer.

use serde_json::{json, Map, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP: a resource that does not exist (revisions up to 2025-11-25).
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// MCP 2026-07-28: a header disagrees with the body.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP 2026-07-28: the revision a request claims is not served.
pub const UNSUPPORTED_VERSION: i64 = -32022;

#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        RpcError::new(PARSE_ERROR, format!("Parse error: the body is not JSON ({detail})."))
    }

    pub fn invalid_request(why: impl Into<String>) -> Self {
        RpcError::new(INVALID_REQUEST, format!("Invalid request: {}", why.into()))
    }

    pub fn method_not_found(method: &str) -> Self {
        RpcError::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }

    pub fn invalid_params(why: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, why)
    }

    /// The runtime stopped while it handled the request: the spec gives the words and no code of
    /// its own, so it is JSON-RPC's internal error.
    pub fn stopped() -> Self {
        RpcError::new(INTERNAL_ERROR, crate::core::error::STOPPED)
    }

    pub fn to_value(&self) -> Value {
        let mut e = json!({ "code": self.code, "message": self.message });
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }
}

/// One posted message, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
    },
    /// A response or error the client sends back; a stateless server has nothing to match it to.
    Response,
}

impl Message {
    /// Reads one JSON value as a JSON-RPC 2.0 message, or says why it is not one.
    pub fn from_value(v: &Value) -> Result<Message, RpcError> {
        let Some(obj) = v.as_object() else {
            return Err(RpcError::invalid_request("a message must be a JSON object."));
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(RpcError::invalid_request("\"jsonrpc\" must be \"2.0\"."));
        }
        let id = obj.get("id");
        if let Some(id) = id {
            if !(id.is_string() || id.is_i64() || id.is_u64()) {
                return Err(RpcError::invalid_request("\"id\" must be a string or an integer."));
            }
        }
        match obj.get("method") {
            Some(Value::String(method)) => {
                let params = obj.get("params").cloned();
                if let Some(p) = &params {
                    if !p.is_object() && !p.is_array() {
                        return Err(RpcError::invalid_request("\"params\" must be an object."));
                    }
                }
                match id {
                    Some(id) => Ok(Message::Request { id: id.clone(), method: method.clone(), params }),
                    None => Ok(Message::Notification { method: method.clone() }),
                }
            }
            Some(_) => Err(RpcError::invalid_request("\"method\" must be a string.")),
            None if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) => Ok(Message::Response),
            None => Err(RpcError::invalid_request(
                "a message needs a \"method\", or a \"result\" or \"error\" with an \"id\".",
            )),
        }
    }
}

/// Moves the result into the response: `json!` would copy it, and a result can be large.
pub fn success(id: &Value, result: Value) -> Value {
    let mut response = Map::new();
    response.insert("jsonrpc".into(), Value::from("2.0"));
    response.insert("id".into(), id.clone());
    response.insert("result".into(), result);
    Value::Object(response)
}

pub fn failure(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_value() })
}

/// The params of a request as an object (`{}` when absent).
pub fn params_object(params: &Option<Value>) -> Result<Map<String, Value>, RpcError> {
    match params {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(RpcError::invalid_params("params must be an object.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_messages() {
        let req = json!({"jsonrpc":"2.0","id":1,"method":"ping"});
        assert!(matches!(Message::from_value(&req), Ok(Message::Request { .. })));
        let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
        assert!(matches!(Message::from_value(&note), Ok(Message::Notification { .. })));
        let resp = json!({"jsonrpc":"2.0","id":1,"result":{}});
        assert_eq!(Message::from_value(&resp), Ok(Message::Response));
        for bad in [
            json!({}),
            json!([]),
            json!({"jsonrpc":"1.0","id":1,"method":"x"}),
            json!({"jsonrpc":"2.0","id":1.5,"method":"x"}),
            json!({"jsonrpc":"2.0","id":null,"method":"x"}),
            json!({"jsonrpc":"2.0","id":1,"method":5}),
            json!({"jsonrpc":"2.0","id":1,"method":"x","params":3}),
        ] {
            assert_eq!(Message::from_value(&bad).unwrap_err().code, INVALID_REQUEST, "{bad}");
        }
    }
}
