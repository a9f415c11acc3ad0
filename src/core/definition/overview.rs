//! What a save takes beside its document: the overview, for people, and a function's diagram.

use crate::core::error::{FieldError, Problem};

pub const OVERVIEW_MAX: usize = 4_000;
pub const DIAGRAM_MAX: usize = 8_000;

/// An overview is Markdown for a person: what the definition does, what it takes and what it
/// answers, in 40 to 4,000 characters, with no HTML.
pub fn check_overview(overview: &str) -> Option<FieldError> {
    let n = overview.trim().chars().count();
    if n < 40 {
        return Some(FieldError::new(
            "/overview",
            "is too short: say in 40 characters or more what it does, what it takes and what it answers",
        ));
    }
    if n > OVERVIEW_MAX {
        return Some(FieldError::new("/overview", format!("is longer than {OVERVIEW_MAX} characters")));
    }
    if looks_like_html(overview) {
        return Some(FieldError::new("/overview", "must be Markdown without HTML tags"));
    }
    None
}

/// A diagram is a Mermaid flowchart of how the function does its work: its first line
/// `flowchart TD` (or LR, TB, RL, BT), then at least one node or edge.
pub fn check_diagram(diagram: &str) -> Option<FieldError> {
    if diagram.chars().count() > DIAGRAM_MAX {
        return Some(FieldError::new("/diagram", format!("is longer than {DIAGRAM_MAX} characters")));
    }
    let mut lines = diagram.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("%%"));
    let first = lines.next().unwrap_or_default();
    let mut words = first.split_whitespace();
    let head_ok = matches!(words.next(), Some("flowchart") | Some("graph"))
        && matches!(words.next(), Some("TD") | Some("TB") | Some("LR") | Some("RL") | Some("BT"));
    if !head_ok {
        return Some(FieldError::new(
            "/diagram",
            "must be a Mermaid flowchart whose first line is flowchart TD (or LR, TB, RL, BT)",
        ));
    }
    if lines.next().is_none() {
        return Some(FieldError::new(
            "/diagram",
            "draws nothing: add a node or an edge, such as A[Read the brief] --> B[Review it]",
        ));
    }
    None
}

fn looks_like_html(text: &str) -> bool {
    text.match_indices('<').any(|(i, _)| {
        let rest = &text[i + 1..];
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && rest.find('>').is_some_and(|end| !rest[..end].contains(char::is_whitespace) || rest[..end].contains('='))
    })
}

/// The overview and diagram rules for a save of `kind`: a function's save takes a diagram every
/// time, and a workflow's takes none.
pub fn check_extras(is_function: bool, overview: &str, diagram: Option<&str>) -> Result<(), Problem> {
    let mut errors: Vec<FieldError> = check_overview(overview).into_iter().collect();
    match (is_function, diagram) {
        (true, None) => errors.push(FieldError::new(
            "/diagram",
            "is required: a function's save takes its diagram every time, a Mermaid flowchart of how it works",
        )),
        (true, Some(d)) => errors.extend(check_diagram(d)),
        (false, Some(_)) => errors.push(FieldError::new(
            "/diagram",
            "is not taken: a workflow is drawn from its steps, so leave diagram out",
        )),
        (false, None) => {}
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Problem::invalid_fields(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overview_and_diagram_rules() {
        assert!(
            check_overview("Reviews a campaign brief against four criteria and recommends Ready or Revise.").is_none()
        );
        assert!(check_overview("Too short.").is_some());
        assert!(check_overview("Reviews a brief <b>carefully</b> against four criteria, and more words.").is_some());
        assert!(check_overview("Keeps totals where a < b and c > d holds, for each month of the year.").is_none());
        assert!(check_diagram("flowchart TD\n  A[Read] --> B[Review]").is_none());
        assert!(check_diagram("flowchart TD").is_some());
        assert!(check_diagram("sequenceDiagram\n A->>B: hi").is_some());
        assert!(check_extras(true, "Reviews a campaign brief against four criteria and recommends.", None).is_err());
        assert!(check_extras(
            false,
            "Reviews a campaign brief against four criteria and recommends.",
            Some("flowchart TD\nA-->B")
        )
        .is_err());
    }
}
