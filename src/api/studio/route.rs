//! Which Studio page or form a path names, by the addresses of `core::studio`. Pure, so the
//! table is read and tested on the host; the shell runs what it names.

use crate::core::access::oauth::form::decode_segment;
use crate::core::studio::ROOT;

/// A page Studio shows on `GET`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Page {
    /// `/studio`: sends the person to their org's home.
    Root,
    Home {
        org: String,
    },
    OrgComments {
        org: String,
    },
    Playbook {
        org: String,
        playbook: String,
    },
    Definition {
        org: String,
        playbook: String,
        kind: String,
        name: String,
    },
    DefinitionPicture {
        org: String,
        playbook: String,
        name: String,
    },
    Ledger {
        org: String,
        playbook: String,
    },
    Run {
        org: String,
        playbook: String,
        run_id: String,
    },
    RunPicture {
        org: String,
        playbook: String,
        run_id: String,
    },
    Requests {
        org: String,
        playbook: String,
    },
    PlaybookComments {
        org: String,
        playbook: String,
    },
}

/// What a Studio form posts; `playbook` is none for the org's own comments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Post {
    Answer {
        org: String,
        playbook: String,
        run_id: String,
    },
    /// A workflow run again from a step (`rerun_run`).
    Rerun {
        org: String,
        playbook: String,
        run_id: String,
    },
    Comment {
        org: String,
        playbook: Option<String>,
    },
    Resolve {
        org: String,
        playbook: Option<String>,
        id: String,
    },
    Reopen {
        org: String,
        playbook: Option<String>,
        id: String,
    },
}

/// Whether a path is Studio's.
pub fn owns(path: &str) -> bool {
    path == ROOT || path.starts_with("/studio/")
}

fn segments(path: &str) -> Option<Vec<String>> {
    let rest = path.strip_prefix(ROOT)?.trim_end_matches('/');
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    if rest.is_empty() {
        return Some(Vec::new());
    }
    rest.split('/').map(|s| decode_segment(s).filter(|d| !d.is_empty() && !d.contains('/'))).collect()
}

/// The page a `GET` of `path` shows, or none for an address Studio has no page at.
pub fn page(path: &str) -> Option<Page> {
    let s = segments(path)?;
    let s: Vec<&str> = s.iter().map(String::as_str).collect();
    let o = |x: &str| x.to_string();
    Some(match s.as_slice() {
        [] => Page::Root,
        [org] => Page::Home { org: o(org) },
        [org, "comments"] => Page::OrgComments { org: o(org) },
        [org, "playbooks", pb] => Page::Playbook { org: o(org), playbook: o(pb) },
        [org, "playbooks", pb, "ledger"] => Page::Ledger { org: o(org), playbook: o(pb) },
        [org, "playbooks", pb, "requests"] => Page::Requests { org: o(org), playbook: o(pb) },
        [org, "playbooks", pb, "comments"] => Page::PlaybookComments { org: o(org), playbook: o(pb) },
        [org, "playbooks", pb, "runs", run] => Page::Run { org: o(org), playbook: o(pb), run_id: o(run) },
        [org, "playbooks", pb, "runs", run, "picture.svg"] => {
            Page::RunPicture { org: o(org), playbook: o(pb), run_id: o(run) }
        }
        [org, "playbooks", pb, "definitions", "workflow", name, "picture.svg"] => {
            Page::DefinitionPicture { org: o(org), playbook: o(pb), name: o(name) }
        }
        [org, "playbooks", pb, "definitions", kind, name] => {
            Page::Definition { org: o(org), playbook: o(pb), kind: o(kind), name: o(name) }
        }
        _ => return None,
    })
}

/// The form a `POST` to `path` sends, or none where Studio takes no form.
pub fn post(path: &str) -> Option<Post> {
    let s = segments(path)?;
    let s: Vec<&str> = s.iter().map(String::as_str).collect();
    let o = |x: &str| x.to_string();
    let on = |pb: Option<&str>| pb.map(str::to_string);
    Some(match s.as_slice() {
        [org, "playbooks", pb, "requests", run, "answer"] => {
            Post::Answer { org: o(org), playbook: o(pb), run_id: o(run) }
        }
        [org, "playbooks", pb, "runs", run, "rerun"] => Post::Rerun { org: o(org), playbook: o(pb), run_id: o(run) },
        [org, "comments"] => Post::Comment { org: o(org), playbook: None },
        [org, "playbooks", pb, "comments"] => Post::Comment { org: o(org), playbook: on(Some(pb)) },
        [org, "comments", id, "resolve"] => Post::Resolve { org: o(org), playbook: None, id: o(id) },
        [org, "comments", id, "reopen"] => Post::Reopen { org: o(org), playbook: None, id: o(id) },
        [org, "playbooks", pb, "comments", id, "resolve"] => {
            Post::Resolve { org: o(org), playbook: on(Some(pb)), id: o(id) }
        }
        [org, "playbooks", pb, "comments", id, "reopen"] => {
            Post::Reopen { org: o(org), playbook: on(Some(pb)), id: o(id) }
        }
        _ => return None,
    })
}

impl Page {
    /// The org the page is of; none for `/studio` itself.
    pub fn org(&self) -> Option<&str> {
        match self {
            Page::Root => None,
            Page::Home { org }
            | Page::OrgComments { org }
            | Page::Playbook { org, .. }
            | Page::Definition { org, .. }
            | Page::DefinitionPicture { org, .. }
            | Page::Ledger { org, .. }
            | Page::Run { org, .. }
            | Page::RunPicture { org, .. }
            | Page::Requests { org, .. }
            | Page::PlaybookComments { org, .. } => Some(org),
        }
    }
}

impl Post {
    pub fn org(&self) -> &str {
        match self {
            Post::Answer { org, .. }
            | Post::Rerun { org, .. }
            | Post::Comment { org, .. }
            | Post::Resolve { org, .. }
            | Post::Reopen { org, .. } => org,
        }
    }
}

/// Where a form may send the person back to: a Studio page of this runtime, nothing else.
pub fn back(requested: &str) -> Option<&str> {
    let ours = requested.starts_with("/studio/")
        && !requested.contains("//")
        && requested.len() <= 512
        && requested.chars().all(|c| c.is_ascii_graphic() && c != '\\');
    ours.then_some(requested)
}
