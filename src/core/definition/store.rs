//! What the playbook's object is asked to do with definitions, and the pure rules of a save:
//! a new definition, a new version, or nothing when the save repeats the current version.

use serde::{Deserialize, Serialize};

use super::record::{Definition, DefinitionStatus, Lifecycle, Version};
use super::{Checked, Kind, Ref};
use crate::core::actor::Actor;
use crate::core::definition::workflow_tool::ToolOffer;
use crate::core::error::{FieldError, Problem};
use crate::core::text::quote;

pub const LIST_LIMIT_MAX: usize = 100;
/// Every version stays readable by its number, each up to a document's 64 KiB, so one definition's
/// versions are bounded to keep its playbook's store within what one object holds.
pub const VERSIONS_MAX: u32 = 10_000;
/// The limit as a refusal writes it.
const VERSIONS_MAX_WORDS: &str = "10,000";

/// A save, checked before it reaches storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveCommand {
    #[serde(rename = "type")]
    pub kind: Kind,
    pub name: String,
    pub source: String,
    pub overview: String,
    pub diagram: Option<String>,
    pub description: String,
    pub has_page: bool,
    pub uses: Vec<Ref>,
    /// The tool a workflow offers itself as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolOffer>,
    pub now: String,
    pub by: Actor,
}

/// What a save gives: the document and what is given beside it.
pub struct Written {
    pub source: String,
    pub overview: String,
    pub diagram: Option<String>,
}

impl SaveCommand {
    pub fn new(kind: Kind, name: String, written: Written, checked: Checked, now: String, by: Actor) -> Self {
        SaveCommand {
            kind,
            name,
            source: written.source,
            overview: written.overview,
            diagram: written.diagram,
            description: checked.description,
            has_page: checked.has_page,
            uses: checked.uses,
            tool: checked.tool,
            now,
            by,
        }
    }
}

crate::core::json::tagged::tagged! {
    /// A write of one definition: a new definition, a new version of one, or a change of its state;
    /// or a save checked as the one it would be (an update where the name is held, else a
    /// create) and kept not.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum DefinitionCommand as "op" {
        Create(SaveCommand),
        Update(SaveCommand),
        Check(SaveCommand),
        Change {
            #[serde(rename = "type")]
            kind: Kind,
            name: String,
            change: Lifecycle,
            now: String,
            by: Actor,
        },
    }
}

/// Whether a save makes a new definition or a new version of one that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Create,
    Update,
}

/// A write of a definition in a playbook, with the playbook's org, which the runs its workflows'
/// triggers start belong to. It answers the definition as it stands after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteDefinition {
    pub playbook: String,
    pub org: String,
    pub command: DefinitionCommand,
}

/// A read of one definition of a playbook as it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetDefinition {
    pub playbook: String,
    pub definition: Ref,
    /// A version it was saved at, read as it was then; none reads the current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
}

/// A page of a playbook's definitions of one type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListDefinitions {
    pub playbook: String,
    pub query: DefinitionQuery,
}

/// The workflows a playbook offers as tools, for a run-mode endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListOffered {
    pub playbook: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefinitionQuery {
    #[serde(rename = "type")]
    pub kind: Kind,
    pub include_retired: bool,
    pub limit: usize,
    /// The name the page before ended on; pages go by name.
    pub after: Option<String>,
}

