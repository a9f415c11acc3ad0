//! The url mode of elicitation, for `add_connection` and `reconnect_connection`: to a 2026-07-28
//! client that declares it opens links, the answer that made a link asks for it to be opened
//! (SEP-2322's `input_required`, its state naming the org, the connection and the link), and the
//! retried call answers the connection as it stands then, in the words of each case, adding
//! nothing. A retry by another caller, or in another org, is refused, and the connection stays.
//! A client of an earlier revision is not asked: the answer's words say to show the link.

use serde_json::{json, Map, Value};

use super::transport::Era;
use crate::core::connection::link::{self, digest};
use crate::core::connection::store::{Find, GetConnection};
use crate::core::connection::view::{self, retried, retried_words, Retried};
use crate::core::Problem;
use crate::tools::{Ctx, Output, Tool};

/// The key the question goes under, and the start of the state a retry carries back.
const KEY: &str = "connect";
const STATE: &str = "connection-link";

fn opens_links(era: &Era) -> bool {
    let Era::Modern { capabilities } = era else { return false };
    capabilities.get("elicitation").and_then(Value::as_object).is_some_and(|e| e.contains_key("url"))
}

/// The question that asks to open the link an answer made, where the client opens links.
pub fn ask(ctx: &Ctx<'_>, era: &Era, tool: &Tool, output: &Output) -> Option<Value> {
    if !tool.special.opens_link || !opens_links(era) {
        return None;
    }
    let url = output.value.pointer("/connect/url").and_then(Value::as_str)?;
    let id = output.value.get("id").and_then(Value::as_str)?;
    let token = url.rsplit('/').next().filter(|t| link::is_token(t))?;
    let name = output.value.get("name").and_then(Value::as_str).unwrap_or(id);
    let title = output.value.get("provider").and_then(Value::as_str).and_then(|p| ctx.connections.providers.named(p));
    let label =
        title.map_or_else(|| "Approve the connection".to_string(), |p| format!("Approve the {} connection", p.title));
    let message = format!(
        "{label}: open the page, sign in, and give what it asks or sign in at the service, then approve {name}. Come back here when it says the connection is connected."
    );
    Some(json!({
        "resultType": "input_required",
        "inputRequests": {
            KEY: { "method": "elicitation/create", "params": { "mode": "url", "message": message, "url": url, "elicitationId": id } }
        },
        "requestState": format!("{STATE}:{}:{id}:{token}", ctx.caller.org)
    }))
}

/// The answer to a retried call that carries the state of a question asked before: the
/// connection as it stands, or the refusal of a retry by another caller or in another org.
pub async fn retry(ctx: &Ctx<'_>, tool: &Tool, params: &Map<String, Value>) -> Option<Result<Output, Problem>> {
    if !tool.special.opens_link {
        return None;
    }
    let state = params.get("requestState").and_then(Value::as_str)?;
    let rest = state.strip_prefix(STATE)?.strip_prefix(':')?;
    let mut parts = rest.splitn(3, ':');
    let (org, id, token) = (parts.next()?, parts.next()?, parts.next()?);
    let declined = params
        .get("inputResponses")
        .and_then(|r| r.get(KEY))
        .and_then(|a| a.get("action"))
        .and_then(Value::as_str)
        .is_some_and(|a| a == "decline" || a == "cancel");
    Some(answer(ctx, org, id, token, declined).await)
}

async fn answer(ctx: &Ctx<'_>, org: &str, id: &str, token: &str, declined: bool) -> Result<Output, Problem> {
    let stays = "The connection stays added; list_connections shows where it stands.";
    if org != ctx.caller.org {
        return Err(Problem::forbidden(format!(
            "This retry names a connection of another org than {}; nothing changed. {stays}",
            ctx.caller.org
        )));
    }
    let get = GetConnection { org: org.to_string(), find: Find::Id(id.to_string()) };
    let c = ctx.backend.get_connection(get).await?;
    if c.added_by.id != ctx.caller.id {
        return Err(Problem::forbidden(format!(
            "This retry comes from another caller than {}, who added the connection {}; nothing changed. {stays}",
            c.added_by.name, c.name
        )));
    }
    let now = ctx.instant();
    let case = retried(&c, c.token_state(&digest(token), now), now);
    let title = view::title(&c, &ctx.connections.providers);
    let mut value = view::view(&c, &ctx.connections.providers);
    match case {
        Retried::Open => value["connect"] = view::connect(&link::url(&ctx.connections.base, &c.org, token), &c),
        Retried::Replaced => value["link_replaced"] = json!(true),
        _ => {}
    }
    let mut out = Output::ok(retried_words(&c, title, case, declined), value);
    out.relay = true;
    Ok(out)
}
