//! The small Markdown an agent or a provider writes as a key's `instructions`, made safe HTML:
//! paragraphs, lists of `- ` or `1. ` lines, `*emphasis*`, `**strong**`, `` `code` `` and links
//! to https addresses. Everything else is shown as the text it is, escaped: no HTML passes, and a
//! link to another scheme is written out, not followed.

use crate::api::sign_in_pages::escape;

/// The HTML of `text`.
pub fn to_html(text: &str) -> String {
    let mut out = String::new();
    for block in blocks(text) {
        match block {
            Block::Paragraph(lines) => {
                out.push_str("<p>");
                out.push_str(&inline(&lines.join(" "), true));
                out.push_str("</p>");
            }
            Block::List { ordered, items } => {
                let tag = if ordered { "ol" } else { "ul" };
                out.push_str(&format!("<{tag}>"));
                for item in items {
                    out.push_str(&format!("<li>{}</li>", inline(&item.join(" "), true)));
                }
                out.push_str(&format!("</{tag}>"));
            }
        }
    }
    out
}

enum Block<'a> {
    Paragraph(Vec<&'a str>),
    List { ordered: bool, items: Vec<Vec<&'a str>> },
}

/// The blocks of the text: a blank line ends one; a line that starts an item starts a list, and
/// the lines after it, until a blank line or the next item, continue it.
fn blocks(text: &str) -> Vec<Block<'_>> {
    let mut out: Vec<Block> = Vec::new();
    let mut open = false;
    for line in text.lines().map(str::trim) {
        if line.is_empty() {
            open = false;
            continue;
        }
        if let Some((ordered, rest)) = item(line) {
            match out.last_mut() {
                Some(Block::List { ordered: o, items }) if open && *o == ordered => items.push(vec![rest]),
                _ => out.push(Block::List { ordered, items: vec![vec![rest]] }),
            }
        } else {
            match out.last_mut() {
                Some(Block::Paragraph(lines)) if open => lines.push(line),
                Some(Block::List { items, .. }) if open => {
                    if let Some(last) = items.last_mut() {
                        last.push(line);
                    }
                }
                _ => out.push(Block::Paragraph(vec![line])),
            }
        }
        open = true;
    }
    out
}

/// Whether a line starts a list item, which kind, and its text.
fn item(line: &str) -> Option<(bool, &str)> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return Some((false, rest.trim_start()));
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        if let Some(rest) = line[digits..].strip_prefix(". ") {
            return Some((true, rest.trim_start()));
        }
    }
    None
}

/// The inline marks of one block's text; `links` is off inside a link's own text.
fn inline(text: &str, links: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    let mut after_word = false;
    while let Some(c) = rest.chars().next() {
        if let Some((html, used)) = mark(rest, links, after_word) {
            out.push_str(&html);
            rest = &rest[used..];
            after_word = false;
            continue;
        }
        let len = c.len_utf8();
        // A backslash keeps the mark after it as text.
        if c == '\\' {
            if let Some(next) = rest[1..].chars().next().filter(|n| n.is_ascii_punctuation()) {
                out.push_str(&escape(&next.to_string()));
                rest = &rest[1 + next.len_utf8()..];
                continue;
            }
        }
        out.push_str(&escape(&rest[..len]));
        after_word = c.is_alphanumeric();
        rest = &rest[len..];
    }
    out
}

/// The HTML of the mark `text` starts with, and how many bytes it took; none where it starts none.
fn mark(text: &str, links: bool, after_word: bool) -> Option<(String, usize)> {
    if let Some(body) = text.strip_prefix('`') {
        let end = body.find('`').filter(|&e| e > 0)?;
        return Some((format!("<code>{}</code>", escape(&body[..end])), end + 2));
    }
    if let Some(body) = text.strip_prefix("**") {
        let end = body.find("**").filter(|&e| e > 0)?;
        return Some((format!("<strong>{}</strong>", inline(&body[..end], links)), end + 4));
    }
    if links && text.starts_with('[') {
        return link(text);
    }
    // `_` marks only between words, so that snake_case names stay as they are.
    for delimiter in ['*', '_'] {
        if delimiter == '_' && after_word {
            continue;
        }
        if let Some(body) = text.strip_prefix(delimiter) {
            let end = body.find(delimiter).filter(|&e| e > 0 && !body.starts_with(' '))?;
            let closes_word = body[end + 1..].chars().next().is_none_or(|n| !n.is_alphanumeric());
            if delimiter == '_' && !closes_word {
                return None;
            }
            return Some((format!("<em>{}</em>", inline(&body[..end], links)), end + 2));
        }
    }
    None
}

/// `[text](address)`: a link where the address is https, else the text and the address as text.
fn link(text: &str) -> Option<(String, usize)> {
    let close = text.find("](")?;
    let label = &text[1..close];
    if label.is_empty() || label.contains('[') {
        return None;
    }
    let after = &text[close + 2..];
    let end = after.find(')')?;
    let address = after[..end].trim();
    let used = close + 2 + end + 1;
    let label_html = inline(label, false);
    if safe_address(address) {
        let html = format!("<a href=\"{}\" rel=\"noopener noreferrer\">{label_html}</a>", escape(address));
        return Some((html, used));
    }
    Some((format!("{label_html} ({})", escape(address)), used))
}

/// Whether an address may be a link: https, a host, and nothing that could end the attribute
/// or hide where it goes.
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
    fn paragraphs_marks_and_https_links() {
        let html = to_html(
            "Make a key under [Settings, *API keys*](https://app.example/keys) as an **Admin**,\nwith `read` access.\n\nIt is 40 characters.",
        );
        assert_eq!(
            html,
            "<p>Make a key under <a href=\"https://app.example/keys\" rel=\"noopener noreferrer\">Settings, <em>API keys</em></a> as an <strong>Admin</strong>, with <code>read</code> access.</p><p>It is 40 characters.</p>"
        );
    }

    #[test]
    fn html_and_other_schemes_stay_text() {
        let html = to_html("<script>alert(1)</script> [click](javascript:alert(1)) [x](http://plain.example) <b>");
        assert!(!html.contains("<script>") && !html.contains("<b>") && !html.contains("href"));
        assert!(html.contains("&lt;script&gt;") && html.contains("click (javascript:alert(1))"));
        let quoted = to_html("[x](https://a.example/\"onmouseover=\"y)");
        assert!(!quoted.contains("href"), "{quoted}");
        assert!(!to_html("[x](https://user@evil.example)").contains("href"));
        assert_eq!(to_html("`<b>`"), "<p><code>&lt;b&gt;</code></p>");
    }

    #[test]
    fn lists_and_words_that_are_not_marks() {
        assert_eq!(
            to_html("Steps:\n\n1. Open settings\n2. Make a key\n   for the bot\n- one"),
            "<p>Steps:</p><ol><li>Open settings</li><li>Make a key for the bot</li></ol><ul><li>one</li></ul>"
        );
        assert_eq!(
            to_html("use SLACK_BOT_TOKEN and snake_case_names"),
            "<p>use SLACK_BOT_TOKEN and snake_case_names</p>"
        );
        assert_eq!(to_html("2 * 3 * 4"), "<p>2 * 3 * 4</p>");
        assert_eq!(to_html("a \\*b\\* c"), "<p>a *b* c</p>");
        assert_eq!(to_html("unclosed `code and [link"), "<p>unclosed `code and [link</p>");
        assert_eq!(to_html("_word_ here"), "<p><em>word</em> here</p>");
    }
}
