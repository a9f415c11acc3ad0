//! `get_stats`: `GET /v1/orgs/{org}/playbooks/{playbook}/stats`: how the playbook's runs, or one
//! definition's, went over a window against the window before it. The runs are read as
//! `get_playbook_analytics` reads them, the newest runs of each definition from the playbook's
//! index, at most `RUNS_READ` of each of at most `DEFINITIONS_MAX` definitions; each is kept as a
//! small sample before the next read, and `core::run::stats` counts them.

use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{narrowed_to, type_arg};
use super::playbook_results::{self, DEFINITIONS_MAX};
use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::definition::Ref;
use crate::core::run::stats::{self, Sample, Window};
use crate::core::run::stats_words::says;
use crate::core::text::join_and;
use crate::core::Problem;

/// The newest runs read of each definition: enough for a busy week of most functions, and one
/// answer of the playbook's object stays well under its 32 MiB even at 64 KiB a run.
pub const RUNS_READ: usize = 200;

/// Why no cost is given: the catalogue `list_models` answers holds no prices.
const NO_COST: &str = "cost: the model catalogue prices no model, so no run's cost is reckoned";
const NO_TOKENS: &str = "tokens: no run in the window recorded what its model counted";

pub const TOOL: Tool = Tool {
    name: "get_stats",
    title: "Read how the runs went",
    description: "How the playbook's runs went over a window against the window before it: runs by status, the success rate of those that ended, how long they took (p50 and p95), the tokens models counted, and the definitions that failed most and ran slowest; with type and name, one definition's runs alone. window is 1h, 24h, 7d or 30d (7d when left out). Reads the newest 200 runs of each of at most 100 definitions, retired ones too, and says when that left runs out. No cost is given: the model catalogue holds no prices.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    // Also on the org's endpoint, with `playbook`, where a team reads how each playbook goes.
    reach: Reach::Anywhere,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/stats",
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
            "name": { "type": "string", "minLength": 1, "maxLength": 64, "description": "With type, only the runs of this definition." },
            "window": {
                "type": "string",
                "enum": Window::NAMES,
                "default": Window::DEFAULT.name(),
                "description": "The span counted, up to now: the last hour, 24 hours, 7 days or 30 days, each held against the span of the same length before it."
            }
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
    window: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let window = match a.window.as_deref() {
        None => Window::DEFAULT,
        Some(w) => Window::parse(w).ok_or_else(|| Problem::invalid("/window", "must be 1h, 24h, 7d or 30d"))?,
    };
    let one = narrowed_to(a.kind, a.name, "the definition whose runs to count")?;
    let (org, playbook) = (&ctx.caller.org, &a.playbook);
    ctx.backend.get(org, playbook).await?;
    let now = ctx.instant();
    let (definitions, more) = match &one {
        Some(d) => {
            ctx.backend.get_definition(org, playbook, d.clone()).await?;
            (vec![d.clone()], false)
        }
        None => {
            let (listed, more) = playbook_results::definitions(ctx, playbook, true).await?;
            (listed.into_iter().map(|d| Ref { kind: d.kind, name: d.name }).collect(), more)
        }
    };
    let counted_from = now - window.length() * 2;
    let mut samples = Vec::new();
    let mut reached = Vec::new();
    for d in &definitions {
        let runs = ctx.backend.read_runs(org, playbook, d.clone(), RUNS_READ).await?;
        // Newest first: a full read whose oldest run is still within the windows may have left
        // older ones of them out.
        let oldest_inside = runs.last().and_then(Sample::of).is_some_and(|s| s.started_at >= counted_from);
        if runs.len() >= RUNS_READ && oldest_inside {
            reached.push(d.clone());
        }
        samples.extend(runs.iter().filter_map(Sample::of).filter(|s| s.started_at >= counted_from));
    }
    let figures = stats::stats(&samples, now, window);
    let mut notices = Vec::new();
    if !reached.is_empty() {
        let named: Vec<String> = reached.iter().map(Ref::key).collect();
        notices.push(format!(
            "Only the newest {RUNS_READ} runs of each definition are read, and {} had more in these windows.",
            join_and(&named)
        ));
    }
    if more {
        notices.push(format!("Only the first {DEFINITIONS_MAX} definitions are counted."));
    }
    let summary = says(&figures, one.as_ref(), &notices);
    let mut absent = vec![NO_COST];
    if figures.current.tokens.is_none() {
        absent.push(NO_TOKENS);
    }
    let mut value = crate::core::error::encoded(&figures)?;
    value["definition"] = crate::core::error::encoded(&one)?;
    value["cost"] = Value::Null;
    value["absent"] = json!(absent);
    value["read"] = json!({
        "runs_per_definition": RUNS_READ,
        "definitions": definitions.len(),
        "runs": samples.len(),
        "reached": crate::core::error::encoded(&reached)?,
        "more_definitions": more,
    });
    Ok(Output::ok(summary, value))
}
