//! A workflow offered to agents as a tool of its own: what its front matter's `tool` says, the
//! tool a run-mode endpoint lists from it, and the check of a call's arguments before a run starts.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::{Findings, Kind};
use crate::core::error::{FieldError, Problem};
use crate::core::workflow::plan::{Action, Plan};

/// What a run-mode endpoint lists beside the workflows' own tools: the tools that follow a run
/// it started, and the guides, which the instructions name first. No workflow's tool takes
/// their names.
pub const RUN_MODE_TOOLS: &[&str] =
    &["get_run", "list_runs", "cancel_run", "list_interactions", "answer_interaction", "get_guide"];

pub const TOOL_NAME_MAX: usize = 40;
/// The longest a call waits for its run to end before it answers the run's handle.
pub const WAIT_MAX_SECONDS: u64 = 10;
const DESCRIPTION_MAX: usize = 1000;

/// What a workflow's `tool` says: the name agents call it by, its words, and how long a call
/// waits for the run's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOffer {
    pub name: String,
    /// Where left out, the workflow's own description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub wait_seconds: u64,
}

/// The offer a workflow's front matter makes, where it makes one; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<ToolOffer> {
    f.mapping("/tool", false)?;
    f.only_keys("/tool", &["name", "description", "wait_seconds"], "tool");
    let name = f.string("/tool/name", true, TOOL_NAME_MAX).map(str::to_string);
    if let Some(problem) = name.as_deref().and_then(name_problem) {
        f.error("/tool/name", problem);
    }
    let description = f.string("/tool/description", false, DESCRIPTION_MAX).map(str::to_string);
    // A misfit is among the findings already, which refuse the whole document.
    let wait_seconds =
        f.integer("/tool/wait_seconds", 0, WAIT_MAX_SECONDS as i64).map_or(WAIT_MAX_SECONDS, |n| n as u64);
    let name = name.filter(|n| name_problem(n).is_none())?;
    Some(ToolOffer { name, description, wait_seconds })
}

/// A tool's name: a lowercase letter, then lowercase letters, digits and `_`.
pub fn name_problem(name: &str) -> Option<String> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.len() <= TOOL_NAME_MAX
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if RUN_MODE_TOOLS.contains(&name) {
        return Some(format!(
            "is the name of a tool every run-mode endpoint lists beside the workflows' own ({}); choose another",
            RUN_MODE_TOOLS.join(", ")
        ));
    }
    (!ok).then(|| {
        format!("must be a lowercase letter, then lowercase letters, digits and _, at most {TOOL_NAME_MAX} characters, as review_brief")
    })
}

/// A workflow offered as a tool, as its playbook answers it to a run-mode endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Offered {
    /// The workflow's name.
    pub workflow: String,
    pub tool: ToolOffer,
    /// The tool's words: the offer's, or the workflow's description.
    pub description: String,
    pub input_schema: Value,
    /// Every step only reads: a wait, a computation or a lookup.
    pub reads_only: bool,
    /// Some step reaches past the runtime: a model, a tool server or a person.
    pub open_world: bool,
}

impl Offered {
    pub fn of(workflow: &str, tool: &ToolOffer, description: &str, input_schema: &Value, plan: &Plan) -> Offered {
        let kinds: Vec<Option<Kind>> = plan
            .steps
            .iter()
            .map(|s| match &s.action {
                Action::Call { function, .. } => Some(function.kind),
                Action::Wait(_) => None,
            })
            .collect();
        let reads = |k: &Option<Kind>| matches!(k, None | Some(Kind::Computation | Kind::Lookup));
        let closed = |k: &Option<Kind>| matches!(k, None | Some(Kind::Computation));
        Offered {
            workflow: workflow.to_string(),
            tool: tool.clone(),
            description: tool.description.clone().unwrap_or_else(|| description.to_string()),
            input_schema: input_schema.clone(),
            reads_only: kinds.iter().all(reads),
            open_world: !kinds.iter().all(closed),
        }
    }
}

