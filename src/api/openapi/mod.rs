//! The OpenAPI 3.1 document of the HTTP API, built from the tools registry the routes are found
//! by, so that the document cannot drift from them: each tool's method, path, input schema,
//! scope and hints become its operation. No platform types here.

mod access;
mod comments;
mod components;
mod connections;
mod outputs;
mod pages;
mod runs;
mod shapes;
mod stats;
#[cfg(test)]
mod tests;
mod tool_servers;

use std::sync::OnceLock;

use serde_json::{json, Map, Value};

use crate::core::caller::Scope;
use crate::tools::{self, Hints, Method, Tool};

const PROBLEM_JSON: &str = "application/problem+json";

/// The document, serialized once per isolate: it changes only with the code.
pub fn body() -> &'static str {
    static BODY: OnceLock<String> = OnceLock::new();
    BODY.get_or_init(|| document().to_string())
}

pub fn document() -> Value {
    let mut paths = Map::new();
    for tool in tools::all() {
        for path in tools::routes(tool) {
            let item = paths.entry(path).or_insert_with(|| json!({}));
            let mut op = operation(tool, path);
            if path != tool.path {
                // Each operation has an id of its own; the other route of a tool says whose it is.
                op["operationId"] = json!(format!("{}_in_playbook", tool.name));
            }
            item[tool.method.as_str().to_ascii_lowercase()] = op;
        }
    }
    paths.insert(crate::api::ASSET_CONTENT.into(), json!({ "get": get_asset_content() }));
    paths.insert("/v1/guides".into(), json!({ "get": list_guides() }));
    paths.insert("/v1/openapi.json".into(), json!({ "get": get_openapi() }));
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Auto Runtime HTTP API",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The playbook runtime's HTTP API. Each operation is one MCP tool of the same name (operationId), with the same arguments, limits and refusals: path parameters and, for GET, query parameters or, for POST and PUT, a JSON body carry the tool's arguments. x-scope names the permission a caller needs, and x-mcp-hints the tool's annotations. Every refusal is an application/problem+json document. MCP clients connect to /mcp."
        },
        "servers": [{ "url": "/", "description": "The runtime serving this document." }],
        "paths": paths,
        "components": {
            "schemas": components::schemas(),
            "responses": problem_responses(),
            "securitySchemes": {
                "bearer": { "type": "http", "scheme": "bearer", "description": "An API key (pbk_…) or a token from the runtime's sign-in. In local mode, on loopback, no credential is needed." }
            }
        },
        "security": [{ "bearer": [] }]
    })
}

/// The braced names of a route, in order: `{org}`, then the tool's path arguments.
fn path_names(path: &str) -> Vec<&str> {
    path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|r| r.strip_suffix('}'))).collect()
}

