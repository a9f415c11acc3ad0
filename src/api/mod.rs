//! The HTTP API: each route under `/v1` is one tool's operation, found by the tool's own method
//! and path, so that the two doors cannot drift apart. No platform types here.

pub mod connect_page;
pub mod debug;
pub mod markdown;
pub mod openapi;
pub mod schema_form;
pub mod sign_in_pages;
pub mod studio;

use serde_json::{json, Map, Value};

use crate::core::access::oauth::form;
use crate::core::{Problem, Reason};
use crate::guides;
use crate::tools::{self, Ctx, Method, Tool};

/// The route of an asset's bytes, which the shell serves as bytes after `tools::asset_content`
/// checks the caller as `get_asset` does.
pub const ASSET_CONTENT: &str = "/v1/orgs/{org}/playbooks/{playbook}/assets/{asset_id}/content";

/// The org, playbook and asset a path to an asset's bytes names, if it is one.
pub fn asset_content_path(path: &str) -> Option<(String, String, String)> {
    let params = match_path(ASSET_CONTENT, path)?;
    let get = |name: &str| params.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
    Some((get("org")?, get("playbook")?, get("asset_id")?))
}

/// An answer, ready for the shell to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    pub allow: Option<String>,
    /// The scope a refused caller lacks, which the shell's challenge names.
    pub scope: Option<String>,
}

impl Reply {
    pub fn json(status: u16, value: &Value) -> Self {
        Reply { status, content_type: "application/json", body: value.to_string(), allow: None, scope: None }
    }

    pub fn problem(problem: &Problem) -> Self {
        Reply {
            status: problem.status(),
            content_type: "application/problem+json",
            body: problem.document().to_string(),
            allow: None,
            scope: problem.scope.clone(),
        }
    }
}

pub struct HttpRequest<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a str,
    pub content_type: Option<&'a str>,
    pub body: &'a [u8],
}

pub async fn handle(ctx: &Ctx<'_>, req: &HttpRequest<'_>) -> Reply {
    if req.path == "/v1/guides" {
        return if req.method == "GET" { guide_list() } else { not_allowed("GET") };
    }
    if req.path == "/v1/openapi.json" {
        return if req.method == "GET" { openapi_document() } else { not_allowed("GET") };
    }
    let mut allowed = Vec::new();
    let routes = tools::all().iter().flat_map(|tool| tools::routes(tool).map(move |path| (tool, path)));
    for (tool, path) in routes {
        let Some(params) = match_path(path, req.path) else {
            continue;
        };
        if tool.method.as_str() != req.method {
            allowed.push(tool.method.as_str());
            continue;
        }
        return match run_route(ctx, tool, params, req).await {
            Ok(reply) => reply,
            Err(problem) => Reply::problem(&problem),
        };
    }
    if !allowed.is_empty() {
        return not_allowed(&allowed.join(", "));
    }
    Reply::problem(&Problem::not_found(format!(
        "No route {} {}. The HTTP API lives under /v1/orgs/{{org}}/playbooks and /v1/guides, and /v1/openapi.json describes every route; MCP clients connect to /mcp.",
        req.method, req.path
    )))
}

fn not_allowed(allow: &str) -> Reply {
    let p = Problem::new(Reason::MethodNotAllowed, format!("This route answers {allow} only."));
    Reply { allow: Some(allow.to_string()), ..Reply::problem(&p) }
}

fn openapi_document() -> Reply {
    Reply { status: 200, content_type: "application/json", body: openapi::body().to_string(), allow: None, scope: None }
}

fn guide_list() -> Reply {
    let list: Vec<Value> = guides::all()
        .iter()
        .map(|g| json!({ "name": g.name, "title": g.title, "description": g.description }))
        .collect();
    Reply::json(200, &json!({ "guides": list }))
}

