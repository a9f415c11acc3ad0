//! `resolve_comment`: `POST /v1/orgs/{org}/comments/{id}/resolve` (the organization's own), and
//! a playbook's at `POST /v1/orgs/{org}/playbooks/{playbook}/comments/{id}/resolve`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::comment_words::{by, id_arg, playbook_arg, reach, shown, whose, PLAYBOOK_RESOLVE};
use super::words::fits;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::comment::decide::unknown;
use crate::core::comment::record::is_comment_id;
use crate::core::comment::{Among, CommentCommand, How, WriteComment};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "resolve_comment",
    title: "Resolve a comment",
    description: "Close a comment people left in Studio, with the playbook it was read with, or none for the organization's own: how acted once what it asked is done, dismissed only when the person says to drop it. Resolving a resolved comment changes nothing. A retired playbook's comments can be read but not resolved: report them to the person instead. Then tell the person what was changed for each comment, with its studio link, and which were left open and why.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::PlaybookWrite),
    door: Door::Both,
    reach: Reach::Anywhere,
    method: Method::Post,
    path: "/v1/orgs/{org}/comments/{id}/resolve",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { also: Some(PLAYBOOK_RESOLVE), ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg("resolve"),
            "id": id_arg(),
            "how": { "type": "string", "enum": ["acted", "dismissed"], "description": "acted once what the comment asked is done; dismissed only when the person says to drop it." }
        },
        "required": ["id", "how"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: Option<String>,
    id: String,
    how: How,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    reach(ctx, a.playbook.as_deref(), true)?;
    if !is_comment_id(&a.id) {
        let among =
            if a.playbook.is_some() { Among::Playbook { name: String::new(), retired: false } } else { Among::Org };
        return Err(unknown(&a.id, &among));
    }
    let command = CommentCommand::Resolve { id: a.id.clone(), how: a.how, by: by(ctx), at: ctx.now.clone() };
    let write = WriteComment { org: ctx.caller.org.clone(), playbook: a.playbook.clone(), command };
    let c = ctx.backend.comment(write).await?;
    let whose = whose(a.playbook.as_deref());
    let now = c.resolved_at.as_deref() == Some(ctx.now.as_str());
    let how = c.how.map_or("resolved", How::as_str);
    let resolver = c.resolved_by.as_ref().map_or_else(String::new, |b| format!(" by {}", b.name));
    let summary = if now {
        format!("Resolved the comment {} on {} of {whose} as {how}. Tell the person what was changed, with its studio link.", c.id, c.address)
    } else {
        format!(
            "The comment {} on {} of {whose} was resolved already, as {how}{resolver}; nothing changed.",
            c.id, c.address
        )
    };
    Ok(Output::ok(fits(summary), shown(ctx, &c)?))
}
