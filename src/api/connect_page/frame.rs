//! The frame of every connect page: the document, its small inline style (the pages' CSP allows
//! inline style and nothing else), and the notice a page opens with.

use crate::api::sign_in_pages::escape;

/// How a notice reads: news that went well, a caution the person should weigh, or a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Done,
    Caution,
    Refused,
}

/// A sentence at the top of the page about what the last step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub tone: Tone,
    pub words: String,
}

impl Notice {
    pub fn done(words: impl Into<String>) -> Notice {
        Notice { tone: Tone::Done, words: words.into() }
    }

    pub fn caution(words: impl Into<String>) -> Notice {
        Notice { tone: Tone::Caution, words: words.into() }
    }

    pub fn refused(words: impl Into<String>) -> Notice {
        Notice { tone: Tone::Refused, words: words.into() }
    }

    /// The key a person gave misses the pattern: it was kept all the same.
    pub fn key_misses_pattern(service: &str) -> Notice {
        Notice::caution(format!(
            "The key does not match the shape {service} expects; it was kept, since the pattern may be wrong as well as the key. Check it, and give it again if it was mistyped."
        ))
    }

    pub(crate) fn html(&self) -> String {
        // A refusal interrupts a screen reader; the others wait their turn.
        let (class, role) = match self.tone {
            Tone::Done => ("notice done", "status"),
            Tone::Caution => ("notice caution", "status"),
            Tone::Refused => ("notice refused", "alert"),
        };
        format!("<p class=\"{class}\" role=\"{role}\">{}</p>", escape(&self.words))
    }
}

const STYLE: &str = "\
:root{color-scheme:light dark;--ink:#1d1d1f;--soft:#5b5b66;--line:#d5d5dc;--back:#fff;--go:#1d4ed8;--good:#166534;--warn:#92400e;--bad:#b91c1c}\
@media (prefers-color-scheme:dark){:root{--ink:#ececf1;--soft:#a9a9b6;--line:#3f3f4a;--back:#17171c;--go:#93b4ff;--good:#86efac;--warn:#fcd34d;--bad:#fca5a5}}\
body{font:16px/1.55 system-ui,sans-serif;color:var(--ink);background:var(--back);max-width:38rem;margin:2.5rem auto;padding:0 1rem}\
h1{font-size:1.5rem;line-height:1.25;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.75rem 0 .5rem}\
a{color:var(--go)}code{font:.92em ui-monospace,monospace;overflow-wrap:anywhere}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dt{color:var(--soft)}dd{margin:0;overflow-wrap:anywhere}\
.notice{border-left:4px solid;padding:.5rem .75rem;margin:0 0 1.25rem}.done{border-color:var(--good)}.caution{border-color:var(--warn)}.refused{border-color:var(--bad)}\
.hint{color:var(--soft);font-size:.94rem;margin:.25rem 0}\
form{margin:1rem 0}label{display:block;font-weight:600;margin:.75rem 0 .25rem}\
input[type=text],input[type=password]{font:inherit;width:100%;box-sizing:border-box;padding:.45rem .6rem;border:1px solid var(--line);border-radius:4px;background:transparent;color:inherit}\
button{font:inherit;padding:.5rem 1.1rem;border-radius:4px;border:1px solid var(--go);cursor:pointer;margin-top:.75rem}\
.primary{background:var(--go);color:var(--back)}.secondary{background:transparent;color:var(--go)}\
:focus-visible{outline:3px solid var(--go);outline-offset:2px}\
.actions{border-top:1px solid var(--line);margin-top:2rem;padding-top:.5rem}";

/// A whole page: `title` in the tab, `body` as it is (already HTML).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <meta name=\"referrer\" content=\"same-origin\"><title>{}</title><style>{STYLE}</style></head><body><main>{body}</main></body></html>",
        escape(title)
    )
}

/// A form that posts to `action` with the page's proof, and the fields and buttons in `inner`.
pub fn form(action: &str, csrf: &str, inner: &str) -> String {
    format!(
        "<form method=\"post\" action=\"{}\"><input type=\"hidden\" name=\"{}\" value=\"{}\">{inner}</form>",
        escape(action),
        crate::core::access::csrf::FIELD,
        escape(csrf)
    )
}
