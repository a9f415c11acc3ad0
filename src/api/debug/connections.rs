//! One panel per MCP endpoint: its instructions, the tools it lists, and its prompts with what a
//! client receives when one is picked, each read from the same code `initialize`, `tools/list`,
//! `prompts/list` and `prompts/get` answer with, for a caller with every permission.

use serde_json::{json, Map, Value};

use super::arguments;
use crate::api::markdown::to_html;
use crate::api::sign_in_pages::escape;
use crate::core::Caller;
use crate::mcp::endpoint::Endpoint;
use crate::mcp::{instructions, prompts, server};
use crate::tools;

/// One endpoint as the page's switch names it.
pub struct Connection {
    /// The panel's id, which prefixes the ids of what it shows.
    pub id: &'static str,
    pub path: &'static str,
    pub endpoint: Endpoint,
}

/// The four endpoints, with `{org}` and `{playbook}` where a real path names them.
pub fn all() -> Vec<Connection> {
    let org = || "{org}".to_string();
    vec![
        Connection { id: "root", path: "/mcp", endpoint: Endpoint::Root },
        Connection { id: "org", path: "/orgs/{org}/mcp", endpoint: Endpoint::Org { org: org() } },
        Connection {
            id: "playbook",
            path: "/orgs/{org}/playbooks/{playbook}/mcp",
            endpoint: Endpoint::Playbook { org: org(), playbook: "{playbook}".into() },
        },
        Connection { id: "directory", path: "/directory", endpoint: Endpoint::Directory },
    ]
}

/// A caller that holds every permission and reaches every playbook, in the org `{org}`.
pub fn every_permission() -> Caller {
    Caller { org: "{org}".into(), ..Caller::local(None) }
}

/// What stands in the instructions for the sentence that names the caller, before escaping.
const CALLER_MARK: &str = "\u{1}caller\u{1}";

/// The placeholder a person reads in its place.
pub const CALLER_PLACEHOLDER: &str = "[Here the connection names its caller, which this page cannot know: whom it acts as and in which org, such as “This connection acts as the key build-bot in the org acme.”]";

/// The tools this connection lists, as `tools/list` gives them.
pub fn listings(c: &Connection, caller: &Caller) -> Vec<Value> {
    let listed = listed(c, caller);
    c.endpoint.tools(caller).map(|t| server::listing(&c.endpoint, t, t.hints, &listed)).collect()
}

fn listed(c: &Connection, caller: &Caller) -> Vec<&'static str> {
    c.endpoint.tools(caller).map(|t| t.name).collect()
}

/// The value each argument of a prompt is given on the page: its name in angle brackets.
pub fn sample_arguments(prompt: &Value) -> Value {
    let mut given = Map::new();
    for a in prompt["arguments"].as_array().into_iter().flatten() {
        if let Some(name) = a["name"].as_str() {
            given.insert(name.to_string(), json!(format!("<{name}>")));
        }
    }
    Value::Object(given)
}

/// The panel of one connection.
pub fn panel(c: &Connection, caller: &Caller) -> String {
    let listed = listed(c, caller);
    let listings = listings(c, caller);
    let written = instructions::naming(caller, &c.endpoint, CALLER_MARK);
    let instructions =
        escape(&written).replace(CALLER_MARK, &format!("<mark class=\"caller\">{}</mark>", escape(CALLER_PLACEHOLDER)));
    let toc: String = listings
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or_default();
            format!("<li><a href=\"#{}\"><code>{}</code></a></li>", escape(&tool_id(c, name)), escape(name))
        })
        .collect();
    let tools: String = listings.iter().map(|t| tool(c, t)).collect();
    let offered = prompts::list(&listed);
    let prompt_list: Vec<Value> = offered["prompts"].as_array().cloned().unwrap_or_default();
    let prompts_html: String = if prompt_list.is_empty() {
        "<p class=\"quiet\">This connection offers no prompt: each calls tools it does not list.</p>".into()
    } else {
        prompt_list.iter().map(|p| prompt(c, &listed, p)).collect()
    };
    let guides = if listed.contains(&"get_guide") {
        format!(
            "<p>It lists <code>get_guide</code>, which reads the {} guides shown under <a href=\"#guides\">Guides</a>, the same on every connection.</p>",
            crate::guides::names().len()
        )
    } else {
        "<p>It lists no <code>get_guide</code>, so it reads no guide.</p>".into()
    };
    format!(
        "<section class=\"panel\" id=\"{id}\" aria-labelledby=\"{id}-title\">\
         <h2 id=\"{id}-title\"><code>{path}</code></h2>\
         <h3 id=\"{id}-instructions\">Instructions</h3><p class=\"instructions\">{instructions}</p>\
         <h3 id=\"{id}-tools\">Tools <span class=\"count\">{tool_count}</span></h3><ul class=\"toc\">{toc}</ul>{tools}\
         <h3 id=\"{id}-prompts\">Prompts <span class=\"count\">{prompt_count}</span></h3>{prompts_html}\
         <h3 id=\"{id}-guides\">Guides</h3>{guides}</section>",
        id = c.id,
        path = escape(c.path),
        tool_count = listings.len(),
        prompt_count = prompt_list.len(),
    )
}

