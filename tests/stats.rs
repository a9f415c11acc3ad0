//! `get_stats` and `list_runs` by start time on the host, through the MCP door over the runtime in
//! memory: the counts an agent reads of a playbook's runs and of one function's, a refusal at its
//! field, and the runs of a span of start times.

mod common;

use serde_json::{json, Value};

const ADD_VAT: &str = include_str!("fixtures/add-vat.md");
/// A computation whose input may leave out the net it needs, so that a run without it fails.
const HALF: &str = "---\ndescription: Halves a net amount\ninput:\n  schema: { type: object, properties: { net: { type: number } } }\noutput:\n  schema: { type: object, properties: { half: { type: number } }, required: [half] }\ncompute:\n  half: input.net / 2\n---\n";

fn ok(result: Value) -> Value {
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"].clone()
}

/// The problem document of a refusal, which an MCP result carries as its second text.
fn refused(result: Value) -> Value {
    assert_eq!(result["isError"], true, "{result}");
    serde_json::from_str(result["content"][1]["text"].as_str().unwrap_or_default()).unwrap_or_default()
}

/// A playbook with add-vat run 3 times and half run twice, once failing, at seconds 4 to 8.
fn world() -> (common::Memory, String) {
    let m = common::Memory::default();
    let pb =
        ok(common::tool(&m, 1, "create_playbook", json!({ "name": "Orders" })))["id"].as_str().unwrap().to_string();
    for (second, name, source) in [(2, "add-vat", ADD_VAT), (3, "half", HALF)] {
        ok(common::tool(
            &m,
            second,
            "create_definition",
            json!({
                "playbook": pb, "type": "computation", "name": name, "source": source,
                "overview": format!("The {name} computation of the stats tests does what its description says."),
                "diagram": "flowchart LR\n  A[in] --> B[out]",
            }),
        ));
    }
    let runs =
        [(4, "add-vat", json!({ "net": 1 })), (5, "add-vat", json!({ "net": 2 })), (6, "add-vat", json!({ "net": 3 }))];
    for (second, name, input) in runs.into_iter().chain([(7, "half", json!({ "net": 4 })), (8, "half", json!({}))]) {
        let args = json!({ "playbook": pb, "type": "computation", "name": name, "input": input });
        let run = ok(common::tool(&m, second, "run_definition", args));
        assert_eq!(run["status"], if second == 8 { "failed" } else { "succeeded" }, "{run}");
    }
    (m, pb)
}

#[test]
fn stats_count_the_playbooks_runs_and_one_functions() {
    let (m, pb) = world();
    let result = common::tool(&m, 9, "get_stats", json!({ "playbook": pb, "window": "1h" }));
    let said = result["content"][0]["text"].as_str().unwrap().to_string();
    let stats = ok(result);
    assert_eq!(
        (&stats["current"]["runs"], &stats["current"]["succeeded"], &stats["current"]["failed"]),
        (&json!(5), &json!(4), &json!(1)),
        "{stats}"
    );
    assert_eq!((&stats["current"]["success_rate"], &stats["previous"]["runs"]), (&json!(0.8), &json!(0)));
    assert_eq!(
        stats["most_failing"],
        json!([{ "definition": { "type": "computation", "name": "half" }, "failed": 1, "ended": 2 }])
    );
    // Computations record no tokens, and the catalogue no prices: both are absent, not zero.
    assert_eq!((&stats["current"]["tokens"], &stats["cost"]), (&Value::Null, &Value::Null));
    assert_eq!(stats["absent"].as_array().map(Vec::len), Some(2), "{stats}");
    assert_eq!((&stats["read"]["definitions"], &stats["read"]["reached"]), (&json!(2), &json!([])));
    assert!(said.starts_with("In the last hour, 5 runs (was 0): 4 succeeded (80%), 1 failed; p50 "), "{said}");
    assert!(said.contains("Most failing: computation/half (1 of 2 failed)."), "{said}");

    let one =
        ok(common::tool(&m, 10, "get_stats", json!({ "playbook": pb, "type": "computation", "name": "add-vat" })));
    assert_eq!(
        (&one["window"], &one["current"]["runs"], &one["current"]["success_rate"]),
        (&json!("7d"), &json!(3), &json!(1.0))
    );
    assert_eq!(one["definition"], json!({ "type": "computation", "name": "add-vat" }));
}

#[test]
fn stats_refuse_at_the_field() {
    let (m, pb) = world();
    let bad = refused(common::tool(&m, 9, "get_stats", json!({ "playbook": pb, "window": "2d" })));
    assert_eq!(bad["errors"][0]["pointer"], "/window", "{bad}");
    let lone = refused(common::tool(&m, 9, "get_stats", json!({ "playbook": pb, "name": "add-vat" })));
    assert_eq!(lone["errors"][0]["pointer"], "/type", "{lone}");
    let unknown =
        refused(common::tool(&m, 9, "get_stats", json!({ "playbook": pb, "type": "computation", "name": "nope" })));
    assert_eq!(unknown["reason"], "not_found", "{unknown}");
}

#[test]
fn list_runs_narrows_to_a_span_of_start_times() {
    let (m, pb) = world();
    let listed = |after: Option<&str>, before: Option<&str>| -> Vec<String> {
        let mut args = json!({ "playbook": pb });
        if let Some(t) = after {
            args["started_after"] = json!(t);
        }
        if let Some(t) = before {
            args["started_before"] = json!(t);
        }
        let page = ok(common::tool(&m, 9, "list_runs", args));
        page["runs"].as_array().unwrap().iter().map(|r| r["started_at"].as_str().unwrap()[17..19].to_string()).collect()
    };
    assert_eq!(listed(None, None), ["08", "07", "06", "05", "04"]);
    assert_eq!(listed(Some("2026-12-02T10:00:06Z"), None), ["08", "07", "06"], "from that time on");
    assert_eq!(listed(None, Some("2026-12-02T10:00:06Z")), ["05", "04"], "up to that time");
    // Any offset reads as the same moment.
    assert_eq!(listed(Some("2026-12-02T11:00:05+01:00"), Some("2026-12-02T10:00:07.000Z")), ["06", "05"]);
    assert!(listed(Some("2027-01-01T00:00:00Z"), None).is_empty(), "none started in the future");

    let bad = refused(common::tool(&m, 10, "list_runs", json!({ "playbook": pb, "started_after": "yesterday" })));
    assert_eq!(
        (&bad["reason"], &bad["errors"][0]["pointer"]),
        (&json!("invalid_input"), &json!("/started_after")),
        "{bad}"
    );
    let empty =
        json!({ "playbook": pb, "started_after": "2026-12-02T10:00:06Z", "started_before": "2026-12-02T10:00:06Z" });
    assert_eq!(refused(common::tool(&m, 10, "list_runs", empty))["errors"][0]["pointer"], "/started_before");
}
