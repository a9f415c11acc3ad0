//! The views on the host: every field someone wrote is shown as text, links are
//! `core::studio`'s, and a Viewer's page offers no form that changes anything.

use serde_json::{json, Value};

use super::comments::{self, Comments, Thread};
use super::definition::{self, Drawing};
use super::frame::Frame;
use super::ledger::{self, Filters};
use super::playbook::{self, OfType};
use super::requests::{self, Refusal};
use super::route::{self, Page, Post};
use super::run::{self, Pictures};
use super::{home, run_facts};
use crate::core::studio;

const HOSTILE: &str = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'&";

fn frame(writes: bool) -> Frame<'static> {
    Frame {
        org: "acme",
        playbook: Some(("pb_1", HOSTILE)),
        person: HOSTILE,
        csrf: "proof",
        writes,
        signed_in: true,
        notice: None,
    }
}

/// No markup of the hostile text survives: it is text wherever it shows.
fn assert_inert(html: &str) {
    assert!(!html.contains("<script"), "a script tag: {html}");
    assert!(!html.contains("<img src=x"), "an image tag: {html}");
    assert!(!html.contains("onerror=alert(2)>"), "an attribute: {html}");
    assert!(html.contains("&lt;script&gt;"), "the text is shown: {html}");
}

fn comment(status: &str) -> Value {
    json!({
        "id": "cm_1", "address": HOSTILE, "body": HOSTILE, "by": { "id": "person:x", "name": HOSTILE },
        "created_at": "2026-12-05T09:00:00Z", "status": status, "how": HOSTILE, "resolved_by": { "name": HOSTILE }
    })
}

fn listed_comments() -> Value {
    json!({ "comments": [comment("open"), comment("resolved")] })
}

fn run_value() -> Value {
    json!({
        "run_id": "run_1", "definition": { "type": "workflow", "name": HOSTILE }, "version": 2,
        "input": { "brief": HOSTILE }, "status": "failed", "output": HOSTILE,
        "error": { "reason": HOSTILE, "detail": HOSTILE }, "started_at": "2026-12-05T09:00:00Z",
        "finished_at": "2026-12-05T09:01:00Z", "started_by": { "name": HOSTILE },
        "within": { "run_id": "run_0", "step": HOSTILE }, "waiting": { "question": HOSTILE },
        "record": { "note": HOSTILE }, "page": { "result": HOSTILE },
        "steps": [{ "step": "s", "title": HOSTILE, "status": HOSTILE, "run_id": "run_2", "waiting_for": HOSTILE }]
    })
}

