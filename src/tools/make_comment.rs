//! `make_comment`: `POST /v1/orgs/{org}/comments` (the organization's own), and on a playbook's
//! thing `POST /v1/orgs/{org}/playbooks/{playbook}/comments`. Over HTTP alone, for a person.

use serde::Deserialize;
use serde_json::{json, Value};

use super::comment_words::{a_person, by, playbook_arg, reach, shown, whose, PLAYBOOK_COMMENTS};
use super::words::fits;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::comment::address::{Address, Whose};
use crate::core::comment::record::{check_anchor, check_body, comment_id};
use crate::core::comment::{Comment, CommentCommand, Status, WriteComment};
use crate::core::definition::Ref;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "make_comment",
    title: "Comment",
    description: "Leave a comment, as a person does in Studio: on an address of a playbook's thing (with playbook) or of the organization's own (without), with a body in Markdown and an anchor, where Studio draws its pin. It stays open until it is resolved. A person or the local developer only: a key is refused, since a comment is what a person says.",
    hints: Hints { destructive: false, ..Hints::WRITE },
    scope: Some(Scope::PlaybookRead),
    door: Door::Http,
    reach: Reach::Anywhere,
    method: Method::Post,
    path: "/v1/orgs/{org}/comments",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { also: Some(PLAYBOOK_COMMENTS), ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg("add to"),
            "address": { "type": "string", "minLength": 1, "maxLength": 512, "description": "What the comment is about. A playbook's: playbook, ledger, definitions/{type}/{name}[/{part}], runs/{run_id}[/{part}] or requests/{interaction_id}, a part being words of a-z, 0-9, _, . and - separated by /, such as steps/review_brief, prompt or page/figures/approved. The organization's own: org, connections/{id}, members/{person} or settings/{page}." },
            "body": { "type": "string", "minLength": 1, "maxLength": 4000, "description": "What the person says, in Markdown: 1 to 4,000 characters." },
            "anchor": { "type": "object", "description": "Where Studio draws the comment's pin: a JSON object of at most 1 KiB that only Studio reads." }
        },
        "required": ["address", "body"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: Option<String>,
    address: String,
    body: String,
    anchor: Option<Value>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    a_person(ctx, "makes")?;
    reach(ctx, a.playbook.as_deref(), false)?;
    let address = Address::parse(&a.address, if a.playbook.is_some() { Whose::Playbook } else { Whose::Org })?;
    check_body(&a.body)?;
    if let Some(anchor) = &a.anchor {
        check_anchor(anchor)?;
    }
    // A comment on a definition says which version the person read.
    let version = match (&address, &a.playbook) {
        (Address::Definition { kind, name, .. }, Some(playbook)) => {
            let definition = Ref { kind: *kind, name: name.clone() };
            let view = ctx.backend.get_definition(&ctx.caller.org, playbook, definition).await?;
            Some(view.definition.version)
        }
        _ => None,
    };
    let comment = Comment {
        id: comment_id(ctx.random),
        playbook: a.playbook.clone(),
        address: address.to_string(),
        anchor: a.anchor,
        body: a.body,
        version,
        by: by(ctx),
        created_at: ctx.now.clone(),
        status: Status::Open,
        resolved_at: None,
        resolved_by: None,
        how: None,
        reopened_at: None,
        reopened_by: None,
    };
    let write = WriteComment {
        org: ctx.caller.org.clone(),
        playbook: a.playbook.clone(),
        command: CommentCommand::Make { comment: Box::new(comment) },
    };
    let c = ctx.backend.comment(write).await?;
    let summary = format!(
        "Kept the comment {} on {} of {}: it is open until an agent or a person resolves it, and list_comments shows it.",
        c.id,
        c.address,
        whose(a.playbook.as_deref())
    );
    Ok(Output::created(fits(summary), shown(ctx, &c)?))
}
