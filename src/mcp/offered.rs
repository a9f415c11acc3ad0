//! The workflows a run-mode endpoint offers as tools of their own: listed from each playbook's
//! object as saved, and called as `run_definition` of that workflow is, then waited for up to the
//! tool's `wait_seconds` so that the answer is the run's output where it ends in time.

use std::cell::Cell;

use serde_json::{json, Value};

use super::endpoint::Endpoint;
use crate::core::definition::workflow_tool::{check_arguments, listed_schema, Offered};
use crate::core::definition::{Kind, Ref};
use crate::core::directory::{ListQuery, LIST_LIMIT_MAX};
use crate::core::run::{run_id, Run, RunStatus};
use crate::core::Problem;
use crate::ops::run_start::Asked;
use crate::tools::{self, Ctx, Output};

/// How many calls one isolate lets wait for their runs at once; past it a call answers the run's
/// handle at once, so that waiting calls cannot hold every request an isolate serves.
const WAITERS_MAX: usize = 16;
const POLL_MILLIS: u64 = 250;

thread_local! {
    static WAITING: Cell<usize> = const { Cell::new(0) };
}

/// One workflow's tool as an endpoint offers it: the playbook it runs in, with its name there.
pub struct Listed {
    pub playbook: String,
    pub playbook_name: String,
    pub offered: Offered,
}

impl Listed {
    /// On one playbook's endpoint the offer's own name; on the org's, prefixed by its playbook.
    pub fn name(&self, endpoint: &Endpoint) -> String {
        match endpoint.playbook() {
            Some(_) => self.offered.tool.name.clone(),
            None => format!("{}_{}", self.playbook, self.offered.tool.name),
        }
    }
}

/// The workflows' tools the endpoint offers the caller: none to a caller that may not start a
/// run, since each call starts one.
pub async fn list(ctx: &Ctx<'_>, endpoint: &Endpoint) -> Result<Vec<Listed>, Problem> {
    let Endpoint::Run { org, playbook } = endpoint else { return Ok(Vec::new()) };
    let Some(runner) = tools::find("run_definition") else { return Ok(Vec::new()) };
    if tools::permits(ctx.caller, runner).is_err() {
        return Ok(Vec::new());
    }
    let playbooks: Vec<(String, String)> = match playbook {
        Some(pb) => vec![(pb.clone(), pb.clone())],
        None => {
            let query = ListQuery {
                include_retired: false,
                limit: LIST_LIMIT_MAX,
                after: None,
                only: ctx.caller.playbooks.clone(),
            };
            let page = ctx.backend.list(org, query).await?;
            page.playbooks
                .iter()
                .filter_map(|p| Some((p.get("id")?.as_str()?.to_string(), p.get("name")?.as_str()?.to_string())))
                .collect()
        }
    };
    let reads = playbooks.iter().map(|(pb, _)| ctx.backend.offered_tools(org, pb));
    let mut listed = Vec::new();
    for ((pb, name), offered) in playbooks.iter().zip(futures::future::join_all(reads).await) {
        for offered in offered? {
            listed.push(Listed { playbook: pb.clone(), playbook_name: name.clone(), offered });
        }
    }
    Ok(listed)
}

/// A workflow's tool as `tools/list` shows it.
pub fn listing(ctx: &Ctx<'_>, endpoint: &Endpoint, listed: &Listed) -> Value {
    let o = &listed.offered;
    let title = match endpoint.playbook() {
        Some(_) => format!("Run the workflow {}", o.workflow),
        None => format!("Run the workflow {} of the playbook {}", o.workflow, listed.playbook_name),
    };
    let wait = match o.tool.wait_seconds {
        0 => "It answers at once with the run's run_id".to_string(),
        s => format!("It answers the run's output when the run ends within {s} seconds; else its run_id"),
    };
    let words = o.description.trim_end();
    let stop = if words.ends_with(['.', '!', '?']) { "" } else { "." };
    let description =
        format!("{words}{stop} {wait} and check_back_in_seconds, and get_run with wait_seconds follows the run.");
    let served =
        !ctx.tool_servers.serving(&ctx.caller.org, Some(&listed.playbook), ctx.caller.playbooks.as_deref()).is_empty();
    json!({
        "name": listed.name(endpoint),
        "title": title,
        "description": description,
        "inputSchema": listed_schema(&o.input_schema),
        "annotations": {
            "title": title,
            "readOnlyHint": o.reads_only,
            "destructiveHint": !o.reads_only && served,
            "idempotentHint": false,
            "openWorldHint": o.open_world
        }
    })
}

