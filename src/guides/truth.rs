//! Holds the guides to the registry: a guide may name only the tools, guides and prompts this
//! runtime serves, may not call a served thing unserved, and `start` lists every tool on the
//! endpoints that list it. A change that adds a tool fails here until its guides say so.
//!
//! Holds the README and `docs/*.md` to the code with the guides: each `src/` path they name
//! exists, a count of function types is the registry's, a request to another host name gets the
//! status the code answers, each README section they or the runtime's own words point to is there,
//! and the README and the docs promise nothing for a later version.

use std::collections::BTreeSet;

use crate::core::definition::Kind;
use crate::core::Caller;
use crate::mcp::endpoint::Endpoint;
use crate::mcp::prompts;
use crate::tools;

/// Every operation the spec names, served here or not, so that a guide naming one this runtime
/// lacks is caught whichever it is.
const SPEC_TOOLS: &[&str] = &[
    "create_playbook",
    "list_playbooks",
    "get_playbook",
    "update_playbook",
    "retire_playbook",
    "restore_playbook",
    "create_definition",
    "list_definitions",
    "get_definition",
    "update_definition",
    "pause_definition",
    "resume_definition",
    "retire_definition",
    "restore_definition",
    "run_definition",
    "get_run",
    "list_runs",
    "get_stats",
    "cancel_run",
    "send_run_event",
    "list_interactions",
    "answer_interaction",
    "publish_event",
    "list_playbook_events",
    "get_event",
    "list_models",
    "get_guide",
    "search",
    "introspect",
    "validate",
    "dry_run",
    "query_connection",
    "execute_connection",
    "add_connection",
    "list_connections",
    "list_connection_tools",
    "reconnect_connection",
    "remove_connection",
    "get_connection",
    "set_connection_playbooks",
    "list_providers",
    "set_connection_signing_secret",
    "remove_connection_signing_secret",
    "read_link",
    "give_credential",
    "give_client",
    "list_comments",
    "resolve_comment",
    "make_comment",
    "reopen_comment",
    "render_page",
    "render_playbook_page",
    "get_playbook_analytics",
    "get_run_history",
    "list_generation_models",
    "get_asset",
    "get_license",
    "activate_license",
    "list_org_changes",
    "list_playbook_changes",
    "activate_allocation",
    "report_allocation",
    "list_activity",
    "mark_activity_seen",
    "list_role_assignments",
    "assign_role",
    "unassign_role",
    "transcribe",
    "get_voice",
];

/// Every guide and recipe the spec names, and those written for a page the spec points to but does
/// not hold (`access`, `connections`).
const SPEC_GUIDES: &[&str] = &[
    "start",
    "terminology",
    "playbooks",
    "connections",
    "reasoning-function",
    "lookup-function",
    "interaction-function",
    "prediction-function",
    "computation-function",
    "generation-function",
    "workflow",
    "templates",
    "triggers",
    "events",
    "page",
    "glance",
    "access",
    "first-playbook",
    "connect-a-service",
    "give-tools",
    "schedule",
    "keep",
    "try-before-you-save",
];

/// Words that say something is not served: a sentence holding one may name no served thing.
const NOT_SERVED: &[&str] =
    &["not served", "not yet", " yet", "later version", "comes later", "come later", "comes with", "does not run"];

/// The tools MCP serves; the access operations are HTTP routes, which the `access` guide names.
fn served_tools() -> BTreeSet<&'static str> {
    tools::all().iter().filter(|t| t.door == tools::Door::Both).map(|t| t.name).collect()
}

/// Every operation served, over MCP or over HTTP alone, such as `validate`.
fn served_operations() -> BTreeSet<&'static str> {
    tools::all().iter().map(|t| t.name).collect()
}

fn served_guides() -> BTreeSet<&'static str> {
    super::names().into_iter().collect()
}

/// The lines of a page outside its fenced code blocks, the fences' own lines left out too.
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        let fence = line.trim_start().starts_with("```");
        fenced ^= fence;
        !fence && !fenced
    })
}

/// The text between each pair of backticks, outside fenced code blocks.
fn backticked(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            out.push(inside);
        }
    }
    out
}

