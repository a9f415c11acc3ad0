//! Each guide is also a Markdown resource, `guide://<name>`, for clients that let a person or a
//! model read it directly.

use serde_json::{json, Map, Value};

use super::jsonrpc::{self, RpcError};
use crate::guides;

const SCHEME: &str = "guide://";

/// The guides as resources; `directory` leaves out what `/directory` serves not.
pub fn list(directory: bool) -> Value {
    let resources: Vec<Value> = guides::served(directory)
        .iter()
        .map(|g| {
            json!({
                "uri": format!("{SCHEME}{}", g.name),
                "name": g.name,
                "title": g.title,
                "description": g.description,
                "mimeType": "text/markdown",
                "size": g.text.len()
            })
        })
        .collect();
    json!({ "resources": resources })
}

/// `modern` answers a missing resource with -32602, as 2026-07-28 requires; earlier revisions -32002.
pub fn read(params: &Map<String, Value>, modern: bool, directory: bool) -> Result<Value, RpcError> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("resources/read needs the argument uri, such as guide://start."));
    };
    let guide = uri.strip_prefix(SCHEME).and_then(|name| guides::find_served(name, directory));
    let Some(g) = guide else {
        let code = if modern { jsonrpc::INVALID_PARAMS } else { jsonrpc::RESOURCE_NOT_FOUND };
        return Err(RpcError::new(
            code,
            format!(
                "Resource not found: {uri}. The resources are guide://<name> for the guides {}.",
                guides::served_names(directory).join(", ")
            ),
        )
        .with_data(json!({ "uri": uri })));
    };
    Ok(json!({ "contents": [ { "uri": uri, "mimeType": "text/markdown", "text": g.text } ] }))
}
