//! A playbook's definitions over their store: a save checked against what the playbook holds
//! (what it uses exists, a workflow's calls fit their functions) and decided by
//! `core::definition::store`, a change of state, and a definition read with what uses it.

use super::DefinitionStore;
use crate::core::definition::record::{unknown_definition, Definition, DefinitionStatus, Version};
use crate::core::definition::store::{decide_save, DefinitionCommand, DefinitionView, Mode, SaveCommand, SaveDecision};
use crate::core::definition::store::{DefinitionQuery, LIST_LIMIT_MAX as DEFINITIONS_MAX};
use crate::core::definition::workflow;
use crate::core::definition::workflow_calls::{check_calls, Callee};
use crate::core::definition::workflow_tool::Offered;
use crate::core::definition::{spec, Kind, Ref, Spec};
use crate::core::error::FieldError;
use crate::core::text::quote;
use crate::core::Problem;

/// Keeps a write. A retired playbook takes none: `Tables::write_definition` refuses them first.
pub fn write(store: &dyn DefinitionStore, command: DefinitionCommand) -> Result<DefinitionView, Problem> {
    match command {
        DefinitionCommand::Create(save) => self::save(store, &save, Mode::Create, true),
        DefinitionCommand::Update(save) => self::save(store, &save, Mode::Update, true),
        DefinitionCommand::Check(save) => {
            let mode = if store.definition(save.kind, &save.name)?.is_some() { Mode::Update } else { Mode::Create };
            self::save(store, &save, mode, false)
        }
        DefinitionCommand::Change { kind, name, change, now, by } => {
            let mut def = store.definition(kind, &name)?.ok_or_else(|| unknown_definition(kind, &name))?;
            match change.next(&def, &now, &by)? {
                None => view(store, kind, &name, false),
                Some(status) => {
                    def.status = status;
                    def.updated_at = now;
                    def.updated_by = Some(by);
                    store.put(&def)?;
                    view(store, kind, &name, true)
                }
            }
        }
    }
}

/// Decides a save, and keeps it where `keep`; a save checked only answers the definition as the
/// save would leave it, `changed` where it would change it.
fn save(store: &dyn DefinitionStore, save: &SaveCommand, mode: Mode, keep: bool) -> Result<DefinitionView, Problem> {
    let existing = current(store, save.kind, &save.name)?;
    let missing = missing(store, &save.uses)?;
    if let Some(offer) = &save.tool {
        tool_name_free(store, &save.name, &offer.name)?;
    }
    if save.kind == Kind::Workflow && missing.is_empty() {
        let plan = workflow::plan(&save.source)?;
        check_calls(&plan, &|r: &Ref| {
            let (def, version) = current(store, r.kind, &r.name).ok().flatten()?;
            Some(Callee::from_source(matches!(def.status, DefinitionStatus::Retired { .. }), r.kind, &version.source))
        })?;
    }
    match decide_save(save, mode, existing.as_ref().map(|(d, v)| (d, v)), &missing)? {
        SaveDecision::Unchanged => view(store, save.kind, &save.name, false),
        SaveDecision::Keep(def, version) if !keep => shown(store, def, version, true),
        SaveDecision::Keep(def, version) => {
            store.put(&def)?;
            store.put_version(&def, &version)?;
            view(store, def.kind, &def.name, true)
        }
    }
}

/// A tool's name is the workflow's alone in the playbook: a retired workflow keeps its tool's
/// name, as it keeps its own, for when it is restored.
fn tool_name_free(store: &dyn DefinitionStore, workflow: &str, tool: &str) -> Result<(), Problem> {
    let mut query =
        DefinitionQuery { kind: Kind::Workflow, include_retired: true, limit: DEFINITIONS_MAX, after: None };
    loop {
        let page = store.page(&query, DEFINITIONS_MAX)?;
        let holder = page.iter().find(|d| d.name != workflow && d.tool.as_ref().is_some_and(|t| t.name == tool));
        if let Some(holder) = holder {
            return Err(Problem::invalid_fields(vec![FieldError::new(
                "/tool/name",
                format!(
                    "is the tool the workflow {} offers already; a tool's name is one workflow's in a playbook",
                    quote(&holder.name)
                ),
            )
            .within("source")]));
        }
        match page.last() {
            Some(last) if page.len() == DEFINITIONS_MAX => query.after = Some(last.name.clone()),
            _ => return Ok(()),
        }
    }
}