async fn run_route(
    ctx: &Ctx<'_>,
    tool: &Tool,
    params: Vec<(&str, String)>,
    req: &HttpRequest<'_>,
) -> Result<Reply, Problem> {
    let schema = (tool.input_schema)();
    let mut args = Map::new();
    for (name, value) in params {
        if name == "org" {
            if value != ctx.caller.org {
                return Err(Problem::forbidden(format!(
                    "This caller acts in the org {}; it cannot reach the org {value}.",
                    ctx.caller.org
                )));
            }
            if !crate::core::ids::is_org_name(&value) {
                return Err(Problem::not_found(format!(
                    "{value} is not an org name: an org is named by lowercase letters, digits and '-'."
                )));
            }
            continue;
        }
        args.insert(name.to_string(), Value::String(value));
    }
    for (name, raw) in query_pairs(req.query) {
        let value = from_query(&schema, &name, &raw)?;
        if args.insert(name.clone(), value).is_some() {
            return Err(Problem::invalid(format!("/{name}"), "is given twice, or both in the path and the query"));
        }
    }
    if matches!(tool.method, Method::Post | Method::Put) && !req.body.iter().all(u8::is_ascii_whitespace) {
        let json_type = req.content_type.and_then(|t| t.split(';').next()).map(str::trim);
        if !json_type.is_some_and(|t| t.eq_ignore_ascii_case("application/json")) {
            return Err(Problem::new(
                Reason::UnsupportedMediaType,
                "A body must be JSON, sent with Content-Type: application/json.",
            ));
        }
        let body: Value = serde_json::from_slice(req.body)
            .map_err(|e| Problem::invalid("", format!("The body is not JSON: {e}.")))?;
        let Value::Object(fields) = body else {
            return Err(Problem::invalid("", "The body must be a JSON object."));
        };
        for (name, value) in fields {
            if args.contains_key(&name) {
                return Err(Problem::invalid(
                    format!("/{name}"),
                    "is given by the path or the query; leave it out of the body",
                ));
            }
            args.insert(name, value);
        }
    }
    let output = tools::call(ctx, tool, Value::Object(args)).await?;
    Ok(match output.over_http {
        Some(document) => Reply {
            status: output.status,
            content_type: document.content_type,
            body: document.text,
            allow: None,
            scope: None,
        },
        None => Reply::json(output.status, &output.value),
    })
}

/// Matches `/v1/orgs/{org}/playbooks/{playbook}` against a path, giving each braced name its segment.
fn match_path<'p>(pattern: &'p str, path: &str) -> Option<Vec<(&'p str, String)>> {
    let pat: Vec<&str> = pattern.trim_end_matches('/').split('/').collect();
    let got: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    if pat.len() != got.len() {
        return None;
    }
    let mut params = Vec::new();
    for (p, g) in pat.iter().zip(got.iter()) {
        if let Some(name) = p.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            if g.is_empty() {
                return None;
            }
            params.push((name, form::decode_segment(g)?));
        } else if p != g {
            return None;
        }
    }
    Some(params)
}

/// A query's pairs, a pair that is not readable left out.
fn query_pairs(query: &str) -> Vec<(String, String)> {
    form::pairs(query).flatten().collect()
}

/// A query value is text; the schema says what type the argument takes.
fn from_query(schema: &Value, name: &str, raw: &str) -> Result<Value, Problem> {
    let Some(argument) = schema["properties"].get(name) else {
        return Err(Problem::invalid(format!("/{name}"), "is not an argument this route takes"));
    };
    match argument["type"].as_str() {
        // An argument that takes any JSON value, such as `sample_output`, is written as JSON.
        None => serde_json::from_str(raw)
            .map_err(|_| Problem::invalid(format!("/{name}"), "must be JSON, such as {\"total\": 12}")),
        Some("boolean") => match raw {
            "true" | "1" | "" => Ok(Value::Bool(true)),
            "false" | "0" => Ok(Value::Bool(false)),
            _ => Err(Problem::invalid(format!("/{name}"), "must be true or false")),
        },
        Some("integer") => raw
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| Problem::invalid(format!("/{name}"), "must be a whole number")),
        _ => Ok(Value::String(raw.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_with_their_params() {
        let m = match_path("/v1/orgs/{org}/playbooks/{playbook}", "/v1/orgs/local/playbooks/pb_1").unwrap();
        assert_eq!(m, vec![("org", "local".to_string()), ("playbook", "pb_1".to_string())]);
        assert!(match_path("/v1/orgs/{org}/playbooks", "/v1/orgs/local/playbooks/x").is_none());
        assert!(match_path("/v1/orgs/{org}/playbooks", "/v1/orgs//playbooks").is_none());
    }

    #[test]
    fn query_values_take_the_schema_type() {
        let schema = json!({"properties": {"include_retired": {"type": "boolean"}, "limit": {"type": "integer"}, "sample_output": {}}});
        assert_eq!(from_query(&schema, "include_retired", "true").unwrap(), json!(true));
        assert_eq!(from_query(&schema, "limit", "5").unwrap(), json!(5));
        assert_eq!(from_query(&schema, "limit", "x").unwrap_err().errors[0].pointer, "/limit");
        assert_eq!(from_query(&schema, "nope", "1").unwrap_err().errors[0].pointer, "/nope");
        assert_eq!(from_query(&schema, "sample_output", r#"{"gross":12}"#).unwrap(), json!({ "gross": 12 }));
        assert_eq!(from_query(&schema, "sample_output", "{").unwrap_err().errors[0].pointer, "/sample_output");
        assert_eq!(query_pairs("a=1&b=x%20y"), vec![("a".into(), "1".into()), ("b".into(), "x y".into())]);
        // `+` is a space, an empty value is kept, and a pair badly escaped is left out.
        assert_eq!(
            query_pairs("a=x+y&b=&c=%zz&d"),
            vec![("a".into(), "x y".into()), ("b".into(), "".into()), ("d".into(), "".into())]
        );
    }
}
