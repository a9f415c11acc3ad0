//! `answer_interaction`: `POST /v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/answer`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::run::store::AnswerRun;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "answer_interaction",
    title: "Answer a request",
    description: "Answer an open request of an interaction function, in the shape its answer_schema gives, with the person's own answer: the run that asked takes it at once, and get_run shows how it ended. Answering an answered request again changes nothing.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks/{playbook}/runs/{run_id}/answer",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "run_id": { "type": "string", "minLength": 1, "maxLength": 64, "description": "The run that asked, as list_interactions gives it." },
            "answer": { "description": "The answer, in the shape of the request's answer_schema." }
        },
        "required": ["playbook", "run_id", "answer"],
        "additionalProperties": false
    })
}

/// The spec's recorded sentence, word for word.
pub const ANSWERED: &str = "The request is answered: the run that asked it takes the answer within the host's sweep, a second by default, and get_run shows how it ended.";

#[derive(Deserialize)]
struct Args {
    playbook: String,
    run_id: String,
    answer: Value,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let answer = AnswerRun { run_id: a.run_id.clone(), answer: a.answer.clone(), by: ctx.by() };
    let run = match ctx.backend.answer_run(&ctx.caller.org, &a.playbook, answer).await {
        Ok(run) => run,
        // The same answer again finds the run finished with it: nothing changes.
        Err(p) if p.reason == crate::core::Reason::Conflict => {
            let run = ctx.backend.get_run(&ctx.caller.org, &a.playbook, &a.run_id).await?;
            match &run.status {
                crate::core::run::RunStatus::Succeeded { output, .. } if *output == a.answer => run,
                _ => return Err(p),
            }
        }
        Err(p) => return Err(p),
    };
    let summary = ANSWERED;
    Ok(Output::ok(summary.into(), super::run_words::answered(&run)?))
}
