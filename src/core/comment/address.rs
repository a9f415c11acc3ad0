//! What a comment is about: its address, relative to the playbook (the playbook's comments) or
//! to the organization (the org's own). An address is text a person's page writes and an agent
//! reads back; `parse` checks it against the grammar and refuses it at `/address` with the forms
//! it may take.

use std::fmt;

use crate::core::definition::Kind;
use crate::core::Problem;

/// The longest address kept.
pub const ADDRESS_MAX: usize = 512;
/// The longest id or name one segment of an address holds.
const SEGMENT_MAX: usize = 64;

/// Whose comments an address is among.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whose {
    /// A playbook's: its things, relative to the playbook.
    Playbook,
    /// The organization's own: its things, relative to the org.
    Org,
}

/// The forms an address of a playbook's thing takes, as a refusal lists them.
pub const PLAYBOOK_FORMS: &str = "playbook, ledger, definitions/{type}/{name}[/{part}], runs/{run_id}[/{part}] or requests/{interaction_id}, where a part is words of a-z, 0-9, _, . and - separated by /, such as definitions/workflow/review-and-approve/steps/review_brief";
/// The forms an address of the organization's own thing takes.
pub const ORG_FORMS: &str = "org, connections/{id}, members/{person} or settings/{page}";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// The playbook itself, its page among it.
    Playbook,
    /// The playbook's Ledger: its runs.
    Ledger,
    /// A definition, or a part of it such as `steps/review_brief`, `prompt` or `page/figures/x`.
    Definition {
        kind: Kind,
        name: String,
        part: Option<String>,
    },
    /// A run, or a part of it such as `result`.
    Run {
        run_id: String,
        part: Option<String>,
    },
    /// An open request of an interaction function, named by its run.
    Request {
        interaction_id: String,
    },
    /// The organization itself.
    Org,
    Connection {
        id: String,
    },
    Member {
        person: String,
    },
    Settings {
        page: String,
    },
}

impl Address {
    /// Reads an address among `whose` comments, or refuses it at `/address` in words that list
    /// the forms it may take.
    pub fn parse(text: &str, whose: Whose) -> Result<Address, Problem> {
        let refuse = || match whose {
            Whose::Playbook => Problem::invalid(
                "/address",
                format!("is not the address of a thing of a playbook: an address is {PLAYBOOK_FORMS}"),
            ),
            Whose::Org => Problem::invalid(
                "/address",
                format!("is not the address of a thing of the organization: an address is {ORG_FORMS}"),
            ),
        };
        if text.is_empty() || text.len() > ADDRESS_MAX {
            return Err(refuse());
        }
        let segments: Vec<&str> = text.split('/').collect();
        let part = |from: usize| -> Result<Option<String>, Problem> {
            let rest = segments.get(from..).unwrap_or_default();
            if rest.is_empty() {
                return Ok(None);
            }
            if rest.iter().all(|s| is_word(s)) {
                Ok(Some(rest.join("/")))
            } else {
                Err(refuse())
            }
        };
        let address = match (whose, segments.as_slice()) {
            (Whose::Playbook, ["playbook"]) => Address::Playbook,
            (Whose::Playbook, ["ledger"]) => Address::Ledger,
            (Whose::Playbook, ["definitions", kind, name, ..]) => {
                let kind = Kind::parse(kind).ok_or_else(refuse)?;
                if crate::core::definition::name_problem(name).is_some() {
                    return Err(refuse());
                }
                Address::Definition { kind, name: name.to_string(), part: part(3)? }
            }
            (Whose::Playbook, ["runs", run_id, ..]) if is_id(run_id) => {
                Address::Run { run_id: run_id.to_string(), part: part(2)? }
            }
            (Whose::Playbook, ["requests", id]) if is_id(id) => Address::Request { interaction_id: id.to_string() },
            (Whose::Org, ["org"]) => Address::Org,
            (Whose::Org, ["connections", id]) if is_id(id) => Address::Connection { id: id.to_string() },
            (Whose::Org, ["members", person]) if is_person(person) => Address::Member { person: person.to_string() },
            (Whose::Org, ["settings", page]) if is_word(page) => Address::Settings { page: page.to_string() },
            _ => return Err(refuse()),
        };
        Ok(address)
    }

    /// Whose comments an address is among.
    pub fn whose(&self) -> Whose {
        match self {
            Address::Org | Address::Connection { .. } | Address::Member { .. } | Address::Settings { .. } => Whose::Org,
            _ => Whose::Playbook,
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tail = |part: &Option<String>| part.as_ref().map(|p| format!("/{p}")).unwrap_or_default();
        match self {
            Address::Playbook => f.write_str("playbook"),
            Address::Ledger => f.write_str("ledger"),
            Address::Definition { kind, name, part } => write!(f, "definitions/{}/{name}{}", kind.as_str(), tail(part)),
            Address::Run { run_id, part } => write!(f, "runs/{run_id}{}", tail(part)),
            Address::Request { interaction_id } => write!(f, "requests/{interaction_id}"),
            Address::Org => f.write_str("org"),
            Address::Connection { id } => write!(f, "connections/{id}"),
            Address::Member { person } => write!(f, "members/{person}"),
            Address::Settings { page } => write!(f, "settings/{page}"),
        }
    }
}

/// A word of a part: `[a-z0-9_.-]`, not `.` or `..`.
fn is_word(s: &str) -> bool {
    (1..=SEGMENT_MAX).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'.' | b'-'))
        && s != "."
        && s != ".."
}