#[test]
fn every_page_shows_what_someone_wrote_as_text() {
    let f = frame(true);
    let said = listed_comments();
    let thread = Thread { comments: Comments::Listed(&said), address: "playbook", back: "/studio/acme" };
    let playbooks =
        json!({ "playbooks": [{ "id": "pb_1", "name": HOSTILE, "description": HOSTILE, "status": "active" }] });
    assert_inert(&home::render(&Frame { playbook: None, ..f.clone() }, &playbooks, None, &thread));

    let pb = json!({ "id": "pb_1", "name": HOSTILE, "description": HOSTILE, "status": HOSTILE, "page": HOSTILE });
    let defs = json!({ "definitions": [{ "type": "workflow", "name": HOSTILE, "description": HOSTILE, "version": 1, "status": HOSTILE }] });
    let glance =
        json!({ "headline": HOSTILE, "figures": [{ "label": HOSTILE, "value": HOSTILE }], "attention": HOSTILE });
    let types = [OfType { kind: "workflow", listed: &defs }];
    let read = json!({ "glance": glance, "standing": { "says": HOSTILE } });
    assert_inert(&playbook::render(&f, &pb, &types, &[(format!("workflow/{HOSTILE}"), read)], Some(HOSTILE), &thread));

    let def = json!({
        "type": "reasoning", "name": HOSTILE, "version": 1, "status": "active", "description": HOSTILE,
        "document": HOSTILE, "overview": HOSTILE, "diagram": HOSTILE, "standing": { "says": HOSTILE },
        "used_by": [{ "type": "workflow", "name": HOSTILE }], "created_by": { "name": HOSTILE },
        "page": { "markdown": HOSTILE, "over": "runs" }
    });
    let runs = json!({ "runs": [{ "run_id": HOSTILE, "definition": { "type": "reasoning", "name": HOSTILE }, "status": HOSTILE }] });
    for drawing in [Drawing::Source(HOSTILE), Drawing::Image { src: HOSTILE.into(), alt: HOSTILE.into() }] {
        assert_inert(&definition::render(&f, &def, &drawing, &runs, &thread));
    }

    let r = run_value();
    let filters = Filters { definition: HOSTILE, status: HOSTILE, rehearsal: true };
    assert_inert(&ledger::render(&f, Some(&runs), None, &filters, Some(Ok(&r)), &thread));
    assert_inert(&ledger::render(&f, None, Some(HOSTILE), &filters, Some(Err(HOSTILE)), &thread));

    let history = [
        json!({ "event_id": "ev_1", "kind": HOSTILE, "at": HOSTILE, "summary": HOSTILE, "data": { "tool": HOSTILE } }),
    ];
    let pictures = Pictures { run: Some(HOSTILE.into()), timeline: None };
    assert_inert(&run::render(&f, &r, &pictures, &history, None, &thread));

    let asked = json!({ "requests": [{ "run_id": "run_1", "definition": { "type": "interaction", "name": HOSTILE },
        "question": HOSTILE, "asked_at": HOSTILE,
        "answer_schema": { "type": "object", "properties": { "note": { "type": "string", "title": HOSTILE, "description": HOSTILE } } } }] });
    let errors = [("/note".to_string(), HOSTILE.to_string()), ("/nowhere".to_string(), HOSTILE.to_string())];
    let values = json!({ "note": HOSTILE });
    let refusal = Refusal { run_id: "run_1", words: HOSTILE, errors: &errors, values: Some(&values) };
    assert_inert(&requests::render(&f, &asked, Some(&refusal), None, Comments::Listed(&said)));
    assert_inert(&comments::page_of(&f, &thread));
    assert_inert(&super::frame::refused(&f, HOSTILE, HOSTILE, Some("/studio/acme")));
}

#[test]
fn a_run_shows_its_input_output_error_and_page() {
    let html = run_facts(&frame(true), &run_value());
    for part in [
        "<h3>Input</h3>",
        "<h3>Output</h3>",
        "<h3>Error</h3>",
        "It waits for an answer",
        "as it stood when the run ended",
    ] {
        assert!(html.contains(part), "{part}: {html}");
    }
    assert!(html.contains("href=\"/studio/acme/playbooks/pb_1/runs/run_0\""), "the workflow run it is within: {html}");
}

#[test]
fn links_are_studios_addresses() {
    let f = Frame { playbook: None, ..frame(true) };
    let none = json!({ "comments": [] });
    let thread = Thread { comments: Comments::Listed(&none), address: "org", back: "/studio/acme" };
    let playbooks = json!({ "playbooks": [{ "id": "pb_9", "name": "Campaigns", "status": "active" }] });
    let html = home::render(&f, &playbooks, None, &thread);
    assert!(html.contains(&format!("href=\"{}\"", studio::playbook("", "acme", "pb_9"))), "{html}");
    assert!(html.contains(&format!("href=\"{}\"", studio::org_comments("", "acme"))), "{html}");

    let f = frame(true);
    let runs = json!({ "runs": [{ "run_id": "run_7", "definition": { "type": "workflow", "name": "review" }, "status": "succeeded" }] });
    let html = ledger::render(&f, Some(&runs), None, &Filters::default(), None, &thread);
    assert!(html.contains(&format!("href=\"{}\"", studio::ledger("", "acme", "pb_1", Some("run_7")))), "{html}");
    assert!(
        html.contains(&format!("href=\"{}\"", studio::definition("", "acme", "pb_1", "workflow", "review"))),
        "{html}"
    );
    for tab in [
        studio::ledger("", "acme", "pb_1", None),
        studio::requests("", "acme", "pb_1"),
        studio::playbook_comments("", "acme", "pb_1"),
    ] {
        assert!(html.contains(&format!("href=\"{tab}\"")), "{tab}: {html}");
    }
}

