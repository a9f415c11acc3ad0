//! `rerun_run` on the host, over the runtime in memory: a workflow that failed at its last step is
//! run again from that step once its function is fixed, and the steps before it are not run again;
//! the refusals say what is wrong in words.

mod common;

use futures::executor::block_on;
use serde_json::{json, Value};

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");
const APPROVE: &str = include_str!("fixtures/approve-campaign-brief.md");

/// Answers its VAT as text, which its output schema refuses until it is fixed.
fn rounding(kind: &str) -> String {
    format!(
        "---\ndescription: Rounds a gross amount\ninput:\n  schema: {{ type: object, properties: {{ net: {{ type: number }} }}, required: [net] }}\noutput:\n  schema: {{ type: object, properties: {{ gross: {{ type: {kind} }} }}, required: [gross] }}\ncompute:\n  gross: input.net * 1\n---\n"
    )
}

fn flow(second: &str) -> String {
    format!(
        "---\ndescription: Adds VAT twice, then rounds\ninput:\n  schema: {{ type: object, properties: {{ net: {{ type: number }} }}, required: [net] }}\nsteps:\n  - id: first\n    function: computation/add-vat\n    input:\n      net: input.net\n  - id: second\n    function: computation/add-vat\n    input:\n      net: {second}\n  - id: round\n    function: computation/rounding\n    input:\n      net: steps.second.output.gross\noutput:\n  gross: steps.round.output.gross\n---\n"
    )
}

struct World {
    m: common::Memory,
    pb: String,
}

impl World {
    fn new() -> World {
        let m = common::Memory::default();
        let pb = common::playbook(&m, "Invoices");
        World { m, pb }
    }

    fn save(&self, tool: &str, kind: &str, name: &str, source: &str) {
        let args = common::save_args(&self.pb, kind, name, source);
        let saved = common::tool(&self.m, 2, tool, args);
        assert_eq!(saved["isError"], false, "{saved}");
    }

    fn call(&self, tool: &str, args: Value) -> Value {
        let mut args = args;
        args["playbook"] = json!(self.pb);
        common::tool(&self.m, 3, tool, args)
    }

    fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args);
        assert_eq!(result["isError"], false, "{result}");
        result
    }

    fn refusal(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args);
        assert_eq!(result["isError"], true, "{result}");
        serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap()
    }

    fn status(&self, run_id: &str) -> Value {
        self.ok("get_run", json!({ "run_id": run_id }))["structuredContent"].clone()
    }

    /// The run objects of the playbook, by id.
    fn run_ids(&self) -> Vec<String> {
        let prefix = format!("local/{}/", self.pb);
        let mut ids: Vec<String> =
            self.m.objects.borrow().keys().filter_map(|k| k.strip_prefix(&prefix).map(str::to_string)).collect();
        ids.sort();
        ids
    }
}

fn failed_workflow() -> World {
    let w = World::new();
    w.save("create_definition", "computation", "add-vat", ADD_VAT);
    w.save("create_definition", "computation", "rounding", &rounding("string"));
    w.save("create_definition", "workflow", "invoice", &flow("steps.first.output.gross"));
    w.ok("run_definition", json!({ "type": "workflow", "name": "invoice", "input": { "net": 100 }, "run_id": "wf1" }));
    block_on(w.m.pass(5_000));
    assert_eq!(w.status("wf1")["status"], "failed", "{}", w.status("wf1"));
    w
}

