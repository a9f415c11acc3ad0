//! Whether a caller may run an operation: the one rule both doors and `tools/list` apply.
//!
//! A tool needs its scope; an access operation needs a caller who manages access; the operator
//! reaches access operations alone; and a caller kept to some playbooks reaches only those, by
//! the tools that act inside a playbook, and `list_playbooks`, which lists them.

use serde_json::Value;

use super::{Door, Tool};
use crate::core::caller::{Caller, Principal};
use crate::core::directory::unknown_playbook;
use crate::core::{Problem, Reason};

/// Whether `caller` may run `tool`; with the arguments, also whether it may reach the playbook
/// they name. An unknown and an unreachable playbook are refused alike, so that a refusal tells
/// nothing of what another caller's playbooks are.
pub fn permits(caller: &Caller, tool: &Tool, args: Option<&Value>) -> Result<(), Problem> {
    if caller.principal == Principal::Operator && tool.door != Door::Access {
        // Adding and reconnecting a connection are a person's alone: a key is no way to them either.
        let who = if tool.special.person_only { "a person signed in" } else { "a key or a person signed in" };
        return Err(Problem::forbidden(format!(
            "ADMIN_TOKEN manages keys and roles, and nothing else; {} needs {who}.",
            tool.name
        )));
    }
    if tool.door == Door::Access && !caller.manages_access() {
        let refusal = Problem::forbidden(format!(
            "{} is for whoever manages the org's access: a person whose role holds org:write, the local developer or the operator. A key never manages keys or roles.",
            tool.name
        ));
        // A person may be given the scope; a key never is, so it is not told to ask for it.
        return Err(match caller.principal {
            Principal::Person { .. } => refusal.needs("org:write"),
            _ => refusal,
        });
    }
    if tool.door == Door::Access {
        return Ok(());
    }
    if let Some(scope) = tool.scope {
        if !caller.allows(scope) {
            return Err(Problem::forbidden(format!(
                "{} needs the scope {}, which this caller does not hold.",
                tool.name,
                scope.as_str()
            ))
            .needs(scope.as_str()));
        }
    }
    if caller.playbooks.is_none() || tool.special.lists_reached || tool.scope.is_none() {
        return Ok(());
    }
    if !takes_playbook(tool) {
        return Err(Problem::new(
            Reason::Forbidden,
            format!("This caller is kept to some playbooks, and {} acts on the whole org.", tool.name),
        ));
    }
    match args.and_then(|a| a.get("playbook")).and_then(Value::as_str) {
        Some(playbook) if !caller.reaches(playbook) => Err(unknown_playbook(playbook)),
        _ => Ok(()),
    }
}

/// Whether the tool acts on one playbook, which it then names as `playbook`.
fn takes_playbook(tool: &Tool) -> bool {
    (tool.input_schema)().pointer("/properties/playbook").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::caller::Scope;
    use crate::tools::{all, find, offered};
    use serde_json::json;

    fn key(scopes: &[Scope], playbooks: Option<&[&str]>) -> Caller {
        Caller {
            id: "key_1".into(),
            principal: Principal::Key { name: "bot".into() },
            org: "acme".into(),
            scopes: scopes.to_vec(),
            playbooks: playbooks.map(|p| p.iter().map(|s| s.to_string()).collect()),
        }
    }

    fn names(caller: &Caller) -> Vec<&'static str> {
        offered(caller).map(|t| t.name).collect()
    }

    #[test]
    fn a_read_only_key_is_offered_the_reads_alone() {
        let reader = key(&[Scope::OrgRead, Scope::PlaybookRead], None);
        let offered = names(&reader);
        for tool in all().iter().filter(|t| t.door == Door::Both) {
            // query_connection only reads, yet calls a tool live, so it needs playbook:write.
            let writes = matches!(tool.scope, Some(Scope::OrgWrite | Scope::PlaybookWrite));
            let read = tool.hints.read_only && !writes;
            assert_eq!(offered.contains(&tool.name), read, "{}", tool.name);
        }
        let p = permits(&reader, find("run_definition").unwrap(), None).unwrap_err();
        assert_eq!((p.status(), p.scope.as_deref()), (403, Some("playbook:write")));
        assert!(p.detail.contains("playbook:write"));
    }

    #[test]
    fn a_kept_key_reaches_its_playbooks_and_lists_them() {
        let kept = key(&Scope::ALL, Some(&["pb_aaaaaaaaaaaaaaaa"]));
        let offered = names(&kept);
        assert!(offered.contains(&"list_playbooks") && offered.contains(&"run_definition"));
        assert!(offered.contains(&"get_guide"));
        for absent in ["create_playbook", "list_models"] {
            assert!(!offered.contains(&absent), "{absent}");
        }
        let run = find("run_definition").unwrap();
        assert!(permits(&kept, run, Some(&json!({"playbook": "pb_aaaaaaaaaaaaaaaa"}))).is_ok());
        let other = permits(&kept, run, Some(&json!({"playbook": "pb_bbbbbbbbbbbbbbbb"}))).unwrap_err();
        let unknown = unknown_playbook("pb_bbbbbbbbbbbbbbbb");
        assert_eq!((other.status(), other.detail), (404, unknown.detail));
    }

    #[test]
    fn only_who_manages_access_reaches_access_and_the_operator_nothing_else() {
        let access = all().iter().filter(|t| t.door == Door::Access);
        let operator = Caller::operator("acme");
        let full_key = key(&Scope::ALL, None);
        for tool in access {
            assert!(permits(&operator, tool, None).is_ok(), "{}", tool.name);
            assert!(permits(&Caller::local(None), tool, None).is_ok(), "{}", tool.name);
            assert_eq!(permits(&full_key, tool, None).map_err(|p| p.status()), Err(403), "{}", tool.name);
        }
        assert!(names(&operator).is_empty());
        assert!(permits(&operator, find("list_playbooks").unwrap(), None).is_err());
        assert!(names(&key(&[], None)) == ["get_guide"], "every caller is served the guides");
    }
}
