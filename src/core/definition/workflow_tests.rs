//! The workflow checker, refusal by refusal.

use serde_json::json;

use super::workflow::plan;
use super::workflow_calls::{check_calls, Callee};
use super::{check_document, Kind, Ref};
use crate::core::workflow::plan::{Action, OnFailure, Output};

/// The spec's review-and-approve workflow, as the guide's worked example writes it; one file,
/// which the e2e tests read too.
pub const EXAMPLE: &str = include_str!("../../../tests/fixtures/review-and-approve.md");

fn refused(doc: &str) -> Vec<String> {
    match check_document(Kind::Workflow, doc) {
        Ok(_) => Vec::new(),
        Err(p) => p.errors.iter().map(|e| format!("{} {}", e.pointer, e.detail)).collect(),
    }
}

fn has(found: &[String], pointer: &str, words: &str) {
    assert!(
        found.iter().any(|f| f.starts_with(&format!("{pointer} ")) && f.contains(words)),
        "{pointer} {words}: {found:#?}"
    );
}

#[test]
fn the_example_saves_and_uses_its_two_functions() {
    let c = check_document(Kind::Workflow, EXAMPLE).unwrap();
    let uses: Vec<String> = c.uses.iter().map(Ref::key).collect();
    assert_eq!(uses, ["reasoning/review-campaign-brief", "interaction/approve-campaign-brief"]);
    let p = plan(EXAMPLE).unwrap();
    assert_eq!(p.steps[1].after, ["review_brief"]);
    assert!(p.steps[0].after.is_empty());
    assert!(matches!(p.output, Output::Fields(ref f) if f.len() == 2));
}

#[test]
fn steps_refusals() {
    let found = refused(&EXAMPLE.replace("id: ask_for_approval", "id: Ask-For"));
    has(&found, "/steps/1/id", "lowercase letters, digits and _");
    let found = refused(&EXAMPLE.replace("id: ask_for_approval", "id: review_brief"));
    has(&found, "/steps/1/id", "the id of an earlier step");
    let found = refused(&EXAMPLE.replace("reasoning/review-campaign-brief", "workflow/other"));
    has(&found, "/steps/0/function", "names a workflow");
    // A generation function is a step's function like any other.
    assert!(check_document(Kind::Workflow, &EXAMPLE.replace("reasoning/review-campaign-brief", "generation/poster"))
        .is_ok());
    let found = refused(&EXAMPLE.replace("reasoning/review-campaign-brief", "review"));
    has(&found, "/steps/0/function", "must name a function of this playbook as type/name");
    let found = refused(&EXAMPLE.replace("    function: reasoning/review-campaign-brief\n", ""));
    has(&found, "/steps/0/function", "is required, or wait");
    let found = refused(&EXAMPLE.replace("  - id: review_brief\n", "  - id: review_brief\n    wait: { seconds: 5 }\n"));
    has(&found, "/steps/0/wait", "not both");
    let found = refused(&EXAMPLE.replace("file: input.file", "file: 3"));
    has(&found, "/steps/0/input/file", "must be an expression written as text");
    let found = refused(&EXAMPLE.replace("file: input.file", "file: inptu.file"));
    has(&found, "/steps/0/input/file", "the expression uses inptu");
    let found = refused(&EXAMPLE.replace("  - id: review_brief\n", "  - id: review_brief\n    colour: red\n"));
    has(&found, "/steps/0/colour", "is not a key of a step");
    let found = refused(&EXAMPLE.replace("steps:\n", "steps: []\nx:\n"));
    has(&found, "/steps", "must list 1 to 50 steps");
}

#[test]
fn order_refusals() {
    let found = refused(&EXAMPLE.replace("file: input.file", "file: steps.ask_for_approval.output"));
    has(&found, "/steps/0/input/file", "has not ended when this runs");
    let found =
        refused(&EXAMPLE.replace("review: steps.review_brief.output\noutput", "review: steps.nope.output\noutput"));
    has(&found, "/steps/1/input/review", "no step has the id nope");
    let cycle = EXAMPLE.replace(
        "    function: reasoning/review-campaign-brief\n",
        "    function: reasoning/review-campaign-brief\n    after: [ask_for_approval]\n",
    );
    let found = refused(&cycle);
    has(&found, "/steps/0/after", "wait on itself");
    has(&found, "/steps/1/after", "wait on itself");
    let behind = format!(
        "{}  - id: later\n    function: computation/x\n    after: [ask_for_approval]\n",
        cycle.split("output:\n").next().unwrap()
    );
    let found = refused(&format!("{behind}---\n"));
    has(&found, "/steps/2/after", "leaves later unreachable");
    let found = refused(&EXAMPLE.replace(
        "    function: interaction/approve-campaign-brief\n",
        "    function: interaction/approve-campaign-brief\n    after: [ask_for_approval, nope]\n",
    ));
    has(&found, "/steps/1/after/0", "names the step itself");
    has(&found, "/steps/1/after/1", "names no step of this workflow");
}

