//! YAML read as JSON: a definition's front matter, an OpenAPI document, a guide's front matter.
//!
//! One reading for all of them, with one set of options, so the upload carries one copy of the
//! YAML deserializer (issue 18). Its errors are worded by the parser's plain formatter: its
//! `Display` draws the source around the error, which every caller here dropped after the first
//! line along with its advice about the parser's options.

use serde_json::Value;
use serde_saphyr::MessageFormatter;

/// Why a text is not YAML: the parser's words, and where, when it knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub words: String,
    /// The line and column, from 1, counted within the text given.
    pub at: Option<(usize, usize)>,
}

/// The text as JSON. YAML 1.2 booleans only: in YAML 1.1 a plain `n`, `no` or `off` is false, which
/// would turn `required: [n]` or an enum's value `no` into `false`.
pub fn parse(text: &str) -> Result<Value, Unreadable> {
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    serde_saphyr::from_str_with_options(text, options).map_err(|e| {
        let plain = e.without_snippet();
        let said = serde_saphyr::UserMessageFormatter.format_message(plain);
        // Its words go into a JSON answer on one line: no control characters.
        let words: String = said.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        let words = words.trim();
        Unreadable {
            words: if words.is_empty() { "it does not parse".to_string() } else { words.to_string() },
            at: plain.location().map(|at| (at.line() as usize, at.column() as usize)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_mapping_as_json() {
        assert_eq!(parse("a: 1\nb: [x, no]\n").unwrap(), serde_json::json!({"a": 1, "b": ["x", "no"]}));
    }

    #[test]
    fn says_what_is_wrong_and_where_without_drawing_the_source() {
        let e = parse("a: 1\nb: [1, 2\n").unwrap_err();
        assert!(!e.words.is_empty() && !e.words.contains('\n') && !e.words.contains('|'), "{e:?}");
        let (line, column) = e.at.expect("a location");
        assert!(line >= 2 && column >= 1, "{e:?}");
    }
}
