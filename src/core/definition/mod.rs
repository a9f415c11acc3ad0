//! Definitions: a function written as one document, YAML front matter and a template body,
//! checked by the rules of its type before it is saved.

pub mod check;
pub mod computation;
mod document;
pub mod generation;
pub mod interaction;
mod kind;
pub mod lookup;
mod overview;
pub mod page;
pub mod prediction;
pub mod reasoning;
pub mod record;
pub mod store;
pub mod template;
pub mod tool_call;
pub mod workflow;
pub mod workflow_calls;
mod workflow_graph;
#[cfg(test)]
pub(crate) mod workflow_tests;
pub mod workflow_tool;

pub use check::{escape, Findings};
pub use document::Document;
pub use kind::{name_problem, Kind, Ref, NAME_MAX};
pub use overview::{check_diagram, check_extras, check_overview};
pub use record::{Definition, DefinitionStatus, Version};

use serde_json::Value;

use super::error::Problem;
use super::memo::Memo;
use computation::ComputationSpec;
use generation::GenerationSpec;
use interaction::InteractionSpec;
use lookup::LookupSpec;
use prediction::PredictionSpec;
use reasoning::ReasoningSpec;
use workflow::WorkflowSpec;

/// What checking a document found out that saving needs: the definitions it uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    pub description: String,
    pub has_page: bool,
    /// The page's template, where the document gives one.
    pub page: Option<String>,
    /// A workflow's glance, where it gives one.
    pub glance: Option<page::Glance>,
    /// Definitions of the playbook this one reads or runs; they count it in their `used_by`.
    pub uses: Vec<Ref>,
    /// The tools it names, each at its pointer in the front matter.
    pub tools: Vec<check::NamedTool>,
    /// The tool a workflow offers itself as.
    pub tool: Option<crate::core::definition::workflow_tool::ToolOffer>,
}

/// A document as its runs follow it, typed once with its defaults: the checker is the only way
/// to one, so every value a run reads has passed the checks and is bounded by them.
#[derive(Debug, Clone, PartialEq)]
pub enum Spec {
    Reasoning(ReasoningSpec),
    Lookup(LookupSpec),
    Interaction(InteractionSpec),
    Prediction(PredictionSpec),
    Computation(ComputationSpec),
    Generation(GenerationSpec),
    Workflow(Box<WorkflowSpec>),
}

impl Spec {
    /// The schema a run's input must fit, where the document has one.
    pub fn input_schema(&self) -> Option<&Value> {
        match self {
            Spec::Reasoning(s) => Some(s.input_schema()),
            Spec::Lookup(s) => s.input_schema(),
            Spec::Interaction(s) => Some(s.input_schema()),
            Spec::Prediction(s) => s.input_schema(),
            Spec::Computation(s) => Some(s.input_schema()),
            Spec::Generation(s) => Some(s.input_schema()),
            Spec::Workflow(s) => Some(s.input_schema()),
        }
    }

    /// The schema a run's output fits, where the document gives one.
    pub fn output_schema(&self) -> Option<&Value> {
        match self {
            Spec::Reasoning(s) => s.output_schema(),
            Spec::Computation(s) => Some(s.output_schema()),
            _ => None,
        }
    }

    /// The calls of tools a run makes without a model, in order.
    pub fn calls(&self) -> Vec<&tool_call::ToolCallSpec> {
        match self {
            Spec::Lookup(s) => s.tool_call().into_iter().collect(),
            Spec::Interaction(s) => s.calls(),
            _ => Vec::new(),
        }
    }

    /// Definitions of the playbook this one reads or runs.
    fn uses(&self) -> Vec<Ref> {
        match self {
            Spec::Lookup(s) => s.runs_of().cloned().into_iter().collect(),
            Spec::Workflow(s) => s.plan().uses(),
            _ => Vec::new(),
        }
    }
}

