//! What a make, a resolve or a reopen does to the comments kept: pure, given the comment the id
//! names (if any), how many are kept, and whether the playbook is retired. A retry of the same
//! change answers the comment as it stands and keeps nothing.

use serde::Serialize;

use super::record::{By, Comment, How, Status};
use crate::core::text::quote;
use crate::core::Problem;

/// The most comments a playbook, or the organization itself, keeps.
pub const COMMENTS_MAX: usize = 20_000;
/// The limit as a refusal writes it.
const COMMENTS_MAX_WORDS: &str = "20,000";

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum CommentCommand as "command" {
        /// Keeps a new open comment, made whole by the operation.
        Make {
            comment: Box<Comment>,
        },
        Resolve {
            id: String,
            how: How,
            by: By,
            at: String,
        },
        Reopen {
            id: String,
            by: By,
            at: String,
        },
    }
}

impl CommentCommand {
    pub fn id(&self) -> &str {
        match self {
            CommentCommand::Make { comment } => &comment.id,
            CommentCommand::Resolve { id, .. } | CommentCommand::Reopen { id, .. } => id,
        }
    }
}

/// What the command does.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Keep this comment, then answer it.
    Keep(Comment),
    /// Nothing changes: answer the comment as it stands.
    Unchanged(Comment),
}

/// Where the comments are: a playbook's, with whether it is retired, or the org's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Among {
    Playbook { name: String, retired: bool },
    Org,
}

pub fn decide(
    command: CommentCommand,
    current: Option<&Comment>,
    kept: usize,
    among: &Among,
) -> Result<Decision, Problem> {
    if let Among::Playbook { name, retired: true } = among {
        let what = match &command {
            CommentCommand::Make { .. } => "commented on",
            CommentCommand::Resolve { .. } => "resolved",
            CommentCommand::Reopen { .. } => "reopened",
        };
        return Err(Problem::conflict(format!(
            "The playbook {} is retired: its comments can be read but not {what}, and nothing in it can be changed. Report its open comments to the person instead; restore_playbook brings it back.",
            quote(name)
        )));
    }
    match command {
        CommentCommand::Make { comment } => match current {
            Some(kept) if kept.address == comment.address && kept.body == comment.body => {
                Ok(Decision::Unchanged(kept.clone()))
            }
            Some(_) => Err(Problem::conflict(format!("A comment {} is kept already; make it again.", comment.id))),
            None if kept >= COMMENTS_MAX => Err(Problem::conflict(format!(
                "{} keeps {} comments, the most it may: no more can be made until this limit is raised. Resolved ones are kept too.",
                match among {
                    Among::Playbook { name, .. } => format!("The playbook {}", quote(name)),
                    Among::Org => "The organization".to_string(),
                },
                COMMENTS_MAX_WORDS
            ))),
            None => Ok(Decision::Keep(*comment)),
        },
        CommentCommand::Resolve { id, how, by, at } => {
            let current = current.ok_or_else(|| unknown(&id, among))?;
            if !current.is_open() {
                return Ok(Decision::Unchanged(current.clone()));
            }
            Ok(Decision::Keep(Comment {
                status: Status::Resolved,
                resolved_at: Some(at),
                resolved_by: Some(by),
                how: Some(how),
                ..current.clone()
            }))
        }
        CommentCommand::Reopen { id, by, at } => {
            let current = current.ok_or_else(|| unknown(&id, among))?;
            if current.is_open() {
                return Ok(Decision::Unchanged(current.clone()));
            }
            Ok(Decision::Keep(Comment {
                status: Status::Open,
                resolved_at: None,
                resolved_by: None,
                how: None,
                reopened_at: Some(at),
                reopened_by: Some(by),
                ..current.clone()
            }))
        }
    }
}

