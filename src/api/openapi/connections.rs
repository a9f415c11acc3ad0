//! The schemas of connections: a connection as every answer shows it (never its credential), the
//! answer that made a link (with `connect`), a page, the providers, and what the connect page reads.

use serde_json::{json, Value};

use super::shapes::{by, page_cursor, reference, text, time};

pub(super) fn connection() -> Value {
    let names = json!({ "type": ["array", "null"], "items": { "type": "string" } });
    json!({
        "type": "object",
        "description": "A connection of the org: a tool server a person added and approved. Never its credential.",
        "properties": {
            "id": text("Its id, con_…."),
            "name": text("The name functions call its tools by, as name/tool."),
            "provider": { "type": ["string", "null"], "description": "The provider it was added from; null for a server given by hand." },
            "type": { "type": "string", "enum": ["mcp", "openapi"] },
            "server": text("The MCP server's address, or the HTTP API's base_url."),
            "document": { "description": "An HTTP API's OpenAPI document: its address, or, given whole, its sha256, size and number of tools, never its text." },
            "status": { "type": "string", "enum": ["pending", "connected", "removed"], "description": "pending until the person approves it." },
            "because": { "type": "string", "enum": ["connection_pending", "connection_broken", "connection_not_allowed", "connection_unavailable"], "description": "Why it cannot be used now, where it cannot." },
            "broken": {
                "type": ["object", "null"],
                "description": "While it is broken: the kind of the break, the runtime's words and when it broke.",
                "properties": { "kind": text("unauthorized, failure_code, refresh_refused or credential_gone."), "detail": text("The runtime's words."), "at": time("When it broke.") }
            },
            "credential": { "type": "object", "description": "How its credential is sent: its kind and the fields that kind takes, never the value.", "properties": { "kind": { "type": "string", "enum": ["none", "secret", "reference", "client_credentials", "authorization"] } }, "required": ["kind"] },
            "playbooks": names,
            "allowed": { "description": "\"*\", or the tools it allows by name." },
            "record_content": { "type": "boolean" },
            "handles_money": { "type": "boolean" },
            "asked_scopes": { "type": "array", "items": { "type": "string" } },
            "granted_scopes": {
                "type": "array",
                "items": { "type": "object", "properties": { "scope": text("The scope."), "says": { "type": ["string", "null"], "description": "What the connection can do through it, where its way says." } }, "required": ["scope", "says"] }
            },
            "more": {
                "type": "array",
                "description": "The groups of scopes it does not hold yet that a client here can ask, for reconnect_connection's more.",
                "items": { "type": "object", "properties": { "name": text("The group's name."), "for": text("What it is for, in the person's words.") }, "required": ["name", "for"] }
            },
            "signing_secret": { "type": "boolean", "description": "Whether its service's signing secret is set." },
            "added_by": by("The person who added it, who alone approves and reconnects it."),
            "created_at": time("When it was added."),
            "updated_at": time("When it last changed.")
        },
        "required": ["id", "name", "provider", "type", "server", "status", "broken", "credential", "asked_scopes", "granted_scopes", "more", "added_by", "created_at"]
    })
}

/// A connection in the answer of the call that made its link.
pub(super) fn linked_connection() -> Value {
    json!({
        "allOf": [reference("Connection")],
        "type": "object",
        "properties": {
            "connect": {
                "type": "object",
                "description": "The link on which the person approves it: show it as a link named as the words say, never as its address. Only this answer holds it.",
                "properties": { "url": text("The page's address."), "expires_at": time("When the link stops working, 24 hours on.") },
                "required": ["url", "expires_at"]
            }
        }
    })
}

pub(super) fn held() -> Value {
    json!({ "type": "object", "properties": { "connection": reference("Connection") }, "required": ["connection"] })
}

pub(super) fn page() -> Value {
    json!({
        "type": "object",
        "properties": { "connections": { "type": "array", "items": reference("Connection") }, "next_cursor": page_cursor() },
        "required": ["connections", "next_cursor"]
    })
}

