//! `search`: `GET /v1/orgs/{org}/tool-servers/search`, and on a playbook
//! `GET /v1/orgs/{org}/playbooks/{playbook}/tool-servers/search`.

use futures::future::join_all;
use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::{cursor_arg, limit_arg, playbook_arg};
use super::tool_servers::{kind, server_arg, SETUP};
use super::words::{fits, more};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::providers::Providers as ProviderCatalogue;
use crate::core::text::{cap, count, join_and, quote, SUMMARY_MAX};
use crate::core::tool_server::mcp::Listed;
use crate::core::tool_server::offer::{matches, words, Only};
use crate::core::tool_server::settings::Server;
use crate::core::tool_server::words;
use crate::core::FieldError;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "search",
    title: "Find tools",
    description: "Find the tool servers a playbook may use and the tools a reasoning function may name in its tools, as server/tool. terms finds tools by words of their server, name and description; only: read keeps the tools marked reads, only: write the others; server lists one server's tools. Each tool carries its mark (reads, acts, or unmarked, which counts as acts) and who marked it. A server that cannot be used is listed unavailable with because, in words that say what mends it. Without playbook it covers the whole org, so what is set up shows before a playbook exists.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Anywhere,
    method: Method::Get,
    path: "/v1/orgs/{org}/tool-servers/search",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { also: Some(ALSO), ..Special::NONE },
};

/// The routes `search` answers besides its own.
pub const ALSO: &str = "/v1/orgs/{org}/playbooks/{playbook}/tool-servers/search";

const LIMIT_MAX: usize = 100;
const LIMIT_DEFAULT: usize = 20;
/// The most of a tool's description search shows; introspect reads it whole.
const DESCRIPTION_SHOWN: usize = 300;

fn input_schema() -> Value {
    let mut playbook = playbook_arg();
    playbook["description"] =
        json!("The playbook whose servers to search, such as pb_3kq7z2m4x8c5v6b1; left out, the whole org's.");
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook,
            "terms": { "type": "string", "maxLength": 200, "description": "Words each tool found holds in its server's name, its own name, title or description, such as read file." },
            "server": server_arg(),
            "only": { "type": "string", "enum": ["read", "write"], "description": "read keeps the tools marked reads; write keeps those marked acts or unmarked." },
            "limit": limit_arg(LIMIT_MAX, LIMIT_DEFAULT, "tools"),
            "cursor": cursor_arg(200)
        },
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: Option<String>,
    terms: Option<String>,
    server: Option<String>,
    only: Option<String>,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let org = &ctx.caller.org;
    if let Some(playbook) = &a.playbook {
        ctx.backend.get(org, playbook).await?;
    }
    let using = crate::ops::connections::Using::of(ctx, org);
    let connections = crate::ops::connections::servers(&using).await;
    let registry = &ctx.tool_servers.with(&connections).renewing(&using);
    let mut servers = registry.serving(org, a.playbook.as_deref(), ctx.caller.playbooks.as_deref());
    let whose = a.playbook.as_ref().map_or_else(|| format!("the org {org}"), |p| format!("the playbook {p}"));
    if let Some(only) = &a.server {
        let names: Vec<String> = servers.iter().map(|s| s.name.clone()).collect();
        servers.retain(|s| &s.name == only);
        if servers.is_empty() {
            let shows = if names.is_empty() {
                format!("none serves it: {SETUP}")
            } else {
                format!("those that serve it are {}", join_and(&names))
            };
            let mut p = Problem::not_found(format!("No tool server {} serves {whose}; {shows}.", quote(only)));
            p.errors.push(FieldError::new("/server", "is not a tool server that serves it"));
            return Err(p);
        }
    }
    let providers = if a.server.is_none() { providers(ctx, &servers, a.terms.as_deref()) } else { Vec::new() };
    if servers.is_empty() {
        let person = if !providers.is_empty() {
            " A person connects a provider it lists, with add_connection."
        } else if may_add(ctx) {
            " A person adds one with add_connection."
        } else {
            ""
        };
        let words =
            format!("No tool server serves {whose} yet: {SETUP}.{person} Until then a function names no tools.");
        let value = json!({ "servers": [], "tools": [], "providers": providers, "next_cursor": null });
        return Ok(Output::ok(fits(words), value));
    }
    let now = ctx.instant().timestamp();
    let standings = join_all(servers.iter().map(|s| registry.offered(s, now))).await;
    let only = match a.only.as_deref() {
        Some("read") => Some(Only::Read),
        Some("write") => Some(Only::Write),
        _ => None,
    };
    let terms = words(a.terms.as_deref().unwrap_or(""));
    let mut listed_servers = Vec::new();
    let mut found: Vec<(&str, &Listed)> = Vec::new();
    let mut unavailable = Vec::new();
    for (server, standing) in servers.iter().zip(&standings) {
        let entry = server.state.as_ref().ok();
        let mut s = json!({
            "name": server.name,
            "provider": server.provider,
            "connection": server.connection,
            "type": kind(server),
            "handles_money": entry.is_some_and(|e| e.handles_money),
            "record_content": entry.is_none_or(|e| e.record_content),
        });
        match standing {
            Ok(tools) => {
                s["available"] = json!(true);
                s["tools"] = json!(tools.len());
                for t in tools.iter() {
                    if only.is_none_or(|o| o.keeps(t)) && matches(&terms, &server.name, t) {
                        found.push((&server.name, t));
                    }
                }
            }
            Err(f) => {
                s["available"] = json!(false);
                s["because"] = json!(f.because);
                s["detail"] = json!(words::failure(server, f.because, &f.detail));
                unavailable.push(format!("{} ({})", server.name, f.because.as_str()));
            }
        }
        listed_servers.push(s);
    }
    let total = found.len();
    let after = a.cursor.as_deref();
    let limit = a.limit.unwrap_or(LIMIT_DEFAULT);
    let rest: Vec<&(&str, &Listed)> =
        found.iter().filter(|(s, t)| after.is_none_or(|c| format!("{s}/{}", t.name).as_str() > c)).collect();
    let (page, next) = crate::core::page::split(rest, limit, |(s, t)| format!("{s}/{}", t.name));
    let tools: Vec<Value> = page
        .iter()
        .map(|(server, t)| {
            json!({
                "name": format!("{server}/{}", t.name),
                "server": server,
                "tool": t.name,
                "title": t.title,
                "description": cap(&t.description, DESCRIPTION_SHOWN),
                "mark": t.mark,
                "marked_by": t.marked_by,
            })
        })
        .collect();
    // The sentence that says more follow is kept whole: fewer tools are named until it fits.
    let tail = more(next.is_some());
    let narrowed = !terms.is_empty() || only.is_some();
    let said = (1..=NAMED_MAX)
        .rev()
        .map(|named| summary(&whose, servers.len(), &unavailable, total, &page, narrowed, named))
        .find(|s| s.chars().count() + tail.chars().count() <= SUMMARY_MAX)
        .map_or_else(
            || {
                let s = summary(&whose, servers.len(), &unavailable, total, &page, narrowed, 1);
                format!("{}{tail}", cap(&s, SUMMARY_MAX - tail.chars().count()))
            },
            |s| format!("{s}{tail}"),
        );
    let value = json!({ "servers": listed_servers, "tools": tools, "providers": providers, "next_cursor": next });
    Ok(Output::ok(fits(said), value))
}

