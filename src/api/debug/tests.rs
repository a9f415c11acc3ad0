use super::*;

/// The text between the first `open` and the next `close` after it.
fn between<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
    let start = html.find(open).map(|i| i + open.len()).unwrap_or_else(|| panic!("no {open}"));
    let len = html[start..].find(close).unwrap_or_else(|| panic!("no {close} after {open}"));
    &html[start..start + len]
}

#[test]
fn the_policy_allows_the_one_script_and_style_by_their_hashes() {
    let html = page();
    assert_eq!(html.matches("<script").count(), 1, "one script");
    assert_eq!(html.matches("<style").count(), 1, "one style sheet");
    assert_eq!(between(html, "<script>", "</script>"), SCRIPT);
    assert_eq!(between(html, "<style>", "</style>"), STYLE);
    let policy = csp();
    let digest = |text: &str| base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()));
    assert!(policy.starts_with("default-src 'none'; "), "{policy}");
    assert!(policy.contains(&format!("script-src 'sha256-{}';", digest(SCRIPT))), "{policy}");
    assert!(policy.contains(&format!("style-src 'sha256-{}';", digest(STYLE))), "{policy}");
    assert!(!policy.contains("unsafe") && !policy.contains("http"), "{policy}");
    let sent: Vec<(&str, String)> = headers();
    let header = |n: &str| sent.iter().find(|(name, _)| *name == n).map(|(_, v)| v.clone());
    assert_eq!(header("content-security-policy"), Some(policy));
    assert_eq!(header("x-frame-options").as_deref(), Some("DENY"));
    assert_eq!(header("referrer-policy").as_deref(), Some("same-origin"));
    assert_eq!(header("content-type").as_deref(), Some("text/html; charset=utf-8"));
}

#[test]
fn the_page_loads_nothing_and_runs_nothing_it_holds() {
    let html = page();
    let lower = html.to_ascii_lowercase();
    for never in ["<script src", " src=", "<link", "<img", "<iframe", "<object", "<embed", "@import", "url(", " on"] {
        let found = if never == " on" {
            // No inline event handler: ` onclick=`, ` onload=` and the like.
            lower.match_indices(" on").any(|(i, _)| {
                let rest = &lower[i + 3..];
                let word: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
                !word.is_empty() && rest[word.len()..].starts_with('=')
            })
        } else {
            lower.contains(never)
        };
        assert!(!found, "the page holds {never}");
    }
    assert!(!SCRIPT.contains("fetch(") && !SCRIPT.contains("XMLHttpRequest") && !SCRIPT.contains("import"));
    assert!(!STYLE.contains("url(") && !STYLE.contains("@import"));
    // Someone's Markdown is shown as text: a guide's raw `<` is escaped in the Markdown beside it.
    assert!(!lower.contains("<script>alert"), "no script from text");
}

#[test]
fn the_page_is_built_once_and_stays_a_size_a_browser_opens_at_once() {
    assert!(std::ptr::eq(page(), page()));
    assert!(page().len() < 2 << 20, "the page holds {} bytes", page().len());
}

#[test]
fn the_instructions_hold_a_placeholder_for_the_caller() {
    let html = page();
    let placeholder = escape(connections::CALLER_PLACEHOLDER);
    assert_eq!(html.matches(&format!("<mark class=\"caller\">{placeholder}</mark>")).count(), 4, "one per connection");
    assert!(!html.contains("\u{1}"), "the mark never shows");
    assert!(!html.contains("This connection acts as the local developer"), "no caller is named");
}
