//! Text as HTML and SVG carry it: the one escaping of markup characters that every page and
//! picture writes someone's words through.

/// Text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text for XML character data or an attribute value: escaped as for HTML, with the characters
/// XML 1.0 cannot hold at all (the control characters but tab and line breaks) left out.
pub fn escape_xml(text: &str) -> String {
    let held: String = text
        .chars()
        .filter(|&c| matches!(c, '\t' | '\n' | '\r') || !((c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}'))
        .collect();
    escape(&held)
}