/// The refusal of an id that names no comment here.
pub fn unknown(id: &str, among: &Among) -> Problem {
    let whose = match among {
        Among::Playbook { .. } => {
            "this playbook's comments; without playbook, list_comments lists the organization's own"
        }
        Among::Org => "the organization's own comments; a playbook's comment is resolved with that playbook",
    };
    Problem::not_found(format!("No comment {id} is among {whose}."))
        .with_field("/id", "names no comment here; list_comments lists them")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ada() -> By {
        By { id: "person_ada".into(), name: "Ada".into() }
    }

    fn open() -> Comment {
        Comment {
            id: "cm_aaaaaaaaaaaaaaaa".into(),
            playbook: Some("pb_aaaaaaaaaaaaaaaa".into()),
            address: "ledger".into(),
            anchor: None,
            body: "Why did the last run fail?".into(),
            version: None,
            by: ada(),
            created_at: "2026-12-02T10:00:00.000Z".into(),
            status: Status::Open,
            resolved_at: None,
            resolved_by: None,
            how: None,
            reopened_at: None,
            reopened_by: None,
        }
    }

    fn live() -> Among {
        Among::Playbook { name: "Close".into(), retired: false }
    }

    fn resolve(how: How, at: &str) -> CommentCommand {
        CommentCommand::Resolve { id: open().id, how, by: ada(), at: at.into() }
    }

    fn kept(d: Decision) -> Comment {
        match d {
            Decision::Keep(c) => c,
            Decision::Unchanged(c) => panic!("unchanged: {c:?}"),
        }
    }

    #[test]
    fn a_comment_is_made_once_and_its_retry_changes_nothing() {
        let c = kept(decide(CommentCommand::Make { comment: Box::new(open()) }, None, 0, &live()).unwrap());
        assert_eq!(c, open());
        let again = decide(CommentCommand::Make { comment: Box::new(open()) }, Some(&c), 1, &live()).unwrap();
        assert_eq!(again, Decision::Unchanged(c.clone()));
        let other = Comment { body: "Something else".into(), ..open() };
        assert_eq!(
            decide(CommentCommand::Make { comment: Box::new(other) }, Some(&c), 1, &live()).unwrap_err().status(),
            409
        );
    }

    #[test]
    fn the_limit_is_refused_in_words() {
        let p =
            decide(CommentCommand::Make { comment: Box::new(open()) }, None, COMMENTS_MAX, &Among::Org).unwrap_err();
        assert_eq!(p.status(), 409);
        assert!(p.detail.contains("20,000 comments"), "{}", p.detail);
    }

    #[test]
    fn a_resolve_closes_once_and_answers_a_resolved_one_unchanged() {
        let resolved = kept(decide(resolve(How::Acted, "t1"), Some(&open()), 1, &live()).unwrap());
        assert_eq!(resolved.status, Status::Resolved);
        assert_eq!((resolved.how, resolved.resolved_at.as_deref()), (Some(How::Acted), Some("t1")));
        assert_eq!(resolved.resolved_by, Some(ada()));
        let again = decide(resolve(How::Dismissed, "t2"), Some(&resolved), 1, &live()).unwrap();
        assert_eq!(again, Decision::Unchanged(resolved));
    }

    #[test]
    fn a_reopen_opens_a_resolved_one_and_says_when_and_by_whom() {
        let resolved = kept(decide(resolve(How::Dismissed, "t1"), Some(&open()), 1, &live()).unwrap());
        let reopen = || CommentCommand::Reopen { id: open().id, by: ada(), at: "t2".into() };
        let reopened = kept(decide(reopen(), Some(&resolved), 1, &live()).unwrap());
        assert_eq!(reopened.status, Status::Open);
        assert_eq!((reopened.how, reopened.resolved_at.clone()), (None, None));
        assert_eq!((reopened.reopened_at.as_deref(), reopened.reopened_by.clone()), (Some("t2"), Some(ada())));
        assert_eq!(decide(reopen(), Some(&reopened), 1, &live()).unwrap(), Decision::Unchanged(reopened));
    }

    #[test]
    fn an_unknown_id_is_refused_at_id() {
        let p = decide(resolve(How::Acted, "t1"), None, 0, &Among::Org).unwrap_err();
        assert_eq!((p.status(), p.errors[0].pointer.as_str()), (404, "/id"));
    }

    #[test]
    fn a_retired_playbooks_comments_are_neither_resolved_nor_made_nor_reopened() {
        let retired = Among::Playbook { name: "Close".into(), retired: true };
        let p = decide(resolve(How::Acted, "t1"), Some(&open()), 1, &retired).unwrap_err();
        assert_eq!(p.status(), 409);
        assert!(p.detail.contains("can be read but not resolved"), "{}", p.detail);
        assert!(decide(CommentCommand::Make { comment: Box::new(open()) }, None, 0, &retired).is_err());
    }
}