thread_local! {
    // A stored document is checked again before each run, by the start and again by the run's
    // object, and a function's each time a workflow that calls it is saved: the same text is
    // checked once per isolate. At most 64 documents of at most 64 KiB.
    static CHECKED: Memo<(Checked, Spec)> = Memo::new(64);
}

/// Checks a document of `kind`, reporting every problem found at once.
pub fn check_document(kind: Kind, source: &str) -> Result<Checked, Problem> {
    checked(kind, source, Pages::Checked).map(|(c, _)| c)
}

/// The spec of a document of `kind` as its runs follow it, refused as `check_document` refuses
/// it but for its page and glance: they present results and run nothing, so a page saved before
/// its format was checked never stops the definition's runs.
pub fn spec(kind: Kind, source: &str) -> Result<Spec, Problem> {
    checked(kind, source, Pages::Skipped).map(|(_, s)| s)
}

/// Whether a check reads the page and the glance.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pages {
    Checked,
    Skipped,
}

fn checked(kind: Kind, source: &str, pages: Pages) -> Result<(Checked, Spec), Problem> {
    if !kind.served() {
        return Err(kind.not_served());
    }
    let mark = if pages == Pages::Checked { "" } else { "-run" };
    let key = format!("{}{mark}\n{source}", kind.as_str());
    CHECKED.with(|memo| memo.get_or_try(&key, || check_anew(kind, source, pages)))
}

fn check_anew(kind: Kind, source: &str, pages: Pages) -> Result<(Checked, Spec), Problem> {
    let doc = Document::parse(source)?;
    let mut f = Findings::new(&doc);
    let description = f.description();
    let page = match pages {
        Pages::Checked => page::check_page(&mut f).map(str::to_string),
        Pages::Skipped => f.get("/page").and_then(serde_json::Value::as_str).map(str::to_string),
    };
    let glance = match (kind, pages) {
        (Kind::Workflow, Pages::Checked) => page::check_glance(&mut f),
        _ => None,
    };
    let spec = match kind {
        Kind::Reasoning => reasoning::check(&mut f).map(Spec::Reasoning),
        Kind::Lookup => lookup::check(&mut f).map(Spec::Lookup),
        Kind::Interaction => interaction::check(&mut f).map(Spec::Interaction),
        Kind::Computation => computation::check(&mut f).map(Spec::Computation),
        Kind::Prediction => prediction::check(&mut f).map(Spec::Prediction),
        Kind::Workflow => workflow::check(&mut f).map(|w| Spec::Workflow(Box::new(w))),
        Kind::Generation => generation::check(&mut f).map(Spec::Generation),
    };
    let tools = std::mem::take(&mut f.tools);
    f.finish()?;
    let spec = spec.ok_or_else(|| Problem::internal("the document passed its checks but has no spec"))?;
    let uses = spec.uses();
    let tool = match &spec {
        Spec::Workflow(w) => w.tool().cloned(),
        _ => None,
    };
    Ok((Checked { description, has_page: page.is_some(), page, glance, uses, tools, tool }, spec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(name_problem("approve-campaign-brief").is_none());
        for bad in ["", "Approve", "1st", "a_b", "a--b", "a-", &"a".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(Ref::parse("lookup/recent-briefs").map(|r| r.key()), Some("lookup/recent-briefs".into()));
        assert!(Ref::parse("nope/x").is_none());
    }

    #[test]
    fn a_generation_document_is_checked_as_its_type() {
        let doc = "---\ndescription: Reads a line aloud\nmodel: gateway/openai/dall-e-3\ninput:\n  schema:\n    type: object\n---\nHello\n";
        let p = check_document(Kind::Generation, doc).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/model");
        assert!(p.errors[0].detail.contains("name openai/gpt-image-2 instead"), "{}", p.errors[0].detail);
        let speech = doc
            .replace("openai/dall-e-3", "openai/tts-1")
            .replace("---\nHello", "parameters: { voice: nova }\n---\nHello");
        assert!(matches!(spec(Kind::Generation, &speech), Ok(Spec::Generation(_))));
    }
}
