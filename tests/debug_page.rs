//! `GET /debug` against the MCP dispatch: every tool `tools/list` gives on each endpoint, for a
//! caller with every permission, is on the page with its title, hints and arguments; so is
//! every prompt with what `prompts/get` sends, every guide rendered and raw, and the
//! instructions `initialize` gives, but for the sentence that names the caller.

mod common;

use futures::executor::block_on;
use playbook_runtime::api::debug::{self, connections};
use playbook_runtime::api::markdown::to_html;
use playbook_runtime::api::sign_in_pages::escape;
use playbook_runtime::core::Caller;
use playbook_runtime::guides;
use playbook_runtime::mcp::endpoint::Endpoint;
use playbook_runtime::mcp::server::answer;
use playbook_runtime::mcp::transport::Era;
use serde_json::{json, Value};

/// What `method` answers on `endpoint`, asked by `caller`.
fn ask(caller: &Caller, endpoint: &Endpoint, method: &str, params: Value) -> Value {
    let backend = common::Memory::default();
    let ctx = common::ctx(caller, &backend, 1, 1);
    let era = Era::Legacy { version: "2025-11-25".into() };
    let reply = block_on(answer(&ctx, endpoint, &era, &json!(1), method, &Some(params)));
    assert!(reply.get("error").is_none(), "{method}: {reply}");
    reply["result"].clone()
}

/// The HTML of the element whose id is `id`, up to its closing `</article>`.
fn article<'a>(html: &'a str, id: &str) -> &'a str {
    let open = format!("id=\"{}\"", escape(id));
    let start = html.find(&open).unwrap_or_else(|| panic!("no element {id} on the page"));
    let len = html[start..].find("</article>").unwrap_or_else(|| panic!("{id} never closes"));
    &html[start..start + len]
}

/// The HTML of one connection's panel.
fn panel<'a>(html: &'a str, id: &str) -> &'a str {
    let open = format!("<section class=\"panel\" id=\"{id}\"");
    let start = html.find(&open).unwrap_or_else(|| panic!("no panel {id}"));
    let len = html[start..].find("</section>").unwrap_or_else(|| panic!("panel {id} never closes"));
    &html[start..start + len]
}

#[test]
fn every_tool_each_endpoint_lists_is_on_the_page_with_its_title_hints_and_arguments() {
    let html = debug::page();
    let caller = connections::every_permission();
    for c in connections::all() {
        let listed = ask(&caller, &c.endpoint, "tools/list", json!({}));
        let tools = listed["tools"].as_array().expect("a list of tools");
        assert!(!tools.is_empty(), "{} lists tools", c.path);
        let shown = panel(html, c.id);
        assert_eq!(
            shown.matches("data-kind=\"tool\"").count(),
            tools.len(),
            "{}: the page shows as many tools as tools/list gives",
            c.path
        );
        for tool in tools {
            let name = tool["name"].as_str().expect("a name");
            let item = article(shown, &connections::tool_id(&c, name));
            assert!(item.contains(&format!("<code>{name}</code>")), "{name}");
            let title = tool["title"].as_str().expect("a title");
            assert!(item.contains(&escape(title)), "{}: {name} shows its title", c.path);
            let description = tool["description"].as_str().expect("a description");
            assert!(item.contains(&escape(description)), "{}: {name} shows its description as listed", c.path);
            for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
                let on = tool["annotations"][hint].as_bool().expect("a hint");
                assert!(item.contains(&format!("<code>{hint}: {on}</code>")), "{}: {name} {hint} {on}", c.path);
            }
            let schema = &tool["inputSchema"];
            let required: Vec<&str> =
                schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            for (arg, prop) in schema["properties"].as_object().into_iter().flatten() {
                let row = format!("<code>{}</code></th>", escape(arg));
                let at = item.find(&row).unwrap_or_else(|| panic!("{}: {name} shows no argument {arg}", c.path));
                let rest = &item[at..];
                let row_html = &rest[..rest.find("</tr>").unwrap_or(rest.len())];
                let needed = if required.contains(&arg.as_str()) { "required" } else { "optional" };
                assert!(row_html.contains(&format!("<td>{needed}</td>")), "{}: {name}.{arg} is {needed}", c.path);
                if let Some(words) = prop["description"].as_str() {
                    assert!(row_html.contains(&escape(words)), "{}: {name}.{arg} shows its description", c.path);
                }
                if let Some(max) = prop.get("maxLength") {
                    assert!(
                        row_html.contains(&format!("<code>{max}</code>")),
                        "{}: {name}.{arg} its maxLength",
                        c.path
                    );
                }
            }
            if c.endpoint.playbook().is_some() {
                assert!(schema["properties"].get("playbook").is_none(), "the playbook endpoint fixes the playbook");
            }
        }
    }
}

