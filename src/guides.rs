//! The Markdown guides `get_guide` serves, compiled into the Worker from `guides/`.
//!
//! Each file opens with YAML front matter (`title`, `description`); the body after it is the guide.

use serde::Deserialize;

#[cfg(test)]
mod truth;

/// The guides, in the order they are listed.
const SOURCES: &[(&str, &str)] = &[
    ("start", include_str!("../guides/start.md")),
    ("terminology", include_str!("../guides/terminology.md")),
    ("playbooks", include_str!("../guides/playbooks.md")),
    ("reasoning-function", include_str!("../guides/reasoning-function.md")),
    ("lookup-function", include_str!("../guides/lookup-function.md")),
    ("interaction-function", include_str!("../guides/interaction-function.md")),
    ("prediction-function", include_str!("../guides/prediction-function.md")),
    ("computation-function", include_str!("../guides/computation-function.md")),
    ("workflow", include_str!("../guides/workflow.md")),
    ("triggers", include_str!("../guides/triggers.md")),
    ("events", include_str!("../guides/events.md")),
    ("templates", include_str!("../guides/templates.md")),
    ("page", include_str!("../guides/page.md")),
    ("glance", include_str!("../guides/glance.md")),
    ("access", include_str!("../guides/access.md")),
    ("connections", include_str!("../guides/connections.md")),
    ("first-playbook", include_str!("../guides/first-playbook.md")),
    ("connect-a-service", include_str!("../guides/connect-a-service.md")),
    ("give-tools", include_str!("../guides/give-tools.md")),
    ("schedule", include_str!("../guides/schedule.md")),
    ("keep", include_str!("../guides/keep.md")),
];

#[derive(Debug, Clone, PartialEq)]
pub struct Guide {
    pub name: &'static str,
    pub title: String,
    pub description: String,
    pub text: &'static str,
}

#[derive(Deserialize)]
struct FrontMatter {
    title: String,
    description: String,
}

/// Every guide, parsed. A guide whose front matter does not parse keeps its name as its title;
/// the unit tests make sure none ships that way.
pub fn all() -> Vec<Guide> {
    SOURCES.iter().map(|(name, source)| parse(name, source)).collect()
}

pub fn names() -> Vec<&'static str> {
    SOURCES.iter().map(|(name, _)| *name).collect()
}

pub fn find(name: &str) -> Option<Guide> {
    SOURCES.iter().find(|(n, _)| *n == name).map(|(n, source)| parse(n, source))
}

fn parse(name: &'static str, source: &'static str) -> Guide {
    match split_front_matter(source) {
        Some((yaml, body)) => match serde_saphyr::from_str::<FrontMatter>(yaml) {
            Ok(fm) => Guide { name, title: fm.title, description: fm.description, text: body },
            Err(_) => Guide { name, title: name.to_string(), description: String::new(), text: body },
        },
        None => Guide { name, title: name.to_string(), description: String::new(), text: source },
    }
}

/// `---\n<yaml>\n---\n<body>` → (yaml, body).
pub fn split_front_matter(source: &str) -> Option<(&str, &str)> {
    let rest = source.strip_prefix("---\n").or_else(|| source.strip_prefix("---\r\n"))?;
    let end = rest.find("\n---")?;
    let yaml = &rest[..end];
    let after = &rest[end + 4..];
    let body = after.strip_prefix("\r\n").or_else(|| after.strip_prefix('\n')).unwrap_or(after);
    Some((yaml, body.trim_start_matches(['\r', '\n'])))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_guide_has_front_matter_and_a_body() {
        for (name, source) in SOURCES {
            let (yaml, body) = split_front_matter(source).unwrap_or_else(|| panic!("{name}: no front matter"));
            let fm: FrontMatter = serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!fm.title.is_empty() && fm.description.chars().count() <= 160, "{name}");
            assert!(body.len() > 200, "{name}: body too short");
        }
    }

    #[test]
    fn find_knows_each_name() {
        assert_eq!(find("start").map(|g| g.name), Some("start"));
        assert!(find("nope").is_none());
        assert_eq!(names()[0], "start");
    }
}

#[cfg(test)]
mod worked_examples {
    use crate::core::definition::{check_document, check_extras, Kind};

