//! Markdown that someone wrote (a page, a guide, an overview, a comment) as HTML a person reads
//! safely: CommonMark with tables and strikethrough, where any HTML the text holds is shown as
//! the text it is, and a link or image goes only to this runtime's own pages or to an `http`,
//! `https` or `mailto` address. Images are written as links, so a page loads nothing from
//! another server.

use pulldown_cmark::{html, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// The HTML of `text`.
pub fn to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events = Parser::new_ext(text, options).map(safe);
    let mut out = String::with_capacity(text.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

fn safe(event: Event<'_>) -> Event<'_> {
    match event {
        // What the writer meant as HTML is shown as its text.
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
            Event::Start(Tag::Link { link_type, dest_url: allowed(dest_url), title, id })
        }
        // An image would be fetched as the page opens: it is written as a link the person may follow.
        Event::Start(Tag::Image { dest_url, title, id, .. }) => {
            Event::Start(Tag::Link { link_type: LinkType::Inline, dest_url: allowed(dest_url), title, id })
        }
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    }
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

#[cfg(test)]
mod tests {
    use super::to_html;

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
}
