//! `add_connection`: `POST /v1/orgs/{org}/connections`. Adds a provider or a server given by hand,
//! pending, and answers the link on which the person approves it. No credential passes here.

use serde_json::{json, Value};

use super::connection_ops::{a_person, change, new_link, title, with_connect};
use super::{Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::input::{self, Plan};
use crate::core::connection::machine::Command;
use crate::core::connection::probe::{scopes, settle, Probe};
use crate::core::connection::store::Find;
use crate::core::connection::{connection_id, view, Connection, Credential, Document, Status, Target};
use crate::core::Problem;

pub const TOOL: Tool = Tool {
    name: "add_connection",
    title: "Add a connection",
    description: "Connect a service to the org for its playbooks: a provider by name (search lists those a person may connect, found by the service's words), or an MCP server or HTTP API given by hand. Never put a key, token or ${NAME} in it: the person gives the credential on the runtime's page. Answers the connection, pending, and connect.url, the link on which the person approves it within 24 hours; show it as a link named as the answer's words say, never as its address.",
    // The spec's annotation table leaves add_connection out of openWorldHint, although it probes
    // an MCP server given by hand: the contract's table is what clients are shown.
    hints: Hints::WRITE,
    scope: Some(Scope::OrgWrite),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connections",
    input_schema,
    // Read whole by `input::check`, whose reading of a provider's entry needs the providers.
    run: |ctx, args| Box::pin(run(ctx, args)),
    special: Special { person_only: true, opens_link: true, ..Special::NONE },
};

fn input_schema() -> Value {
    let names = json!({ "type": "array", "minItems": 1, "maxItems": input::PLAYBOOKS_MAX, "items": { "type": "string", "maxLength": 64 } });
    json!({
        "type": "object",
        "properties": {
            "provider": { "type": "string", "maxLength": 64, "description": "A provider's name, as search lists it under providers; the provider gives the server and how it authenticates." },
            "placeholders": { "type": "object", "maxProperties": 20, "additionalProperties": { "type": "string", "maxLength": 200 }, "description": "With provider, the value of each placeholder it takes." },
            "name": { "type": "string", "maxLength": 64, "description": "The name functions call its tools by, as name/tool: lowercase letters, digits, - and _. With provider, the provider's name when left out." },
            "type": { "type": "string", "enum": ["mcp", "openapi"], "description": "For a server given by hand: mcp for a remote MCP server, openapi for an HTTP API." },
            "entry": {
                "type": "object",
                "description": "The server without its credential. With provider, only playbooks, allowed and record_content.",
                "properties": {
                    "url": { "type": "string", "maxLength": 2048, "description": "An MCP server's address." },
                    "document": { "type": "string", "maxLength": 2048, "description": "The address of an HTTP API's OpenAPI document, where its documentation states one." },
                    "document_text": { "type": "string", "description": "The OpenAPI document itself, written from the service's documentation for the calls the job needs, at most 16,384 bytes." },
                    "base_url": { "type": "string", "maxLength": 2048, "description": "The one address an HTTP API's calls go to." },
                    "playbooks": names,
                    "allowed": { "description": "The tools allowed, by name, or \"*\" for all it lists (the default).", "anyOf": [{ "const": "*" }, { "type": "array", "maxItems": input::ALLOWED_MAX, "items": { "type": "string", "maxLength": 128 } }] },
                    "record_content": { "type": "boolean", "description": "false keeps only the sizes of arguments and answers in history." }
                }
            },
            "credential": {
                "type": "object",
                "description": "How the server takes its credential, never the credential: kind none, secret, reference, client_credentials or authorization, with the fields that kind takes. With provider, kind alone, or {kind: authorization, oauth_client: own}. Leave it out for an MCP server given by hand: the server says.",
                "properties": { "kind": { "type": "string", "enum": ["none", "secret", "reference", "client_credentials", "authorization"] } },
                "required": ["kind"]
            },
            "more": { "type": "string", "maxLength": 64, "description": "With provider, a group of scopes beyond its first consent, as search lists it under the provider." }
        },
        "additionalProperties": false
    })
}

async fn run(ctx: &Ctx<'_>, args: Value) -> Result<Output, Problem> {
    a_person(ctx)?;
    let mut plan = input::check(&args, &ctx.connections.providers, ctx.connections.deployed)?;
    if let Some(Credential::Reference { variable, .. }) = &plan.credential {
        if let Err(why) = ctx.connections.listed.admits(variable, &ctx.caller.org, plan.target.address()) {
            return Err(Problem::invalid_fields(vec![crate::core::FieldError::new(
                "/credential/variable",
                format!("is {variable}, {why}"),
            )]));
        }
    }
    if plan.handles_money && ctx.tool_servers.without_money {
        return Err(Problem::unavailable(
            "The directory listing does not offer servers that pay, refund, transfer or pay out money, so it adds no such connection; through /mcp the same call works.",
        ));
    }
    if ctx.tool_servers.settings.named(&plan.name).is_some() {
        return Err(Problem::conflict(format!(
            "{} is the name of a tool server whoever runs the runtime set up; give the connection another name.",
            plan.name
        ))
        .with_field("/name", "is the name of a server of the settings"));
    }
    match (&plan.provider, &plan.target) {
        (None, Target::Mcp { url }) => {
            let found: Probe =
                crate::ops::service_auth::probe(ctx.tool_servers.transport, url, ctx.connections.deployed).await.into();
            let settled = settle(plan.credential.take(), &found)?;
            plan.asked_scopes = scopes(&found, &settled);
            plan.credential = Some(settled);
        }
        (None, Target::Openapi { document: Document::At(at), base_url }) => read_document(ctx, at, base_url).await?,
        _ => {}
    }
    add(ctx, plan).await
}

/// Reads an HTTP API's document at its address as the connection is added, before the person is
/// asked for anything: one that cannot be read, or offers no tool, is refused at its place.
async fn read_document(ctx: &Ctx<'_>, at: &str, base_url: &str) -> Result<(), Problem> {
    let document = crate::core::tool_server::settings::Document::At(at.to_string());
    match crate::ops::api_client::read_document(ctx.tool_servers.transport, &document, base_url, None).await {
        Ok(api) if !api.tools().is_empty() => Ok(()),
        Ok(_) => Err(Problem::invalid("/entry/document", "offers no tool: it holds no operation the runtime can call")),
        Err(f) => {
            Err(Problem::invalid("/entry/document", format!("cannot be read as an OpenAPI document: {}", f.detail)))
        }
    }
}

async fn add(ctx: &Ctx<'_>, plan: Plan) -> Result<Output, Problem> {
    let id = connection_id(ctx.random);
    let (token, link) = new_link(ctx, plan.more.clone());
    let new = plan.into_connection(id.clone(), &ctx.caller.org, link, ctx.by(), &ctx.now)?;
    let kept = change(ctx, Find::New, Command::Add { connection: Box::new(new) }).await?;
    let title = title(ctx, &kept);
    if kept.id != id {
        return Ok(Output::ok(made_before(&kept, title), super::connection_ops::shown(ctx, &kept)));
    }
    let mut out = Output::created(view::added(&kept, title), with_connect(ctx, &kept, &token));
    out.relay = true;
    Ok(out)
}

/// The same call made again: the connection as it stands, and no second one.
fn made_before(c: &Connection, title: Option<&str>) -> String {
    let stands = match c.status {
        Status::Connected => "connected: the person approved it, and nothing is left to open".to_string(),
        _ => format!(
            "pending: the link of the first answer stays open until {}; once it has expired, reconnect_connection gives a new one",
            c.link.as_ref().map_or("it expires", |l| l.expires_at.as_str())
        ),
    };
    let named = title.map_or_else(|| c.name.clone(), |t| format!("{} ({t})", c.name));
    format!("This call added the connection {named} before, so nothing more is added; it is {stands}.")
}
