//! The Markdown guides `get_guide` serves, compiled into the Worker from `guides/`.
//!
//! Each file opens with YAML front matter (`title`, `description`); the body after it is the guide.

use std::borrow::Cow;

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
    ("generation-function", include_str!("../guides/generation-function.md")),
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
    ("try-before-you-save", include_str!("../guides/try-before-you-save.md")),
];

#[derive(Debug, Clone, PartialEq)]
pub struct Guide {
    pub name: &'static str,
    pub title: String,
    pub description: String,
    /// Its Markdown: as written, or, on `/directory`, without what it says of generation.
    pub text: Cow<'static, str>,
}

/// A guide's title and description: its front matter read as the runtime reads any YAML.
struct FrontMatter {
    title: String,
    description: String,
}

impl FrontMatter {
    fn read(yaml: &str) -> Option<FrontMatter> {
        let front = crate::core::yaml::parse(yaml).ok()?;
        let text = |key: &str| front.get(key).and_then(|v| v.as_str()).map(str::to_string);
        Some(FrontMatter { title: text("title")?, description: text("description")? })
    }
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

/// The guide the directory listing leaves out: it serves no generation function (spec: get_guide).
pub const DIRECTORY_LEAVES_OUT: &str = "generation-function";

/// The guides an endpoint serves: every guide, or on `/directory` every guide but the
/// generation function's, with `terminology` leaving generation functions out.
pub fn served(directory: bool) -> Vec<Guide> {
    all().into_iter().filter_map(|g| shown(g, directory)).collect()
}

/// The names of the guides an endpoint serves.
pub fn served_names(directory: bool) -> Vec<&'static str> {
    names().into_iter().filter(|n| !directory || *n != DIRECTORY_LEAVES_OUT).collect()
}

/// A guide by name, as an endpoint serves it.
pub fn find_served(name: &str, directory: bool) -> Option<Guide> {
    find(name).and_then(|g| shown(g, directory))
}

fn shown(g: Guide, directory: bool) -> Option<Guide> {
    match (directory, g.name) {
        (false, _) => Some(g),
        (true, DIRECTORY_LEAVES_OUT) => None,
        (true, "terminology") => Some(Guide { text: Cow::Owned(without_generation(&g.text)), ..g }),
        (true, _) if g.text.contains(GENERATION_LINE.0) || g.text.contains(GENERATION_LINE.1) => {
            let kept: Vec<&str> =
                g.text.lines().filter(|l| !l.contains(GENERATION_LINE.0) && !l.contains(GENERATION_LINE.1)).collect();
            Some(Guide { text: Cow::Owned(kept.join("\n") + "\n"), ..g })
        }
        (true, _) => Some(g),
    }
}

/// What marks a line of a guide, a type's bullet or a row that names the generation guide, that
/// `/directory` leaves out.
const GENERATION_LINE: (&str, &str) = ("`generation-function`", "- **generation**");

/// The text without each paragraph (a block between blank lines) that speaks of generation or
/// assets, which a generation run makes.
fn without_generation(text: &str) -> String {
    let kept: Vec<&str> = text
        .split("\n\n")
        .filter(|p| {
            let lower = p.to_lowercase();
            !lower.contains("generation") && !lower.contains("**asset**")
        })
        .collect();
    kept.join("\n\n")
}

fn parse(name: &'static str, source: &'static str) -> Guide {
    match split_front_matter(source) {
        Some((yaml, body)) => match FrontMatter::read(yaml) {
            Some(fm) => Guide { name, title: fm.title, description: fm.description, text: Cow::Borrowed(body) },
            None => Guide { name, title: name.to_string(), description: String::new(), text: Cow::Borrowed(body) },
        },
        None => Guide { name, title: name.to_string(), description: String::new(), text: Cow::Borrowed(source) },
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
            let fm = FrontMatter::read(yaml)
                .unwrap_or_else(|| panic!("{name}: its front matter needs a title and a description"));
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
            let source = block(&guide.text, "markdown").unwrap_or_else(|| panic!("{name}: no markdown block"));
            let overview = block(&guide.text, "text").unwrap_or_else(|| panic!("{name}: no text block"));
            let diagram = block(&guide.text, "mermaid").unwrap_or_else(|| panic!("{name}: no mermaid block"));
            if let Err(p) = check_document(kind, source) {
                panic!("{name}: the worked example is refused: {}", p.detail);
            }
            if let Err(p) = check_extras(true, overview.trim(), Some(diagram)) {
                panic!("{name}: the overview or diagram is refused: {}", p.detail);
            }
        }
    }

    #[test]
    fn the_generation_guide_example_passes_its_checker_as_written() {
        let guide = super::find("generation-function").expect("the generation guide");
        let source = block(&guide.text, "markdown").expect("a markdown block");
        let overview = block(&guide.text, "text").expect("a text block");
        let diagram = block(&guide.text, "mermaid").expect("a mermaid block");
        let spec = match crate::core::definition::generation::check_source(source) {
            Ok(spec) => spec,
            Err(p) => panic!("the worked example is refused: {:?}", p.errors),
        };
        assert_eq!((spec.model().model, spec.parameter("size")), ("openai/gpt-image-2", Some("1024x1536")));
        assert!(check_document(Kind::Generation, source).is_ok());
        if let Err(p) = check_extras(true, overview.trim(), Some(diagram)) {
            panic!("the overview or diagram is refused: {}", p.detail);
        }
    }

    #[test]
    fn the_directory_serves_no_word_of_generation_functions() {
        assert!(super::find_served("generation-function", true).is_none());
        assert!(super::find_served("generation-function", false).is_some());
        assert!(!super::served_names(true).contains(&"generation-function"));
        let terminology = super::find_served("terminology", true).expect("terminology");
        assert!(!terminology.text.to_lowercase().contains("generation"), "{}", terminology.text);
        assert!(terminology.text.contains("**Computation function**"));
        let everywhere = super::find_served("terminology", false).expect("terminology");
        assert!(everywhere.text.contains("**Generation function**"));
        for g in super::served(true) {
            assert!(!g.text.contains("generation-function"), "{} names the generation guide on /directory", g.name);
            assert!(!g.text.contains("**generation**"), "{} offers the generation type on /directory", g.name);
        }
        let start = super::find_served("start", true).expect("start");
        assert!(start.text.contains("- **computation**:") && start.text.contains("| `computation-function` |"));
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
        let source = block(&guide.text, "markdown").expect("a markdown block");
        let overview = block(&guide.text, "text").expect("a text block");
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
