//! The frame of every Studio page: the document and its inline style (the pages' CSP allows
//! inline style and nothing else), the navigation of a playbook's pages, the breadcrumbs, the
//! notice a page opens with, and the small pieces pages share. Every value is escaped here or
//! by the caller; Markdown goes through `api::markdown` alone.

use serde_json::Value;

use crate::api::connect_page::Notice;
use crate::api::sign_in_pages::escape;
use crate::core::access::csrf;
use crate::core::access::session::SIGN_OUT_PATH;
use crate::core::studio;

/// What every page knows about who looks and where: the org, the playbook, the person.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    pub org: &'a str,
    /// The playbook's id and name, on a playbook's pages.
    pub playbook: Option<(&'a str, &'a str)>,
    /// Who is looking, as the page greets them.
    pub person: &'a str,
    /// The proof every form carries.
    pub csrf: &'a str,
    /// Whether the person's role changes what the page shows: on a playbook's pages, answers its
    /// requests and resolves its comments; on the org's, resolves the org's own comments.
    pub writes: bool,
    /// Whether the person signed in, and so may sign out (the local developer never signs in).
    pub signed_in: bool,
    pub notice: Option<&'a Notice>,
}

/// The tab of a playbook's navigation a page is under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Playbook,
    Ledger,
    Requests,
    Comments,
    None,
}

const STYLE: &str = "\
:root{color-scheme:light dark;--ink:#1d1d1f;--soft:#5b5b66;--line:#d5d5dc;--back:#fff;--tint:#f4f4f7;--go:#1d4ed8;--good:#166534;--warn:#92400e;--bad:#b91c1c}\
@media (prefers-color-scheme:dark){:root{--ink:#ececf1;--soft:#a9a9b6;--line:#3f3f4a;--back:#17171c;--tint:#22222a;--go:#93b4ff;--good:#86efac;--warn:#fcd34d;--bad:#fca5a5}}\
body{font:16px/1.55 system-ui,sans-serif;color:var(--ink);background:var(--back);max-width:64rem;margin:0 auto;padding:0 1rem 3rem}\
header{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:baseline;border-bottom:1px solid var(--line);padding:.75rem 0;margin-bottom:1rem}\
header .who{margin-left:auto;color:var(--soft);font-size:.9rem}\
nav.crumbs ol{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem;margin:0;padding:0}nav.crumbs li+li::before{content:'\\203A';margin-right:.25rem;color:var(--soft)}\
nav.tabs{display:flex;gap:1rem;margin:0 0 1.25rem;border-bottom:1px solid var(--line)}nav.tabs a{padding:.35rem 0;text-decoration:none}nav.tabs a[aria-current]{border-bottom:3px solid var(--go);font-weight:600}\
h1{font-size:1.6rem;line-height:1.25;margin:0 0 .75rem;overflow-wrap:anywhere}h2{font-size:1.15rem;margin:2rem 0 .5rem}h3{font-size:1rem;margin:1.25rem 0 .35rem}\
a{color:var(--go)}code,pre{font:.9em ui-monospace,monospace}pre{background:var(--tint);padding:.6rem .8rem;overflow:auto;max-height:32rem;white-space:pre-wrap;overflow-wrap:anywhere}\
table{border-collapse:collapse;width:100%;font-size:.95rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}th{color:var(--soft);font-weight:600}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dt{color:var(--soft)}dd{margin:0;overflow-wrap:anywhere}\
.notice{border-left:4px solid;padding:.5rem .75rem;margin:0 0 1.25rem}.done{border-color:var(--good)}.caution{border-color:var(--warn)}.refused{border-color:var(--bad)}.rehearsal{border-color:#7c3aed;background:color-mix(in srgb,#7c3aed 8%,transparent)}\
.hint{color:var(--soft);font-size:.94rem;margin:.25rem 0}.page{border:1px solid var(--line);padding:0 1rem;margin:.5rem 0}\
.st{display:inline-block;white-space:nowrap;padding:0 .45rem;border-radius:3px;font-size:.85rem;border:1px solid var(--line)}\
.st-succeeded,.st-active,.st-open{color:var(--good)}.st-failed,.st-cancelled,.st-retired{color:var(--bad)}.st-started,.st-paused{color:var(--warn)}\
.split{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1.5rem}@media (max-width:50rem){.split{grid-template-columns:1fr}}\
figure{margin:.5rem 0}figure img{max-width:100%;border:1px solid var(--line);background:#fff}\
details.say summary{color:var(--go);cursor:pointer;font-size:.9rem}article.comment{border-top:1px solid var(--line);padding:.5rem 0}article.comment:target{background:var(--tint)}\
form{margin:.75rem 0}form.inline{display:inline;margin:0}label{display:block;font-weight:600;margin:.6rem 0 .2rem}\
input[type=text],select,textarea{font:inherit;width:100%;box-sizing:border-box;padding:.4rem .55rem;border:1px solid var(--line);border-radius:4px;background:transparent;color:inherit}\
textarea{min-height:6rem;font-family:ui-monospace,monospace}.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end}.filters label{margin:0}.filters input,.filters select{width:auto}\
button{font:inherit;padding:.4rem 1rem;border-radius:4px;border:1px solid var(--go);cursor:pointer;background:var(--go);color:var(--back)}button.quiet{background:transparent;color:var(--go);padding:.15rem .6rem}\
:focus-visible{outline:3px solid var(--go);outline-offset:2px}";

