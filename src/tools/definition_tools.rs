//! The tools a saved document names, checked against what the playbook's tool servers offer it
//! now: a name no server could answer is refused at its place in the document, in the words of
//! what `search` shows. A server that cannot be used just now refuses nothing: its run will say.
//! And an interaction that says not how it reaches the person is told which servers could.

use super::Ctx;
use crate::core::definition::check::NamedTool;
use crate::core::definition::interaction::{DELIVER_REQUIRED, NOTIFY_TOOL_REQUIRED};
use crate::core::text::join_and;
use crate::core::tool_server::words;
use crate::core::{FieldError, Problem};

/// Where a document names a tool it calls with no one to ask: a lookup's, and the one that reads
/// a request's replies again and again. Such a tool must be marked `reads`.
const READ_ONLY_PLACES: [&str; 2] = ["/tool/name", "/ask/deliver/replies/tool"];

fn not_reading(name: &str) -> String {
    format!(
        "names {name}, which is not marked reads, and this function calls it with no one to ask. Name a tool search lists with mark reads; or, if it only reads, whoever runs the runtime marks it reads under marks in its server's entry in TOOL_SERVERS"
    )
}

pub async fn check(ctx: &Ctx<'_>, playbook: &str, named: &[NamedTool]) -> Result<(), Problem> {
    if named.is_empty() {
        return Ok(());
    }
    let registry = &ctx.tool_servers;
    let serving = registry.serving(&ctx.caller.org, Some(playbook), None);
    let now = ctx.instant().timestamp();
    let mut errors = Vec::new();
    for n in named {
        let (server_name, tool) = n.name.split_once('/').unwrap_or((n.name.as_str(), ""));
        let refusal = match serving.iter().copied().find(|s| s.name == server_name) {
            None => {
                let names: Vec<String> = serving.iter().map(|s| s.name.clone()).collect();
                Some(words::no_server(playbook, server_name, &names))
            }
            Some(server) => match registry.offered(server, now).await {
                Ok(offered) => match offered.iter().find(|t| t.name == tool) {
                    None if tool != "*" => {
                        let names: Vec<String> = offered.iter().map(|t| t.name.clone()).collect();
                        Some(words::no_tool(server_name, tool, &names))
                    }
                    Some(t) if READ_ONLY_PLACES.contains(&n.pointer.as_str()) && !t.mark.reads() => {
                        errors.push(FieldError::new(n.pointer.clone(), not_reading(&n.name)).within("source"));
                        None
                    }
                    _ => None,
                },
                Err(_) => None,
            },
        };
        if let Some(p) = refusal {
            let detail = format!("names {}, which no tool server offers this playbook now. {}", n.name, p.detail);
            errors.push(FieldError::new(n.pointer.clone(), detail).within("source"));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

/// A refused save whose interaction names no way to reach the person, with the words that name
/// each tool server of the playbook that could: its sending tool and, for a request, its tool
/// that reads the replies.
pub fn name_senders(ctx: &Ctx<'_>, playbook: &str, mut p: Problem) -> Problem {
    if !p.errors.iter().any(|e| e.detail == DELIVER_REQUIRED || e.detail == NOTIFY_TOOL_REQUIRED) {
        return p;
    }
    let serving = ctx.tool_servers.serving(&ctx.caller.org, Some(playbook), None);
    let senders: Vec<(String, String, Option<String>)> = serving
        .iter()
        .filter_map(|s| {
            let e = s.state.as_ref().ok()?;
            let sends = e.sends.as_ref()?;
            Some((
                s.name.clone(),
                format!("{}/{sends}", s.name),
                e.reads_replies.as_ref().map(|r| format!("{}/{r}", s.name)),
            ))
        })
        .collect();
    for e in p.errors.iter_mut() {
        if e.pointer == "/ask/deliver" && e.detail == DELIVER_REQUIRED {
            let both: Vec<String> = senders
                .iter()
                .filter_map(|(server, send, read)| {
                    read.as_ref().map(|r| format!("{server}, which sends with {send} and reads the replies with {r}"))
                })
                .collect();
            e.detail = if both.is_empty() {
                format!("{DELIVER_REQUIRED}. No tool server of this playbook can send a request and read its replies, so write deliver: agent")
            } else {
                format!("{DELIVER_REQUIRED}. Of this playbook's tool servers, these can send a request and read its replies: {}; introspect says what each tool takes. Or write deliver: agent", join_and(&both))
            };
        }
        if e.pointer == "/notify/tool" && e.detail == NOTIFY_TOOL_REQUIRED {
            let can: Vec<String> = senders.iter().map(|(server, send, _)| format!("{server}, with {send}")).collect();
            e.detail = if can.is_empty() {
                format!("{NOTIFY_TOOL_REQUIRED}. No tool server of this playbook can send one: whoever runs the runtime sets one up, with the tool that sends named as sends in its entry")
            } else {
                format!(
                    "{NOTIFY_TOOL_REQUIRED}. Of this playbook's tool servers, these can send it: {}",
                    join_and(&can)
                )
            };
        }
    }
    if p.reason != crate::core::Reason::InvalidInput {
        return p;
    }
    // The problem says its fields again, in their new words.
    let kind = p.kind;
    let mut q = Problem::invalid_fields(p.errors);
    q.kind = kind;
    q
}