#[test]
fn failure_and_wait_refusals() {
    let with = |extra: &str| EXAMPLE.replace("    input:\n      file", &format!("{extra}    input:\n      file"));
    let found = refused(&with("    retry: { attempts: 11, delay_seconds: 0, backoff: 3 }\n"));
    has(&found, "/steps/0/retry/attempts", "from 1 to 10");
    has(&found, "/steps/0/retry/delay_seconds", "from 1 to 86400");
    let found = refused(&with("    on_failure: retry\n"));
    has(&found, "/steps/0/on_failure", "must be fail or continue");
    let found = refused(&with("    fallback: review_brief\n"));
    has(&found, "/steps/0/fallback", "names the step itself");
    let found = refused(&with("    fallback: nope\n"));
    has(&found, "/steps/0/fallback", "names no step");
    let found = refused(&with("    fallback: ask_for_approval\n    on_failure: continue\n"));
    has(&found, "/steps/0/on_failure", "is left out where a step names a fallback");
    let wait = |w: &str| EXAMPLE.replace("output:\n", &format!("  - id: hold\n    wait: {w}\noutput:\n"));
    has(&refused(&wait("{ seconds: 0 }")), "/steps/2/wait/seconds", "from 1 to");
    has(&refused(&wait("{ seconds: 5, event: x }")), "/steps/2/wait", "must wait for one thing");
    has(&refused(&wait("{ seconds: 5, where: { a: 1 } }")), "/steps/2/wait/where", "belongs to a wait for an event");
    has(&refused(&wait("{ event: Bad }")), "/steps/2/wait/event", "must name an event");
    has(&refused(&wait("{ event: x, where: { \"a b\": 1 } }")), "/steps/2/wait/where/a b", "must name a field");
    assert!(refused(&wait("{ event: brief_approved, where: { team: marketing }, timeout_seconds: 3600 }")).is_empty());
    assert!(refused(&wait("{ until: input.title }")).is_empty());
}

#[test]
fn fallbacks_and_the_order_they_make() {
    let doc = EXAMPLE
        .replace(
            "    input:\n      file",
            "    fallback: old_review\n    retry: { attempts: 3 }\n    input:\n      file",
        )
        .replace("output:\n", "  - id: old_review\n    function: computation/canned-review\noutput:\n");
    let p = plan(&doc).unwrap();
    assert_eq!(p.steps[0].on_failure, OnFailure::Fallback("old_review".into()));
    assert_eq!(p.steps[2].fallback_for.as_deref(), Some("review_brief"));
    assert!(p.steps[2].after.is_empty());
    let found = refused(&doc.replace(
        "function: computation/canned-review",
        "function: computation/canned-review\n    after: [review_brief]",
    ));
    has(&found, "/steps/2/after", "belongs to no fallback");
}

#[test]
fn output_body_and_diagram() {
    has(
        &refused(&EXAMPLE.replace("approval: steps.ask_for_approval.output", "approval: steps.x.output")),
        "/output/approval",
        "no step has the id x",
    );
    has(
        &refused(&EXAMPLE.replace(
            "output:\n  review: steps.review_brief.output\n  approval: steps.ask_for_approval.output\n",
            "output: 3\n",
        )),
        "/output",
        "must be a mapping",
    );
    assert!(matches!(
        plan(&EXAMPLE.replace(
            "output:\n  review: steps.review_brief.output\n  approval: steps.ask_for_approval.output\n",
            "output: steps.review_brief.output\n"
        ))
        .unwrap()
        .output,
        Output::Expression(_)
    ));
    let found = refused(&format!("{EXAMPLE}Some words\n"));
    assert!(found.iter().any(|f| f.starts_with("/body ") && f.contains("takes no body")), "{found:?}");
    let p = super::check_extras(
        false,
        "Reviews a campaign brief, then asks its owner to approve it, and answers both.",
        Some("flowchart TD\nA-->B"),
    )
    .unwrap_err();
    assert_eq!(p.errors[0].pointer, "/diagram");
}