/// A whole Studio page: the header with the breadcrumbs (Studio's home of the org, the
/// playbook, then `crumbs`), the playbook's tabs where the page is one of a playbook's, the
/// notice, and `body` as it is (already HTML).
pub fn page(f: &Frame, title: &str, crumbs: &[(String, String)], tab: Tab, body: &str) -> String {
    let mut trail = vec![(studio::home("", f.org), format!("Studio · {}", f.org))];
    if let Some((id, name)) = f.playbook {
        trail.push((studio::playbook("", f.org, id), name.to_string()));
    }
    trail.extend(crumbs.iter().cloned());
    let last = trail.len() - 1;
    let items: String = trail
        .iter()
        .enumerate()
        .map(|(i, (href, label))| match i == last {
            true => format!("<li><span aria-current=\"page\">{}</span></li>", escape(label)),
            false => format!("<li><a href=\"{}\">{}</a></li>", escape(href), escape(label)),
        })
        .collect();
    let tabs = match (f.playbook, tab) {
        (Some((id, _)), tab) if tab != Tab::None => tabs(f.org, id, tab),
        _ => String::new(),
    };
    let notice = f.notice.map(Notice::html).unwrap_or_default();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"referrer\" content=\"same-origin\"><title>{title} · Studio</title><style>{STYLE}{fields}</style></head><body>\
         <header><nav class=\"crumbs\" aria-label=\"Breadcrumbs\"><ol>{items}</ol></nav><span class=\"who\">{who}{out}</span></header>\
         {tabs}<main>{notice}{body}</main></body></html>",
        title = escape(title),
        who = escape(f.person),
        // The page session takes a sign-out from this runtime's own page alone.
        out = match f.signed_in {
            true => form(SIGN_OUT_PATH, f.csrf, "inline", "<button type=\"submit\" class=\"quiet\">Sign out</button>"),
            false => String::new(),
        },
        fields = crate::api::schema_form::STYLE,
    )
}

fn tabs(org: &str, playbook: &str, tab: Tab) -> String {
    let links = [
        (Tab::Playbook, studio::playbook("", org, playbook), "Playbook"),
        (Tab::Ledger, studio::ledger("", org, playbook, None), "Ledger"),
        (Tab::Requests, studio::requests("", org, playbook), "Requests"),
        (Tab::Comments, studio::playbook_comments("", org, playbook), "Comments"),
    ];
    let items: String = links
        .iter()
        .map(|(t, href, label)| {
            let current = if *t == tab { " aria-current=\"page\"" } else { "" };
            format!("<a href=\"{}\"{current}>{label}</a>", escape(href))
        })
        .collect();
    format!("<nav class=\"tabs\" aria-label=\"Playbook\">{items}</nav>")
}

/// A form that posts to `action` with the page's proof, and the fields and buttons in `inner`.
pub fn form(action: &str, csrf: &str, class: &str, inner: &str) -> String {
    let class = if class.is_empty() { String::new() } else { format!(" class=\"{class}\"") };
    format!(
        "<form method=\"post\" action=\"{}\"{class}><input type=\"hidden\" name=\"{}\" value=\"{}\">{inner}</form>",
        escape(action),
        csrf::FIELD,
        escape(csrf)
    )
}

/// A hidden field.
pub fn hidden(name: &str, value: &str) -> String {
    format!("<input type=\"hidden\" name=\"{}\" value=\"{}\">", escape(name), escape(value))
}

/// The text at `pointer` of `v`, or empty.
pub fn text<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

/// A JSON value as a person reads it: pretty, escaped, in a block.
pub fn json_block(v: &Value) -> String {
    let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
    format!("<pre><code>{}</code></pre>", escape(&pretty))
}

/// A status word as a small badge; a word Studio does not know is shown, but not coloured.
pub fn status(word: &str) -> String {
    let known = ["succeeded", "failed", "cancelled", "started", "active", "paused", "retired", "open", "resolved"];
    let class = if known.contains(&word) { word } else { "other" };
    format!("<span class=\"st st-{class}\">{}</span>", escape(word))
}

/// A moment as the runtime wrote it, readable: `2026-12-05 09:30:12 UTC`.
pub fn moment(at: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(at) {
        Ok(t) => t.to_utc().format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        Err(_) => escape(at),
    }
}

/// A link, escaped.
pub fn link(href: &str, label: &str) -> String {
    format!("<a href=\"{}\">{}</a>", escape(href), escape(label))
}

/// Who did something, from an actor (`{kind, id, name}`) as the tools answer it.
pub fn actor(v: &Value) -> String {
    let name = v["name"].as_str().or(v["id"].as_str()).or(v["kind"].as_str()).unwrap_or("someone");
    escape(name)
}

/// The page of an operation that refused: what it said, in the frame, with the way back.
pub fn refused(f: &Frame, title: &str, words: &str, back: Option<&str>) -> String {
    let back = back.map(|b| format!("<p>{}</p>", link(b, "Back to the page"))).unwrap_or_default();
    let body =
        format!("<h1>{}</h1><p class=\"notice refused\" role=\"alert\">{}</p>{back}", escape(title), escape(words));
    page(f, title, &[], Tab::None, &body)
}