/// The active workflows that offer themselves as tools, by name, each with what its tool lists.
pub fn offered(store: &dyn DefinitionStore) -> Result<Vec<Offered>, Problem> {
    let mut query =
        DefinitionQuery { kind: Kind::Workflow, include_retired: false, limit: DEFINITIONS_MAX, after: None };
    let mut offered = Vec::new();
    loop {
        let page = store.page(&query, DEFINITIONS_MAX)?;
        for def in page.iter().filter(|d| d.status == DefinitionStatus::Active) {
            let Some(tool) = &def.tool else { continue };
            let Some((_, version)) = current(store, Kind::Workflow, &def.name)? else { continue };
            // A document saved is checked again as its runs would check it; one that no longer
            // passes is not offered, and its runs say why.
            let Ok(Spec::Workflow(spec)) = spec(Kind::Workflow, &version.source) else { continue };
            offered.push(Offered::of(&def.name, tool, &def.description, spec.input_schema(), spec.plan()));
        }
        match page.last() {
            Some(last) if page.len() == DEFINITIONS_MAX => query.after = Some(last.name.clone()),
            _ => return Ok(offered),
        }
    }
}

/// A definition with its current version.
fn current(store: &dyn DefinitionStore, kind: Kind, name: &str) -> Result<Option<(Definition, Version)>, Problem> {
    let Some(def) = store.definition(kind, name)? else { return Ok(None) };
    let version = store
        .version(kind, name, def.version)?
        .ok_or_else(|| Problem::internal("a definition's current version is missing"))?;
    Ok(Some((def, version)))
}

/// The uses that name no active or paused definition of the playbook.
fn missing(store: &dyn DefinitionStore, uses: &[Ref]) -> Result<Vec<Ref>, Problem> {
    let mut missing = Vec::new();
    for r in uses {
        match store.definition(r.kind, &r.name)? {
            Some(d) if !matches!(d.status, DefinitionStatus::Retired { .. }) => {}
            _ => missing.push(r.clone()),
        }
    }
    Ok(missing)
}

/// A definition at a version it was saved at: that version's document, with its number.
pub fn at_version(store: &dyn DefinitionStore, kind: Kind, name: &str, number: u32) -> Result<DefinitionView, Problem> {
    let definition = store.definition(kind, name)?.ok_or_else(|| unknown_definition(kind, name))?;
    let version = store.version(kind, name, number)?.ok_or_else(|| {
        Problem::not_found(format!(
            "The {} {} has no version {number}; its versions are 1 to {}.",
            kind.noun(),
            quote(name),
            definition.version
        ))
    })?;
    shown(store, Definition { version: number, ..definition }, version, false)
}

pub fn view(store: &dyn DefinitionStore, kind: Kind, name: &str, changed: bool) -> Result<DefinitionView, Problem> {
    let (definition, version) = current(store, kind, name)?.ok_or_else(|| unknown_definition(kind, name))?;
    shown(store, definition, version, changed)
}

/// A definition at a version, with what uses it, as a read or a save answers it.
fn shown(
    store: &dyn DefinitionStore,
    definition: Definition,
    version: Version,
    changed: bool,
) -> Result<DefinitionView, Problem> {
    let used_by = store.users(&Ref { kind: definition.kind, name: definition.name.clone() })?;
    Ok(DefinitionView {
        definition,
        document: version.source,
        overview: version.overview,
        diagram: version.diagram,
        used_by,
        changed,
    })
}
