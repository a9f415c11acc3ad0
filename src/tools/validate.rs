//! `validate`, over HTTP alone:
//! `POST /v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/validate`.
//! The check dry_run reports, answered as a refusal where the arguments do not fit.

use serde_json::json;

use super::tool_servers::{call_schema, check_arguments, find, CallArgs};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::{ErrorCode, Problem};

pub const TOOL: Tool = Tool {
    name: "validate",
    title: "Validate a call to a tool",
    description: "Check the arguments of a call to a tool against its input schema without calling it: 200 when they fit, 400 with a pointer at each misfit when they do not.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/tool-servers/{server}/tools/{tool}/validate",
    input_schema: || call_schema(false),
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: CallArgs) -> Result<Output, Problem> {
    let found = find(ctx, &a.playbook, &a.server, &a.tool).await?;
    let errors = check_arguments(&found.tool, &a.arguments)?;
    if !errors.is_empty() {
        return Err(Problem::invalid_fields(errors).with_kind(ErrorCode::ToolArguments));
    }
    let summary = format!("The arguments fit the input schema of {}.", found.name());
    Ok(Output::ok(summary, json!({ "name": found.name(), "valid": true })))
}
