//! What pause, resume, retire and restore share: their arguments and one call to the playbook.

use serde::Deserialize;
use serde_json::{json, Value};

use super::definition_words::{capitalized, check_name, name_arg, named, output, served_kind, type_arg};
use super::schema::playbook_arg;
use super::{Ctx, Output};
use crate::core::definition::record::Lifecycle;
use crate::core::definition::store::DefinitionCommand;
use crate::core::text::cap;
use crate::core::Problem;

pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": { "playbook": playbook_arg(), "type": type_arg(), "name": name_arg() },
        "required": ["playbook", "type", "name"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
pub struct Named {
    pub playbook: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub reason: Option<String>,
}

/// Applies `change` (built from the arguments) and answers `words[0]` where it changed the
/// definition, `words[1]` where the definition already stood so; `{}` names the definition.
pub async fn apply(
    ctx: &Ctx<'_>,
    a: Named,
    change: fn(&Named) -> Lifecycle,
    words: [&str; 2],
) -> Result<Output, Problem> {
    let kind = served_kind(&a.kind)?;
    check_name(&a.name)?;
    let command = DefinitionCommand::Change {
        kind,
        name: a.name.clone(),
        change: change(&a),
        now: ctx.now.clone(),
        by: ctx.by(),
    };
    let view = ctx.backend.definition(&ctx.caller.org, &a.playbook, command).await?;
    let said = words[usize::from(!view.changed)].replace("{}", &named(&view));
    Ok(Output::ok(cap(&capitalized(said), crate::core::text::SUMMARY_MAX), output(&view)?))
}
