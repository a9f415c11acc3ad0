//! A definition's page, as `get_definition` answers it: overview, standing, its diagram (a
//! function's Mermaid diagram drawn, a workflow's picture), its page rendered, its document,
//! its versions and its runs (`list_runs` of it alone).

use serde_json::Value;

use super::comments::{on_part, section, Thread};
use super::frame::{actor, link, moment, page, status, text, Frame, Tab};
use super::runs_table;
use crate::api::markdown::to_html;
use crate::api::sign_in_pages::escape;
use crate::core::studio;

/// How the definition is drawn.
#[derive(Debug, Clone)]
pub enum Drawing<'a> {
    /// An image: the workflow's `picture.svg`, or a function's diagram drawn as a `data:` URI.
    Image {
        src: String,
        alt: String,
    },
    /// A diagram the pictures do not draw (a kind they do not know, or too large): its source.
    Source(&'a str),
    None,
}

/// `def` is `get_definition`'s answer, `runs` `list_runs`' answer for it alone.
pub fn render(f: &Frame, def: &Value, drawing: &Drawing, runs: &Value, thread: &Thread) -> String {
    let kind = text(def, "/type");
    let name = text(def, "/name");
    let playbook = f.playbook.map(|(id, _)| id).unwrap_or_default();
    let noun = if kind == "workflow" { "workflow".to_string() } else { format!("{kind} function") };
    let standing = standing(def).map(|s| format!("<p>{}</p>", escape(s))).unwrap_or_default();
    let picture = match drawing {
        Drawing::Image { src, alt } => {
            format!("<figure><img src=\"{}\" alt=\"{}\"></figure>", escape(src), escape(alt))
        }
        Drawing::Source(source) => format!(
            "<p class=\"hint\">This diagram is not drawn; its Mermaid source:</p><pre><code>{}</code></pre>",
            escape(source)
        ),
        Drawing::None => "<p class=\"hint\">It has no diagram.</p>".to_string(),
    };
    let shown_page = match def["page"]["markdown"].as_str() {
        Some(markdown) => {
            let over = match text(def, "/page/over") {
                "sample_output" => {
                    "<p class=\"hint\">Shown over a made-up run of its sample output: it has no run yet.</p>"
                }
                _ => "<p class=\"hint\">Rendered now, over its runs.</p>",
            };
            format!("{over}<div class=\"page\">{}</div>", to_html(markdown))
        }
        None => {
            format!("<p class=\"hint\">{}</p>", escape(def["page"]["says"].as_str().unwrap_or("It has no page yet.")))
        }
    };
    let used_by: Vec<String> = def["used_by"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    link(&studio::definition("", f.org, playbook, text(r, "/type"), text(r, "/name")), text(r, "/name"))
                })
                .collect()
        })
        .unwrap_or_default();
    let used = match used_by.is_empty() {
        true => "No other definition uses it.".to_string(),
        false => format!("Used by {}.", used_by.join(", ")),
    };
    let versions = format!(
        "<dl><dt>Now</dt><dd>version {version}, saved {updated} by {updated_by}</dd><dt>First</dt><dd>saved {created} by {created_by}</dd></dl>",
        version = def["version"].as_u64().unwrap_or_default(),
        updated = moment(text(def, "/updated_at")),
        updated_by = def.get("updated_by").map(actor).unwrap_or_else(|| "someone".into()),
        created = moment(text(def, "/created_at")),
        created_by = def.get("created_by").map(actor).unwrap_or_else(|| "someone".into()),
    );
    let body = format!(
        "<h1>{name}</h1><p>The {noun} · {state}</p>{standing}<p>{description}</p>\
         <h2>Overview</h2><div class=\"page\">{overview}</div><p class=\"hint\">{used}</p>\
         <h2>{drawn}</h2>{picture}\
         <h2>Its page</h2>{shown_page}{on_page}\
         <h2>Versions</h2>{versions}\
         <h2>Runs</h2>{runs}<p>{ledger}</p>\
         <h2>Document</h2><pre><code>{document}</code></pre>{on_document}{section}",
        name = escape(name),
        noun = escape(&noun),
        state = status(text(def, "/status")),
        description = escape(text(def, "/description")),
        overview = to_html(text(def, "/overview")),
        drawn = if kind == "workflow" { "Picture" } else { "Diagram" },
        runs = runs_table(f, runs, None),
        ledger = link(&ledger_of(f.org, playbook, kind, name), "Its runs in the Ledger"),
        document = escape(text(def, "/document")),
        on_page = on_part(f, thread, &format!("{}/page", thread.address), "Comment on its page"),
        on_document = on_part(f, thread, &format!("{}/document", thread.address), "Comment on its document"),
        section = section(f, thread),
    );
    page(f, name, &[(String::new(), format!("{noun} {name}"))], Tab::Playbook, &body)
}

/// The Ledger filtered to one definition.
fn ledger_of(org: &str, playbook: &str, kind: &str, name: &str) -> String {
    let path = studio::ledger("", org, playbook, None);
    format!("{path}?definition={}", studio::seg(&format!("{kind}/{name}")))
}

/// How a definition's runs stand, in the sentence `get_definition` answers.
pub fn standing(def: &Value) -> Option<&str> {
    def.pointer("/standing/says").and_then(Value::as_str).or(def["standing"].as_str())
}
