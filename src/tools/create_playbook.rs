//! `create_playbook`: `POST /v1/orgs/{org}/playbooks`.

use serde_json::{json, Value};

use super::schema::{description_arg, name_arg, page_arg};
use super::words::{fits, named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::directory::Command;
use crate::core::ids::playbook_id;
use crate::core::playbook::Changes;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "create_playbook",
    title: "Create a playbook",
    description: "Create a playbook, active and empty, in the caller's org. A playbook keeps work that goes on after this conversation: each job it does again and again is a workflow, and each part of a job is a function of the type that part needs. Read the guide start with get_guide before building. Answers the playbook with its id, which every later call names as playbook, and studio, its page in Studio: give the person that link.",
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/playbooks",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": name_arg(),
            "description": description_arg(),
            "page": page_arg(),
        },
        "required": ["name"],
        "additionalProperties": false
    })
}

async fn run(ctx: &Ctx<'_>, mut changes: Changes) -> Result<Output, Problem> {
    changes.description.get_or_insert_with(String::new);
    changes.page.get_or_insert_with(String::new);
    changes.check()?;
    let command = Command::Create { id: playbook_id(ctx.random), changes, now: ctx.now.clone(), by: ctx.by() };
    let playbook = ctx.backend.change(&ctx.caller.org, command).await?;
    let summary = fits(format!(
        "Created the playbook {}. It is active and holds no functions or workflows yet; every later call names it as playbook: {}.",
        named(&playbook),
        playbook.id
    ));
    let mut value = crate::core::error::encoded(&playbook)?;
    value["studio"] = json!(crate::core::studio::playbook(&ctx.connections.base, &ctx.caller.org, &playbook.id));
    Ok(Output::created(summary, value))
}