#[test]
fn a_viewer_sees_but_is_offered_nothing_that_changes() {
    let said = json!({ "comments": [comment("open")] });
    let asked = json!({ "requests": [{ "run_id": "run_1", "definition": { "type": "interaction", "name": "approve" },
        "question": "Approve?", "answer_schema": { "type": "object" }, "asked_at": "2026-12-05T09:00:00Z" }] });
    let editor = requests::render(&frame(true), &asked, None, None, Comments::Listed(&said));
    assert!(editor.contains("/requests/run_1/answer\""), "{editor}");
    assert!(editor.contains("/comments/cm_1/resolve\""), "{editor}");
    let viewer = requests::render(&frame(false), &asked, None, None, Comments::Listed(&said));
    assert!(!viewer.contains("/answer\""), "{viewer}");
    assert!(!viewer.contains("/resolve\""), "{viewer}");
    assert!(viewer.contains("answering it needs a role that changes playbooks"), "{viewer}");
    assert!(viewer.contains("Approve?"), "the viewer reads the question: {viewer}");
}

#[test]
fn a_request_is_answered_in_the_shape_of_its_schema() {
    let asked = json!({ "requests": [{ "run_id": "run_1", "definition": { "type": "interaction", "name": "approve" },
        "question": "Approve?", "asked_at": "2026-12-05T09:00:00Z",
        "answer_schema": { "type": "object", "properties": { "verdict": { "type": "string", "enum": ["approve", "revise"] } }, "required": ["verdict"] } }] });
    let none = json!({ "comments": [] });
    let html = requests::render(&frame(true), &asked, None, None, Comments::Listed(&none));
    assert!(html.contains("type=\"radio\" name=\"verdict\" value=\"approve\""), "{html}");
    let errors = [("/verdict".to_string(), "is required".to_string())];
    let refusal = Refusal { run_id: "run_1", words: "The answer does not fit.", errors: &errors, values: None };
    let html = requests::render(&frame(true), &asked, Some(&refusal), None, Comments::Listed(&none));
    assert!(html.contains("The answer does not fit.") && html.contains("is required"), "{html}");
    let other = Refusal { run_id: "run_2", ..refusal };
    let html = requests::render(&frame(true), &asked, Some(&other), None, Comments::Listed(&none));
    assert!(!html.contains("The answer does not fit."), "a refusal shows beside its own request alone: {html}");
}

#[test]
fn every_form_carries_the_proof() {
    let said = listed_comments();
    let thread = Thread { comments: Comments::Listed(&said), address: "playbook", back: "/studio/acme/playbooks/pb_1" };
    let html = comments::page_of(&frame(true), &thread);
    let forms = html.matches("<form method=\"post\"").count();
    assert!(forms >= 3, "{html}");
    assert_eq!(html.matches("name=\"csrf\" value=\"proof\"").count(), forms, "{html}");
}