/// Calls the workflow's tool named `name`, where the endpoint offers one so named.
pub async fn call(ctx: &Ctx<'_>, endpoint: &Endpoint, name: &str, arguments: Value) -> Option<Result<Output, Problem>> {
    let listed = match list(ctx, endpoint).await {
        Ok(listed) => listed,
        Err(p) => return Some(Err(p)),
    };
    let found = listed.into_iter().find(|l| l.name(endpoint) == name)?;
    Some(run(ctx, &found, arguments).await)
}

async fn run(ctx: &Ctx<'_>, listed: &Listed, arguments: Value) -> Result<Output, Problem> {
    let Value::Object(input) = arguments else {
        return Err(Problem::invalid("", "must be an object of the workflow's input"));
    };
    check_arguments(&listed.offered.input_schema, &input)?;
    let asked = Asked {
        org: ctx.caller.org.clone(),
        playbook: listed.playbook.clone(),
        definition: Ref { kind: Kind::Workflow, name: listed.offered.workflow.clone() },
        input: Value::Object(input),
        run_id: run_id(ctx.random),
        now: ctx.now.clone(),
        within: None,
        by: ctx.by(),
        again: None,
        stand_ins: None,
    };
    let (run, value) = tools::start_run(ctx, &listed.playbook, asked).await?;
    let Some(_waiter) = Waiter::take() else { return Ok(answered(&listed.playbook, &run, value)) };
    let mut run = run;
    let mut waited = 0;
    while matches!(run.status, RunStatus::Started { waiting: None }) && waited < listed.offered.tool.wait_seconds * 1000
    {
        ctx.backend.pause(POLL_MILLIS).await;
        waited += POLL_MILLIS;
        run = ctx.backend.get_run(&ctx.caller.org, &listed.playbook, &run.run_id).await?;
    }
    if matches!(run.status, RunStatus::Started { .. }) {
        return Ok(answered(&listed.playbook, &run, value));
    }
    let mut ended = tools::run_answered(&run)?;
    ended["studio"] = value["studio"].clone();
    Ok(answered(&listed.playbook, &run, ended))
}

/// A run as the tool answers it: how it ended, or where to follow it.
fn answered(playbook: &str, run: &Run, value: Value) -> Output {
    let summary = match &run.status {
        RunStatus::Started { .. } => format!(
            "{} get_run with playbook {playbook}, run_id {} and wait_seconds follows it.",
            tools::run_outcome(run),
            run.run_id
        ),
        _ => tools::run_outcome(run),
    };
    Output::ok(summary, value)
}

/// A place among the calls that wait, given back when the call ends or is dropped.
struct Waiter;

impl Waiter {
    fn take() -> Option<Waiter> {
        WAITING.with(|w| (w.get() < WAITERS_MAX).then(|| w.set(w.get() + 1)).map(|()| Waiter))
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        WAITING.with(|w| w.set(w.get().saturating_sub(1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_are_bounded_and_given_back() {
        let held: Vec<Waiter> = (0..WAITERS_MAX).filter_map(|_| Waiter::take()).collect();
        assert_eq!(held.len(), WAITERS_MAX);
        assert!(Waiter::take().is_none(), "past the bound a call answers the handle at once");
        drop(held);
        assert!(Waiter::take().is_some());
    }
}
