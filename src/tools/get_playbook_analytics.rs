//! `get_playbook_analytics`: `GET /v1/orgs/{org}/playbooks/{playbook}/analytics`, over HTTP alone,
//! which Studio presents: how the runs of each definition stand, and of all of them together.

use serde_json::json;

use super::playbook_results::{self, DEFINITIONS_MAX};
use super::render_playbook_page::{input_schema, Args};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::page::RUNS_READ;
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_playbook_analytics",
    title: "Read a playbook's figures",
    description: "How the runs of each active and paused definition of the playbook stand, at most 100 definitions and the newest 100 runs of each: runs, succeeded, failed, cancelled and still running, how the latest ended and when it last ran; and the same counts of all of them together.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/analytics",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    ctx.backend.get(&ctx.caller.org, &a.playbook).await?;
    let (results, more) = playbook_results::of_playbook(ctx, &a.playbook).await?;
    let totals = playbook_results::totals(&results);
    let definitions = results.iter().map(playbook_results::row).collect::<Result<Vec<_>, _>>()?;
    let value = json!({
        "totals": crate::core::error::encoded(&totals)?,
        "definitions": definitions,
        "window": format!("the newest {RUNS_READ} runs of each definition"),
        "more": more,
        "as_of": ctx.now,
    });
    let mut summary = format!(
        "Of the newest runs of {}: {} succeeded, {} failed, {} cancelled and {} still running.",
        count(results.len(), "definition"),
        totals.succeeded,
        totals.failed,
        totals.cancelled,
        totals.running
    );
    if more {
        summary.push_str(&format!(" Only the first {DEFINITIONS_MAX} definitions are counted."));
    }
    Ok(Output::ok(summary, value))
}
