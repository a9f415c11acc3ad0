//! `list_playbooks`: `GET /v1/orgs/{org}/playbooks`.

use crate::core::studio;
use serde::Deserialize;
use serde_json::{json, Value};

use super::schema::limit_arg;
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::directory::{Cursor, ListQuery, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX};
use crate::core::text::{cap, count, join_and, quote, RELAY_MAX, SUMMARY_MAX};
use crate::core::Problem;

/// The welcome an empty org answers to a caller who may make its first playbook (spec: Playbook management).
pub const WELCOME: &str = "This organization has no playbooks yet. A playbook keeps work your team can use again. Its workflows coordinate functions that reason, interact, predict and compute. Unless the person has already said what they want, ask what they want done, and offer three starts: set up a first playbook, connect a service they use, or hear what Auto can do for their team. Before you build, read the guide start with get_guide: it says which function type each part of a job takes. In Studio, your team can review playbooks and run results. You can also manage workflows, connections, members and billing there.";

pub const TOOL: Tool = Tool {
    name: "list_playbooks",
    title: "List playbooks",
    description: "List the playbooks of the caller's org that it may access, newest first, each with every field but its page. Retired playbooks are left out unless include_retired is true. Pages come one at a time: read on with the next_cursor of the page before.",
    hints: Hints::READ,
    scope: Some(Scope::PlaybookRead),
    door: Door::Both,
    reach: Reach::Org,
    method: Method::Get,
    path: "/v1/orgs/{org}/playbooks",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special { lists_reached: true, ..Special::NONE },
};

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "include_retired": { "type": "boolean", "default": false, "description": "Also list retired playbooks." },
            "limit": limit_arg(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT, "playbooks"),
            "cursor": { "type": "string", "maxLength": 256, "description": "The next_cursor of the page before, to read the next page." }
        },
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    #[serde(default)]
    include_retired: bool,
    limit: Option<usize>,
    cursor: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let after = a.cursor.as_deref().map(Cursor::decode).transpose()?;
    let query = ListQuery {
        include_retired: a.include_retired,
        limit: a.limit.unwrap_or(LIST_LIMIT_DEFAULT),
        after,
        only: ctx.caller.playbooks.clone(),
    };
    let page = ctx.backend.list(&ctx.caller.org, query).await?;
    let mut value = json!({ "playbooks": page.playbooks, "next_cursor": page.next_cursor });
    if !page.org_has_playbooks && ctx.caller.may_make_first_playbook() {
        // The welcome ends with Studio's home, where the team reviews what the agent builds.
        let welcome = format!("{WELCOME} {}", studio::home(&ctx.connections.base, &ctx.caller.org));
        value["welcome"] = json!(welcome);
        return Ok(Output {
            summary: cap(&welcome, RELAY_MAX),
            value,
            relay: true,
            status: 200,
            over_mcp: None,
            over_http: None,
        });
    }
    Ok(Output::ok(summary(&page.playbooks, page.next_cursor.is_some(), a.include_retired), value))
}

fn summary(playbooks: &[Value], more: bool, include_retired: bool) -> String {
    if playbooks.is_empty() {
        return if include_retired {
            "No playbook is on this page.".into()
        } else {
            "No active playbook is on this page; include_retired lists retired ones too.".into()
        };
    }
    let names: Vec<String> = playbooks
        .iter()
        .map(|p| {
            let name = quote(p["name"].as_str().unwrap_or_default());
            if p["status"] == "retired" {
                format!("{name} (retired)")
            } else {
                name
            }
        })
        .collect();
    let tail = super::words::more(more);
    let head = format!("Found {} on this page: ", count(playbooks.len(), "playbook"));
    let room = SUMMARY_MAX.saturating_sub(head.chars().count() + tail.chars().count() + 1);
    let mut shown = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let rest = names.len() - i - 1;
        let mut trial = shown.clone();
        trial.push(n.clone());
        let mut text = join_and(&trial);
        if rest > 0 {
            text = format!("{}, and {} more", trial.join(", "), rest);
        }
        if text.chars().count() > room && !shown.is_empty() {
            break;
        }
        shown.push(n.clone());
    }
    let listed = if shown.len() == names.len() {
        join_and(&shown)
    } else {
        format!("{} and {} more", shown.join(", "), names.len() - shown.len())
    };
    cap(&format!("{head}{listed}.{tail}"), SUMMARY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_what_fits_and_counts_the_rest() {
        let many: Vec<Value> =
            (0..60).map(|i| json!({"name": format!("Playbook number {i}"), "status": "active"})).collect();
        let s = summary(&many, true, false);
        assert!(s.chars().count() <= SUMMARY_MAX, "{s}");
        assert!(s.starts_with("Found 60 playbooks on this page: "), "{s}");
        assert!(s.contains("more"), "{s}");
        let two = vec![json!({"name": "A", "status": "active"}), json!({"name": "B", "status": "retired"})];
        assert_eq!(
            summary(&two, false, true),
            "Found 2 playbooks on this page: \u{201c}A\u{201d} and \u{201c}B\u{201d} (retired)."
        );
    }

    #[test]
    fn the_welcome_fits_whole() {
        assert!(WELCOME.chars().count() <= RELAY_MAX);
    }
}
