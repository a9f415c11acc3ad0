//! `list_comments`: `GET /v1/orgs/{org}/comments` (the organization's own), and a playbook's at
//! `GET /v1/orgs/{org}/playbooks/{playbook}/comments`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::comment_words::{playbook_arg, reach, shown, whose, PLAYBOOK_COMMENTS};
use super::schema::{cursor_arg, limit_arg};
use super::words::{fits, more};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::comment::address::{check_under, Address, Whose};
use crate::core::comment::list::{read_cursor, LIMIT_DEFAULT, LIMIT_MAX};
use crate::core::comment::{CommentQuery, ListComments};
use crate::core::text::count;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "list_comments",
    title: "Read comments",
    description: "Read what people said in Studio: the open comments of a playbook or, without playbook, the organization's own, newest first; address keeps those on one thing, under those on it or under it, and open: false adds the resolved ones. Call it when the person says they left comments in Studio or pastes the line Studio copies; told to act on the open comments, read the organization's own and each playbook's that list_playbooks lists. A comment's address says what it is about and its call names the tool that reads that thing, such as get_definition for a step, get_run for a run or list_connections for a connection: read it there and change it as the comment asks (a comment on a part is about that piece); report: true marks what no tool changes, such as a member's role, which you report to the person. Never comment yourself. Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Anywhere,
    method: Method::Get,
    path: "/v1/orgs/{org}/comments",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { also: Some(PLAYBOOK_COMMENTS), on_playbook: Some(ON_PLAYBOOK), ..Special::NONE },
};

/// What the description says besides, on a playbook's own endpoint.
pub const ON_PLAYBOOK: &str = "This playbook's open comments are what people said about its things in Studio and nobody has acted on yet. A comment on an earlier version (its version) is read against the current document.";

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg("read"),
            "address": { "type": "string", "minLength": 1, "maxLength": 512, "description": "Only the comments on this address, such as definitions/workflow/review-and-approve/steps/review_brief, runs/run_3kq7z2m4x8c5v6b1 or ledger; the organization's own are on org, connections/{id}, members/{person} or settings/{page}." },
            "under": { "type": "string", "minLength": 1, "maxLength": 512, "description": "Only the comments on this address or under it, its words whole: definitions/workflow/review-and-approve holds those on its steps too, runs those on every run." },
            "open": { "type": "boolean", "default": true, "description": "true reads the open comments alone; false the resolved ones too." },
            "limit": limit_arg(LIMIT_MAX, LIMIT_DEFAULT, "comments"),
            "cursor": cursor_arg(256)
        },
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: Option<String>,
    address: Option<String>,
    under: Option<String>,
    open: Option<bool>,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    reach(ctx, a.playbook.as_deref(), false)?;
    let among = if a.playbook.is_some() { Whose::Playbook } else { Whose::Org };
    if let Some(address) = &a.address {
        Address::parse(address, among)?;
    }
    if let Some(under) = &a.under {
        check_under(under)?;
    }
    let open = a.open.unwrap_or(true);
    let query = CommentQuery {
        address: a.address.clone(),
        under: a.under.clone(),
        open,
        limit: a.limit.unwrap_or(LIMIT_DEFAULT),
        after: a.cursor.as_deref().map(read_cursor).transpose()?,
    };
    let list = ListComments { org: ctx.caller.org.clone(), playbook: a.playbook.clone(), query };
    let page = ctx.backend.list_comments(list).await?;
    let comments = page.comments.iter().map(|c| shown(ctx, c)).collect::<Result<Vec<_>, _>>()?;
    let whose = whose(a.playbook.as_deref());
    let which = if open { "open comment" } else { "comment" };
    let place = match (&a.address, &a.under) {
        (Some(address), _) => format!(" on {address}"),
        (None, Some(under)) => format!(" under {under}"),
        (None, None) => String::new(),
    };
    let said = match page.comments.first() {
        None if a.cursor.is_some() => format!("No more {which}s{place} of {whose}."),
        None => format!("No {which}{place} of {whose}: nobody has said anything there that waits on an agent."),
        Some(newest) => {
            let act = if open {
                " Read each where its call says, change it as it asks, then resolve it with resolve_comment."
            } else {
                ""
            };
            format!(
                "{}{place} of {whose} on this page, newest first; the newest, {}.{act}",
                count(page.comments.len(), which),
                super::comment_words::named(newest)
            )
        }
    };
    let tail = more(page.next_cursor.is_some());
    let summary = format!("{}{tail}", crate::core::text::cap(&said, crate::core::text::SUMMARY_MAX - tail.len()));
    Ok(Output::ok(fits(summary), json!({ "comments": comments, "next_cursor": page.next_cursor })))
}
