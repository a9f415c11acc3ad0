//! Answers one MCP request: the handshake or discovery, lists, reads, and tool calls. Each tool
//! call runs the same operation as its HTTP route, through `tools::call`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Map, Value};

use super::endpoint::Endpoint;
use super::jsonrpc::{self, RpcError};
use super::transport::Era;
use super::{prompts, resources, result, revision, SERVER_NAME, SERVER_TITLE, SERVER_VERSION};
use crate::core::{Caller, Problem};
use crate::tools::{self, Ctx, Output, Tool};

/// How long a 2026-07-28 client may keep a list: tool lists change only with a deploy, but for a
/// run-mode endpoint's, which change with each workflow saved.
const LIST_TTL_MS: u64 = 300_000;
const RUN_MODE_TOOLS_TTL_MS: u64 = 0;

/// The whole JSON-RPC response to one request, as the text sent: `answer`, with a tool list this
/// isolate built before for the same listing spliced into the envelope rather than built again.
pub async fn respond(
    ctx: &Ctx<'_>,
    endpoint: &Endpoint,
    era: &Era,
    id: &Value,
    method: &str,
    params: &Option<Value>,
) -> String {
    // A run-mode endpoint's list holds its playbooks' workflows as saved, so it is built each time.
    let kept_list = !matches!(endpoint, Endpoint::Run { .. });
    if method == "tools/list" && kept_list && jsonrpc::params_object(params).is_ok() {
        let key = Listing::of(ctx, endpoint, era);
        let kept = LISTS.with(|lists| lists.borrow().get(&key).cloned());
        let result = match kept {
            Some(result) => result,
            None => {
                let Ok(mut result) = dispatch(ctx, endpoint, era, method, params).await else {
                    return answer(ctx, endpoint, era, id, method, params).await.to_string();
                };
                if let Era::Modern { .. } = era {
                    stamp_modern(&mut result, method, endpoint);
                }
                let result: Rc<str> = result.to_string().into();
                LISTS.with(|lists| {
                    let mut lists = lists.borrow_mut();
                    if lists.len() >= LISTS_MAX {
                        lists.clear();
                    }
                    lists.insert(key, result.clone());
                });
                result
            }
        };
        // `jsonrpc::success`'s fields, in its order.
        return format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
    }
    answer(ctx, endpoint, era, id, method, params).await.to_string()
}

/// Bounds the tool lists one isolate keeps: past it, it forgets them all and builds again.
const LISTS_MAX: usize = 256;

thread_local! {
    /// The `tools/list` results this isolate built, as sent, by what they were built from.
    static LISTS: RefCell<HashMap<Listing, Rc<str>>> = RefCell::new(HashMap::new());
}