fn operation(tool: &Tool, path: &str) -> Value {
    let input = (tool.input_schema)();
    let empty = Map::new();
    let properties = input["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = input["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let in_path = path_names(path);
    let mut parameters: Vec<Value> = in_path
        .iter()
        .map(|name| match properties.get(*name) {
            Some(schema) => parameter(name, "path", schema, true),
            None => org_parameter(),
        })
        .collect();
    let rest: Map<String, Value> = properties
        .iter()
        .filter(|(k, _)| !in_path.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let rest_required: Vec<&str> = required.iter().copied().filter(|r| !in_path.contains(r)).collect();
    let mut op = json!({
        "operationId": tool.name,
        "summary": tool.title,
        "description": tool.description,
        "parameters": [],
    });
    match tool.method {
        Method::Get | Method::Delete => {
            parameters.extend(rest.iter().map(|(k, v)| parameter(k, "query", v, rest_required.contains(&k.as_str()))));
        }
        // A POST without arguments beyond its path takes no body (an empty one is accepted).
        Method::Post | Method::Put if !rest.is_empty() => {
            let mut body = input.clone();
            body["properties"] = Value::Object(rest);
            if rest_required.is_empty() {
                if let Some(b) = body.as_object_mut() {
                    b.remove("required");
                }
            } else {
                body["required"] = json!(rest_required);
            }
            op["requestBody"] = json!({
                "required": !rest_required.is_empty(),
                "content": { "application/json": { "schema": body } }
            });
        }
        Method::Post | Method::Put => {}
    }
    op["parameters"] = json!(parameters);
    op["responses"] = responses(tool.name, &errors(tool, path));
    op["x-scope"] = json!(tool.scope.map(Scope::as_str));
    op["x-mcp-hints"] = hints(tool.hints);
    op
}

fn parameter(name: &str, location: &str, schema: &Value, required: bool) -> Value {
    let mut schema = schema.clone();
    let description = schema.as_object_mut().and_then(|s| s.remove("description")).unwrap_or(json!(""));
    if schema.get("type").is_none() && location == "query" {
        // Any JSON value, written in the query as JSON text.
        let content = json!({ "application/json": { "schema": schema } });
        return json!({ "name": name, "in": location, "required": required, "description": description, "content": content });
    }
    json!({ "name": name, "in": location, "required": required, "description": description, "schema": schema })
}

fn org_parameter() -> Value {
    json!({
        "name": "org",
        "in": "path",
        "required": true,
        "description": "The caller's org: local in local mode. Any other org is refused with 403.",
        "schema": { "type": "string", "minLength": 1, "maxLength": 64 }
    })
}

fn hints(h: Hints) -> Value {
    json!({
        "readOnlyHint": h.read_only,
        "destructiveHint": h.destructive,
        "idempotentHint": h.idempotent,
        "openWorldHint": h.open_world
    })
}

/// The refusals an operation can answer besides `default`, by status.
fn errors(tool: &Tool, path: &str) -> Vec<&'static str> {
    let mut out = vec!["400", "401", "403"];
    // A path naming a thing beyond the org (a playbook, a run, a guide) can name none.
    if path_names(path).iter().any(|n| *n != "org") {
        out.push("404");
    }
    if !tool.hints.read_only {
        out.push("409");
    }
    if matches!(tool.method, Method::Post | Method::Put) {
        out.extend(["413", "415"]);
    }
    out.push("503");
    out
}

fn responses(name: &str, errors: &[&str]) -> Value {
    let mut responses = Map::new();
    if let Some(s) = outputs::of(name) {
        responses.insert(
            s.status.to_string(),
            json!({ "description": s.description, "content": { s.media_type: { "schema": s.schema } } }),
        );
    }
    for status in errors {
        let name = problem_response_name(status);
        responses.insert(status.to_string(), json!({ "$ref": format!("#/components/responses/{name}") }));
    }
    responses.insert("default".into(), json!({ "$ref": "#/components/responses/Problem" }));
    Value::Object(responses)
}

/// The names of `components.responses`, by status, and what each says.
const PROBLEMS: [(&str, &str, &str); 9] = [
    ("400", "InvalidInput", "invalid_input: an argument is missing or wrong; errors names each by its pointer."),
    (
        "401",
        "Unauthorized",
        "unauthorized: no credential where one is needed, or a key or token that is unknown, revoked or expired.",
    ),
    (
        "403",
        "Forbidden",
        "forbidden: another org than the caller's, a permission the caller lacks, or a browser origin not allowed.",
    ),
    ("404", "NotFound", "not_found: what the path names does not exist."),
    (
        "409",
        "Conflict",
        "conflict: the request does not fit how things stand, such as a name taken or a retired definition.",
    ),
    ("413", "PayloadTooLarge", "payload_too_large: the body is over the runtime's limit."),
    ("415", "UnsupportedMediaType", "unsupported_media_type: a body must be sent as application/json."),
    (
        "503",
        "Unavailable",
        "unavailable: storage, a model or a tool could not be reached just now; trying again may succeed.",
    ),
    ("default", "Problem", "Any other refusal, such as 405 for a method the route does not answer or 500."),
];

fn problem_response_name(status: &str) -> &'static str {
    PROBLEMS.iter().find(|(s, _, _)| *s == status).map_or("Problem", |(_, name, _)| name)
}

fn problem_responses() -> Map<String, Value> {
    PROBLEMS
        .iter()
        .map(|(_, name, description)| {
            let content = json!({ PROBLEM_JSON: { "schema": shapes::reference("Problem") } });
            (name.to_string(), json!({ "description": description, "content": content }))
        })
        .collect()
}

/// Routes of the HTTP door alone: no tool, and so no scope or hints.
fn http_only(name: &str, summary: &str, description: &str) -> Value {
    json!({
        "operationId": name,
        "summary": summary,
        "description": description,
        "responses": responses(name, &["503"])
    })
}

fn list_guides() -> Value {
    http_only(
        "list_guides",
        "List the guides",
        "List the runtime's guides, each with the name get_guide takes, its title and its description.",
    )
}

fn get_openapi() -> Value {
    http_only(
        "get_openapi",
        "Read this document",
        "The OpenAPI 3.1 document of every route of the HTTP API, generated from the same registry the routes and the MCP tools are.",
    )
}

/// The bytes at an asset's `url`: a route of the HTTP door alone, checked as `get_asset` is.
fn get_asset_content() -> Value {
    let schema = |media_type: &str| json!({ "schema": { "type": "string", "contentMediaType": media_type } });
    let content: Map<String, Value> =
        crate::core::asset::MEDIA_TYPES.iter().map(|t| (t.to_string(), schema(t))).collect();
    let mut responses = responses("get_asset_content", &["401", "403", "404", "503"]);
    responses["200"] = json!({
        "description": "The asset's bytes, as its media type, shown inline, with X-Content-Type-Options: nosniff and a Content-Security-Policy that runs nothing.",
        "content": content
    });
    let id = json!({ "type": "string", "minLength": 1, "maxLength": 32 });
    json!({
        "operationId": "get_asset_content",
        "summary": "Read an asset's bytes",
        "description": "The bytes of an asset, at the url get_asset answers, for a caller who may read the playbook: the same credential and permission as get_asset.",
        "parameters": [
            org_parameter(),
            { "name": "playbook", "in": "path", "required": true, "description": "The playbook's id.", "schema": { "type": "string", "minLength": 1 } },
            { "name": "asset_id", "in": "path", "required": true, "description": "The asset's id.", "schema": id },
        ],
        "responses": responses,
        "x-scope": Scope::PlaybookRead.as_str(),
    })
}
