//! What names a definition: its type and its name, as `lookup/recent-briefs`.

use serde::{Deserialize, Serialize};

use crate::core::error::Problem;

/// The types of definition. Every type is named here; `served` says which this runtime saves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Reasoning,
    Lookup,
    Interaction,
    Prediction,
    Computation,
    Generation,
    Workflow,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Reasoning,
        Kind::Lookup,
        Kind::Interaction,
        Kind::Prediction,
        Kind::Computation,
        Kind::Generation,
        Kind::Workflow,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Reasoning => "reasoning",
            Kind::Lookup => "lookup",
            Kind::Interaction => "interaction",
            Kind::Prediction => "prediction",
            Kind::Computation => "computation",
            Kind::Generation => "generation",
            Kind::Workflow => "workflow",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether this runtime saves and runs definitions of the type: every type of the spec, now
    /// that generation functions run. Kept, with `not_served`, for a type a release adds later.
    pub fn served(self) -> bool {
        true
    }

    pub fn is_function(self) -> bool {
        self != Kind::Workflow
    }

    /// `the reasoning function`, `the workflow`: how summaries name the type.
    pub fn noun(self) -> String {
        match self {
            Kind::Workflow => "workflow".into(),
            k => format!("{} function", k.as_str()),
        }
    }

    /// The refusal of a type the runtime does not serve yet, at the `type` argument.
    pub fn not_served(self) -> Problem {
        let functions: Vec<String> =
            Kind::ALL.iter().filter(|k| k.served() && k.is_function()).map(|k| k.as_str().to_string()).collect();
        let workflows = if Kind::Workflow.served() { ", and workflows" } else { "" };
        Problem::unavailable(format!(
            "This runtime does not serve {} definitions yet. It saves {} functions{workflows}.",
            self.as_str(),
            crate::core::text::join_and(&functions)
        ))
        .with_kind(crate::core::ErrorCode::TypeNotServed)
        .with_field("/type", format!("{} is not served yet", self.as_str()))
    }
}

/// A definition named by its type and name, as a lookup or a step names another: `lookup/recent-briefs`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct Ref {
    #[serde(rename = "type")]
    pub kind: Kind,
    pub name: String,
}

impl Ref {
    pub fn parse(s: &str) -> Option<Ref> {
        let (kind, name) = s.split_once('/')?;
        let kind = Kind::parse(kind)?;
        name_problem(name).is_none().then(|| Ref { kind, name: name.to_string() })
    }

    pub fn key(&self) -> String {
        format!("{}/{}", self.kind.as_str(), self.name)
    }
}

pub const NAME_MAX: usize = 64;

/// A definition's name is its id within its type and playbook: lowercase letters, digits and
/// single hyphens, starting with a letter, 1 to 64 characters, as `approve-campaign-brief`.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() || name.len() > NAME_MAX {
        return Some(format!("must be 1 to {NAME_MAX} characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Some("must start with a lowercase letter".into());
    }
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        return Some("may hold only lowercase letters, digits and hyphens, as approve-campaign-brief".into());
    }
    if name.ends_with('-') || name.contains("--") {
        return Some("must not end with a hyphen or hold two in a row".into());
    }
    None
}
