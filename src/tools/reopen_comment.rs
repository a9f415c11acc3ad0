//! `reopen_comment`: `POST /v1/orgs/{org}/comments/{id}/reopen` (the organization's own), and a
//! playbook's at `POST /v1/orgs/{org}/playbooks/{playbook}/comments/{id}/reopen`. Over HTTP
//! alone, for a person.

use serde::Deserialize;
use serde_json::{json, Value};

use super::comment_words::{a_person, by, id_arg, playbook_arg, reach, shown, whose, PLAYBOOK_REOPEN};
use super::words::fits;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::comment::decide::unknown;
use crate::core::comment::record::is_comment_id;
use crate::core::comment::{Among, CommentCommand, WriteComment};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "reopen_comment",
    title: "Reopen a comment",
    description: "Reopen a resolved comment, as a person does in Studio: it is open again, with reopened_at and reopened_by saying when and by whom, and list_comments shows it to agents as any open comment. Reopening an open one changes nothing. A person or the local developer only: a key is refused.",
    hints: Hints { destructive: false, ..Hints::WRITE_IDEMPOTENT },
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Anywhere,
    method: Method::Post,
    path: "/v1/orgs/{org}/comments/{id}/reopen",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { also: Some(PLAYBOOK_REOPEN), ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "playbook": playbook_arg("reopen"), "id": id_arg() },
        "required": ["id"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: Option<String>,
    id: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    a_person(ctx, "reopens")?;
    reach(ctx, a.playbook.as_deref(), false)?;
    if !is_comment_id(&a.id) {
        let among =
            if a.playbook.is_some() { Among::Playbook { name: String::new(), retired: false } } else { Among::Org };
        return Err(unknown(&a.id, &among));
    }
    let command = CommentCommand::Reopen { id: a.id.clone(), by: by(ctx), at: ctx.now.clone() };
    let write = WriteComment { org: ctx.caller.org.clone(), playbook: a.playbook.clone(), command };
    let c = ctx.backend.comment(write).await?;
    let whose = whose(a.playbook.as_deref());
    let summary = if c.reopened_at.as_deref() == Some(ctx.now.as_str()) {
        format!(
            "Reopened the comment {} on {} of {whose}: it is open again, and list_comments shows it to agents.",
            c.id, c.address
        )
    } else {
        format!("The comment {} on {} of {whose} is open already; nothing changed.", c.id, c.address)
    };
    Ok(Output::ok(fits(summary), shown(ctx, &c)?))
}
