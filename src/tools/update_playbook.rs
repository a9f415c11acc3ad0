//! `update_playbook`: `PUT /v1/orgs/{org}/playbooks/{playbook}`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::{description_arg, name_arg, page_arg, playbook_arg};
use super::words::{fits, named};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::directory::Command;
use crate::core::playbook::Changes;
use crate::core::text::join_and;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "update_playbook",
    title: "Change a playbook",
    description: "Change a playbook's name, description or page; fields left out stay as they are, and calling again with the same input changes nothing. A retired playbook cannot be changed until it is restored.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Put,
    path: "/v1/orgs/{org}/playbooks/{playbook}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "name": name_arg(),
            "description": description_arg(),
            "page": page_arg(),
        },
        "required": ["playbook"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    #[serde(flatten)]
    changes: Changes,
}

async fn run(ctx: &Ctx<'_>, Args { playbook, changes }: Args) -> Result<Output, Problem> {
    changes.check()?;
    let before = ctx.backend.get(&ctx.caller.org, &playbook).await?;
    let command = Command::Update { id: playbook, changes, now: ctx.now.clone(), by: ctx.by() };
    let after = ctx.backend.change(&ctx.caller.org, command).await?;
    let mut changed = Vec::new();
    if before.name != after.name {
        changed.push(format!("its name (was {})", crate::core::text::quote(&before.name)));
    }
    if before.description != after.description {
        changed.push("its description".to_string());
    }
    if before.page != after.page {
        changed.push("its page".to_string());
    }
    let summary = if changed.is_empty() {
        format!("The playbook {} already read as asked; nothing changed.", named(&after))
    } else {
        format!("Updated the playbook {}: {} changed.", named(&after), join_and(&changed))
    };
    Ok(Output::ok(fits(summary), crate::core::error::encoded(&after)?))
}