/// The arguments of a call, refused before anything runs where they name what the input schema
/// does not declare: a misspelt argument would otherwise pass unread.
pub fn check_arguments(schema: &Value, arguments: &Map<String, Value>) -> Result<(), Problem> {
    let declared = schema.get("properties").and_then(Value::as_object);
    let undeclared: Vec<FieldError> = arguments
        .keys()
        .filter(|k| !declared.is_some_and(|d| d.contains_key(k.as_str())))
        .map(|k| {
            let names: Vec<&str> = declared.map(|d| d.keys().map(String::as_str).collect()).unwrap_or_default();
            let takes = if names.is_empty() { "none".to_string() } else { names.join(", ") };
            FieldError::new(
                format!("/{}", super::escape(k)),
                format!("is not an input of this workflow, which takes {takes}"),
            )
        })
        .collect();
    if undeclared.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(undeclared))
    }
}

/// The input schema a tool lists: the workflow's, as an object schema even where it says less.
pub fn listed_schema(schema: &Value) -> Value {
    let mut listed = schema.clone();
    if let Some(map) = listed.as_object_mut() {
        map.insert("type".into(), json!("object"));
    }
    listed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{spec, Spec};

    fn workflow(tool: &str) -> String {
        format!(
            "---\ndescription: Adds VAT\ninput:\n  schema:\n    type: object\n    properties:\n      net: {{ type: number }}\n{tool}steps:\n  - id: add\n    function: computation/add-vat\n    input:\n      net: input.net\n---\n"
        )
    }

    #[test]
    fn a_workflow_offers_itself_as_a_tool() {
        let doc = workflow("tool:\n  name: add_vat\n  wait_seconds: 3\n");
        let Ok(Spec::Workflow(w)) = spec(Kind::Workflow, &doc) else { panic!("checks") };
        let offer = w.tool().cloned().unwrap();
        assert_eq!(offer, ToolOffer { name: "add_vat".into(), description: None, wait_seconds: 3 });
        let offered = Offered::of("add-vat-flow", &offer, "Adds VAT", w.input_schema(), w.plan());
        assert_eq!(offered.description, "Adds VAT");
        assert!(offered.reads_only && !offered.open_world);
        let defaulted = spec(Kind::Workflow, &workflow("tool: { name: add_vat }\n")).unwrap();
        let Spec::Workflow(w) = defaulted else { panic!() };
        assert_eq!(w.tool().map(|t| t.wait_seconds), Some(WAIT_MAX_SECONDS));
    }

    #[test]
    fn a_bad_offer_is_refused_at_its_pointer() {
        for (tool, pointer) in [
            ("tool: { name: Add-VAT }\n", "/tool/name"),
            ("tool: { name: add_vat, wait_seconds: 11 }\n", "/tool/wait_seconds"),
            ("tool: { name: add_vat, waits: 1 }\n", "/tool/waits"),
            ("tool: { description: adds }\n", "/tool/name"),
            ("tool: add_vat\n", "/tool"),
        ] {
            let p = spec(Kind::Workflow, &workflow(tool)).unwrap_err();
            assert!(p.errors.iter().any(|e| e.pointer == pointer), "{tool}: {:?}", p.errors);
        }
        assert!(name_problem(&"a".repeat(41)).is_some() && name_problem(&"a".repeat(40)).is_none());
        assert!(name_problem("get_run").is_some_and(|p| p.contains("run-mode endpoint")));
    }

    #[test]
    fn an_undeclared_argument_is_refused() {
        let schema = json!({ "type": "object", "properties": { "net": { "type": "number" } } });
        let args = json!({ "net": 1, "nett": 2 });
        let p = check_arguments(&schema, args.as_object().unwrap()).unwrap_err();
        assert_eq!(p.errors[0].pointer, "/nett");
        assert!(p.errors[0].detail.contains("takes net"), "{}", p.errors[0].detail);
        assert!(check_arguments(&schema, json!({ "net": 1 }).as_object().unwrap()).is_ok());
    }
}