pub fn tool_id(c: &Connection, name: &str) -> String {
    format!("{}-tool-{name}", c.id)
}

pub fn prompt_id(c: &Connection, name: &str) -> String {
    format!("{}-prompt-{name}", c.id)
}

/// The hints of a listing, by their MCP names.
const HINTS: [&str; 4] = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];

fn tool(c: &Connection, listing: &Value) -> String {
    let name = listing["name"].as_str().unwrap_or_default();
    let hints: String = HINTS
        .iter()
        .map(|h| {
            let on = listing["annotations"][h].as_bool().unwrap_or(false);
            format!("<li class=\"{}\"><code>{h}: {on}</code></li>", if on { "on" } else { "off" })
        })
        .collect();
    let depend = tools::find(name)
        .and_then(tools::hints_depend)
        .map(|words| format!("<p class=\"quiet\">{}</p>", escape(words)))
        .unwrap_or_default();
    format!(
        "<article class=\"item tool\" id=\"{id}\" data-kind=\"tool\" data-name=\"{name}\">\
         <h4><code>{name}</code> <span class=\"title\">{title}</span></h4>\
         <ul class=\"hints\" aria-label=\"Hints\">{hints}</ul>{depend}\
         <p class=\"description\">{description}</p>{arguments}</article>",
        id = escape(&tool_id(c, name)),
        name = escape(name),
        title = escape(listing["title"].as_str().unwrap_or_default()),
        description = escape(listing["description"].as_str().unwrap_or_default()),
        arguments = arguments::table(&listing["inputSchema"]),
    )
}

fn prompt(c: &Connection, listed: &[&str], listing: &Value) -> String {
    let name = listing["name"].as_str().unwrap_or_default();
    let args: String = listing["arguments"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| {
            format!(
                "<tr><th scope=\"row\"><code>{}</code></th><td>{}</td><td>{}</td></tr>",
                escape(a["name"].as_str().unwrap_or_default()),
                if a["required"] == true { "required" } else { "optional" },
                escape(a["description"].as_str().unwrap_or_default()),
            )
        })
        .collect();
    let args = if args.is_empty() {
        "<p class=\"quiet\">It takes no arguments.</p>".to_string()
    } else {
        format!("<table class=\"args\"><thead><tr><th scope=\"col\">Argument</th><th scope=\"col\">Required</th><th scope=\"col\">Description</th></tr></thead><tbody>{args}</tbody></table>")
    };
    let sample = sample_arguments(listing);
    let mut params = Map::new();
    params.insert("name".into(), json!(name));
    params.insert("arguments".into(), sample.clone());
    let received = match prompts::get(listed, &params) {
        Ok(got) => messages(&got),
        Err(e) => format!("<p class=\"quiet\">prompts/get refuses it: {}</p>", escape(&e.message)),
    };
    let given = if sample.as_object().is_some_and(|m| !m.is_empty()) {
        " with each argument given as its name in angle brackets, where the person's words go"
    } else {
        ""
    };
    format!(
        "<article class=\"item prompt\" id=\"{id}\" data-kind=\"prompt\" data-name=\"{name}\">\
         <h4><code>{name}</code> <span class=\"title\">{title}</span></h4>\
         <p class=\"description\">{description}</p>{args}\
         <h5>What a client receives when it is picked{given}</h5>{received}</article>",
        id = escape(&prompt_id(c, name)),
        name = escape(name),
        title = escape(listing["title"].as_str().unwrap_or_default()),
        description = escape(listing["description"].as_str().unwrap_or_default()),
    )
}

/// The messages of a `prompts/get` answer: text as it is sent, an embedded resource folded.
fn messages(got: &Value) -> String {
    let mut out = String::new();
    for m in got["messages"].as_array().into_iter().flatten() {
        let role = escape(m["role"].as_str().unwrap_or_default());
        let content = &m["content"];
        match content["type"].as_str() {
            Some("text") => {
                let text = content["text"].as_str().unwrap_or_default();
                out.push_str(&format!(
                    "<div class=\"message\"><p class=\"role\">{role}, text</p><div class=\"side\"><div class=\"rendered\">{}</div><pre class=\"raw\">{}</pre></div></div>",
                    to_html(text),
                    escape(text)
                ));
            }
            Some("resource") => {
                let r = &content["resource"];
                out.push_str(&format!(
                    "<div class=\"message\"><p class=\"role\">{role}, the resource <code>{}</code> ({})</p><details><summary>Its text, {} characters</summary><pre class=\"raw\">{}</pre></details></div>",
                    escape(r["uri"].as_str().unwrap_or_default()),
                    escape(r["mimeType"].as_str().unwrap_or_default()),
                    r["text"].as_str().map_or(0, |t| t.chars().count()),
                    escape(r["text"].as_str().unwrap_or_default()),
                ));
            }
            _ => out.push_str(&format!("<pre class=\"raw\">{}</pre>", escape(&m.to_string()))),
        }
    }
    out
}
