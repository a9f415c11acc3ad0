//! Pages of definitions over the runtime in memory: the `page` guide's worked example saved by
//! the real checker and rendered by `get_definition` as the guide writes it, `standing`, a
//! preview over `sample_output`, a run's `page.result`, a definition without a page, the
//! refusals of a save at `/page` and `/glance`, and the `glance` guide's workflow rendered.

mod common;

use playbook_runtime::core::definition::page::{self, About};
use playbook_runtime::core::definition::{check_document, Kind, Ref};
use playbook_runtime::core::run::{Run, RunStatus};
use serde_json::{json, Value};

const PAGE_GUIDE: &str = include_str!("../guides/page.md");
const GLANCE_GUIDE: &str = include_str!("../guides/glance.md");

/// The `n`th fenced block (from 0) after `heading` in a guide.
fn block(guide: &str, heading: &str, n: usize) -> String {
    let from = guide.find(heading).unwrap_or_else(|| panic!("the guide has no {heading}"));
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in guide[from..].lines() {
        match (&mut current, line.starts_with("```")) {
            (None, true) => current = Some(String::new()),
            (Some(text), true) => {
                blocks.push(std::mem::take(text));
                current = None;
            }
            (Some(text), false) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, false) => {}
        }
    }
    blocks.into_iter().nth(n).unwrap_or_else(|| panic!("no block {n} after {heading}"))
}

fn ok(result: Value) -> Value {
    assert_eq!(result["isError"], false, "{result}");
    result["structuredContent"].clone()
}