#[test]
fn paths_name_their_pages_and_forms() {
    let base = "";
    assert_eq!(route::page("/studio"), Some(Page::Root));
    assert_eq!(route::page(&studio::home(base, "acme")), Some(Page::Home { org: "acme".into() }));
    assert_eq!(
        route::page(&studio::definition(base, "acme", "pb_1", "workflow", "review")),
        Some(Page::Definition {
            org: "acme".into(),
            playbook: "pb_1".into(),
            kind: "workflow".into(),
            name: "review".into()
        })
    );
    assert_eq!(
        route::page(&studio::definition_picture(base, "acme", "pb_1", "review")),
        Some(Page::DefinitionPicture { org: "acme".into(), playbook: "pb_1".into(), name: "review".into() })
    );
    assert_eq!(
        route::page(&studio::run_picture(base, "acme", "pb_1", "run_9")),
        Some(Page::RunPicture { org: "acme".into(), playbook: "pb_1".into(), run_id: "run_9".into() })
    );
    assert_eq!(
        route::page(&studio::ledger(base, "acme", "pb_1", None)),
        Some(Page::Ledger { org: "acme".into(), playbook: "pb_1".into() })
    );
    assert_eq!(
        route::page(&studio::requests(base, "acme", "pb_1")),
        Some(Page::Requests { org: "acme".into(), playbook: "pb_1".into() })
    );
    assert_eq!(route::page(&studio::org_comments(base, "acme")), Some(Page::OrgComments { org: "acme".into() }));
    assert_eq!(route::page("/studio/acme/elsewhere"), None);
    assert_eq!(route::page("/studio/acme/playbooks/a%2Fb"), None, "a segment holds no slash");
    assert_eq!(
        route::post("/studio/acme/playbooks/pb_1/requests/run_1/answer"),
        Some(Post::Answer { org: "acme".into(), playbook: "pb_1".into(), run_id: "run_1".into() })
    );
    assert_eq!(
        route::post("/studio/acme/comments/cm_1/resolve"),
        Some(Post::Resolve { org: "acme".into(), playbook: None, id: "cm_1".into() })
    );
    assert_eq!(route::post("/studio/acme/playbooks/pb_1"), None);
}

#[test]
fn a_form_sends_the_person_back_only_to_studio() {
    assert_eq!(route::back("/studio/acme/playbooks/pb_1"), Some("/studio/acme/playbooks/pb_1"));
    for elsewhere in
        ["https://evil.example/", "//evil.example/studio/", "/studio//evil", "/pages/sign-out", "/studio/a\\b", ""]
    {
        assert_eq!(route::back(elsewhere), None, "{elsewhere}");
    }
}

#[test]
fn a_drawn_diagram_is_an_image_of_its_own_data() {
    let src = super::svg_data("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>a \"b\"</text></svg>");
    assert!(src.starts_with("data:image/svg+xml;base64,"), "{src}");
    assert!(!src.contains(['<', '"', ' ']), "{src}");
}

#[test]
fn a_run_takes_comments_on_its_result_and_each_step() {
    let said = json!({ "comments": [] });
    let thread = Thread {
        comments: Comments::Listed(&said),
        address: "runs/run_1",
        back: "/studio/acme/playbooks/pb_1/runs/run_1",
    };
    let html = run::render(&frame(false), &run_value(), &Pictures::default(), &[], None, &thread);
    for address in ["runs/run_1", "runs/run_1/result", "runs/run_1/steps/s"] {
        assert!(html.contains(&format!("name=\"address\" value=\"{address}\"")), "{address}: {html}");
    }
}

#[test]
fn a_rehearsal_says_so_above_all_it_shows() {
    let said = json!({ "comments": [] });
    let thread = Thread { comments: Comments::Listed(&said), address: "runs/run_1", back: "/studio/acme" };
    let mut run = run_value();
    let real = run::render(&frame(true), &run, &Pictures::default(), &[], None, &thread);
    assert!(!real.contains("A rehearsal."), "a run is not called a rehearsal");
    run["rehearsal"] = json!(true);
    let html = run::render(&frame(true), &run, &Pictures::default(), &[], None, &thread);
    let banner =
        html.find("<p class=\"notice rehearsal\" role=\"note\"><strong>A rehearsal.</strong>").expect("a banner");
    assert!(banner < html.find("<dl").unwrap_or(usize::MAX), "the banner comes before the facts: {html}");
}

