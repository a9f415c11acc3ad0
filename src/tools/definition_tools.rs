//! The tools a saved document names, checked against what the playbook's tool servers offer it
//! now: a name no server could answer is refused at its place in the document, in the words of
//! what `search` shows. A server that cannot be used just now refuses nothing: its run will say,
//! and the check answers what it could not reach (`check_definition` shows it).
//! And an interaction that says not how it reaches the person is told which servers could.

use super::Ctx;
use crate::core::definition::check::NamedTool;
use crate::core::definition::interaction::{DELIVER_REQUIRED, NOTIFY_TOOL_REQUIRED};
use crate::core::text::join_and;
use crate::core::tool_server::offer::pick;
use crate::core::{FieldError, Problem, Reason};

fn not_reading(name: &str) -> String {
    format!(
        "names {name}, which is not marked reads, and this function calls it with no one to ask. Name a tool search lists with mark reads; or, if it only reads, whoever runs the runtime marks it reads under marks in its server's entry in TOOL_SERVERS"
    )
}

pub async fn check(ctx: &Ctx<'_>, playbook: &str, named: &[NamedTool]) -> Result<Vec<String>, Problem> {
    let mut unreached = Vec::new();
    if named.is_empty() {
        return Ok(unreached);
    }
    let now = ctx.instant().timestamp();
    let using = crate::ops::connections::Using::of(ctx, &ctx.caller.org);
    let connections = crate::ops::connections::servers(&using).await;
    let registry = ctx.tool_servers.with(&connections).renewing(&using);
    let mut errors = Vec::new();
    for n in named {
        let (server_name, tool) = n.name.split_once('/').unwrap_or((n.name.as_str(), ""));
        let refusal = match registry.offering(&ctx.caller.org, playbook, server_name, now).await {
            // A server that cannot be used just now refuses nothing: its run will say.
            Err(p) if p.reason == Reason::Unavailable => {
                unreached.push(format!("{}, whose tool server cannot be used now: {}", n.name, p.detail));
                None
            }
            Err(p) => Some(p),
            Ok((_, offered)) => match pick(server_name, &offered, tool, true) {
                Err(p) => Some(p),
                Ok(picked) => {
                    if n.must_read && picked.iter().any(|t| !t.mark.reads()) {
                        errors.push(FieldError::new(n.pointer.clone(), not_reading(&n.name)).within("source"));
                    }
                    None
                }
            },
        };
        if let Some(p) = refusal {
            let detail = format!("names {}, which no tool server offers this playbook now. {}", n.name, p.detail);
            errors.push(FieldError::new(n.pointer.clone(), detail).within("source"));
        }
    }
    if errors.is_empty() {
        Ok(unreached)
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
    let senders = ctx.tool_servers.senders(&ctx.caller.org, playbook);
    for e in p.errors.iter_mut() {
        if e.pointer == "/ask/deliver" && e.detail == DELIVER_REQUIRED {
            let both: Vec<String> = senders
                .iter()
                .filter_map(|s| {
                    let r = s.replies.as_ref()?;
                    Some(format!("{}, which sends with {} and reads the replies with {r}", s.server, s.send))
                })
                .collect();
            e.detail = if both.is_empty() {
                format!("{DELIVER_REQUIRED}. No tool server of this playbook can send a request and read its replies, so write deliver: agent")
            } else {
                format!("{DELIVER_REQUIRED}. Of this playbook's tool servers, these can send a request and read its replies: {}; introspect says what each tool takes. Or write deliver: agent", join_and(&both))
            };
        }
        if e.pointer == "/notify/tool" && e.detail == NOTIFY_TOOL_REQUIRED {
            let can: Vec<String> = senders.iter().map(|s| format!("{}, with {}", s.server, s.send)).collect();
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