/// Everything a `tools/list` result is built from (see `listing`): whether the result carries the
/// 2026-07-28 fields, whether the endpoint fixes a playbook, whether it is the directory listing
/// (whose schemas and guide words leave generation out), and each tool listed with the hints
/// it is listed with (which hold what the caller's scopes, its playbooks and the tool servers
/// change). Tools and their words change only with a deploy, which starts new isolates.
#[derive(PartialEq, Eq, Hash)]
struct Listing {
    modern: bool,
    on_playbook: bool,
    directory: bool,
    tools: Vec<(&'static str, tools::Hints)>,
}

impl Listing {
    fn of(ctx: &Ctx<'_>, endpoint: &Endpoint, era: &Era) -> Listing {
        Listing {
            modern: matches!(era, Era::Modern { .. }),
            on_playbook: endpoint.playbook().is_some(),
            directory: *endpoint == Endpoint::Directory,
            tools: endpoint
                .tools(ctx.caller)
                .map(|t| (t.name, tools::listed_hints(ctx, t, endpoint.playbook())))
                .collect(),
        }
    }
}

/// The whole JSON-RPC response to one request.
pub async fn answer(
    ctx: &Ctx<'_>,
    endpoint: &Endpoint,
    era: &Era,
    id: &Value,
    method: &str,
    params: &Option<Value>,
) -> Value {
    match dispatch(ctx, endpoint, era, method, params).await {
        Ok(mut result) => {
            if let Era::Modern { .. } = era {
                stamp_modern(&mut result, method, endpoint);
            }
            jsonrpc::success(id, result)
        }
        Err(e) => jsonrpc::failure(id, &e),
    }
}

async fn dispatch(
    ctx: &Ctx<'_>,
    endpoint: &Endpoint,
    era: &Era,
    method: &str,
    params: &Option<Value>,
) -> Result<Value, RpcError> {
    let p = jsonrpc::params_object(params)?;
    let listed: Vec<&str> = endpoint.tools(ctx.caller).map(|t| t.name).collect();
    let modern = matches!(era, Era::Modern { .. });
    match method {
        "initialize" if !modern => Ok(initialize(ctx.caller, endpoint, &p)),
        "ping" if !modern => Ok(json!({})),
        "server/discover" => Ok(discover(ctx.caller, endpoint)),
        "tools/list" => {
            let mut tools: Vec<Value> =
                endpoint.tools(ctx.caller).map(|t| describe(ctx, endpoint, t, &listed)).collect();
            let offered = super::offered::list(ctx, endpoint)
                .await
                .map_err(|p| RpcError::new(jsonrpc::INTERNAL_ERROR, p.detail))?;
            tools.extend(offered.iter().map(|o| super::offered::listing(ctx, endpoint, o)));
            Ok(json!({ "tools": tools }))
        }
        "tools/call" => call_tool(ctx, endpoint, era, &p).await,
        "prompts/list" => Ok(prompts::list(&listed)),
        "prompts/get" => prompts::get(&listed, &p),
        "resources/list" => Ok(resources::list(ctx.directory)),
        "resources/read" => resources::read(&p, modern, ctx.directory),
        "resources/templates/list" => Ok(json!({ "resourceTemplates": [] })),
        _ => Err(RpcError::method_not_found(method)),
    }
}

fn capabilities() -> Value {
    json!({
        "tools": { "listChanged": false },
        "prompts": { "listChanged": false },
        "resources": { "subscribe": false, "listChanged": false }
    })
}

fn server_info() -> Value {
    json!({ "name": SERVER_NAME, "title": SERVER_TITLE, "version": SERVER_VERSION })
}

fn initialize(caller: &Caller, endpoint: &Endpoint, params: &Map<String, Value>) -> Value {
    let requested = params.get("protocolVersion").and_then(Value::as_str);
    json!({
        "protocolVersion": revision::negotiate(requested),
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": super::instructions::text(caller, endpoint)
    })
}

fn discover(caller: &Caller, endpoint: &Endpoint) -> Value {
    json!({
        "supportedVersions": revision::all_supported(),
        "capabilities": capabilities(),
        "instructions": super::instructions::text(caller, endpoint)
    })
}

/// 2026-07-28 results say they are complete, name the server, and say how long a list keeps.
fn stamp_modern(result: &mut Value, method: &str, endpoint: &Endpoint) {
    let Some(obj) = result.as_object_mut() else {
        return;
    };
    // A result that asks the client for input says so already.
    obj.entry("resultType").or_insert(json!("complete"));
    obj.insert("_meta".into(), json!({ "io.modelcontextprotocol/serverInfo": server_info() }));
    if matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    ) {
        let ttl = match (method, endpoint) {
            ("tools/list", Endpoint::Run { .. }) => RUN_MODE_TOOLS_TTL_MS,
            _ => LIST_TTL_MS,
        };
        obj.insert("ttlMs".into(), json!(ttl));
        // Lists depend on the caller's permissions, so no shared cache may keep them.
        obj.insert("cacheScope".into(), json!("private"));
    }
}

fn describe(ctx: &Ctx<'_>, endpoint: &Endpoint, tool: &Tool, listed: &[&str]) -> Value {
    listing(endpoint, tool, tools::listed_hints(ctx, tool, endpoint.playbook()), listed)
}

/// A tool as a connection that lists `listed` shows it, with `hints`; `get_guide` names the
/// recipes the connection can follow. `/debug` shows the same listing.
pub fn listing(endpoint: &Endpoint, tool: &Tool, hints: tools::Hints, listed: &[&str]) -> Value {
    let description = if tool.special.describes_guides {
        // The directory listing holds no generation guide, so only the others name it.
        let generation = match endpoint {
            Endpoint::Directory => "",
            _ => " generation-function is the reference of a generation function's document.",
        };
        format!("{}{generation} {}", tool.description, prompts::recipes_sentence(listed))
    } else {
        tools::description(tool, endpoint.playbook().is_some())
    };
    json!({
        "name": tool.name,
        "title": tool.title,
        "description": description,
        "inputSchema": endpoint.input_schema(tool),
        "annotations": {
            "title": tool.title,
            "readOnlyHint": hints.read_only,
            "destructiveHint": hints.destructive,
            "idempotentHint": hints.idempotent,
            "openWorldHint": hints.open_world
        }
    })
}