fn summary(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

struct World {
    m: common::Memory,
    pb: String,
}

impl World {
    fn new() -> World {
        let m = common::Memory::default();
        let created = ok(common::tool(&m, 1, "create_playbook", json!({ "name": "Invoices" })));
        let pb = created["id"].as_str().unwrap_or_default().to_string();
        World { m, pb }
    }

    fn call(&self, second: u32, name: &str, mut args: Value) -> Value {
        args["playbook"] = json!(self.pb);
        common::tool(&self.m, second, name, args)
    }

    fn define(&self, second: u32, kind: &str, name: &str, source: &str) -> Value {
        self.call(
            second,
            "create_definition",
            json!({
                "type": kind, "name": name, "source": source,
                "overview": "Adds VAT to a net amount, field by field, as the page guide's worked example does.",
                "diagram": "flowchart LR\n  A[net] --> B[vat] --> C[gross]",
            }),
        )
    }

    /// Runs `add-vat` at `second`, ending half a second later by the runtime's clock.
    fn run(&self, second: u32, run_id: &str, net: u32) {
        self.m.clock.set(playbook_runtime::ops::memory::T0 + i64::from(second) * 1000 + 500);
        let run = ok(self.call(
            second,
            "run_definition",
            json!({ "type": "computation", "name": "add-vat", "input": { "net": net }, "run_id": run_id }),
        ));
        assert_eq!(run["status"], "succeeded", "{run}");
    }
}

#[test]
fn the_page_guides_example_renders_as_the_guide_writes_it() {
    let w = World::new();
    let source = block(PAGE_GUIDE, "## Worked example", 0);
    ok(w.define(2, "computation", "add-vat", &source));
    let fresh = ok(w.call(3, "get_definition", json!({ "type": "computation", "name": "add-vat", "render": true })));
    assert_eq!(fresh["standing"]["runs"], 0);
    assert_eq!(fresh["standing"]["says"], "It has not run yet.");
    assert_eq!(fresh["page"]["over"], "runs");
    assert!(fresh["page"]["markdown"].as_str().unwrap_or_default().contains("No invoice has been priced yet."));

    w.run(4, "inv-1", 100);
    w.run(5, "inv-2", 250);
    let read = ok(w.call(6, "get_definition", json!({ "type": "computation", "name": "add-vat", "render": true })));
    let standing = &read["standing"];
    assert_eq!((standing["runs"].as_u64(), standing["succeeded"].as_u64()), (Some(2), Some(2)));
    assert_eq!(standing["latest_status"], "succeeded");
    assert_eq!(standing["last_run_at"], "2026-12-02T10:00:05.000Z");
    assert_eq!(
        standing["says"],
        "Of its runs, 2 succeeded. The latest to end succeeded. It last ran at 2026-12-02T10:00:05.000Z."
    );

    let listed: Vec<&str> =
        read["runs"].as_array().into_iter().flatten().filter_map(|r| r["run_id"].as_str()).collect();
    assert_eq!(listed, ["inv-2", "inv-1"], "the page's runs, newest first");
    let plain = ok(w.call(7, "get_definition", json!({ "type": "computation", "name": "add-vat" })));
    assert!(plain.get("page").is_none(), "the page is rendered only with render");
    assert_eq!(plain["standing"], read["standing"]);

    let first = ok(w.call(8, "get_run", json!({ "run_id": "inv-1" })));
    let result = first["page"]["result"].as_str().unwrap_or_default();
    assert!(result.contains("came to **120.00**") && result.contains("1 of 1 runs succeeded."), "{result}");
    assert!(!result.contains("inv-2"), "inv-2 started after inv-1 ended: {result}");
    let second = ok(w.call(9, "get_run", json!({ "run_id": "inv-2" })));
    assert_eq!(second["page"]["result"], read["page"]["markdown"]);

    let sample = ok(w.call(
        10,
        "get_definition",
        json!({ "type": "computation", "name": "add-vat", "render": true, "sample_output": { "vat": 2, "gross": 12 } }),
    ));
    assert_eq!(sample["page"]["over"], "sample_output");
    let markdown = sample["page"]["markdown"].as_str().unwrap_or_default();
    assert!(
        markdown.contains("came to **12.00**, of which 2.00 VAT") && markdown.contains("1 of 1 runs"),
        "{markdown}"
    );
    assert_eq!(sample["standing"], read["standing"], "the standing stays the definition's own");
}

#[test]
fn a_sample_is_checked_like_any_input() {
    let w = World::new();
    ok(w.define(2, "computation", "add-vat", &block(PAGE_GUIDE, "## Worked example", 0)));
    let args =
        |sample: Value| json!({ "type": "computation", "name": "add-vat", "render": true, "sample_output": sample });
    let refused = w.call(3, "get_definition", args(json!({ "vat": "two" })));
    assert_eq!(refused["isError"], true, "{refused}");
    let text = refused.to_string();
    assert!(text.contains("/sample_output/vat") && text.contains("/sample_output"), "{text}");
    let large = w.call(4, "get_definition", args(json!({ "vat": 1, "gross": 1, "note": "x".repeat(70_000) })));
    assert!(large.to_string().contains("more than the 65536 a sample may hold"), "{large}");
    let without = w.call(5, "get_definition", json!({ "type": "computation", "name": "add-vat", "sample_output": {} }));
    assert!(without.to_string().contains("is given with render: true"), "{without}");
}

#[test]
fn a_definition_without_a_page_says_so_when_rendered() {
    let w = World::new();
    let source = block(PAGE_GUIDE, "## Worked example", 0);
    let plain = &source[..source.find("page: |").unwrap_or(source.len())];
    ok(w.define(2, "computation", "add-vat", &format!("{plain}---\n")));
    w.run(3, "inv-1", 100);
    let read = w.call(4, "get_definition", json!({ "type": "computation", "name": "add-vat", "render": true }));
    let said = page_of(&read);
    assert_eq!(said["markdown"], Value::Null);
    assert_eq!(said["says"], "It has no page yet; the page guide says how to give it one.");
    assert!(summary(&read).ends_with("It has no page yet; the page guide says how to give it one."), "{read}");
    let run = ok(w.call(5, "get_run", json!({ "run_id": "inv-1" })));
    assert!(run.get("page").is_none(), "a run of a definition without a page has no page.result");
}

fn page_of(result: &Value) -> Value {
    ok(result.clone())["page"].clone()
}

#[test]
fn a_page_that_fails_to_render_says_where() {
    let w = World::new();
    let source = block(PAGE_GUIDE, "## Worked example", 0)
        .replace("{% if latest and latest.output -%}", "{% if true -%}")
        .replace("{{ counts.succeeded }} of", "{{ counts.succeeded }} {{ latest.output.gross }} of");
    ok(w.define(2, "computation", "add-vat", &source));
    let read = w.call(3, "get_definition", json!({ "type": "computation", "name": "add-vat", "render": true }));
    let said = page_of(&read);
    assert_eq!(said["markdown"], Value::Null);
    assert_eq!(said["error"]["pointer"], "/page");
    assert!(
        said["says"].as_str().unwrap_or_default().starts_with("The page did not render, at /page: line 4"),
        "{said}"
    );
    assert!(summary(&read).contains("The page did not render"), "{read}");
}

#[test]
fn a_save_refuses_a_page_or_a_glance_at_its_pointer() {
    let source = block(PAGE_GUIDE, "## Worked example", 0);
    let with = |page: &str| source.replace("page: |", &format!("page: {page}\nold: |"));
    let refused = |kind, text: &str| check_document(kind, text).expect_err("refused");
    let p = refused(Kind::Computation, &source.replace("{{ counts.runs }}", "{{ total }}"));
    assert_eq!(p.errors[0].pointer, "/page");
    assert_eq!(
        p.errors[0].detail,
        "uses total (line 9 of the page), which it is not given; it may use definition, runs, latest, counts, last_run_at"
    );
    let p = refused(Kind::Computation, &source.replace("{% endfor %}", ""));
    assert_eq!(p.errors[0].pointer, "/page");
    assert!(p.errors[0].detail.starts_with("does not compile at line"), "{}", p.errors[0].detail);
    let p = refused(Kind::Computation, &with("[1]"));
    assert!(p.errors.iter().any(|e| e.pointer == "/page" && e.detail == "must be text: the Markdown of the page"));
    let long = format!("\"{}\"", "x".repeat(page::RENDERED_MAX_BYTES));
    assert!(refused(Kind::Computation, &with(&long))
        .errors
        .iter()
        .any(|e| e.pointer == "/source" || e.pointer == "/page"));
    let p = refused(Kind::Computation, &source.replace("page: |", "glance: { headline: x }\npage: |"));
    assert_eq!(p.errors[0].pointer, "/glance", "a glance is a workflow's alone");

    let workflow = block(GLANCE_GUIDE, "## Worked example", 0);
    check_document(Kind::Workflow, &workflow).expect("the glance guide's workflow is saved");
    let p = refused(Kind::Workflow, &workflow.replace("value: counts.running", "value: counts.running +"));
    assert!(p.errors.iter().any(|e| e.pointer == "/glance/figures/1/value"), "{p:?}");
    let p = refused(Kind::Workflow, &workflow.replace("value: counts.failed", "value: failures"));
    assert!(p
        .errors
        .iter()
        .any(|e| e.pointer.starts_with("/glance/figures/") && e.detail.starts_with("uses failures")));
    let five = workflow
        .replace("  figures:\n", "  figures:\n    - { label: a, value: '1' }\n    - { label: b, value: '2' }\n");
    let p = refused(Kind::Workflow, &five);
    assert!(p.errors.iter().any(|e| e.pointer == "/glance/figures" && e.detail.contains("at most 4")), "{p:?}");
    let p = refused(Kind::Workflow, &workflow.replace("headline:", "title:"));
    assert!(p.errors.iter().any(|e| e.pointer == "/glance/headline" && e.detail == "is required"), "{p:?}");
    assert!(p.errors.iter().any(|e| e.pointer == "/glance/title"), "{p:?}");
}

fn ended(run_id: &str, second: u32, status: RunStatus, input: Value) -> Run {
    let mut run = Run::started(
        run_id,
        ("local", "pb"),
        Ref { kind: Kind::Workflow, name: "review-and-approve".into() },
        1,
        input,
        format!("2026-12-02T10:00:{second:02}.000Z"),
    );
    run.status = status;
    run
}

#[test]
fn the_glance_guides_example_renders_as_the_guide_writes_it() {
    let workflow = block(GLANCE_GUIDE, "## Worked example", 0);
    let checked = check_document(Kind::Workflow, &workflow).expect("saved");
    let glance = checked.glance.expect("a glance");
    let at = |s: u32| format!("2026-12-02T10:05:{s:02}.000Z");
    let approved = json!({ "review": "Clear.", "approval": { "verdict": "approve", "note": "Go." } });
    let runs = vec![
        ended("brief-3", 3, RunStatus::Started { waiting: None }, json!({ "file": "c.md", "title": "Winter" })),
        ended(
            "brief-2",
            2,
            RunStatus::Failed {
                error: playbook_runtime::core::run::RunError::new(
                    playbook_runtime::core::ErrorCode::Expired,
                    "No one answered.",
                ),
                finished_at: at(2),
            },
            json!({ "file": "b.md", "title": "Spring" }),
        ),
        ended(
            "brief-1",
            1,
            RunStatus::Succeeded { output: approved, finished_at: at(1) },
            json!({ "file": "a.md", "title": "Autumn" }),
        ),
    ];
    let about = About { kind: "workflow", name: "review-and-approve", version: 1, description: "Reviews" };
    let shown = page::render_glance(&glance, &page::context(&about, &runs, None)).expect("renders");
    let expected: Value = serde_json::from_str(&block(GLANCE_GUIDE, "## Worked example", 1)).expect("JSON");
    assert_eq!(serde_json::to_value(&shown).unwrap_or_default(), expected);
    let none = page::render_glance(&glance, &page::context(&about, &[], None)).expect("renders with no run");
    assert_eq!(none.headline, "No brief reviewed yet");
    assert!(!none.attention);
}

const PRICE_INVOICES: &str = r#"---
description: Prices an invoice with its VAT
glance:
  headline: "{% if latest %}The last invoice {{ latest.status }}{% else %}No invoice priced yet{% endif %}"
  figures:
    - label: Priced
      value: counts.succeeded
    - label: Latest gross
      value: latest.output.price.gross if latest and latest.output else none
  attention: counts.failed > 0
page: |
  # Invoices

  {{ counts.succeeded }} priced.
input:
  schema: { type: object, properties: { net: { type: number } }, required: [net] }
steps:
  - id: price
    function: computation/add-vat
    input:
      net: input.net
---
"#;

#[test]
fn a_workflow_answers_its_glance_and_its_runs_their_page() {
    let w = World::new();
    ok(w.define(2, "computation", "add-vat", &block(PAGE_GUIDE, "## Worked example", 0)));
    let saved = w.call(3, "create_definition", json!({ "type": "workflow", "name": "price-invoices", "source": PRICE_INVOICES, "overview": "Prices each invoice it is given with its VAT, by running the add-vat computation." }));
    ok(saved);
    let args = json!({ "type": "workflow", "name": "price-invoices" });
    let before = ok(w.call(4, "get_definition", args.clone()));
    assert_eq!(
        before["glance"],
        json!({ "headline": "No invoice priced yet", "figures": [{ "label": "Priced", "value": 0 }, { "label": "Latest gross", "value": null }], "attention": false })
    );
    let started = ok(w.call(
        5,
        "run_definition",
        json!({ "type": "workflow", "name": "price-invoices", "input": { "net": 100 }, "run_id": "wf-1" }),
    ));
    assert_eq!(started["status"], "started", "{started}");
    futures::executor::block_on(w.m.pass(5_000));
    let run = ok(w.call(6, "get_run", json!({ "run_id": "wf-1" })));
    assert_eq!(run["status"], "succeeded", "{run}");
    assert_eq!(run["page"], json!({ "result": "# Invoices\n\n1 priced." }));
    let after = ok(w.call(7, "get_definition", args));
    assert_eq!(after["glance"]["headline"], "The last invoice succeeded");
    assert_eq!(after["glance"]["figures"][1], json!({ "label": "Latest gross", "value": 120.0 }));
    assert_eq!(after["standing"]["succeeded"], 1);
    assert!(after.get("page").is_none());
    let function = ok(w.call(8, "get_definition", json!({ "type": "computation", "name": "add-vat" })));
    assert!(function.get("glance").is_none(), "a function has no glance");
    assert_eq!(function["standing"]["runs"], 1, "the step's run is a run of the function");
}

/// An operation served over HTTP alone, called as its route calls it.
fn http(w: &World, second: u32, name: &str, mut args: Value) -> Result<Value, playbook_runtime::core::Problem> {
    args["playbook"] = json!(w.pb);
    let caller = playbook_runtime::core::Caller::local(Some("ada".into()));
    let ctx = common::ctx(&caller, &w.m, second, second as u8);
    let tool = playbook_runtime::tools::find(name).unwrap_or_else(|| panic!("no operation {name}"));
    futures::executor::block_on(playbook_runtime::tools::call(&ctx, tool, args)).map(|o| o.value)
}

#[test]
fn what_studio_presents_over_http_agrees_with_what_agents_read() {
    let w = World::new();
    ok(w.call(2, "update_playbook", json!({ "page": "# Invoices\n\nPriced as they come." })));
    ok(w.define(3, "computation", "add-vat", &block(PAGE_GUIDE, "## Worked example", 0)));
    ok(w.call(4, "create_definition", json!({ "type": "workflow", "name": "price-invoices", "source": PRICE_INVOICES, "overview": "Prices each invoice it is given with its VAT, by running the add-vat computation." })));
    w.run(5, "inv-1", 100);
    w.run(6, "inv-2", 250);

    let add_vat = json!({ "type": "computation", "name": "add-vat" });
    let now = http(&w, 7, "render_page", add_vat.clone()).expect("render_page");
    let read = ok(w.call(7, "get_definition", json!({ "type": "computation", "name": "add-vat", "render": true })));
    assert_eq!(now, read["page"], "render_page is get_definition's render");
    let mut first = add_vat.clone();
    first["run_id"] = json!("inv-1");
    let as_it_stood = http(&w, 8, "render_page", first).expect("render_page of a run");
    let run = ok(w.call(8, "get_run", json!({ "run_id": "inv-1" })));
    assert_eq!((&as_it_stood["markdown"], &as_it_stood["over"]), (&run["page"]["result"], &json!("run")));
    let mut other = json!({ "type": "workflow", "name": "price-invoices" });
    other["run_id"] = json!("inv-1");
    let refused = http(&w, 8, "render_page", other).expect_err("a run of another definition");
    assert_eq!(refused.errors[0].pointer, "/run_id");

    let presented = http(&w, 9, "render_playbook_page", json!({})).expect("render_playbook_page");
    assert_eq!(presented["markdown"], "# Invoices\n\nPriced as they come.");
    let rows: Vec<(&str, &str)> = presented["definitions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| (d["type"].as_str().unwrap_or_default(), d["name"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(rows, [("computation", "add-vat"), ("workflow", "price-invoices")]);
    assert_eq!(presented["definitions"][0]["standing"], read["standing"]);
    assert_eq!(presented["definitions"][1]["glance"]["headline"], "No invoice priced yet");

    let figures = http(&w, 10, "get_playbook_analytics", json!({})).expect("get_playbook_analytics");
    assert_eq!((figures["totals"]["runs"].as_u64(), figures["totals"]["succeeded"].as_u64()), (Some(2), Some(2)));
    assert_eq!(figures["more"], false);

    let history = http(&w, 11, "get_run_history", json!({ "run_id": "inv-1" })).expect("get_run_history");
    let events = ok(w.call(11, "list_playbook_events", json!({ "run_id": "inv-1" })));
    assert_eq!(history, events, "a run's history is list_playbook_events with its run_id");
    let unknown = http(&w, 12, "get_run_history", json!({ "run_id": "nowhere" })).expect_err("an unknown run");
    assert_eq!(unknown.status(), 404);
}
