//! Holds the guides to the registry: a guide may name only the tools, guides and prompts this
//! runtime serves, may not call a served thing unserved, and `start` lists every tool on the
//! endpoints that list it. A change that adds a tool fails here until its guides say so.

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

/// The text between each pair of backticks, outside fenced code blocks.
fn backticked(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
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
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
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
