//! What a server offers a playbook: the tools its server lists that its entry allows, each with
//! the mark its entry sets over the server's, and how `search` finds them by words and by mark.

use std::rc::Rc;

use super::mcp::Listed;
use super::ServerEntry;
use crate::core::Problem;

/// A server's list as `offered` takes it: sorted by name, each name once (the first it lists),
/// and shared, so that the runs and searches of an isolate read one list kept for a while rather
/// than copy it each time (docs/performance.md: a copy of 50 tools' schemas cost a reasoning run 5%).
pub fn sorted(mut listed: Vec<Listed>) -> Rc<[Listed]> {
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    listed.dedup_by(|a, b| a.name == b.name);
    listed.into()
}

/// The tools of `listed` (as `sorted` leaves it) that `entry` allows, marked as the entry says.
/// An entry that allows every tool and marks none offers the list itself.
pub fn offered(entry: &ServerEntry, listed: &Rc<[Listed]>) -> Rc<[Listed]> {
    if entry.allowed.is_none() && entry.marks.is_empty() {
        return Rc::clone(listed);
    }
    listed
        .iter()
        .filter(|t| entry.allows(&t.name))
        .map(|t| {
            let mut t = t.clone();
            if let Some(mark) = entry.marks.get(&t.name) {
                t.mark = *mark;
                t.marked_by = entry.marked_by;
            }
            t
        })
        .collect()
}

/// The tool of `offered` named `tool`, or every one for `*` where `wildcard` allows it; a name the
/// server does not offer is refused in the words of what `search` shows.
pub fn pick<'t>(server: &str, offered: &'t [Listed], tool: &str, wildcard: bool) -> Result<Vec<&'t Listed>, Problem> {
    if wildcard && tool == "*" {
        return Ok(offered.iter().collect());
    }
    match offered.iter().find(|t| t.name == tool) {
        Some(t) => Ok(vec![t]),
        None => {
            let names: Vec<String> = offered.iter().map(|t| t.name.clone()).collect();
            Err(super::words::no_tool(server, tool, &names))
        }
    }
}

/// Which tools `search` keeps by their mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// Those marked `reads`.
    Read,
    /// The others: marked `acts`, or unmarked.
    Write,
}

impl Only {
    pub fn keeps(self, tool: &Listed) -> bool {
        tool.mark.reads() == (self == Only::Read)
    }
}

/// The words of `terms`, lowercased, each of which a tool must hold.
pub fn words(terms: &str) -> Vec<String> {
    terms.split_whitespace().map(str::to_lowercase).collect()
}

/// Whether every word is found in the server's name or in the tool's name, title or description;
/// a tool's name is read both as written (`read_text`) and as words (`read text`).
pub fn matches(words: &[String], server: &str, tool: &Listed) -> bool {
    let text = format!(
        "{server} {} {} {}",
        tool.name.replace('_', " "),
        tool.title.as_deref().unwrap_or(""),
        tool.description
    )
    .to_lowercase();
    words.iter().all(|w| text.contains(w.as_str()) || tool.name.to_lowercase().contains(w.as_str()))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::core::tool_server::mcp::Hints;
    use crate::core::tool_server::MarkedBy;
    use crate::core::tool_server::{Mark, ServerKind};

    fn listed(name: &str, description: &str, mark: Mark) -> Listed {
        Listed {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema: json!({ "type": "object" }),
            hints: Hints::default(),
            mark,
            marked_by: MarkedBy::Server,
        }
    }

    fn entry(allowed: Option<Vec<&str>>, marks: &[(&str, Mark)]) -> ServerEntry {
        ServerEntry {
            kind: ServerKind::Mcp { url: "http://127.0.0.1:1/mcp".into() },
            allowed: allowed.map(|a| a.into_iter().map(str::to_string).collect()),
            credential: None,
            record_content: true,
            handles_money: false,
            marks: marks.iter().map(|(n, m)| (n.to_string(), *m)).collect::<BTreeMap<_, _>>(),
            marked_by: MarkedBy::Settings,
            sends: None,
            reads_replies: None,
        }
    }

    #[test]
    fn an_entry_allows_and_marks_over_its_server() {
        let listed = vec![
            listed("write_file", "Write a file", Mark::Acts),
            listed("read_text_file", "Read a file as text", Mark::Unmarked),
            listed("list_directory", "List a folder", Mark::Reads),
        ];
        let e = entry(Some(vec!["read_text_file", "list_directory"]), &[("read_text_file", Mark::Reads)]);
        let listed = sorted(listed);
        let tools = offered(&e, &listed);
        assert_eq!(tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["list_directory", "read_text_file"]);
        assert_eq!((tools[1].mark, tools[1].marked_by), (Mark::Reads, MarkedBy::Settings));
        assert_eq!(tools[0].marked_by, MarkedBy::Server);
        let all = offered(&entry(None, &[]), &listed);
        assert_eq!(all.len(), 3);
        assert!(Rc::ptr_eq(&all, &listed), "an entry that changes nothing shares the list");
        let catalogue = ServerEntry { marked_by: MarkedBy::Catalogue, ..e };
        let tools = offered(&catalogue, &listed);
        assert_eq!(tools[1].marked_by, MarkedBy::Catalogue, "a provider's entry marks as the catalogue");
        assert!(offered(&entry(Some(vec![]), &[]), &listed).is_empty());
    }

    #[test]
    fn a_list_is_sorted_by_name_and_keeps_the_first_of_a_name() {
        let listed = sorted(vec![
            listed("write_file", "Write a file", Mark::Acts),
            listed("read", "The first read", Mark::Reads),
            listed("read", "A second read", Mark::Acts),
        ]);
        let seen: Vec<_> = listed.iter().map(|t| (t.name.as_str(), t.description.as_str())).collect();
        assert_eq!(seen, [("read", "The first read"), ("write_file", "Write a file")]);
    }

    #[test]
    fn search_finds_by_every_word_and_by_mark() {
        let read = listed("read_text_file", "Read the complete contents of a file as text", Mark::Reads);
        let write = listed("write_file", "Create a new file or overwrite one", Mark::Unmarked);
        assert!(matches(&words("Read FILE"), "files", &read));
        assert!(matches(&words("text file"), "files", &read));
        assert!(matches(&words("files"), "files", &write));
        assert!(!matches(&words("read calendar"), "files", &read));
        assert!(matches(&[], "files", &write));
        assert!(Only::Read.keeps(&read) && !Only::Read.keeps(&write));
        assert!(Only::Write.keeps(&write) && !Only::Write.keeps(&read));
    }
}