/// A run's, a request's or a connection's id: letters, digits, `-` and `_`.
fn is_id(s: &str) -> bool {
    (1..=SEGMENT_MAX).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
}

/// A person as the runtime names them: their id, which may carry `@`, `.`, `:` and `|`.
fn is_person(s: &str) -> bool {
    (1..=256).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'@' | b':' | b'|' | b'+'))
}

/// Whether `under` is a prefix an address may be listed under: the words of an address, at a
/// `/` boundary (`definitions`, `definitions/workflow/review`, `runs/run_1`).
pub fn check_under(under: &str) -> Result<(), Problem> {
    let fits = !under.is_empty()
        && under.len() <= ADDRESS_MAX
        && under.split('/').all(|s| is_word(s) || is_id(s) || is_person(s));
    if fits {
        Ok(())
    } else {
        Err(Problem::invalid(
            "/under",
            "is not the start of an address: give its first words whole, separated by /, such as definitions/workflow/review-and-approve or runs",
        ))
    }
}

/// Whether `address` is `under`, or under it at a `/` boundary: `runs/run_1/result` is under
/// `runs/run_1`, and `runs/run_10` is not.
pub fn is_under(address: &str, under: &str) -> bool {
    address == under || address.strip_prefix(under).is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(text: &str, whose: Whose) -> Address {
        let a = Address::parse(text, whose).unwrap_or_else(|p| panic!("{text}: {}", p.words()));
        assert_eq!(a.to_string(), text, "written back as read");
        assert_eq!(a.whose(), whose);
        a
    }

    #[test]
    fn every_form_of_a_playbooks_address_is_read_and_written_back() {
        assert_eq!(reads("playbook", Whose::Playbook), Address::Playbook);
        assert_eq!(reads("ledger", Whose::Playbook), Address::Ledger);
        assert_eq!(
            reads("definitions/workflow/review-and-approve/steps/review_brief", Whose::Playbook),
            Address::Definition {
                kind: Kind::Workflow,
                name: "review-and-approve".into(),
                part: Some("steps/review_brief".into())
            }
        );
        reads("definitions/reasoning/draft-brief", Whose::Playbook);
        reads("definitions/computation/score/page/figures/approved", Whose::Playbook);
        assert_eq!(
            reads("runs/run_abc/result", Whose::Playbook),
            Address::Run { run_id: "run_abc".into(), part: Some("result".into()) }
        );
        reads("runs/Nightly-7", Whose::Playbook);
        reads("requests/run_abc", Whose::Playbook);
    }

    #[test]
    fn every_form_of_the_orgs_address_is_read_and_written_back() {
        assert_eq!(reads("org", Whose::Org), Address::Org);
        reads("connections/conn_abc", Whose::Org);
        reads("members/ada@example.com", Whose::Org);
        reads("settings/billing", Whose::Org);
    }

    #[test]
    fn an_address_outside_the_grammar_is_refused_with_its_forms() {
        for bad in [
            "",
            "playbooks",
            "definitions/workflow",
            "definitions/job/x",
            "definitions/workflow/Bad",
            "definitions/workflow/x/Steps",
            "definitions/workflow/x/steps//a",
            "definitions/workflow/x/..",
            "runs/",
            "runs/a b",
            "requests/x/y",
            "org",
            "/ledger",
            "ledger/",
        ] {
            let p = Address::parse(bad, Whose::Playbook).expect_err(bad);
            assert_eq!(p.errors[0].pointer, "/address", "{bad}");
            assert!(p.errors[0].detail.contains("runs/{run_id}[/{part}]"), "{bad}");
        }
        let p = Address::parse("ledger", Whose::Org).expect_err("a playbook's thing among the org's own");
        assert!(p.errors[0].detail.contains("settings/{page}"));
        assert!(Address::parse(&"a".repeat(ADDRESS_MAX + 1), Whose::Org).is_err());
    }

    #[test]
    fn under_is_a_prefix_at_a_slash() {
        assert!(is_under("runs/run_1/result", "runs/run_1"));
        assert!(is_under("runs/run_1", "runs/run_1"));
        assert!(!is_under("runs/run_10", "runs/run_1"));
        assert!(is_under("definitions/workflow/x/steps/a", "definitions"));
        assert!(check_under("definitions/workflow").is_ok());
        assert_eq!(check_under("runs/").map_err(|p| p.errors[0].pointer.clone()), Err("/under".into()));
        assert!(check_under("a b").is_err());
    }
}