    /// The first fenced block of `lang` in the `## Worked example` section of a guide.
    fn block<'g>(guide: &'g str, lang: &str) -> Option<&'g str> {
        let section = &guide[guide.find("## Worked example")?..];
        let section = section[3..].find("\n## ").map_or(section, |end| &section[..end + 3]);
        let open = format!("```{lang}\n");
        let start = section.find(&open)? + open.len();
        let len = section[start..].find("\n```")?;
        Some(&section[start..start + len + 1])
    }

    #[test]
    fn each_format_guide_example_passes_the_checks_as_written() {
        for kind in [Kind::Reasoning, Kind::Lookup, Kind::Interaction, Kind::Prediction, Kind::Computation] {
            let name = format!("{}-function", kind.as_str());
            let guide = super::find(&name).unwrap_or_else(|| panic!("no guide {name}"));
            let source = block(guide.text, "markdown").unwrap_or_else(|| panic!("{name}: no markdown block"));
            let overview = block(guide.text, "text").unwrap_or_else(|| panic!("{name}: no text block"));
            let diagram = block(guide.text, "mermaid").unwrap_or_else(|| panic!("{name}: no mermaid block"));
            if let Err(p) = check_document(kind, source) {
                panic!("{name}: the worked example is refused: {}", p.detail);
            }
            if let Err(p) = check_extras(true, overview.trim(), Some(diagram)) {
                panic!("{name}: the overview or diagram is refused: {}", p.detail);
            }
        }
    }

    /// The generation guide is not served until generation functions are, so it is read from its
    /// file here; its worked example passes the generation checker as written.
    #[test]
    fn the_generation_guide_example_passes_its_checker_as_written() {
        let guide = include_str!("../guides/generation-function.md");
        let source = block(guide, "markdown").expect("a markdown block");
        let overview = block(guide, "text").expect("a text block");
        let diagram = block(guide, "mermaid").expect("a mermaid block");
        let spec = match crate::core::definition::generation::check_source(source) {
            Ok(spec) => spec,
            Err(p) => panic!("the worked example is refused: {:?}", p.errors),
        };
        assert_eq!((spec.model().model, spec.parameter("size")), ("openai/gpt-image-2", Some("1024x1536")));
        if let Err(p) = check_extras(true, overview.trim(), Some(diagram)) {
            panic!("the overview or diagram is refused: {}", p.detail);
        }
        let (yaml, body) = super::split_front_matter(guide).expect("front matter");
        let fm: super::FrontMatter = serde_saphyr::from_str(yaml).expect("a title and a description");
        assert!(!fm.title.is_empty() && fm.description.chars().count() <= 160 && body.len() > 200);
        assert!(super::find("generation-function").is_none(), "registered: see the guide truth tests");
    }

    #[test]
    fn the_keep_recipe_keeper_passes_the_checks_as_written() {
        let recipe = super::find("keep").expect("the keep recipe").text;
        let start = recipe.find("```markdown\n").expect("a markdown block") + "```markdown\n".len();
        let len = recipe[start..].find("\n```").expect("the block's end");
        if let Err(p) = check_document(Kind::Computation, &recipe[start..start + len + 1]) {
            panic!("the keeper is refused: {:?}", p.errors);
        }
    }

    #[test]
    fn the_workflow_guide_example_passes_the_checks_as_written() {
        let guide = super::find("workflow").expect("the workflow guide");
        let source = block(guide.text, "markdown").expect("a markdown block");
        let overview = block(guide.text, "text").expect("a text block");
        if let Err(p) = check_document(Kind::Workflow, source) {
            panic!("the worked example is refused: {:?}", p.errors);
        }
        if let Err(p) = check_extras(false, overview.trim(), None) {
            panic!("the overview is refused: {}", p.detail);
        }
        let plan = crate::core::definition::workflow::plan(source).expect("a plan");
        assert_eq!(plan.steps.len(), 2);
        for name in ["triggers", "events"] {
            let guide = super::find(name).unwrap_or_else(|| panic!("no guide {name}"));
            assert!(guide.text.contains("## Worked example"), "{name}");
        }
    }
}
