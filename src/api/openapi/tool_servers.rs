//! The schemas of the tool servers' operations: what `search` finds, one tool read whole, a call
//! checked, and a call made by hand.

use serde_json::{json, Value};

use super::shapes::{page_cursor, reference, text};

fn mark() -> Value {
    json!({ "type": "string", "enum": ["reads", "acts", "unmarked"], "description": "reads when the tool only reads; acts when it may change something; unmarked, which counts as acts, when nothing marks it." })
}

fn marked_by() -> Value {
    json!({ "type": "string", "enum": ["server", "method", "catalogue", "settings"], "description": "Who gave the mark: the server's hints, an HTTP operation's method, a provider's entry, or the operator's settings." })
}

fn because() -> Value {
    json!({ "type": "string", "description": "Why the server cannot be used now, such as unreachable, failing, rate_limited, key_refused, settings_invalid, secret_not_set or document_refused." })
}

pub(super) fn search() -> Value {
    json!({
        "type": "object",
        "description": "The servers that serve the org or playbook, and a page of the tools found.",
        "properties": {
            "servers": { "type": "array", "items": reference("ToolServer") },
            "tools": { "type": "array", "items": reference("FoundTool") },
            "providers": {
                "type": "array",
                "description": "To a caller who may add connections, the providers no server serves yet, found by the terms, for add_connection's provider.",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string" }, "title": { "type": "string" }, "description": { "type": "string" },
                        "more": { "type": "array", "items": { "type": "object", "properties": { "name": { "type": "string" }, "for": { "type": "string" } } } }
                    },
                    "required": ["name", "title", "description"]
                }
            },
            "next_cursor": page_cursor()
        },
        "required": ["servers", "tools", "next_cursor"]
    })
}

pub(super) fn server() -> Value {
    json!({
        "type": "object",
        "description": "A tool server, usable or not.",
        "properties": {
            "name": text("The name a function writes before its tools, such as files."),
            "provider": { "type": ["string", "null"], "description": "The provider a connection was added from, or an entry of the settings names; null for a server given by hand." },
            "connection": { "type": ["string", "null"], "description": "The id of the connection it is, where it is one; null for a server of the settings." },
            "type": { "type": ["string", "null"], "enum": ["mcp", "openapi", null], "description": "An MCP server or an HTTP API; null where its entry cannot be read." },
            "handles_money": { "type": "boolean" },
            "record_content": { "type": "boolean", "description": "false keeps only the sizes of calls' arguments and answers in history." },
            "available": { "type": "boolean" },
            "tools": { "type": "integer", "minimum": 0, "description": "How many tools it offers, where it is available." },
            "because": because(),
            "detail": text("Where it is unavailable: what happened and what mends it.")
        },
        "required": ["name", "provider", "type", "handles_money", "record_content", "available"]
    })
}

pub(super) fn found_tool() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": text("server/tool, as a function names it in tools."),
            "server": text("The server's name."),
            "tool": text("The tool's name on its server."),
            "title": { "type": ["string", "null"] },
            "description": text("The start of its description; introspect reads it whole."),
            "mark": mark(),
            "marked_by": marked_by()
        },
        "required": ["name", "server", "tool", "title", "description", "mark", "marked_by"]
    })
}

pub(super) fn tool_detail() -> Value {
    json!({
        "type": "object",
        "description": "One tool, whole.",
        "properties": {
            "name": text("server/tool."),
            "server": text("The server's name."),
            "tool": text("The tool's name on its server."),
            "title": { "type": ["string", "null"] },
            "description": text("Its whole description, up to 4 KiB."),
            "input_schema": { "type": "object", "description": "The JSON Schema of its arguments." },
            "annotations": { "type": "object", "description": "The hints its server gives, each only where it gives it: readOnlyHint, destructiveHint, idempotentHint, openWorldHint." },
            "mark": mark(),
            "marked_by": marked_by(),
            "record_content": { "type": "boolean" }
        },
        "required": ["name", "server", "tool", "description", "input_schema", "annotations", "mark", "marked_by", "record_content"]
    })
}

pub(super) fn tool_check() -> Value {
    json!({
        "type": "object",
        "description": "What execute_connection would check, without calling the tool.",
        "properties": {
            "name": text("server/tool."),
            "valid": { "type": "boolean", "description": "Whether the arguments fit the tool's input schema." },
            "errors": { "type": "array", "items": reference("FieldError"), "description": "Each misfit, at a pointer under /arguments." },
            "mark": mark(),
            "marked_by": marked_by(),
            "query_connection": { "type": "boolean", "description": "Whether query_connection would call it: only a tool marked reads." }
        },
        "required": ["name", "valid", "errors", "mark", "marked_by", "query_connection"]
    })
}

pub(super) fn tool_valid() -> Value {
    json!({
        "type": "object",
        "properties": { "name": text("server/tool."), "valid": { "const": true } },
        "required": ["name", "valid"]
    })
}

pub(super) fn tool_call() -> Value {
    json!({
        "type": "object",
        "description": "A call made by hand and its answer, as a function's model would read it.",
        "properties": {
            "name": text("server/tool."),
            "outcome": { "type": "string", "enum": ["result", "error"], "description": "result for an answer; error where the tool said it failed." },
            "is_error": { "type": "boolean" },
            "text": text("The answer's text, exactly what a function's model reads."),
            "structured": { "description": "The answer's structured content, where the tool gave one." },
            "took_ms": { "type": "integer", "minimum": 0 },
            "event_id": text("The event that records the call in the playbook's history.")
        },
        "required": ["name", "outcome", "is_error", "text", "took_ms", "event_id"]
    })
}
