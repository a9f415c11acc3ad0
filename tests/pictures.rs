//! A workflow's picture through the tools: `get_definition` and `get_run` answer where Studio
//! serves it, and the SVG itself when asked with `picture: true`; a function answers none.

mod common;

use serde_json::{json, Value};

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");

const WORKFLOW: &str = "---
description: Adds VAT, then waits a minute
input:
  schema:
    type: object
    properties:
      net: { type: number }
    required: [net]
steps:
  - id: add_vat
    function: computation/add-vat
    input:
      net: input.net
  - id: cool_down
    wait:
      seconds: 60
---
";

fn ok(result: Value) -> Value {
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"].clone()
}

#[test]
fn a_workflow_and_its_run_answer_their_picture() {
    let m = common::Memory::default();
    let pb =
        ok(common::tool(&m, 1, "create_playbook", json!({ "name": "Orders" })))["id"].as_str().unwrap().to_string();
    let define = |second, kind: &str, name: &str, source: &str| {
        let mut args = json!({
            "playbook": pb, "type": kind, "name": name, "source": source,
            "overview": format!("The {name} {kind} of the picture tests does what its description says."),
        });
        if kind != "workflow" {
            args["diagram"] = json!("flowchart LR\n  A[in] --> B[out]");
        }
        ok(common::tool(&m, second, "create_definition", args))
    };
    define(2, "computation", "add-vat", ADD_VAT);
    define(3, "workflow", "vat-then-wait", WORKFLOW);

    let read = |second, kind: &str, name: &str, picture: bool| {
        ok(common::tool(
            &m,
            second,
            "get_definition",
            json!({ "playbook": pb, "type": kind, "name": name, "picture": picture }),
        ))
    };
    let plain = read(4, "workflow", "vat-then-wait", false);
    let url = format!("/studio/local/playbooks/{pb}/definitions/workflow/vat-then-wait/picture.svg");
    assert!(plain["picture"]["url"].as_str().unwrap().ends_with(&url), "{}", plain["picture"]);
    assert_eq!(plain["picture"]["media_type"], "image/svg+xml");
    assert!(plain["picture"].get("svg").is_none());
    let drawn = read(5, "workflow", "vat-then-wait", true);
    let svg = drawn["picture"]["svg"].as_str().unwrap();
    assert!(svg.starts_with("<svg ") && svg.contains("add vat") && svg.contains("waits 1 minute"));
    assert!(read(6, "computation", "add-vat", true).get("picture").is_none(), "a function has no picture");

    ok(common::tool(
        &m,
        7,
        "run_definition",
        json!({ "playbook": pb, "type": "workflow", "name": "vat-then-wait", "input": { "net": 100 }, "run_id": "wf-1" }),
    ));
    let run = ok(common::tool(&m, 8, "get_run", json!({ "playbook": pb, "run_id": "wf-1", "picture": true })));
    assert!(run["picture"]["url"]
        .as_str()
        .unwrap()
        .ends_with(&format!("/studio/local/playbooks/{pb}/runs/wf-1/picture.svg")));
    let svg = run["picture"]["svg"].as_str().unwrap();
    assert!(svg.contains("A run of the workflow vat-then-wait") && svg.contains("pb-s-"), "{svg}");
    let plain = ok(common::tool(&m, 9, "get_run", json!({ "playbook": pb, "run_id": "wf-1" })));
    assert!(plain["picture"].get("svg").is_none() && plain["picture"]["url"].is_string());
}