/// The sentences of a guide's prose: fenced blocks and table separators left out.
fn sentences(text: &str) -> Vec<String> {
    let mut prose = String::new();
    for line in prose_lines(text) {
        prose.push_str(line);
        prose.push('\n');
    }
    prose.split(['.', '\n', '|']).map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

#[test]
fn every_guide_names_only_what_is_served() {
    let (tools, guides) = (served_operations(), served_guides());
    let prompts: BTreeSet<&str> = prompts::all().iter().map(|p| p.name).collect();
    let mut wrong = Vec::new();
    for guide in super::all() {
        for name in backticked(&guide.text) {
            if SPEC_TOOLS.contains(&name) && !tools.contains(name) {
                wrong.push(format!("{}: names the tool {name}, which this runtime does not serve", guide.name));
            }
            if SPEC_GUIDES.contains(&name) && !guides.contains(name) && !prompts.contains(name) {
                wrong.push(format!("{}: names the guide {name}, which this runtime does not serve", guide.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_guide_calls_a_served_thing_unserved() {
    let mut served: Vec<String> = served_tools().iter().map(|t| format!("`{t}`")).collect();
    served.extend(served_guides().iter().map(|g| format!("`{g}`")));
    for kind in Kind::ALL.iter().filter(|k| k.served()) {
        served.push(format!("`{}`", kind.as_str()));
        served.push(kind.noun());
    }
    served.extend(["trigger".to_string(), "workflows".into()]);
    let mut wrong = Vec::new();
    for guide in super::all() {
        for sentence in sentences(&guide.text) {
            let lower = sentence.to_lowercase();
            let Some(marker) = NOT_SERVED.iter().find(|m| lower.contains(*m)) else { continue };
            for name in served.iter().filter(|n| lower.contains(n.as_str())) {
                wrong.push(format!("{}: “{sentence}” says “{marker}” of {name}, which is served", guide.name));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The tools a bullet of `start`'s "Which connection lists which tools" names.
fn listed_in_start(start: &str, bullet: &str) -> BTreeSet<String> {
    let line = start.lines().find(|l| l.starts_with(bullet)).unwrap_or_else(|| panic!("start has no line {bullet}"));
    let tools = served_tools();
    backticked(line).into_iter().filter(|t| tools.contains(t)).map(str::to_string).collect()
}

#[test]
fn start_says_which_connection_lists_which_tools() {
    let start = &super::find("start").expect("the guide start").text;
    let caller = Caller::local(None);
    let endpoints = [
        ("- **`/mcp`**", Endpoint::Root),
        ("- **`/orgs/{org}/mcp`**", Endpoint::Org { org: "local".into() }),
        (
            "- **`/orgs/{org}/playbooks/{playbook}/mcp`**",
            Endpoint::Playbook { org: "local".into(), playbook: "pb".into() },
        ),
    ];
    for (bullet, endpoint) in endpoints {
        let listed: BTreeSet<String> = endpoint.tools(&caller).map(|t| t.name.to_string()).collect();
        assert_eq!(listed_in_start(start, bullet), listed, "start's line {bullet}");
    }
    let table = &start[start.find("| Tool | Use it to |").expect("start's table of tools")..];
    let table: String = table.lines().take_while(|l| l.starts_with('|')).collect::<Vec<_>>().join("\n");
    for tool in served_tools() {
        assert!(table.contains(&format!("`{tool}`")), "start's table of tools omits {tool}");
    }
}

#[test]
fn start_gives_a_line_to_each_type_it_runs_and_a_row_to_each_guide() {
    let start = &super::find("start").expect("the guide start").text;
    for kind in Kind::ALL.iter().filter(|k| k.served() && k.is_function()) {
        assert!(start.contains(&format!("- **{}**:", kind.as_str())), "start has no line for {}", kind.as_str());
    }
    for kind in Kind::ALL.iter().filter(|k| !k.served()) {
        assert!(
            !start.contains(&format!("**{}**", kind.as_str())),
            "start names {}, which is not served",
            kind.as_str()
        );
    }
    let table = &start[start.find("| Task | Guide or recipe |").expect("start's table of guides")..];
    for guide in super::names() {
        assert!(table.contains(&format!("`{guide}`")), "start's table of guides omits {guide}");
    }
}

#[test]
fn the_checks_catch_what_they_are_for() {
    assert_eq!(backticked("a `b` c `d`\n```\n`e`\n```"), ["b", "d"]);
    let lower = "run_definition refuses workflows: a workflow is not served yet".to_lowercase();
    assert!(NOT_SERVED.iter().any(|m| lower.contains(m)) && lower.contains("workflow"));
}

/// The pages beside the guides that say what the runtime does: the README and `docs/*.md`, with
/// the guides' files as written (their front matter too), read from the checkout by name.
fn pages() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names = vec!["README.md".to_string()];
    for dir in ["docs", "guides"] {
        let mut found: Vec<String> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{dir}/: {e}"))
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("{dir}/{name}"))
            .collect();
        found.sort();
        names.extend(found);
    }
    names
        .into_iter()
        .map(|name| {
            let text = std::fs::read_to_string(root.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect()
}

/// The README and `docs/*.md` alone: the pages that may not promise what comes later.
fn people_pages() -> Vec<(String, String)> {
    pages().into_iter().filter(|(name, _)| !name.starts_with("guides/")).collect()
}

/// Every path under `src/` a text names: a run of path characters starting at `src/` where no
/// path character stands before it (so `…/github.com/x/src/…` is not one), and each backticked
/// `core/…`, `shell/…` or `ops/…`, which the pages write for `src/core/…` and the rest.
fn src_paths(text: &str) -> Vec<String> {
    let path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("src/") {
        if text[..at].chars().next_back().is_some_and(path_char) {
            continue;
        }
        let len = text[at..].find(|c: char| !path_char(c)).unwrap_or(text.len() - at);
        out.push(text[at..at + len].trim_end_matches(['.', '-']).to_string());
    }
    for inside in backticked(text) {
        if ["core/", "shell/", "ops/"].iter().any(|p| inside.starts_with(p)) && inside.chars().all(path_char) {
            out.push(format!("src/{inside}"));
        }
    }
    out
}

#[test]
fn every_src_path_a_page_names_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = Vec::new();
    for (name, text) in pages() {
        for path in src_paths(&text) {
            if !root.join(&path).exists() {
                wrong.push(format!("{name}: names {path}, which does not exist"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A count written in digits or as a word from one to twelve.
fn count(word: &str) -> Option<usize> {
    const WORDS: [&str; 12] =
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    word.parse().ok().or_else(|| WORDS.iter().position(|w| *w == word).map(|i| i + 1))
}

/// The counts a text gives of function types: the word before "function types", or before
/// "types of function".
fn function_type_counts(text: &str) -> Vec<(usize, String)> {
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    for phrase in ["function types", "types of function"] {
        for (at, _) in lower.match_indices(phrase) {
            let before = lower[..at].trim_end();
            let word = before.rsplit(|c: char| !c.is_ascii_alphanumeric()).next().unwrap_or("");
            if let Some(n) = count(word) {
                out.push((n, format!("{word} {phrase}")));
            }
        }
    }
    out
}

#[test]
fn a_count_of_function_types_is_the_registrys() {
    let served = |directory: bool| {
        Kind::ALL.iter().filter(|k| k.served() && k.is_function() && !(directory && **k == Kind::Generation)).count()
    };
    let mut wrong = Vec::new();
    for (name, text) in pages() {
        for (n, said) in function_type_counts(&text) {
            if n != served(false) {
                wrong.push(format!("{name}: says “{said}”, where {} are served", served(false)));
            }
        }
    }
    for guide in super::served(true) {
        let text = format!("{}\n{}", guide.description, guide.text);
        for (n, said) in function_type_counts(&text) {
            if n != served(true) {
                wrong.push(format!("{} on /directory: says “{said}”, where {} are served", guide.name, served(true)));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Words that promise a thing for later. The README and the docs say what this version does.
const PROMISES: &[&str] = &[
    "later version",
    "later release",
    "future version",
    "future release",
    "coming soon",
    "comes later",
    "come later",
    "not yet served",
    "not served yet",
    "not yet supported",
    "not supported yet",
    "is planned",
    "are planned",
    "roadmap",
];

/// Sentences that may hold one of `PROMISES`, by page and a part of the sentence: none now.
const PROMISES_ALLOWED: &[(&str, &str)] = &[];

#[test]
fn no_page_promises_a_later_version() {
    let mut wrong = Vec::new();
    for (name, text) in people_pages() {
        for sentence in prose_sentences(&text) {
            let lower = sentence.to_lowercase();
            let Some(promise) = PROMISES.iter().find(|p| lower.contains(*p)) else { continue };
            if !PROMISES_ALLOWED.iter().any(|(page, part)| *page == name && sentence.contains(part)) {
                wrong.push(format!("{name}: “{sentence}” says “{promise}”"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The status codes a sentence gives: words of three digits from 100 to 599, such as `401`, so
/// that neither `127.0.0.1` nor `2,004,270` gives one.
fn statuses(sentence: &str) -> Vec<u16> {
    sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "`()[]*,;:\"“”".contains(c)).trim_end_matches('.'))
        .filter(|w| w.len() == 3 && w.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|w| w.parse().ok())
        .filter(|n| (100..600).contains(n))
        .collect()
}

/// The sentences of a page's prose, whole however its lines wrap: fenced blocks left out, each
/// table row and each cell apart, a sentence ending at a full stop followed by a space.
fn prose_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut paragraph = String::new();
    fn flush(paragraph: &mut String, out: &mut Vec<String>) {
        out.extend(paragraph.split(". ").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()));
        paragraph.clear();
    }
    for line in prose_lines(text) {
        if line.trim().is_empty() || line.trim_start().starts_with('|') {
            flush(&mut paragraph, &mut out);
            for cell in line.split('|') {
                paragraph.push_str(cell);
                flush(&mut paragraph, &mut out);
            }
        } else {
            paragraph.push(' ');
            paragraph.push_str(line.trim());
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

/// A request without a credential to a host that is not loopback is refused by the shell's caller
/// (`unauthenticated` in `src/shell/caller.rs`, which only the Worker build compiles) as
/// `Reason::Unauthorized`, and `tests/e2e/mcp_transport.test.mjs` holds the Worker to it. So a
/// page that gives a status for another host name gives that reason's.
#[test]
fn a_page_gives_a_wrong_host_the_status_the_code_answers() {
    use crate::core::access::session::loopback;
    use crate::core::error::Reason;
    assert!(!loopback("example.com") && loopback("127.0.0.1") && loopback("localhost"));
    let want = Reason::Unauthorized.status();
    let mut wrong = Vec::new();
    for (name, text) in pages() {
        for sentence in prose_sentences(&text) {
            let lower = sentence.to_lowercase();
            let of_a_host = ["other host name", "another host name"].iter().any(|p| lower.contains(p));
            for status in statuses(&sentence).into_iter().filter(|s| of_a_host && *s != want) {
                wrong.push(format!("{name}: “{sentence}” gives {status}; the code answers {want}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The words the runtime says of the README, `the README's Deploy section` or `the README's
/// section Add a tool server says`, each as the heading it names.
fn readme_sections_named(text: &str) -> Vec<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for (at, _) in text.match_indices("README's ") {
        let rest = &text[at + "README's ".len()..];
        let piece = rest.split([',', '.', ')', ';', '"', ':']).next().unwrap_or("");
        let named = match piece.strip_prefix("section ") {
            Some(after) => {
                let end = [" says", " shows", " lists"].iter().filter_map(|w| after.find(w)).min();
                Some(end.map_or(after, |end| &after[..end]))
            }
            None => piece.find(" section").map(|end| &piece[..end]),
        };
        if let Some(named) = named.filter(|n| !n.is_empty()) {
            out.push(named.to_string());
        }
    }
    out
}

#[test]
fn each_readme_section_the_runtime_or_a_page_names_is_there() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let headings: Vec<&str> = readme.lines().filter_map(|l| l.strip_prefix("## ")).collect();
    let mut texts = pages();
    let mut dirs = vec![root.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("guides/truth.rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                texts.push((path.display().to_string(), text));
            }
        }
    }
    let mut wrong = Vec::new();
    for (name, text) in texts {
        for section in readme_sections_named(&text) {
            if !headings.iter().any(|h| h.starts_with(section.as_str())) {
                wrong.push(format!("{name}: names the README's section “{section}”, which it has not"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_page_checks_catch_what_they_are_for() {
    assert_eq!(
        src_paths("see `src/core/schema.rs`. Or https://x.io/a/src/b, and `core/zone.rs`"),
        ["src/core/schema.rs", "src/core/zone.rs"]
    );
    assert_eq!(function_type_counts("the five function types; 6 types of function")[0].0, 5);
    assert_eq!(function_type_counts("6 types of function")[0].0, 6);
    assert_eq!(statuses("to 127.0.0.1 is refused with `403` (see RFC 9728), of 2,004,270 bytes"), [403]);
    let wrapped = prose_sentences("A request to any other host\nname is refused with `401`. Then\n\n| a | b. c |");
    assert_eq!(wrapped, ["A request to any other host name is refused with `401`", "Then", "a", "b", "c"]);
    assert_eq!(
        readme_sections_named("as the README's Deploy section says; as the README's section Add a tool server says"),
        ["Deploy", "Add a tool server"]
    );
    let lower = "keys and sign-in come in a later version".to_lowercase();
    assert!(PROMISES.iter().any(|p| lower.contains(p)));
}
