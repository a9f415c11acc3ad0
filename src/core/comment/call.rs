//! From an address to a call: the tool that reads the thing a comment is about, with its
//! arguments, so an agent acts where the comment says; and the page of Studio that shows it.
//! What no tool changes (a member, a page of Settings, the organization itself) is reported to
//! the person instead.

use serde_json::{json, Value};

use super::address::Address;
use crate::core::studio;

/// The tool that reads the thing at `address` in `playbook` (none for the org's own), as
/// `{tool, arguments}`; none where no tool reads it.
pub fn call(address: &Address, playbook: Option<&str>) -> Option<Value> {
    let on = |extra: Value| {
        let mut arguments = json!({});
        if let Some(p) = playbook {
            arguments["playbook"] = json!(p);
        }
        if let (Some(args), Value::Object(extra)) = (arguments.as_object_mut(), extra) {
            args.extend(extra);
        }
        arguments
    };
    let (tool, arguments) = match address {
        Address::Playbook => ("get_playbook", on(json!({}))),
        Address::Ledger => ("list_runs", on(json!({}))),
        Address::Definition { kind, name, .. } => {
            ("get_definition", on(json!({ "type": kind.as_str(), "name": name })))
        }
        Address::Run { run_id, .. } => ("get_run", on(json!({ "run_id": run_id }))),
        Address::Request { .. } => ("list_interactions", on(json!({}))),
        Address::Connection { .. } => ("list_connections", json!({})),
        Address::Org | Address::Member { .. } | Address::Settings { .. } => return None,
    };
    Some(json!({ "tool": tool, "arguments": arguments }))
}

/// The page of Studio that shows the thing at `address`, at the comment `id`: a playbook's thing
/// on its own page, the organization's own on the org's comments.
pub fn studio(base: &str, org: &str, playbook: Option<&str>, address: &Address, id: &str) -> String {
    let page = match (playbook, address) {
        (Some(p), Address::Playbook) => studio::playbook(base, org, p),
        (Some(p), Address::Ledger) => studio::ledger(base, org, p, None),
        (Some(p), Address::Definition { kind, name, .. }) => studio::definition(base, org, p, kind.as_str(), name),
        (Some(p), Address::Run { run_id, .. }) => studio::run(base, org, p, run_id),
        (Some(p), Address::Request { .. }) => studio::requests(base, org, p),
        (Some(p), _) => studio::playbook_comments(base, org, p),
        (None, _) => studio::org_comments(base, org),
    };
    format!("{page}#comment-{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::comment::address::Whose;

    fn of(text: &str, whose: Whose, playbook: Option<&str>) -> Option<Value> {
        call(&Address::parse(text, whose).unwrap(), playbook)
    }

    #[test]
    fn each_address_names_the_tool_that_reads_it() {
        let pb = Some("pb_aaaaaaaaaaaaaaaa");
        assert_eq!(
            of("definitions/workflow/review/steps/brief", Whose::Playbook, pb),
            Some(
                json!({"tool": "get_definition", "arguments": {"playbook": "pb_aaaaaaaaaaaaaaaa", "type": "workflow", "name": "review"}})
            )
        );
        assert_eq!(
            of("runs/run_1/result", Whose::Playbook, pb),
            Some(json!({"tool": "get_run", "arguments": {"playbook": "pb_aaaaaaaaaaaaaaaa", "run_id": "run_1"}}))
        );
        assert_eq!(of("playbook", Whose::Playbook, pb).unwrap()["tool"], "get_playbook");
        assert_eq!(of("ledger", Whose::Playbook, pb).unwrap()["tool"], "list_runs");
        assert_eq!(of("requests/run_1", Whose::Playbook, pb).unwrap()["tool"], "list_interactions");
        assert_eq!(
            of("connections/conn_1", Whose::Org, None),
            Some(json!({"tool": "list_connections", "arguments": {}}))
        );
        for reported in ["org", "members/ada", "settings/billing"] {
            assert_eq!(of(reported, Whose::Org, None), None, "{reported}");
        }
    }

    #[test]
    fn the_studio_link_is_the_page_of_the_address_at_the_comment() {
        let base = "https://auto.example";
        let run = Address::parse("runs/run_1/result", Whose::Playbook).unwrap();
        assert_eq!(
            studio(base, "acme", Some("pb_1"), &run, "cm_1"),
            "https://auto.example/studio/acme/playbooks/pb_1/runs/run_1#comment-cm_1"
        );
        assert_eq!(
            studio(base, "acme", None, &Address::Org, "cm_2"),
            "https://auto.example/studio/acme/comments#comment-cm_2"
        );
    }
}