pub(super) fn given() -> Value {
    json!({
        "type": "object",
        "properties": { "connection": reference("Connection"), "misses_pattern": { "type": "boolean", "description": "The key misses the connection's pattern; it is kept all the same." } },
        "required": ["connection", "misses_pattern"]
    })
}

pub(super) fn started() -> Value {
    json!({
        "type": "object",
        "properties": {
            "authorize_url": { "type": "string", "format": "uri", "description": "Where the person signs in at the service and allows what the connection asks." },
            "asked_scopes": { "type": "array", "items": { "type": "string" } }
        },
        "required": ["authorize_url", "asked_scopes"]
    })
}

pub(super) fn finished() -> Value {
    json!({
        "type": "object",
        "properties": { "connection": reference("Connection"), "granted_scopes": { "type": "array", "items": { "type": "string" } } },
        "required": ["connection", "granted_scopes"]
    })
}

pub(super) fn providers() -> Value {
    let provider = json!({
        "type": "object",
        "properties": {
            "name": text("What add_connection takes as provider."),
            "title": text("Its name for people."),
            "description": text("What it connects."),
            "type": { "type": "string", "enum": ["mcp", "openapi"] },
            "handles_money": { "type": "boolean" },
            "offered": { "type": "boolean" },
            "ways": { "type": "array", "items": { "type": "object", "properties": { "kind": text("The credential kind."), "offered": { "type": "boolean" }, "oauth_client": { "type": "string", "enum": ["optional", "required"] } }, "required": ["kind", "offered"] } },
            "placeholders": { "type": "array", "items": { "type": "object", "properties": { "name": text("Its name."), "description": text("What it is."), "pattern": text("What a value matches.") } } }
        },
        "required": ["name", "title", "description", "ways", "placeholders"]
    });
    json!({ "type": "object", "properties": { "providers": { "type": "array", "items": provider } }, "required": ["providers"] })
}

pub(super) fn link_view() -> Value {
    json!({
        "type": "object",
        "description": "What the connect page shows of a link.",
        "properties": {
            "link": {
                "type": "object",
                "properties": {
                    "state": { "type": "string", "enum": ["open", "expired", "replaced", "used"] },
                    "expires_at": { "type": ["string", "null"], "format": "date-time" },
                    "more": { "type": ["string", "null"], "description": "The group of scopes the link's consent asks." },
                    "words": text("What the page says of it.")
                },
                "required": ["state", "words"]
            },
            "connection": reference("Connection"),
            "provider": { "type": ["object", "null"], "properties": { "name": text("Its name."), "title": { "type": ["string", "null"] } } },
            "playbooks": { "type": ["array", "null"], "items": { "type": "string" } },
            "asks": { "type": "object", "description": "What the person gives: a key (key), client credentials (client_credentials) or a consent (consent), by kind.", "properties": { "kind": text("The credential kind.") }, "required": ["kind"] },
            "given": { "type": "object", "description": "What was given on this link so far.", "properties": { "credential": { "type": "boolean" }, "misses_pattern": { "type": "boolean" }, "client": { "type": "boolean" }, "consent_finished": { "type": "boolean" } } }
        },
        "required": ["link", "connection", "provider", "playbooks", "asks", "given"]
    })
}

pub(super) fn tools() -> Value {
    let tool = json!({
        "type": "object",
        "properties": {
            "name": text("The tool's name, as name/tool names it."),
            "title": text("Its title, where the server gives one."),
            "description": text("Its description whole, up to 4 KiB."),
            "hints": { "type": "object", "description": "destructiveHint, idempotentHint and openWorldHint as the server gives them." },
            "mark": { "type": "string", "enum": ["reads", "acts", "unmarked"] },
            "marked_by": { "type": "string", "enum": ["server", "method", "catalogue", "settings"] }
        },
        "required": ["name", "description", "mark", "marked_by"]
    });
    json!({
        "type": "object",
        "properties": { "connection": reference("Connection"), "tools": { "type": "array", "items": tool }, "next_cursor": page_cursor() },
        "required": ["connection", "tools", "next_cursor"]
    })
}