#[test]
fn every_prompt_is_on_the_page_with_what_prompts_get_sends() {
    let html = debug::page();
    let caller = connections::every_permission();
    let mut seen = 0;
    for c in connections::all() {
        let shown = panel(html, c.id);
        let offered = ask(&caller, &c.endpoint, "prompts/list", json!({}));
        let prompts = offered["prompts"].as_array().expect("a list of prompts");
        assert_eq!(shown.matches("data-kind=\"prompt\"").count(), prompts.len(), "{}", c.path);
        for p in prompts {
            let name = p["name"].as_str().expect("a name");
            let item = article(shown, &connections::prompt_id(&c, name));
            assert!(item.contains(&escape(p["title"].as_str().unwrap_or_default())), "{name}");
            assert!(item.contains(&escape(p["description"].as_str().unwrap_or_default())), "{name}");
            let got = ask(
                &caller,
                &c.endpoint,
                "prompts/get",
                json!({ "name": name, "arguments": connections::sample_arguments(p) }),
            );
            for m in got["messages"].as_array().expect("messages") {
                let text = m["content"]["text"].as_str().or_else(|| m["content"]["resource"]["text"].as_str());
                let text = text.expect("a text or a resource's text");
                assert!(item.contains(&escape(text)), "{}: {name} shows what prompts/get sends", c.path);
            }
            seen += 1;
        }
    }
    assert!(seen >= 6, "the prompts of /mcp at least");
}

#[test]
fn every_guide_is_on_the_page_rendered_and_raw() {
    let html = debug::page();
    let guides = guides::all();
    assert_eq!(html.matches("data-kind=\"guide\"").count(), guides.len());
    for g in guides {
        let item = article(html, &format!("guide-{}", g.name));
        assert!(item.contains(&escape(&g.title)) && item.contains(&escape(&g.description)), "{}", g.name);
        assert!(item.contains(&to_html(&g.text)), "{} is rendered", g.name);
        assert!(item.contains(&format!("{}</pre>", escape(&g.text))), "{} is shown raw", g.name);
    }
}

#[test]
fn the_instructions_are_those_initialize_gives_but_for_the_caller() {
    let html = debug::page();
    let caller = connections::every_permission();
    for c in connections::all() {
        let init = ask(&caller, &c.endpoint, "initialize", json!({ "protocolVersion": "2025-11-25" }));
        let given = init["instructions"].as_str().expect("instructions");
        let naming = caller.acts_as_sentence();
        let (before, after) = given.split_once(&naming).expect("the instructions name the caller");
        let shown = panel(html, c.id);
        let expected = format!(
            "<p class=\"instructions\">{}<mark class=\"caller\">{}</mark>{}</p>",
            escape(before),
            escape(connections::CALLER_PLACEHOLDER),
            escape(after)
        );
        assert!(shown.contains(&expected), "{}: the instructions as initialize gives them", c.path);
    }
}

#[test]
fn the_switch_names_each_endpoint() {
    let html = debug::page();
    for (id, path) in [
        ("root", "/mcp"),
        ("org", "/orgs/{org}/mcp"),
        ("playbook", "/orgs/{org}/playbooks/{playbook}/mcp"),
        ("directory", "/directory"),
    ] {
        assert!(html.contains(&format!("<label for=\"pick-{id}\"><code>{path}</code></label>")), "{path}");
        assert!(html.contains(&format!("id=\"pick-{id}\" data-panel=\"{id}\"")), "{path}");
    }
}
