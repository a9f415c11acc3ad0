//! One MCP tool server in memory, for host tests of runs that call tools: it lists the tools a
//! test gives it, answers each call with the next answer the test queued (or never, as a
//! server that stalls), and keeps every call it was sent. It speaks 2026-07-28, as the client
//! asks first.

use std::cell::RefCell;
use std::collections::VecDeque;

use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::outbound::Unanswered;
use super::tool_client::{Response, Transport};
use crate::core::tool_server::Request;

#[derive(Default)]
pub struct ToolServer {
    /// The tools `tools/list` answers, as MCP writes them.
    pub listed: RefCell<Vec<Value>>,
    /// The results of the next calls, in order; once they run out, a call gets no answer.
    pub answers: RefCell<VecDeque<Result<Value, Unanswered>>>,
    /// The params of each `tools/call` it was sent.
    pub calls: RefCell<Vec<Value>>,
    /// How many requests of any kind reached it.
    pub sent: std::cell::Cell<usize>,
}

impl ToolServer {
    /// A tool as a server lists it, with `read_only` as its hint.
    pub fn tool(name: &str, read_only: bool) -> Value {
        json!({
            "name": name,
            "description": format!("The tool {name}."),
            "inputSchema": { "type": "object", "properties": { "path": { "type": "string" } } },
            "annotations": { "readOnlyHint": read_only }
        })
    }

    /// A tool's answer of one text block.
    pub fn text(text: &str, is_error: bool) -> Result<Value, Unanswered> {
        Ok(json!({ "content": [{ "type": "text", "text": text }], "isError": is_error }))
    }
}

impl Transport for ToolServer {
    fn send(&self, request: Request, _timeout: u64) -> LocalBoxFuture<'_, Result<Response, Unanswered>> {
        self.sent.set(self.sent.get() + 1);
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or_default()).unwrap_or_default();
        let result = match body["method"].as_str() {
            Some("tools/list") => Ok(json!({ "tools": *self.listed.borrow() })),
            Some("tools/call") => {
                self.calls.borrow_mut().push(body["params"].clone());
                self.answers.borrow_mut().pop_front().unwrap_or(Err(Unanswered::Timeout))
            }
            _ => Ok(json!({})),
        };
        let answer = result.map(|result| Response {
            status: 200,
            content_type: Some("application/json".into()),
            session: None,
            www_authenticate: None,
            body: json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }).to_string(),
        });
        Box::pin(async move { answer })
    }
}