/// What `/directory` refuses as `not_found` before a tool runs: a call that names a generation
/// function, by its `type`, or a workflow whose steps run one, by the source given or, for a
/// run, the workflow saved.
async fn directory_refusal(ctx: &Ctx<'_>, tool: &Tool, args: &Value) -> Option<Problem> {
    use crate::core::definition::{check_document, Kind, Ref};
    let refusal = |pointer: &str, detail: &str| {
        Problem::not_found(
            "The directory listing serves no generation function, so it finds none here; through /mcp the same call works.",
        )
        .with_field(pointer, detail)
    };
    if super::endpoint::names_generation(args) {
        return Some(refusal("/type", "names a type the directory listing does not serve"));
    }
    if args.get("type").and_then(Value::as_str) != Some("workflow") {
        return None;
    }
    let runs_generation = |source: &str| {
        check_document(Kind::Workflow, source).is_ok_and(|c| c.uses.iter().any(|r| r.kind == Kind::Generation))
    };
    let text = |key: &str| args.get(key).and_then(Value::as_str);
    if let Some(source) = text("source") {
        return runs_generation(source)
            .then(|| refusal("/source", "runs a generation function, which the directory listing does not serve"));
    }
    if !tool.special.runs_saved {
        return None;
    }
    let (Some(playbook), Some(name)) = (text("playbook"), text("name")) else { return None };
    let reference = Ref { kind: Kind::Workflow, name: name.to_string() };
    let view = ctx.backend.get_definition(&ctx.caller.org, playbook, reference).await.ok()?;
    runs_generation(&view.document).then(|| {
        refusal("/name", "names a workflow that runs a generation function, which the directory listing does not serve")
    })
}

async fn call_tool(
    ctx: &Ctx<'_>,
    endpoint: &Endpoint,
    era: &Era,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("tools/call needs the argument name, the tool's name."));
    };
    let mut args = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => return Err(RpcError::invalid_params("arguments must be an object.")),
    };
    let unknown = || {
        RpcError::invalid_params(format!("Unknown tool: {name}. tools/list names the tools this connection offers."))
    };
    let Some(tool) = endpoint.tools(ctx.caller).find(|t| t.name == name) else {
        return match super::offered::call(ctx, endpoint, name, args).await {
            Some(outcome) => tool_answer(outcome),
            None => Err(unknown()),
        };
    };
    if *endpoint == Endpoint::Directory {
        if let Some(p) = directory_refusal(ctx, tool, &args).await {
            return Ok(result::failure(&p));
        }
    }
    if let (Some(playbook), Some(map)) = (endpoint.fixes_playbook(tool), args.as_object_mut()) {
        if map.contains_key("playbook") {
            let p = crate::core::Problem::invalid(
                "/playbook",
                "is not an argument here: this endpoint acts on one playbook already",
            );
            return Ok(result::failure(&p));
        }
        map.insert("playbook".into(), json!(playbook));
    }
    // A call retried after it asked for a link to be opened answers the connection as it stands.
    if let Some(outcome) = super::connect_link::retry(ctx, tool, params).await {
        return tool_answer(outcome);
    }
    let outcome = tools::call(ctx, tool, args.clone()).await;
    if let Ok(output) = &outcome {
        if let Some(asked) = super::connect_link::ask(ctx, era, tool, output) {
            return Ok(asked);
        }
    }
    if let Err(problem) = &outcome {
        // A save that says not how an interaction reaches the person may ask the person first.
        let mut asked = params.clone();
        asked.insert("arguments".into(), args);
        if let Some(result) = super::elicit::refine(ctx, era, &asked, problem) {
            return Ok(result);
        }
    }
    tool_answer(outcome)
}

/// A tool's outcome as the result of `tools/call`: a refusal is a result the model reads, but a
/// call the runtime stopped while it handled it is not the tool's answer, so it is the protocol's
/// error.
fn tool_answer(outcome: Result<Output, Problem>) -> Result<Value, RpcError> {
    match outcome {
        Ok(output) => Ok(result::success(output)),
        Err(problem) if problem.is_stopped() => Err(RpcError::stopped()),
        Err(problem) => Ok(result::failure(&problem)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopped_call_is_the_protocol_error_and_a_refusal_a_result() {
        let stopped = tool_answer(Err(Problem::stopped())).unwrap_err();
        assert_eq!(stopped.code, jsonrpc::INTERNAL_ERROR);
        assert_eq!(stopped.message, crate::core::error::STOPPED);
        let refused =
            tool_answer(Err(Problem::unavailable("Storage failed just now, so nothing was changed; try again.")));
        assert_eq!(refused.unwrap()["isError"], true);
    }
}