#[test]
fn a_workflow_runs_again_from_its_failing_step_without_running_the_steps_before() {
    let w = failed_workflow();
    let before = w.run_ids();
    assert_eq!(before, ["wf1", "wf1-first-1", "wf1-round-1", "wf1-second-1"]);
    w.save("update_definition", "computation", "rounding", &rounding("number"));

    let again = w.ok("rerun_run", json!({ "run_id": "wf1", "from_step": "round", "new_run_id": "wf2" }));
    let said = again["content"][0]["text"].as_str().unwrap();
    assert!(said.starts_with("Started the workflow “invoice” again from the step “round” as the run wf2, with the input of wf1; “first” and “second” kept the outputs they ended with there"), "{said}");
    assert_eq!(again["structuredContent"]["rerun_of"], json!({ "run_id": "wf1", "from_step": "round" }));
    block_on(w.m.pass(5_000));

    let done = w.status("wf2");
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["output"]["gross"], json!(144.0));
    let links: Vec<&str> = done["steps"].as_array().unwrap().iter().map(|s| s["run_id"].as_str().unwrap()).collect();
    assert_eq!(links, ["wf1-first-1", "wf1-second-1", "wf2-round-1"], "each kept step links to the run that ran it");
    let ran: Vec<String> = w.run_ids().into_iter().filter(|id| !before.contains(id)).collect();
    assert_eq!(ran, ["wf2", "wf2-round-1"], "only the step run again started a function's run");
    assert_eq!(w.status("wf1")["status"], "failed", "the old run is untouched");
    let history = w.m.history("local", &w.pb);
    let reused: Vec<&String> = history.iter().filter(|e| e.starts_with("wf2 step_reused")).collect();
    assert_eq!(reused.len(), 2, "{history:?}");

    let listed = w.ok("list_runs", json!({ "rerun_of": "wf1" }));
    let ids: Vec<&str> =
        listed["structuredContent"]["runs"].as_array().unwrap().iter().map(|r| r["run_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["wf2"], "only the run started again from wf1: {listed}");
    assert_eq!(listed["structuredContent"]["runs"][0]["rerun_of"], "wf1");
}

#[test]
fn a_run_again_whole_takes_the_same_input_and_a_function_has_no_steps() {
    let w = failed_workflow();
    w.save("update_definition", "computation", "rounding", &rounding("number"));
    let again = w.ok("rerun_run", json!({ "run_id": "wf1", "new_run_id": "wf3" }));
    assert_eq!(again["structuredContent"]["rerun_of"], json!({ "run_id": "wf1" }));
    assert_eq!(again["structuredContent"]["input"], json!({ "net": 100 }));
    block_on(w.m.pass(5_000));
    assert_eq!(w.status("wf3")["status"], "succeeded");
    assert!(w.run_ids().contains(&"wf3-first-1".to_string()), "whole, every step runs again");

    let step_run = w.refusal("rerun_run", json!({ "run_id": "wf1-first-1", "from_step": "first" }));
    assert_eq!(step_run["errors"][0]["pointer"], "/from_step");
    assert!(step_run["errors"][0]["detail"].as_str().unwrap().contains("has no steps"), "{step_run}");
    let function = w.ok("rerun_run", json!({ "run_id": "wf1-first-1" }));
    assert_eq!(function["structuredContent"]["status"], "succeeded", "{function}");
    assert_eq!(function["structuredContent"]["input"], json!({ "net": 100 }));
}

#[test]
fn refusals_name_the_step_the_change_and_the_run_still_going() {
    let w = failed_workflow();
    let missing = w.refusal("rerun_run", json!({ "run_id": "wf1", "from_step": "total" }));
    assert_eq!(missing["errors"][0]["pointer"], "/from_step");
    assert!(missing["errors"][0]["detail"].as_str().unwrap().contains("first, second and round"), "{missing}");

    w.save("update_definition", "workflow", "invoice", &flow("input.net"));
    let changed = w.refusal("rerun_run", json!({ "run_id": "wf1", "from_step": "round" }));
    assert_eq!(changed["reason"], "conflict");
    assert!(
        changed["detail"].as_str().unwrap().contains("changed the steps before “round”: “second” changed"),
        "{changed}"
    );
    // From the step that changed, the one before is still the same.
    w.ok("rerun_run", json!({ "run_id": "wf1", "from_step": "second" }));

    w.save("create_definition", "interaction", "approve", APPROVE);
    w.ok(
        "run_definition",
        json!({ "type": "interaction", "name": "approve", "input": { "title": "Q3", "review": "Ready." }, "run_id": "ask1" }),
    );
    let going = w.refusal("rerun_run", json!({ "run_id": "ask1" }));
    assert_eq!(going["reason"], "conflict");
    assert!(going["detail"].as_str().unwrap().contains("still going"), "{going}");
    let unknown = w.refusal("rerun_run", json!({ "run_id": "nope" }));
    assert_eq!(unknown["reason"], "not_found");
}

#[test]
fn a_run_again_on_the_old_run_s_version_takes_its_steps_as_they_were_saved() {
    let w = failed_workflow();
    w.save("update_definition", "computation", "rounding", &rounding("number"));
    w.save("update_definition", "workflow", "invoice", &flow("input.net"));
    let refused = w.refusal("rerun_run", json!({ "run_id": "wf1", "from_step": "round" }));
    assert_eq!(refused["reason"], "conflict", "on the current version, “second” changed");

    let again =
        w.ok("rerun_run", json!({ "run_id": "wf1", "from_step": "round", "same_version": true, "new_run_id": "wf4" }));
    assert_eq!(again["structuredContent"]["version"], 1, "the version wf1 ran, not the current 2: {again}");
    block_on(w.m.pass(5_000));
    let done = w.status("wf4");
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["output"]["gross"], json!(144.0), "“second” kept wf1's output, as version 1 computes it");

    let whole = w.ok("rerun_run", json!({ "run_id": "wf1", "same_version": true, "new_run_id": "wf5" }));
    assert_eq!(whole["structuredContent"]["version"], 1);
    block_on(w.m.pass(5_000));
    assert_eq!(w.status("wf5")["output"]["gross"], json!(144.0), "version 1 adds VAT twice");
    let current = w.ok("rerun_run", json!({ "run_id": "wf1", "new_run_id": "wf6" }));
    assert_eq!(current["structuredContent"]["version"], 2);
    block_on(w.m.pass(5_000));
    assert_eq!(w.status("wf6")["output"]["gross"], json!(120.0), "version 2 adds it once");
}
