//! The instructions a connecting agent receives, written for its caller (spec: Endpoints).

use super::endpoint::Endpoint;
use crate::core::Caller;

/// The two sentences that must end within the first 512 characters, whatever the caller is called.
pub const OPENING: &str = "Before building or changing anything, read the guide start with get_guide: it says which function type each part of a job takes. A playbook is built from the job: each part is a function of the type its work needs, and a workflow runs the parts in order.";

pub fn text(caller: &Caller, endpoint: &Endpoint) -> String {
    naming(caller, endpoint, &caller.acts_as_sentence())
}

/// The instructions with `acts_as` in place of the sentence that names the caller: `/debug`,
/// which knows no caller, puts a mark there.
pub fn naming(caller: &Caller, endpoint: &Endpoint, acts_as: &str) -> String {
    [
        OPENING,
        "A playbook holds work that keeps running after a conversation, in any line of business. Auto Runtime makes and runs playbooks, Studio manages them, and you are a separate client. A playbook contains one brain, its reusable functions, and workflows, with its runs.",
        &endpoint.acts_on(caller),
        acts_as,
        "So when a result says who created, added, connected, started or answered something, tell the person you act for from the others by these names.",
        "A tool that cannot do what was asked says why and what to change.",
    ]
    .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_ends_within_512_characters_and_names_the_caller() {
        assert!(OPENING.chars().count() <= 512);
        let long = Caller::local(Some("x".repeat(300)));
        let t = text(&long, &Endpoint::Root);
        assert!(t.starts_with(OPENING));
        assert!(t.contains("in the org local."));
        assert!(t.contains("A playbook contains one brain, its reusable functions, and workflows, with its runs."));
        assert!(t.contains("who created, added, connected, started or answered something"));
    }
}