#[test]
fn a_failed_workflow_run_offers_to_run_again_from_a_step_that_did_not_succeed_to_who_may() {
    let said = json!({ "comments": [] });
    let thread = Thread {
        comments: Comments::Listed(&said),
        address: "runs/run_1",
        back: "/studio/acme/playbooks/pb_1/runs/run_1",
    };
    let mut run = run_value();
    run["steps"] = json!([
        { "step": "first", "title": "first", "status": "succeeded", "run_id": "run_1-first-1" },
        { "step": "round", "title": "round", "status": "failed", "run_id": "run_1-round-1" }
    ]);
    let html = run::render(&frame(true), &run, &Pictures::default(), &[], None, &thread);
    assert_eq!(html.matches("Run again from this step").count(), 1, "{html}");
    assert!(html.contains("action=\"/studio/acme/playbooks/pb_1/runs/run_1/rerun\""), "{html}");
    assert!(html.contains("name=\"from_step\" value=\"round\""), "{html}");
    let reader = run::render(&frame(false), &run, &Pictures::default(), &[], None, &thread);
    assert!(!reader.contains("Run again from this step"), "a person who may not write is offered no form");
    run["status"] = json!("succeeded");
    let fine = run::render(&frame(true), &run, &Pictures::default(), &[], None, &thread);
    assert!(!fine.contains("Run again from this step"), "a run that succeeded offers none");
    assert_eq!(
        route::post("/studio/acme/playbooks/pb_1/runs/run_1/rerun"),
        Some(Post::Rerun { org: "acme".into(), playbook: "pb_1".into(), run_id: "run_1".into() })
    );
}

#[test]
fn a_playbook_shows_each_definitions_standing_and_a_workflows_glance() {
    let said = json!({ "comments": [] });
    let thread = Thread { comments: Comments::Listed(&said), address: "playbook", back: "/studio/acme/playbooks/pb_1" };
    let pb = json!({ "id": "pb_1", "name": "Orders", "status": "active", "page": "" });
    let defs = json!({ "definitions": [{ "type": "workflow", "name": "price", "version": 3, "status": "active" }] });
    let read = json!({
        "standing": { "says": "4 runs: 3 succeeded, 1 failed." },
        "glance": { "headline": "The last order came to 60", "figures": [{ "label": "Orders", "value": 4 }], "attention": true }
    });
    let types = [OfType { kind: "workflow", listed: &defs }];
    let went = "In the last 7 days, 4 runs (was 2): 3 succeeded (75%, was 100%), 1 failed; p50 1.2 s, p95 4.0 s.";
    let html =
        playbook::render(&frame(true), &pb, &types, &[("workflow/price".to_string(), read)], Some(went), &thread);
    for part in [
        "<h2>How its runs went</h2><p>In the last 7 days, 4 runs (was 2): 3 succeeded (75%, was 100%)",
        "4 runs: 3 succeeded, 1 failed.",
        "The last order came to 60",
        "<dt>Orders</dt><dd>4</dd>",
        "Needs attention.",
        "It has no page yet.",
    ] {
        assert!(html.contains(part), "{part}: {html}");
    }
}

#[test]
fn comments_list_comments_refuses_are_said_in_its_words() {
    let thread = Thread {
        comments: Comments::Refused("Reading comments needs playbook:read."),
        address: "ledger",
        back: "/studio/acme/playbooks/pb_1/ledger",
    };
    let html = ledger::render(&frame(true), None, None, &Filters::default(), None, &thread);
    assert!(
        html.contains("<p class=\"notice refused\" role=\"alert\">Reading comments needs playbook:read.</p>"),
        "{html}"
    );
}

#[test]
fn a_definition_takes_comments_on_its_page_and_document() {
    let said = json!({ "comments": [] });
    let address = "definitions/workflow/price";
    let thread = Thread {
        comments: Comments::Listed(&said),
        address,
        back: "/studio/acme/playbooks/pb_1/definitions/workflow/price",
    };
    let def = json!({ "type": "workflow", "name": "price", "version": 1, "status": "active", "page": { "markdown": "# Prices", "over": "runs" } });
    let html = definition::render(&frame(false), &def, &Drawing::None, &json!({ "runs": [] }), &thread);
    for part in [address.to_string(), format!("{address}/page"), format!("{address}/document")] {
        assert!(html.contains(&format!("name=\"address\" value=\"{part}\"")), "{part}: {html}");
    }
    assert!(html.contains("<h1>Prices</h1>"), "its page rendered: {html}");
}
