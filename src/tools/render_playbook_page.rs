//! `render_playbook_page`: `GET /v1/orgs/{org}/playbooks/{playbook}/page`, over HTTP alone, which
//! Studio presents: the playbook's page, and each of its definitions with how its runs stand,
//! each workflow with its glance. An agent reads the page with `get_playbook` and a definition's
//! standing with `get_definition`.

use serde_json::{json, Value};

use super::playbook_results::{self, DEFINITIONS_MAX};
use super::schema::playbook_arg;
use super::words::named;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "render_playbook_page",
    title: "Render a playbook's page",
    description: "The playbook's page as Studio presents it: its Markdown, and each of its active and paused definitions, at most 100, with how its runs stand, each workflow with its glance rendered over its runs.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/page",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

pub(super) fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "playbook": playbook_arg() },
        "required": ["playbook"],
        "additionalProperties": false
    })
}

#[derive(serde::Deserialize)]
pub(super) struct Args {
    pub(super) playbook: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let playbook = ctx.backend.get(&ctx.caller.org, &a.playbook).await?;
    let (results, more) = playbook_results::of_playbook(ctx, &a.playbook).await?;
    let definitions = results.iter().map(playbook_results::row).collect::<Result<Vec<_>, _>>()?;
    let value = json!({
        "playbook": { "id": playbook.id, "name": playbook.name, "description": playbook.description, "status": crate::core::error::encoded(&playbook.status)? },
        "markdown": playbook.page,
        "definitions": definitions,
        "more": more,
    });
    let page = if playbook.page.is_empty() { "It has no page yet" } else { "Its page" };
    let mut summary = format!("{page}, and {} with how each stands.", count(results.len(), "definition"));
    if more {
        summary.push_str(&format!(" Only the first {DEFINITIONS_MAX} are shown."));
    }
    Ok(Output::ok(format!("The playbook {}. {summary}", named(&playbook)), value))
}
