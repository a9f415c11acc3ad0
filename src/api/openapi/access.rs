//! The schemas of access: an API key as listed, and as made, with its secret shown once.

use serde_json::{json, Value};

use super::shapes::{by, text, time};
use crate::core::access::role::Role;
use crate::core::caller::Scope;

pub(super) fn key() -> Value {
    json!({
        "type": "object",
        "description": "An API key as listed: never its secret, which only the answer that made it holds.",
        "properties": {
            "id": text("The key's id, key_…, by which it is revoked."),
            "name": text("What it is for, such as build-bot."),
            "prefix": text("The first characters of its secret, to tell it from another."),
            "scopes": { "type": "array", "items": { "type": "string", "enum": Scope::ALL.map(Scope::as_str) } },
            "playbooks": { "type": ["array", "null"], "items": { "type": "string" }, "description": "The playbooks it is kept to; null for every playbook of the org." },
            "expires_at": { "type": ["string", "null"], "format": "date-time", "description": "When it stops working; null until revoked." },
            "created_at": time("When it was made."),
            "created_by": by("Who made it."),
            "last_used_at": { "type": ["string", "null"], "format": "date-time", "description": "When it was last used, to the minute." }
        },
        "required": ["id", "name", "prefix", "scopes", "playbooks", "expires_at", "created_at", "created_by", "last_used_at"]
    })
}

pub(super) fn made_key() -> Value {
    json!({
        "allOf": [{ "$ref": "#/components/schemas/Key" }],
        "type": "object",
        "properties": { "key": text("The secret, pbk_…, shown this once: send it as Authorization: Bearer <key>.") },
        "required": ["key"]
    })
}

pub(super) fn key_list() -> Value {
    json!({
        "type": "object",
        "properties": { "keys": { "type": "array", "items": { "$ref": "#/components/schemas/Key" } } },
        "required": ["keys"]
    })
}

pub(super) fn revoked_key() -> Value {
    json!({
        "type": "object",
        "properties": { "key": { "$ref": "#/components/schemas/Key" } },
        "required": ["key"]
    })
}

pub(super) fn role_assignment() -> Value {
    json!({
        "type": "object",
        "description": "One person's role in one org.",
        "properties": {
            "org": text("The org."),
            "person": text("The person's id, person:<their id at the identity provider>."),
            "name": text("Their name, as their identity provider last gave it."),
            "email": text("Their verified address, if their identity provider gave one."),
            "role": { "type": "string", "enum": Role::ALL.map(Role::as_str) },
            "assigned_at": time("When the role was given."),
            "assigned_by": text("The caller id of whoever gave it: a person:…, local or operator.")
        },
        "required": ["org", "person", "name", "role", "assigned_at", "assigned_by"]
    })
}

pub(super) fn role_assignment_list() -> Value {
    json!({
        "type": "object",
        "properties": { "assignments": { "type": "array", "items": { "$ref": "#/components/schemas/RoleAssignment" } } },
        "required": ["assignments"]
    })
}

pub(super) fn role_assignment_change() -> Value {
    json!({
        "type": "object",
        "properties": { "assignment": { "$ref": "#/components/schemas/RoleAssignment" } },
        "required": ["assignment"]
    })
}
