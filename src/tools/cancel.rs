//! `cancel`: `POST /v1/orgs/{org}/connect/{token}/cancel`, over HTTP alone: the person cancels on
//! the page. A connection never approved is removed; one that works stays as it was.

use serde_json::json;

use super::connection_ops::{of_link, on_link, shown, token_only, OnLink};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::Status;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "cancel",
    title: "Cancel a connection's link",
    description: "The connect page's cancel: a connection nobody approved yet is removed, and nothing is connected; a connected one stays as it was, and its link is closed. For the person who added it, on an open link.",
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connect/{token}/cancel",
    input_schema: token_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnLink) -> Result<Output, Problem> {
    let (digest, _) = of_link(ctx, &a.token).await?;
    let c = on_link(ctx, digest.clone(), Command::Cancel { digest, by: ctx.caller.id.clone() }).await?;
    let summary = if c.status == Status::Removed {
        format!("The connection {} is cancelled and removed; nothing is connected.", c.name)
    } else {
        format!("The link is closed; the connection {} stays as it was.", c.name)
    };
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