/// Whether the caller may add a connection: a person (or the local developer) who may change
/// the org, where people may add them.
fn may_add(ctx: &Ctx<'_>) -> bool {
    super::connection_ops::a_person(ctx).is_ok()
        && ctx.caller.allows(crate::core::caller::Scope::OrgWrite)
        && ctx.caller.playbooks.is_none()
}

/// The providers a person may connect that no server serves yet, found by `terms`, for a caller
/// who may add a connection; `/directory` leaves out those that handle money.
fn providers(ctx: &Ctx<'_>, servers: &[&Server], terms: Option<&str>) -> Vec<Value> {
    if !may_add(ctx) || !ctx.connections.lists_providers {
        return Vec::new();
    }
    let catalogue = &ctx.connections.providers;
    let words = words(terms.unwrap_or(""));
    catalogue
        .list
        .iter()
        .filter(|p| catalogue.offered(p))
        .filter(|p| !(ctx.tool_servers.without_money && p.handles_money))
        .filter(|p| !servers.iter().any(|s| s.provider.as_deref() == Some(p.name.as_str())))
        .filter(|p| ProviderCatalogue::matches(p, &words))
        .map(|p| catalogue.found(p))
        .collect()
}

/// The most tools a summary names.
const NAMED_MAX: usize = 8;

fn summary(
    whose: &str,
    servers: usize,
    unavailable: &[String],
    total: usize,
    page: &[&(&str, &Listed)],
    narrowed: bool,
    named: usize,
) -> String {
    let verb = if servers == 1 { "serves" } else { "serve" };
    let mut s = format!("{} {verb} {whose}", count(servers, "tool server"));
    if !unavailable.is_empty() {
        s.push_str(&format!(", of which {} cannot be used just now: {}", unavailable.len(), join_and(unavailable)));
    }
    let what = if narrowed { "match" } else { "are offered" };
    let names: Vec<String> =
        page.iter().take(named).map(|(s, t)| format!("{s}/{} ({})", t.name, t.mark.as_str())).collect();
    match total {
        0 => s.push_str(&format!(". No tools {what}.")),
        n if n > names.len() => s.push_str(&format!(". {} {what}, such as {}.", count(n, "tool"), join_and(&names))),
        n => s.push_str(&format!(". {} {what}: {}.", count(n, "tool"), join_and(&names))),
    }
    s
}
