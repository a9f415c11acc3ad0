//! `get_asset`: `GET /v1/orgs/{org}/playbooks/{playbook}/assets/{asset_id}`, and the bytes at
//! its `url`, which the shell serves after the same check (`content`).

use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::playbook_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::asset::Asset;
use crate::core::caller::Scope;
use crate::core::text::{cap, SUMMARY_MAX};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "get_asset",
    title: "Read an asset",
    description: "Read an asset of a generation function or a tool's image, with an address to its bytes: its media type, size in bytes, SHA-256, the run (and tool) that made it, and url, where the runtime serves the bytes to a caller who may read the playbook, with the same credential. Runs and events name an asset by its asset_id.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Playbook,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks/{playbook}/assets/{asset_id}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "playbook": playbook_arg(),
            "asset_id": { "type": "string", "minLength": 1, "maxLength": 32, "description": "The asset's id, such as ast_3kq7m2x9p4d8w6zt, as a run or an event names it." }
        },
        "required": ["playbook", "asset_id"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    playbook: String,
    asset_id: String,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let asset = crate::ops::assets::get(ctx.backend, &ctx.caller.org, &a.playbook, &a.asset_id).await?;
    let said = format!(
        "{} is {} of {} bytes, made by {}; its bytes are at its url.",
        asset.id,
        asset.media_type,
        asset.size,
        made_by(&asset)
    );
    Ok(Output::ok(cap(&said, SUMMARY_MAX), asset.view(&ctx.connections.base)))
}

fn made_by(asset: &Asset) -> String {
    match &asset.made_by {
        crate::core::asset::MadeBy::Generation { run_id } => format!("the generation run {run_id}"),
        crate::core::asset::MadeBy::Tool { run_id, tool } => format!("the tool {tool} in the run {run_id}"),
    }
}

/// An asset's record and bytes for the route at its `url`: the caller must be of `org` and
/// permitted `get_asset` on the playbook, exactly as a call of the tool.
///
/// # Errors
/// `forbidden` for a caller of another org or without `playbook:read`; `not_found` for a
/// playbook the caller does not reach or an asset it does not keep; as `ops::assets::content`.
pub async fn content(ctx: &Ctx<'_>, org: &str, playbook: &str, asset_id: &str) -> Result<(Asset, Vec<u8>), Problem> {
    if org != ctx.caller.org {
        return Err(Problem::forbidden(format!(
            "This caller acts in the org {}; it cannot reach the org {org}.",
            ctx.caller.org
        )));
    }
    super::access::permits(ctx.caller, &TOOL, Some(&json!({ "playbook": playbook })))?;
    crate::ops::assets::content(ctx.backend, org, playbook, asset_id).await
}
