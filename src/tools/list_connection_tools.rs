//! `list_connection_tools`: `GET /v1/orgs/{org}/connections/{connection}/tools`. Asks the
//! connection's server for its tools now, and answers those its entry allows, sorted by name.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{connection_arg, live, mark_if_broken, shown};
use super::schema::{cursor_arg, limit_arg};
use super::words::more;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::text::{count, start_within};
use crate::core::tool_server::mcp::Listed;
use crate::core::tool_server::words::unavailable;
use crate::core::Problem;
use crate::ops::connections::serve::server;

pub const LIMIT_DEFAULT: usize = 50;
pub const LIMIT_MAX: usize = 200;
/// The most bytes of a tool's description answered.
pub const DESCRIPTION_MAX: usize = 4096;

pub const TOOL: Tool = Tool {
    name: "list_connection_tools",
    title: "List a connection's tools",
    description: "List the tools one connection's server offers now, sorted by name, a page at a time: each tool's name, title, whole description (up to 4 KiB), the hints its server gives and its mark (reads, acts or unmarked) with who marked it. A function names them as name/tool. A connection that is not connected, or whose server cannot be reached, is refused as unavailable with what mends it.",
    hints: Hints { open_world: true, ..Hints::READ },
    scope: Some(Scope::OrgRead),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/connections/{connection}/tools",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": { "connection": connection_arg(), "limit": limit_arg(LIMIT_MAX, LIMIT_DEFAULT, "tools"), "cursor": cursor_arg(200) },
        "required": ["connection"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    connection: String,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let c = live(ctx, &a.connection).await?;
    if c.handles_money && ctx.tool_servers.without_money {
        return Err(Problem::unavailable(
            "The directory listing does not offer servers that pay, refund, transfer or pay out money; through /mcp the same call works.",
        ));
    }
    let using = crate::ops::connections::Using::of(ctx, &ctx.caller.org);
    let Some(s) = crate::ops::connections::renew::server(&using, c.clone(), false).await else {
        return Err(crate::core::connection::machine::not_found(&c.id));
    };
    if let Err(u) = &s.state {
        return Err(unavailable(&s, u.because, &u.detail));
    }
    let offered = match ctx.tool_servers.renewing(&using).offered(&s, ctx.instant().timestamp()).await {
        Ok(tools) => tools,
        Err(f) => {
            if mark_if_broken(ctx, &s, f.because, &f.detail).await {
                let broke = live(ctx, &c.id).await?;
                if let Some(Err(u)) = server(&broke, &ctx.connections).map(|s| s.state) {
                    return Err(unavailable(&s, u.because, &u.detail));
                }
            }
            return Err(unavailable(&s, f.because, &f.detail));
        }
    };
    let rest: Vec<&Listed> =
        offered.iter().filter(|t| a.cursor.as_deref().is_none_or(|after| t.name.as_str() > after)).collect();
    let limit = a.limit.unwrap_or(LIMIT_DEFAULT).clamp(1, LIMIT_MAX);
    let (page, next) = crate::core::page::split(rest, limit, |t| t.name.clone());
    let tools: Vec<Value> = page.iter().map(|t| listed(t)).collect();
    let summary = format!(
        "The connection {} offers {} now; functions name them {}/tool.{}",
        c.name,
        count(offered.len(), "tool"),
        c.name,
        more(next.is_some())
    );
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c), "tools": tools, "next_cursor": next })))
}

fn listed(t: &Listed) -> Value {
    let mut hints = serde_json::to_value(&t.hints).unwrap_or_else(|_| json!({}));
    // The mark takes the place of the read-only hint.
    if let Some(h) = hints.as_object_mut() {
        h.remove("readOnlyHint");
    }
    let mut v = json!({
        "name": t.name,
        "description": start_within(&t.description, DESCRIPTION_MAX),
        "mark": t.mark.as_str(),
        "marked_by": t.marked_by.as_str(),
    });
    if let Some(title) = &t.title {
        v["title"] = json!(title);
    }
    if hints.as_object().is_some_and(|h| !h.is_empty()) {
        v["hints"] = hints;
    }
    v
}
