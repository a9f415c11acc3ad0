//! `list_runs`: `GET /v1/orgs/{org}/playbooks/{playbook}/runs`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{narrowed_to, type_arg};
use super::schema::{cursor_arg, limit_arg, playbook_arg};
use super::words::more;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::run::store::{decode_cursor, read_time, RunQuery, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, STATUSES};
use crate::core::text::{cap, count, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_runs",
    title: "List runs",
    description: "List the playbook's runs, newest first, each with its function, version, status and times; filter by a function (type and name), by status, by when they started (started_after, started_before), or by the run they were started again from (rerun_of). Rehearsals are listed apart: rehearsal: true lists them alone. Pages come one at a time: read on with the next_cursor of the page before. get_run reads one run whole.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs",
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
            "name": { "type": "string", "minLength": 1, "maxLength": 64, "description": "With type, only the runs of this function." },
            "status": { "type": "string", "enum": STATUSES, "description": "Only runs that stand so." },
            "steps": { "type": "boolean", "default": true, "description": "false leaves out the runs a workflow's steps started." },
            "started_after": { "type": "string", "maxLength": 40, "description": "Only runs started at or after this time, as RFC 3339 such as 2026-11-30T17:00:00Z." },
            "started_before": { "type": "string", "maxLength": 40, "description": "Only runs started before this time, as RFC 3339; with started_after, a span of start times." },
            "rerun_of": { "type": "string", "minLength": 1, "maxLength": 64, "description": "Only the runs rerun_run started again from this run." },
            "rehearsal": { "type": "boolean", "default": false, "description": "true lists the rehearsals alone, which are otherwise left out." },
            "limit": limit_arg(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "runs"),
            "cursor": cursor_arg(32)
        },
        "required": ["playbook"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    #[serde(rename = "type")]
    kind: Option<String>,
    name: Option<String>,
    status: Option<String>,
    steps: Option<bool>,
    started_after: Option<String>,
    started_before: Option<String>,
    rerun_of: Option<String>,
    #[serde(default)]
    rehearsal: bool,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let definition = narrowed_to(a.kind, a.name, "the function whose runs to list")?;
    let before = a.cursor.as_deref().map(decode_cursor).transpose()?;
    let started_after = a.started_after.as_deref().map(|t| read_time("/started_after", t)).transpose()?;
    let started_before = a.started_before.as_deref().map(|t| read_time("/started_before", t)).transpose()?;
    if let (Some(after), Some(before)) = (&started_after, &started_before) {
        if after >= before {
            return Err(Problem::invalid(
                "/started_before",
                "must be later than started_after: the span holds no time",
            ));
        }
    }
    let query = RunQuery {
        definition,
        status: a.status,
        steps: a.steps.unwrap_or(true),
        limit: a.limit.unwrap_or(LIST_LIMIT_DEFAULT),
        before,
        started_after,
        started_before,
        rerun_of: a.rerun_of,
        rehearsal: a.rehearsal,
    };
    let mut page = ctx.backend.list_runs(&ctx.caller.org, &a.playbook, query).await?;
    // The directory listing serves no generation function, so it lists none of their runs.
    if ctx.directory {
        page.runs.retain(|r| r.definition.kind != crate::core::definition::Kind::Generation);
    }
    let summary = match page.runs.len() {
        0 => "No run is on this page.".to_string(),
        n => {
            let more = more(page.next_cursor.is_some());
            let newest = &page.runs[0];
            format!(
                "Found {} on this page, newest first; the newest, {}, of {}, {}.{more}",
                count(n, "run"),
                newest.run_id,
                newest.definition.key(),
                newest.status
            )
        }
    };
    Ok(Output::ok(cap(&summary, SUMMARY_MAX), crate::core::error::encoded(&page)?))
}
