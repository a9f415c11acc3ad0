//! What the comment tools share: where the comments are (a playbook's, or the organization's own
//! without one), who may reach them, the id argument, and a comment as the tools answer it.

use serde_json::{json, Value};

use super::Ctx;
use crate::core::caller::{Principal, Scope};
use crate::core::comment::{self, Comment};
use crate::core::text::{cap, quote};
use crate::core::Problem;

// The routes of the comment tools on a playbook, besides their own on the organization.
pub const PLAYBOOK_COMMENTS: &str = "/v1/orgs/{org}/playbooks/{playbook}/comments";
pub const PLAYBOOK_RESOLVE: &str = "/v1/orgs/{org}/playbooks/{playbook}/comments/{id}/resolve";
pub const PLAYBOOK_REOPEN: &str = "/v1/orgs/{org}/playbooks/{playbook}/comments/{id}/reopen";

/// The `playbook` argument of a comment tool, which may be left out.
pub fn playbook_arg(doing: &str) -> Value {
    let mut arg = super::schema::playbook_arg();
    arg["description"] = json!(format!(
        "The playbook whose comments to {doing}, such as pb_3kq7z2m4x8c5v6b1; left out, the organization's own."
    ));
    arg
}

pub fn id_arg() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 64, "description": "The comment's id, such as cm_3kq7z2m4x8c5v6b1, as list_comments gave it." })
}

/// The organization's own comments need the org's scope, as a playbook's need the playbook's
/// (which the tool's own scope checks); a caller kept to some playbooks reaches only theirs.
pub fn reach(ctx: &Ctx<'_>, playbook: Option<&str>, write: bool) -> Result<(), Problem> {
    if playbook.is_some() {
        return Ok(());
    }
    if ctx.caller.playbooks.is_some() {
        return Err(Problem::forbidden(
            "This caller is kept to some playbooks, and the organization's own comments are of none: name the playbook whose comments to read.",
        ));
    }
    let scope = if write { Scope::OrgWrite } else { Scope::OrgRead };
    if !ctx.caller.allows(scope) {
        return Err(Problem::forbidden(format!(
            "The organization's own comments need the scope {}, which this caller does not hold; a playbook's need the playbook's.",
            scope.as_str()
        ))
        .needs(scope.as_str()));
    }
    Ok(())
}

/// A person, or the local developer: a comment is what a person says, so a key neither makes nor
/// reopens one.
pub fn a_person(ctx: &Ctx<'_>, doing: &str) -> Result<(), Problem> {
    match ctx.caller.principal {
        Principal::Person { .. } | Principal::LocalDeveloper { .. } => Ok(()),
        _ => Err(Problem::forbidden(format!(
            "A person {doing} a comment, in Studio: a key does not, since a comment is what a person says. An agent reports its work to the person instead."
        ))),
    }
}

/// Who is acting, as a comment records them.
pub fn by(ctx: &Ctx<'_>) -> comment::By {
    let actor = ctx.by();
    comment::By { id: actor.id, name: actor.name }
}

/// A comment as the tools answer it, with `call` (or `report`) and `studio`.
pub fn shown(ctx: &Ctx<'_>, c: &Comment) -> Result<Value, Problem> {
    comment::shown(c, &ctx.caller.org, &ctx.connections.base)
}

/// `the playbook pb_…` or `the organization`.
pub fn whose(playbook: Option<&str>) -> String {
    playbook.map_or_else(|| "the organization".to_string(), |p| format!("the playbook {p}"))
}

/// `cm_… on runs/run_1, by Ada: “Why …”`, the body cut short.
pub fn named(c: &Comment) -> String {
    let first = c.body.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
    format!("{} on {}, by {}: {}", c.id, c.address, c.by.name, quote(&cap(first.trim(), 80)))
}
