//! What Studio presents of a whole playbook: each definition with how its runs stand, and each
//! workflow's glance, for `render_playbook_page` and `get_playbook_analytics`; and the listing of
//! its definitions that `get_stats` reads the runs of. Each definition's runs are read once, at
//! most `page::RUNS_READ` of them, for at most `DEFINITIONS_MAX` definitions, so that one read of
//! a playbook stays bounded.

use serde_json::{json, Value};

use super::Ctx;
use crate::core::definition::page::{self, About, Counts};
use crate::core::definition::record::Definition;
use crate::core::definition::store::{DefinitionQuery, LIST_LIMIT_MAX};
use crate::core::definition::{check_document, Kind, Ref};
use crate::core::Problem;

/// The most definitions one read of a playbook's results covers.
pub const DEFINITIONS_MAX: usize = 100;

/// One definition, with how its runs stand and, for a workflow with one, its glance rendered.
pub struct Result {
    pub definition: Definition,
    pub standing: page::Standing,
    pub glance: Option<Value>,
}

/// The playbook's active and paused definitions of every served type, in the order of the types,
/// each with its standing, and whether more were left out than `DEFINITIONS_MAX`.
pub async fn of_playbook(ctx: &Ctx<'_>, playbook: &str) -> std::result::Result<(Vec<Result>, bool), Problem> {
    let (definitions, more) = definitions(ctx, playbook, false).await?;
    let mut results = Vec::with_capacity(definitions.len());
    for d in definitions {
        let reference = Ref { kind: d.kind, name: d.name.clone() };
        let runs = ctx.backend.read_runs(&ctx.caller.org, playbook, reference.clone(), page::RUNS_READ).await?;
        let mut glance = None;
        if d.kind == Kind::Workflow {
            let view = ctx.backend.get_definition(&ctx.caller.org, playbook, reference).await?;
            if let Some(g) = check_document(d.kind, &view.document).ok().and_then(|c| c.glance) {
                let about =
                    About { kind: d.kind.as_str(), name: &d.name, version: d.version, description: &d.description };
                let context = page::context(&about, &runs, None);
                glance = Some(match page::render_glance(&g, &context) {
                    Ok(shown) => crate::core::error::encoded(&shown)?,
                    Err(failed) => json!({ "error": failed }),
                });
            }
        }
        results.push(Result { standing: page::standing(&runs), definition: d, glance });
    }
    Ok((results, more))
}

/// The playbook's definitions of every served type, in the order of the types, at most
/// `DEFINITIONS_MAX`, retired ones too where asked; and whether more were left out.
pub async fn definitions(
    ctx: &Ctx<'_>,
    playbook: &str,
    include_retired: bool,
) -> std::result::Result<(Vec<Definition>, bool), Problem> {
    let mut definitions = Vec::new();
    let mut more = false;
    // The directory listing serves no generation function, so it shows none.
    for kind in Kind::ALL.into_iter().filter(|k| k.served() && !(ctx.directory && *k == Kind::Generation)) {
        let query = DefinitionQuery { kind, include_retired, limit: LIST_LIMIT_MAX, after: None };
        let page = ctx.backend.list_definitions(&ctx.caller.org, playbook, query).await?;
        more |= page.next_cursor.is_some();
        definitions.extend(page.definitions);
        if definitions.len() > DEFINITIONS_MAX {
            break;
        }
    }
    if definitions.len() > DEFINITIONS_MAX {
        definitions.truncate(DEFINITIONS_MAX);
        more = true;
    }
    Ok((definitions, more))
}

/// The counts of every definition's runs together.
pub fn totals(results: &[Result]) -> Counts {
    let mut t = Counts::default();
    for r in results {
        let c = &r.standing.counts;
        t.runs += c.runs;
        t.succeeded += c.succeeded;
        t.failed += c.failed;
        t.cancelled += c.cancelled;
        t.running += c.running;
    }
    t
}

/// A definition as these reads answer it: its type, name, version, status and standing.
pub fn row(r: &Result) -> std::result::Result<Value, Problem> {
    let d = &r.definition;
    let mut v = json!({
        "type": d.kind.as_str(),
        "name": d.name,
        "version": d.version,
        "description": d.description,
        "standing": crate::core::error::encoded(&r.standing)?,
    });
    let status = crate::core::error::encoded(&d.status)?;
    v["status"] = status.get("status").cloned().unwrap_or(status);
    if let Some(g) = &r.glance {
        v["glance"] = g.clone();
    }
    Ok(v)
}
