//! `start`: `POST /v1/orgs/{org}/connect/{token}/start`, over HTTP alone: the connect page's
//! "sign in at the service". Answers the address the person signs in at; what the finish needs is
//! kept sealed on the link.

use serde_json::json;

use super::connection_ops::{of_link, on_link, open_on, token_only, OnLink};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::Problem;
use crate::ops::connections::consent::{self, random_of};

pub const TOOL: Tool = Tool {
    name: "start",
    title: "Start the consent at the service",
    description: "The connect page's sign-in at the service a connection reaches: finds the service's authorization server and the client to ask under (the one set up here, one registered now, or the org's own given first), keeps what the finish needs sealed on the link, and answers authorize_url, where the person signs in and allows the scopes the connection asks, coming back to /connect/callback.",
    hints: Hints { open_world: true, ..Hints::WRITE },
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connect/{token}/start",
    input_schema: token_only,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

async fn run(ctx: &Ctx<'_>, a: OnLink) -> Result<Output, Problem> {
    let (digest, c) = of_link(ctx, &a.token).await?;
    open_on(ctx, &c, &digest)?;
    let reach = consent::Reach { transport: ctx.tool_servers.transport, settings: &ctx.connections };
    let started = consent::start(&reach, &c, &random_of(&ctx.secret)).await?;
    let command = Command::ConsentStarted {
        digest: digest.clone(),
        by: ctx.caller.id.clone(),
        asked: started.asked.clone(),
        consent: started.sealed,
    };
    on_link(ctx, digest, command).await?;
    let summary = format!(
        "Sign in at the service of {} and allow what it asks ({}); the service sends the person back to this runtime's page.",
        c.name,
        if started.asked.is_empty() { "no scope named".to_string() } else { started.asked.join(", ") }
    );
    Ok(Output::ok(summary, json!({ "authorize_url": started.authorize_url, "asked_scopes": started.asked })))
}
