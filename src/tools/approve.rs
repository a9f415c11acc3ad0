//! `approve`: `POST /v1/orgs/{org}/connect/{token}/approve`, over HTTP alone: the person approves
//! the connection on its page, and what they gave there takes effect.

use serde_json::json;

use super::connection_ops::{of_link, on_link, shown, token_only, OnLink};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "approve",
    title: "Approve a connection",
    description: "The connect page's approval: the key, client or consent given on the link takes effect and the connection is connected. For the person who added it, on an open link.",
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connect/{token}/approve",
    input_schema: token_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnLink) -> Result<Output, Problem> {
    let (digest, _) = of_link(ctx, &a.token).await?;
    let c = on_link(ctx, digest.clone(), Command::Approve { digest, by: ctx.caller.id.clone() }).await?;
    let summary = format!(
        "The connection {} is connected; its tools are named {}/tool. You may close this page and go back to the agent.",
        c.name, c.name
    );
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c) })))
}
