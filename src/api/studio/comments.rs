//! Comments on a page's things: the list `list_comments` answers for the page's address, each
//! with its resolve or reopen form, and the form to leave one; and the comments page of a
//! playbook or of the org. Bodies are Markdown, shown through `api::markdown` alone.

use serde_json::Value;

use super::frame::{actor, form, hidden, moment, page, status, text, Frame, Tab};
use crate::api::markdown::to_html;
use crate::api::sign_in_pages::escape;
use crate::core::studio;

/// What the page could read of its comments.
#[derive(Debug, Clone)]
pub enum Comments<'a> {
    /// `list_comments` refused, in its words.
    Refused(&'a str),
    /// `list_comments`' answer.
    Listed(&'a Value),
}

/// The comments of one place and the form that leaves one there.
#[derive(Debug, Clone)]
pub struct Thread<'a> {
    pub comments: Comments<'a>,
    /// The address a new comment takes, relative to the playbook or the org.
    pub address: &'a str,
    /// The page the forms come back to.
    pub back: &'a str,
}

/// Where a page's comments post: the playbook's comments, or the org's own.
pub fn comments_path(f: &Frame) -> String {
    match f.playbook {
        Some((id, _)) => studio::playbook_comments("", f.org, id),
        None => studio::org_comments("", f.org),
    }
}

/// The section every page ends with.
pub fn section(f: &Frame, t: &Thread) -> String {
    format!("<section aria-labelledby=\"comments\"><h2 id=\"comments\">Comments</h2>{}</section>", body(f, t))
}

fn body(f: &Frame, t: &Thread) -> String {
    let listed = match &t.comments {
        Comments::Refused(words) => format!("<p class=\"notice refused\" role=\"alert\">{}</p>", escape(words)),
        Comments::Listed(answer) => {
            let list = answer["comments"].as_array().map(Vec::as_slice).unwrap_or_default();
            match list {
                [] => "<p class=\"hint\">No comment here yet.</p>".to_string(),
                list => list.iter().map(|c| one(f, c, t.back)).collect(),
            }
        }
    };
    match t.address.is_empty() {
        true => listed,
        false => format!("{listed}{}", leave(f, t.address, t.back)),
    }
}

/// The form that leaves a comment at `address` and comes back to `back`.
pub fn leave(f: &Frame, address: &str, back: &str) -> String {
    let field = format!("leave-{}", crate::core::studio::seg(address));
    form(
        &comments_path(f),
        f.csrf,
        "",
        &format!(
            "{}{}<label for=\"{field}\">Leave a comment</label>\
             <textarea id=\"{field}\" name=\"body\" required maxlength=\"4000\" placeholder=\"Markdown: what should change, or what is right\"></textarea>\
             <button type=\"submit\">Comment</button>",
            hidden("address", address),
            hidden("back", back)
        ),
    )
}

/// One comment: who, when, where, its body, how it stands, and what the person may do with it.
pub fn one(f: &Frame, c: &Value, back: &str) -> String {
    let id = text(c, "/id");
    let state = text(c, "/status");
    let base = comments_path(f);
    let act = |verb: &str, how: Option<&str>, label: &str| {
        let how = how.map(|h| hidden("how", h)).unwrap_or_default();
        form(
            &format!("{base}/{}/{verb}", crate::core::studio::seg(id)),
            f.csrf,
            "inline",
            &format!("{how}{}<button type=\"submit\" class=\"quiet\">{label}</button>", hidden("back", back)),
        )
    };
    let actions = match state {
        "open" if f.writes => format!(
            "{} {}",
            act("resolve", Some("acted"), "Resolve: acted on"),
            act("resolve", Some("dismissed"), "Dismiss")
        ),
        "resolved" => {
            let how = text(c, "/how");
            let by = c.get("resolved_by").map(actor).unwrap_or_default();
            format!("<span class=\"hint\">Resolved ({}) by {by}.</span> {}", escape(how), act("reopen", None, "Reopen"))
        }
        _ => String::new(),
    };
    let version = c["version"].as_u64().map(|v| format!(" · version {v}")).unwrap_or_default();
    format!(
        "<article class=\"comment\" id=\"comment-{id}\"><p class=\"hint\">{by} · {at} · on <code>{address}</code>{version} {state}</p>{body}<p>{actions}</p></article>",
        id = escape(id),
        by = c.get("by").map(actor).unwrap_or_default(),
        at = moment(text(c, "/created_at")),
        address = escape(text(c, "/address")),
        state = status(state),
        body = to_html(text(c, "/body")),
    )
}

/// The comments page of a playbook (`f.playbook`) or of the org: every comment, open or not.
pub fn page_of(f: &Frame, t: &Thread) -> String {
    let whose = match f.playbook {
        Some((_, name)) => format!("Comments on {}", name),
        None => format!("The comments of {}", f.org),
    };
    let body = format!(
        "<h1>{}</h1><p class=\"hint\">What people said on this {}'s pages, newest first; the agent reads them with list_comments and resolves them with resolve_comment.</p>{}",
        escape(&whose),
        if f.playbook.is_some() { "playbook" } else { "org" },
        body(f, t)
    );
    page(f, &whose, &[(String::new(), "Comments".into())], Tab::Comments, &body)
}

/// A comment on one part of a page's thing (a run's result, a step), folded until the person
/// opens it; nothing where comments are not available.
pub fn on_part(f: &Frame, t: &Thread, address: &str, label: &str) -> String {
    format!("<details class=\"say\"><summary>{}</summary>{}</details>", escape(label), leave(f, address, t.back))
}