/// A definition whole, as reads and saves answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefinitionView {
    #[serde(flatten)]
    pub definition: Definition,
    pub document: String,
    pub overview: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagram: Option<String>,
    pub used_by: Vec<Ref>,
    /// Whether the call changed anything; a repeated save or change answers false.
    #[serde(default)]
    pub changed: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DefinitionPage {
    pub definitions: Vec<Definition>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // lives for one save; boxing would buy nothing
pub enum SaveDecision {
    Keep(Definition, Version),
    Unchanged,
}

/// Decides a create or update from the definition as it stands and the uses the playbook
/// cannot satisfy (named definitions it does not hold, or holds retired).
pub fn decide_save(
    save: &SaveCommand,
    mode: Mode,
    existing: Option<(&Definition, &Version)>,
    missing: &[Ref],
) -> Result<SaveDecision, Problem> {
    let creating = mode == Mode::Create;
    let me = Ref { kind: save.kind, name: save.name.clone() };
    if save.uses.contains(&me) {
        return Err(Problem::invalid_fields(vec![FieldError::new(
            "/runs/of",
            "names this definition itself; a lookup reads the runs of another definition of the playbook",
        )
        .within("source")]));
    }
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|r| r.key()).collect();
        return Err(Problem::invalid_fields(vec![FieldError::new(
            "/runs/of",
            format!(
                "names {}, which this playbook does not hold as an active or paused definition; create it first",
                names.join(", ")
            ),
        )
        .within("source")])
        .with_kind(crate::core::ErrorCode::UnknownDefinition));
    }
    match (creating, existing) {
        (true, Some((def, _))) => Err(Problem::conflict(match def.status {
            DefinitionStatus::Retired { .. } => format!(
                "The {} {} exists, retired: a name stays with its definition. Bring it back with restore_definition, or choose another name.",
                save.kind.noun(),
                quote(&save.name)
            ),
            _ => format!(
                "The {} {} exists already, at version {}. Change it with update_definition, or choose another name.",
                save.kind.noun(),
                quote(&save.name),
                def.version
            ),
        })
        .with_field("/name", "is taken in this playbook")),
        (false, None) => Err(super::record::unknown_definition(save.kind, &save.name)),
        (true, None) => Ok(SaveDecision::Keep(
            Definition {
                kind: save.kind,
                name: save.name.clone(),
                version: 1,
                status: DefinitionStatus::Active,
                description: save.description.clone(),
                has_page: save.has_page,
                tool: save.tool.clone(),
                created_at: save.now.clone(),
                updated_at: save.now.clone(),
                created_by: Some(save.by.clone()),
                updated_by: Some(save.by.clone()),
            },
            version(save, 1),
        )),
        (false, Some((def, current))) => {
            if let DefinitionStatus::Retired { .. } = def.status {
                return Err(Problem::conflict(format!(
                    "The {} {} is retired, and a retired definition does not change. Restore it with restore_definition first.",
                    save.kind.noun(),
                    quote(&save.name)
                )));
            }
            if current.source == save.source && current.overview == save.overview && current.diagram == save.diagram {
                return Ok(SaveDecision::Unchanged);
            }
            if def.version >= VERSIONS_MAX {
                return Err(Problem::conflict(format!(
                    "The {} {} has {VERSIONS_MAX_WORDS} versions, the most a definition keeps: it takes no more. Create a definition under a new name from this document instead.",
                    save.kind.noun(),
                    quote(&save.name)
                )));
            }
            let next = def.version + 1;
            let updated = Definition {
                version: next,
                description: save.description.clone(),
                has_page: save.has_page,
                tool: save.tool.clone(),
                updated_at: save.now.clone(),
                updated_by: Some(save.by.clone()),
                ..def.clone()
            };
            Ok(SaveDecision::Keep(updated, version(save, next)))
        }
    }
}

fn version(save: &SaveCommand, number: u32) -> Version {
    Version {
        version: number,
        source: save.source.clone(),
        overview: save.overview.clone(),
        diagram: save.diagram.clone(),
        uses: save.uses.clone(),
        saved_at: save.now.clone(),
        created_by: Some(save.by.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn save(source: &str) -> SaveCommand {
        SaveCommand {
            kind: Kind::Computation,
            name: "add-vat".into(),
            source: source.into(),
            overview: "o".into(),
            diagram: Some("flowchart TD\nA-->B".into()),
            description: "Adds VAT".into(),
            has_page: false,
            uses: vec![],
            tool: None,
            now: "t1".into(),
            by: Actor::of(&crate::core::Caller::local(None)),
        }
    }

    #[test]
    fn versions_grow_only_when_something_changed() {
        let SaveDecision::Keep(def, v1) = decide_save(&save("a"), Mode::Create, None, &[]).unwrap() else { panic!() };
        assert_eq!((def.version, v1.version), (1, 1));
        assert_eq!(decide_save(&save("a"), Mode::Update, Some((&def, &v1)), &[]).unwrap(), SaveDecision::Unchanged);
        let SaveDecision::Keep(def2, _) = decide_save(&save("b"), Mode::Update, Some((&def, &v1)), &[]).unwrap() else {
            panic!()
        };
        assert_eq!(def2.version, 2);
        assert_eq!(
            decide_save(&save("a"), Mode::Create, Some((&def, &v1)), &[]).unwrap_err().reason,
            crate::core::Reason::Conflict
        );
        let missing = [Ref { kind: Kind::Reasoning, name: "x".into() }];
        assert!(decide_save(&save("a"), Mode::Create, None, &missing).is_err());
    }

    #[test]
    fn a_definition_takes_no_version_past_its_limit() {
        let SaveDecision::Keep(def, v1) = decide_save(&save("a"), Mode::Create, None, &[]).unwrap() else { panic!() };
        let below = Definition { version: VERSIONS_MAX - 1, ..def.clone() };
        let SaveDecision::Keep(last, _) = decide_save(&save("b"), Mode::Update, Some((&below, &v1)), &[]).unwrap()
        else {
            panic!()
        };
        assert_eq!(last.version, VERSIONS_MAX);
        let p = decide_save(&save("c"), Mode::Update, Some((&last, &v1)), &[]).unwrap_err();
        assert_eq!(p.status(), 409);
        assert!(p.detail.contains("has 10,000 versions, the most a definition keeps"), "{}", p.detail);
        // Saving what it already holds still answers, unchanged.
        let same = decide_save(&save("a"), Mode::Update, Some((&last, &v1)), &[]).unwrap();
        assert_eq!(same, SaveDecision::Unchanged);
    }
}
