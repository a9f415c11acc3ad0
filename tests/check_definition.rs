//! `check_definition` on the host: it answers what a save would refuse or do, decided by the same
//! code the playbook's object runs, and keeps nothing, so a list and a read after it see nothing new.

mod common;

use serde_json::{json, Value};

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");

const REVIEW: &str = include_str!("fixtures/review-brief.md");

struct World {
    m: common::Memory,
    pb: String,
}

impl World {
    fn new() -> World {
        let m = common::Memory::default();
        let pb = common::playbook(&m, "Orders");
        World { m, pb }
    }

    fn args(&self, kind: &str, name: &str, source: &str) -> Value {
        common::save_args(&self.pb, kind, name, source)
    }

    fn call(&self, second: u32, tool: &str, kind: &str, name: &str, source: &str) -> Value {
        let result = common::tool(&self.m, second, tool, self.args(kind, name, source));
        assert_eq!(result["isError"], false, "{result}");
        result
    }

    fn summary(result: &Value) -> &str {
        result["content"][0]["text"].as_str().unwrap()
    }

    fn listed(&self, kind: &str) -> Value {
        common::tool(&self.m, 50, "list_definitions", json!({ "playbook": self.pb, "type": kind }))["structuredContent"]
            ["definitions"]
            .clone()
    }
}

#[test]
fn a_broken_document_is_answered_with_every_problem_and_nothing_kept() {
    let w = World::new();
    let broken = "---\ndescription: Adds VAT\ninput:\n  schema: { type: object }\ncompute:\n  vat: input.net *\n---\n";
    let result = w.call(2, "check_definition", "computation", "Add VAT", broken);
    let answer = &result["structuredContent"];
    assert_eq!(answer["valid"], false, "{answer}");
    assert_eq!(answer["kept"], false);
    let pointers: Vec<&str> =
        answer["problem"]["errors"].as_array().unwrap().iter().map(|e| e["pointer"].as_str().unwrap()).collect();
    assert!(pointers.contains(&"/name"), "the bad name is reported with the document's problems: {pointers:?}");
    assert!(pointers.len() >= 2, "every problem at once: {pointers:?}");
    let said = World::summary(&result);
    assert!(said.starts_with("A save would refuse this, with "), "{said}");
    assert!(said.contains("Nothing was kept."), "{said}");
    // create_definition refuses the same arguments with the same pointers.
    let saved = common::tool(&w.m, 3, "create_definition", w.args("computation", "Add VAT", broken));
    assert_eq!(saved["isError"], true);
    let doc: Value = serde_json::from_str(saved["content"][1]["text"].as_str().unwrap()).unwrap();
    let refused: Vec<&str> = doc["errors"].as_array().unwrap().iter().map(|e| e["pointer"].as_str().unwrap()).collect();
    assert_eq!(refused, pointers, "the check says exactly what the save refuses");
    assert_eq!(w.listed("computation"), json!([]));
}

#[test]
fn a_good_document_would_be_created_then_updated_then_left_as_it_is() {
    let w = World::new();
    let first = w.call(2, "check_definition", "computation", "add-vat", ADD_VAT);
    let answer = &first["structuredContent"];
    assert_eq!((&answer["valid"], &answer["would"], &answer["version"]), (&json!(true), &json!("create"), &json!(1)));
    assert_eq!(answer["needs"], json!([]));
    assert!(
        World::summary(&first).starts_with(
            "The check found nothing a save refuses: create_definition would save the computation function “add-vat” as version 1. Nothing was kept."
        ),
        "{}",
        World::summary(&first)
    );
    assert_eq!(w.listed("computation"), json!([]), "a check keeps nothing");
    let read =
        common::tool(&w.m, 3, "get_definition", json!({ "playbook": w.pb, "type": "computation", "name": "add-vat" }));
    assert_eq!(read["isError"], true, "nothing to read after a check");

    w.call(4, "create_definition", "computation", "add-vat", ADD_VAT);
    let same = w.call(5, "check_definition", "computation", "add-vat", ADD_VAT);
    assert_eq!(same["structuredContent"]["would"], "nothing");
    let changed = ADD_VAT.replace("0.2", "0.21");
    let update = w.call(6, "check_definition", "computation", "add-vat", &changed);
    assert_eq!(
        (&update["structuredContent"]["would"], &update["structuredContent"]["version"]),
        (&json!("update"), &json!(2))
    );
    let read =
        common::tool(&w.m, 7, "get_definition", json!({ "playbook": w.pb, "type": "computation", "name": "add-vat" }));
    assert_eq!(read["structuredContent"]["version"], 1, "the check of an update keeps no version");
    assert!(read["structuredContent"]["document"].as_str().unwrap().contains("0.2\n"));
}

#[test]
fn a_workflow_of_a_function_not_saved_is_refused_at_its_step() {
    let w = World::new();
    let flow = "---\ndescription: Adds VAT twice\ninput:\n  schema: { type: object, properties: { net: { type: number } }, required: [net] }\nsteps:\n  - id: s1\n    function: computation/add-vat\n    input:\n      net: input.net\n---\n";
    let result = w.call(2, "check_definition", "workflow", "twice", flow);
    let answer = &result["structuredContent"];
    assert_eq!(answer["valid"], false, "{answer}");
    assert!(answer["problem"]["detail"].as_str().unwrap().contains("add-vat"), "{answer}");
    w.call(3, "create_definition", "computation", "add-vat", ADD_VAT);
    let result = w.call(4, "check_definition", "workflow", "twice", flow);
    assert_eq!(result["structuredContent"]["would"], "create", "{result}");
}

#[test]
fn a_run_would_still_need_a_model_the_settings_lack_and_a_paused_definition_resumed() {
    let w = World::new();
    let result = w.call(2, "check_definition", "reasoning", "review-brief", REVIEW);
    let answer = &result["structuredContent"];
    assert_eq!(answer["valid"], true, "the settings' models do not refuse a save: {answer}");
    let needs = answer["needs"].as_array().unwrap();
    assert_eq!(needs.len(), 1, "{answer}");
    assert!(needs[0].as_str().unwrap().contains("openai"), "{answer}");
    assert!(World::summary(&result).contains("A run would still need: "), "{}", World::summary(&result));

    w.call(3, "create_definition", "computation", "add-vat", ADD_VAT);
    let paused = common::tool(
        &w.m,
        4,
        "pause_definition",
        json!({ "playbook": w.pb, "type": "computation", "name": "add-vat" }),
    );
    assert_eq!(paused["isError"], false);
    let result = w.call(5, "check_definition", "computation", "add-vat", ADD_VAT);
    let needs = result["structuredContent"]["needs"].as_array().unwrap().clone();
    assert!(needs.iter().any(|n| n.as_str().unwrap().contains("resume_definition")), "{needs:?}");
}

#[test]
fn a_check_needs_only_read_and_reaches_no_playbook_of_another_org() {
    let w = World::new();
    let result = common::tool(
        &w.m,
        2,
        "check_definition",
        json!({
            "playbook": "pb_aaaaaaaaaaaaaaaa", "type": "computation", "name": "add-vat", "source": ADD_VAT,
            "overview": "Adds VAT to a net amount and answers the VAT and the gross.", "diagram": "flowchart LR\n  A --> B",
        }),
    );
    assert_eq!(result["isError"], true, "a playbook not held is the call's refusal, not a check's answer: {result}");
    let tool = playbook_runtime::tools::all().iter().find(|t| t.name == "check_definition").unwrap();
    assert_eq!(tool.scope, Some(playbook_runtime::core::caller::Scope::PlaybookRead));
    assert!(tool.hints.read_only);
}