#[test]
fn trigger_refusals() {
    let t = |list: &str| EXAMPLE.replace("output:\n", &format!("triggers:\n{list}output:\n"));
    assert!(refused(&t("  - cron: 0 9 * * MON-FRI\n    time_zone: Europe/Paris\n    input: { file: \"'briefs/weekly.md'\", title: \"'Weekly'\" }\n")).is_empty());
    has(&refused(&t("  - cron: 0 9 * * MON-FRI\n")), "/triggers/0/input", "requires file, title");
    has(&refused(&t("  - cron: 0 99 * * *\n    input: {}\n")), "/triggers/0/cron", "five fields");
    has(
        &refused(&t("  - cron: 0 9 * * *\n    time_zone: Mars/Olympus\n    input: {}\n")),
        "/triggers/0/time_zone",
        "IANA",
    );
    has(&refused(&t("  - every: 30s\n    input: {}\n")), "/triggers/0/every", "a whole number and a unit");
    has(&refused(&t("  - every: 0m\n    input: {}\n")), "/triggers/0/every", "from 1 minute");
    has(&refused(&t("  - at: [tomorrow]\n    input: {}\n")), "/triggers/0/at/0", "a time with its offset");
    has(&refused(&t("  - every: 1h\n    event: x\n")), "/triggers/0", "a trigger is of one kind");
    has(&refused(&t("  - input: {}\n")), "/triggers/0", "must say when it starts a run");
    has(
        &refused(&t("  - event: brief_submitted\n    input: { file: time }\n")),
        "/triggers/0/input/file",
        "the expression uses time",
    );
    has(
        &refused(&t("  - every: 1h\n    where: { a: 1 }\n    input: {}\n")),
        "/triggers/0/where",
        "belongs to an event trigger",
    );
    let many = "  - event: brief_submitted\n".repeat(11);
    has(&refused(&t(&many)), "/triggers", "at most 10");
    assert!(refused(&t("  - event: brief_submitted\n    where: { team: marketing }\n  - at: [\"2025-06-02T09:00:00+02:00\"]\n    input: { file: \"'a'\", title: time }\n")).is_empty());
}

#[test]
fn calls_are_checked_against_the_playbook() {
    let p =
        plan(&EXAMPLE.replace("file: input.file", "file: input.file\n      tone: \"'warm'\"\n      pages: \"'many'\""))
            .unwrap();
    let lookup = |r: &Ref| -> Option<Callee> {
        match r.key().as_str() {
            "reasoning/review-campaign-brief" => Some(Callee {
                retired: false,
                input_schema: Some(
                    json!({"type": "object", "properties": {"file": {"type": "string"}, "pages": {"type": "integer"}, "owner": {"type": "string"}}, "required": ["file", "owner"], "additionalProperties": false}),
                ),
            }),
            "interaction/approve-campaign-brief" => Some(Callee { retired: true, input_schema: None }),
            _ => None,
        }
    };
    let problem = check_calls(&p, &lookup).unwrap_err();
    let found: Vec<String> = problem.errors.iter().map(|e| format!("{} {}", e.pointer, e.detail)).collect();
    has(&found, "/steps/0/input", "gives no owner");
    has(&found, "/steps/0/input/tone", "is not a field of the input");
    has(&found, "/steps/0/input/pages", "refuses");
    has(&found, "/steps/1/function", "is retired");
    let none = |_: &Ref| -> Option<Callee> { None };
    let found: Vec<String> = check_calls(&p, &none).unwrap_err().errors.iter().map(|e| e.pointer.clone()).collect();
    assert_eq!(found, ["/steps/0/function", "/steps/1/function"]);
    let source =
        "---\ndescription: x\nmodel: a/b\ninput:\n  schema: { type: object, properties: { title: { type: string } } }\n---\nTitle: {{ input.title }}\n";
    let fine = |_: &Ref| Some(Callee::from_source(false, Kind::Reasoning, source));
    assert!(check_calls(&plan(EXAMPLE).unwrap(), &fine).is_ok());
    assert!(matches!(p.steps[0].action, Action::Call { .. }));
}

#[test]
fn a_page_that_fails_its_check_is_refused_at_save_but_never_stops_a_run() {
    let doc = EXAMPLE.replacen("---\n", "---\npage: \"{{ nowhere.to_be_found }}\"\n", 1);
    let p = check_document(Kind::Workflow, &doc).unwrap_err();
    assert!(p.errors.iter().all(|e| e.pointer == "/page"), "{:?}", p.errors);
    assert!(super::spec(Kind::Workflow, &doc).is_ok(), "a run follows the steps, whatever the page says");
}
