//! The tools a function names, bound to the servers that offer them to its playbook now, and one
//! call of a bound tool. A name no server offers, or a server that cannot be used, refuses the
//! run before its model is asked, in the words `search` would lead to.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::tool_servers::Registry;
use crate::core::definition::reasoning::dialogue::{model_name, Bound, Called};
use crate::core::model::wire::Offer;
use crate::core::tool_server::offer::pick;
use crate::core::tool_server::settings::Server;
use crate::core::{ErrorCode, Problem};

/// Binds each `server/tool` (or `server/*`, every tool the server offers) that a function names.
/// `now` is the second of the request, for the kept tool lists.
pub async fn bind(
    registry: &Registry<'_>,
    org: &str,
    playbook: &str,
    names: &[String],
    now: i64,
) -> Result<Vec<Bound>, Problem> {
    let mut taken = BTreeSet::new();
    let mut bound = Vec::new();
    for name in names {
        let (server_name, tool_name) = name.split_once('/').unwrap_or((name.as_str(), ""));
        let (server, offered) =
            registry.offering(org, playbook, server_name, now).await.map_err(|p| refused(name, p))?;
        let picked = pick(server_name, &offered, tool_name, true).map_err(|p| refused(name, p))?;
        for t in picked {
            if bound.iter().any(|b: &Bound| b.server == server.name && b.tool == t.name) {
                continue;
            }
            let offer = Offer {
                name: model_name(&server.name, &t.name, &taken),
                description: t.description.clone(),
                input_schema: t.input_schema.clone(),
            };
            taken.insert(offer.name.clone());
            bound.push(Bound {
                offer,
                server: server.name.clone(),
                tool: t.name.clone(),
                read_only: t.mark.reads(),
                record_content: record_content(server),
            });
        }
    }
    Ok(bound)
}

fn record_content(server: &Server) -> bool {
    server.state.as_ref().is_ok_and(|e| e.record_content)
}

/// A refusal of a name a function gives: unavailable, whatever the finer reason, since nothing
/// was run and a later call may find the tool.
fn refused(name: &str, p: Problem) -> Problem {
    Problem::unavailable(format!(
        "The function names the tool {name}, which it cannot call now, so nothing was run. {}",
        p.detail
    ))
    .with_kind(ErrorCode::ToolUnavailable)
}

/// Calls a bound tool with the arguments its model wrote, within `timeout` seconds.
pub async fn call(registry: &Registry<'_>, tool: &Bound, arguments: &Map<String, Value>, timeout: u64) -> Called {
    let Some(server) = registry.named(&tool.server) else {
        return Called::Failed {
            because: "settings_invalid".into(),
            detail: format!("the tool server {} is no longer set up", tool.server),
        };
    };
    match registry.call(server, &tool.tool, &tool.offer.input_schema, &Value::Object(arguments.clone()), timeout).await
    {
        Ok(a) => Called::Answered {
            text: a.text,
            structured: a.structured,
            is_error: a.is_error,
            images: a.images,
            assets: Vec::new(),
        },
        Err(f) => Called::Failed { because: f.because.as_str().to_string(), detail: f.detail },
    }
}
