//! A definition's document: `---`, YAML front matter, `---`, then the template body.

use serde_json::Value;

use crate::core::error::{FieldError, Problem};
use crate::core::yaml;

/// The most bytes a document may hold.
pub const SOURCE_MAX_BYTES: usize = 65_536;

#[derive(Debug, Clone, PartialEq)]
pub struct Document<'s> {
    pub front: Value,
    pub body: &'s str,
    /// The line of the source the body starts on, so that body errors name source lines.
    pub body_line: usize,
}

impl<'s> Document<'s> {
    pub fn parse(source: &'s str) -> Result<Document<'s>, Problem> {
        if source.len() > SOURCE_MAX_BYTES {
            return Err(Problem::invalid(
                "/source",
                format!("is {} bytes, more than the {SOURCE_MAX_BYTES} a document may hold", source.len()),
            ));
        }
        let Some((yaml, body, body_line)) = split(source) else {
            return Err(Problem::invalid(
                "/source",
                "must open with a line `---`, then the YAML front matter, then a line `---`, then the body",
            ));
        };
        let front: Value = if yaml.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            yaml::parse(yaml).map_err(yaml_problem)?
        };
        if !front.is_object() {
            return Err(Problem::invalid("/source", "the front matter must be a YAML mapping of keys to values"));
        }
        Ok(Document { front, body, body_line })
    }
}

/// (front matter, body, line the body starts on)
fn split(source: &str) -> Option<(&str, &str, usize)> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mut lines = source.split_inclusive('\n');
    let first = lines.next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let mut offset = start;
    for (line_no, line) in (2..).zip(lines) {
        if line.trim_end() == "---" {
            let yaml = &source[start..offset];
            let body = &source[offset + line.len()..];
            return Some((yaml, body, line_no + 1));
        }
        offset += line.len();
    }
    None
}

fn yaml_problem(e: yaml::Unreadable) -> Problem {
    let mut field = FieldError::new("", format!("the front matter is not valid YAML: {}", e.words)).within("source");
    if let Some((line, column)) = e.at {
        // The front matter starts on the document's second line.
        field = field.at(line + 1, column);
    }
    Problem::invalid_fields(vec![field])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_front_matter_from_the_body() {
        let d = Document::parse("---\ndescription: x\n---\nHello {{ input.name }}\n").unwrap();
        assert_eq!(d.front["description"], "x");
        assert_eq!(d.body, "Hello {{ input.name }}\n");
        assert_eq!(d.body_line, 4);
    }

    #[test]
    fn short_words_stay_words() {
        let d = Document::parse("---\nrequired: [n, y, no, off]\nflag: true\n---\n").unwrap();
        assert_eq!(d.front["required"], serde_json::json!(["n", "y", "no", "off"]));
        assert_eq!(d.front["flag"], true);
    }

    #[test]
    fn refuses_a_document_without_front_matter_or_with_broken_yaml() {
        assert_eq!(Document::parse("Hello").unwrap_err().errors[0].pointer, "/source");
        let p = Document::parse("---\ndescription: [x\n---\n").unwrap_err();
        assert!(p.errors[0].line.is_some(), "{p:?}");
        assert!(Document::parse("---\n- a\n---\n").is_err());
        let p = Document::parse("---\ndescription: a\ndescription: b\n---\n").unwrap_err();
        assert!(!p.detail.contains("line 2") && !p.detail.contains("Options"), "{}", p.detail);
        assert!(p.detail.contains("duplicate"), "{}", p.detail);
    }
}
