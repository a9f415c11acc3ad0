//! `get_guide`: `GET /v1/guides/{guide}`.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{typed, Ctx, Document, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::text::{cap, quote, SUMMARY_MAX};
use crate::core::Problem;
use crate::guides;

pub const TOOL: Tool = Tool {
    name: "get_guide",
    title: "Read a guide",
    description: "Return one of the runtime's guides in full, by its name. Read start first: it says what a playbook is made of and which guide each task needs. terminology says what the words mean; playbooks is the reference of playbook management; reasoning-function, lookup-function, interaction-function, prediction-function and computation-function are the reference of each function's document, workflow that of a workflow, triggers how one starts on its own and events how a filter names the playbook's events; templates lists what a template may use, page what a page is, and connections what a connection to a service takes and what mends one. A recipe, such as first-playbook, is a guide that walks through a common task.",
    hints: Hints::READ,
    scope: None,
    door: Door::Both,
    reach: Reach::Anywhere,
    method: Method::Get,
    path: "/v1/guides/{guide}",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { describes_guides: true, ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "guide": {
                "type": "string",
                "minLength": 1,
                "maxLength": 64,
                "description": format!("The guide's name: one of {}.", guides::names().join(", "))
            }
        },
        "required": ["guide"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    guide: String,
}

async fn run(ctx: &Ctx<'_>, Args { guide }: Args) -> Result<Output, Problem> {
    let g = find_served(&guide, ctx.directory)?;
    let summary = cap(
        &format!("The guide {} ({}): {} Its text follows in full.", quote(&g.title), g.name, g.description),
        SUMMARY_MAX,
    );
    let text = g.text.to_string();
    let output = Output::ok(summary, json!({ "name": g.name, "title": g.title, "text": text }));
    // The HTTP door serves the guide as Markdown rather than wrapped in JSON.
    let markdown = Document { content_type: "text/markdown; charset=utf-8", text };
    Ok(Output { over_http: Some(markdown), ..output })
}

/// A guide by name as an endpoint serves it (`/directory` holds no generation guide), or
/// `not_found` naming the guides it serves.
pub fn find_served(name: &str, directory: bool) -> Result<guides::Guide, Problem> {
    guides::find_served(name, directory).ok_or_else(|| {
        Problem::not_found(format!(
            "There is no guide {}. The guides are: {}.",
            quote(name),
            guides::served_names(directory).join(", ")
        ))
        .with_field("/guide", "names no guide")
    })
}
