//! `GET /debug`: one page with everything this runtime gives an agent over MCP, for a caller with
//! every permission. A switch picks the connection (`/mcp`, `/orgs/{org}/mcp`,
//! `/orgs/{org}/playbooks/{playbook}/mcp` or `/directory`); each shows its instructions (with a
//! placeholder for the sentence that names the caller), every tool it lists with its title,
//! description, hints and arguments, and its prompts with what `prompts/get` sends; then every
//! guide `get_guide` reads, rendered beside its Markdown. A search opened with ⌘K, Ctrl+K or `/`
//! finds a tool, a guide or a prompt by its name or by any words it holds.
//!
//! Built once per isolate from the registries the endpoints answer from, so it changes only
//! with a restart. Everything on it is escaped or passed through `api::markdown`; its one script
//! and one style sheet are inline and allowed by their SHA-256 in its Content-Security-Policy,
//! which allows nothing else: the page loads nothing from any server.

mod arguments;
pub mod connections;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::api::markdown::to_html;
use crate::api::sign_in_pages::{escape, PAGE_HEADERS};
use crate::guides;
use crate::mcp::{SERVER_TITLE, SERVER_VERSION};

/// The search, the page's one script.
pub const SCRIPT: &str = include_str!("search.js");
/// The page's one style sheet.
pub const STYLE: &str = include_str!("style.css");

/// The page's path.
pub const PATH: &str = "/debug";

/// The page, built on its first request in this isolate and kept.
pub fn page() -> &'static str {
    static PAGE: OnceLock<String> = OnceLock::new();
    PAGE.get_or_init(build)
}

/// The headers the page is sent with: the pages' own, with a policy that allows its script and
/// style by their hashes and nothing else.
pub fn headers() -> Vec<(&'static str, String)> {
    PAGE_HEADERS
        .iter()
        .map(|(name, value)| match *name {
            "content-security-policy" => (*name, csp()),
            _ => (*name, value.to_string()),
        })
        .collect()
}

/// `default-src 'none'`, the script and the style by their SHA-256, no framing, no base, no form.
pub fn csp() -> String {
    format!(
        "default-src 'none'; script-src '{}'; style-src '{}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        hash(SCRIPT),
        hash(STYLE)
    )
}

/// `sha256-<base64>` of `text`, as a CSP source names an inline element by its content.
fn hash(text: &str) -> String {
    format!("sha256-{}", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes())))
}

fn build() -> String {
    let caller = connections::every_permission();
    let all = connections::all();
    let picks: String = all
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "<input class=\"pick\" type=\"radio\" name=\"connection\" id=\"pick-{id}\" data-panel=\"{id}\"{checked}>",
                id = c.id,
                checked = if i == 0 { " checked" } else { "" }
            )
        })
        .collect();
    let labels: String =
        all.iter().map(|c| format!("<label for=\"pick-{}\"><code>{}</code></label>", c.id, escape(c.path))).collect();
    let panels: String = all.iter().map(|c| connections::panel(c, &caller)).collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"referrer\" content=\"same-origin\"><title>{title} {version}: what an agent is given</title><style>{STYLE}</style></head><body>\
         <header class=\"top\"><div><h1>What {title} gives an agent</h1>\
         <p>Everything this server gives an agent over MCP, as a caller with every permission is given it: pick a connection to read its instructions, every tool it lists with its hints and arguments, and its prompts with what a client receives; the guides <code>get_guide</code> reads follow. Built when this server started ({title} {version}), from the code its endpoints serve, so it changes only with a restart.</p></div>\
         <button type=\"button\" id=\"open-search\">Search <kbd>Ctrl</kbd> <kbd>K</kbd> or <kbd>/</kbd></button></header>\
         <main>{picks}<nav class=\"switch\" aria-label=\"Connection\">{labels}</nav><div class=\"panels\">{panels}</div>{guides}</main>\
         <dialog id=\"search\" aria-label=\"Search\"><label for=\"search-words\">Find a tool, a guide or a prompt by its name or by any words it holds</label>\
         <input id=\"search-words\" type=\"search\" autocomplete=\"off\" spellcheck=\"false\"><ol id=\"search-hits\" aria-live=\"polite\"></ol></dialog>\
         <script>{SCRIPT}</script></body></html>",
        title = escape(SERVER_TITLE),
        version = escape(SERVER_VERSION),
        guides = guides_section(),
    )
}

/// Every guide `get_guide` reads: its title, name and description, then the guide rendered
/// beside its raw Markdown.
fn guides_section() -> String {
    let list = guides::all();
    let toc: String = list
        .iter()
        .map(|g| format!("<li><a href=\"#guide-{n}\"><code>{n}</code></a></li>", n = escape(g.name)))
        .collect();
    let items: String = list
        .iter()
        .map(|g| {
            format!(
                "<article class=\"item guide\" id=\"guide-{name}\" data-kind=\"guide\" data-name=\"{name}\">\
                 <h4><code>{name}</code> <span class=\"title\">{title}</span></h4><p class=\"description\">{description}</p>\
                 <div class=\"side\"><div class=\"rendered\">{rendered}</div><pre class=\"raw\" aria-label=\"The Markdown of {name}\">{raw}</pre></div></article>",
                name = escape(g.name),
                title = escape(&g.title),
                description = escape(&g.description),
                rendered = to_html(&g.text),
                raw = escape(&g.text),
            )
        })
        .collect();
    format!(
        "<section id=\"guides\" aria-labelledby=\"guides-title\"><h2 id=\"guides-title\">Guides <span class=\"count\">{}</span></h2>\
         <p class=\"quiet\">What <code>get_guide</code> answers for each name, rendered on the left and as the Markdown it sends on the right.</p><ul class=\"toc\">{toc}</ul>{items}</section>",
        list.len()
    )
}
