//! `list_definitions`: `GET /v1/orgs/{org}/playbooks/{playbook}/definitions/{type}`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{served_kind, type_arg};
use super::schema::{cursor_arg, limit_arg, playbook_arg};
use super::words::more;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::store::{DefinitionQuery, LIST_LIMIT_MAX};
use crate::core::text::{cap, join_and, quote, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_definitions",
    title: "List functions",
    description: "List the definitions of one type in a playbook, by name, without their overview, diagram and used_by, which get_definition reads. Retired ones are left out unless include_retired is true. Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/definitions/{type}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "type": type_arg(),
            "include_retired": { "type": "boolean", "default": false, "description": "Also list retired definitions." },
            "limit": limit_arg(LIST_LIMIT_MAX, 50, "definitions"),
            "cursor": cursor_arg(64)
        },
        "required": ["playbook", "type"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    include_retired: bool,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let kind = served_kind(&a.kind)?;
    let query =
        DefinitionQuery { kind, include_retired: a.include_retired, limit: a.limit.unwrap_or(50), after: a.cursor };
    let page = ctx.backend.list_definitions(&ctx.caller.org, &a.playbook, query).await?;
    let noun = format!("{} function", kind.as_str());
    let summary = match page.definitions.len() {
        0 => format!("This playbook holds no {noun} on this page; create_definition saves one."),
        n => {
            let names: Vec<String> = page.definitions.iter().map(|d| quote(&d.name)).collect();
            let more = more(page.next_cursor.is_some());
            format!("Found {n} {noun}{} on this page: {}.{more}", if n == 1 { "" } else { "s" }, join_and(&names))
        }
    };
    let value = crate::core::error::encoded(&page)?;
    Ok(Output::ok(cap(&summary, SUMMARY_MAX), value))
}
