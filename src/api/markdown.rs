//! Markdown that someone wrote (a page, a guide, an overview, a comment, a key's instructions)
//! as HTML a person reads safely: CommonMark with tables and strikethrough, where any HTML the
//! text holds is shown as the text it is, and a link or image goes only to this runtime's own
//! pages or to an `http`, `https` or `mailto` address. Images are written as links, so a page
//! loads nothing from another server. Where a person gives a secret, links are held tighter
//! (`to_html_beside_a_secret`).

use pulldown_cmark::{html, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::core::markup::escape;

const OPTIONS: Options = Options::ENABLE_TABLES.union(Options::ENABLE_STRIKETHROUGH);

/// The HTML of `text`.
pub fn to_html(text: &str) -> String {
    write(text, false)
}

/// The HTML of `text` on a page where a person gives a secret, such as a key's instructions on
/// the connect page: a link is followed only to a `safe_address`, with no referrer, and any
/// other is written as its words and its address, so that the person sees where it would go.
pub fn to_html_beside_a_secret(text: &str) -> String {
    write(text, true)
}

/// One pass over the events for both, so that the upload carries one HTML writer, not two.
fn write(text: &str, beside_a_secret: bool) -> String {
    // The address of the link open now, when it is not followed; links do not nest.
    let mut refused: Option<String> = None;
    let events = Parser::new_ext(text, OPTIONS).map(|event| match event {
        // What the writer meant as HTML is shown as its text.
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) if beside_a_secret => {
            if safe_address(&dest_url) {
                // The writer's own HTML became text above, so this is the only HTML there is.
                Event::InlineHtml(format!("<a href=\"{}\" rel=\"noopener noreferrer\">", escape(&dest_url)).into())
            } else {
                refused = Some(format!(" ({dest_url})"));
                Event::Text(CowStr::Borrowed(""))
            }
        }
        Event::End(TagEnd::Link | TagEnd::Image) if beside_a_secret => match refused.take() {
            Some(address) => Event::Text(address.into()),
            None => Event::InlineHtml(CowStr::Borrowed("</a>")),
        },
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: allowed(dest_url), title, id })
        }
        // An image would be fetched as the page opens: it is written as a link the person may follow.
        Event::Start(Tag::Image { dest_url, title, id, .. }) => {
            Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url: allowed(dest_url), title, id })
        }
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut out = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// A destination a person may be sent to: relative, `http`, `https` or `mailto`; anything else,
/// such as `javascript:`, goes nowhere.
fn allowed(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower.split_once(':').map(|(s, _)| s).filter(|s| !s.contains(['/', '?', '#']));
    match scheme {
        None | Some("http" | "https" | "mailto") => url,
        Some(_) => CowStr::Borrowed("#"),
    }
}

/// Whether an address may be a link beside a secret: https, a host, and nothing that could end
/// the attribute or hide where it goes (`https://bank.example@elsewhere.example`).
pub fn safe_address(address: &str) -> bool {
    let Some(rest) = address.strip_prefix("https://") else { return false };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    !host.is_empty()
        && !host.contains('@')
        && address.len() <= 2048
        && address.chars().all(|c| c.is_ascii_graphic() && !matches!(c, '"' | '\'' | '<' | '>' | '\\' | '`'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_becomes_html() {
        let html = to_html("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- **one** and `two`\n");
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<table>") && html.contains("<td>1</td>"), "{html}");
        assert!(html.contains("<strong>one</strong>") && html.contains("<code>two</code>"), "{html}");
    }

    #[test]
    fn html_in_the_text_is_shown_not_run() {
        let html = to_html("Hi <script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n");
        assert!(!html.contains("<script") && !html.contains("<img"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn links_go_only_where_a_person_may_be_sent() {
        let html = to_html("[a](javascript:alert(1)) [b](https://example.com) [c](/studio/local) [d](JaVaScRiPt:x)");
        assert!(!html.to_ascii_lowercase().contains("javascript:"), "{html}");
        assert!(html.contains("href=\"https://example.com\"") && html.contains("href=\"/studio/local\""), "{html}");
    }

    #[test]
    fn an_image_is_a_link_and_loads_nothing() {
        let html = to_html("![chart](https://tracker.example/pixel.png)");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("<a href=\"https://tracker.example/pixel.png\">chart</a>"), "{html}");
    }

    #[test]
    fn beside_a_secret_marks_lists_and_https_links() {
        let html = to_html_beside_a_secret(
            "Make a key under [Settings, *API keys*](https://app.example/keys) as an **Admin**,\nwith `read` access.\n\nIt is 40 characters.",
        );
        assert_eq!(
            html,
            "<p>Make a key under <a href=\"https://app.example/keys\" rel=\"noopener noreferrer\">Settings, <em>API keys</em></a> as an <strong>Admin</strong>,\nwith <code>read</code> access.</p>\n<p>It is 40 characters.</p>\n"
        );
        let list = to_html_beside_a_secret("Steps:\n\n1. Open settings\n2. Make a key\n   for the bot\n- one");
        assert!(list.contains("<ol>\n<li>Open settings</li>\n<li>Make a key\nfor the bot</li>\n</ol>"), "{list}");
        assert!(list.contains("<ul>\n<li>one</li>\n</ul>"), "{list}");
        for (text, html) in [
            ("use SLACK_BOT_TOKEN and snake_case_names", "<p>use SLACK_BOT_TOKEN and snake_case_names</p>\n"),
            ("2 * 3 * 4", "<p>2 * 3 * 4</p>\n"),
            ("a \\*b\\* c", "<p>a *b* c</p>\n"),
            ("unclosed `code and [link", "<p>unclosed `code and [link</p>\n"),
            ("_word_ here", "<p><em>word</em> here</p>\n"),
            ("`<b>`", "<p><code>&lt;b&gt;</code></p>\n"),
        ] {
            assert_eq!(to_html_beside_a_secret(text), html, "{text}");
        }
    }

    #[test]
    fn beside_a_secret_html_and_other_links_stay_text() {
        let html = to_html_beside_a_secret(
            "Hi <script>alert(1)</script> [click](javascript:alert(1)) [x](http://plain.example) [y](/studio) <b>",
        );
        assert!(!html.contains("<script>") && !html.contains("<b>") && !html.contains("href"), "{html}");
        assert!(html.contains("&lt;script&gt;") && html.contains("click (javascript:alert(1))"), "{html}");
        assert!(html.contains("x (http://plain.example)") && html.contains("y (/studio)"), "{html}");
        let quoted = to_html_beside_a_secret("[x](https://a.example/\"onmouseover=\"y)");
        assert!(!quoted.contains("href"), "{quoted}");
        assert!(!to_html_beside_a_secret("[x](https://user@evil.example)").contains("href"));
        let image = to_html_beside_a_secret("![logo](https://cdn.example/a.png) ![t](http://t.example/p.gif)");
        assert!(!image.contains("<img") && image.contains("<a href=\"https://cdn.example/a.png\" rel"), "{image}");
        assert!(image.contains("t (http://t.example/p.gif)"), "{image}");
        // A line that opens with HTML makes an HTML block, which is shown whole as its text.
        let block = to_html_beside_a_secret("<script>alert(1)</script> [click](javascript:alert(1))");
        assert!(block.starts_with("&lt;script&gt;") && !block.contains("href"), "{block}");
    }
}
