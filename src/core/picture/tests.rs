//! The pictures, case by case: the layouts of the guide's example, parallel steps and a join, a
//! fallback, waits, fifty steps with no card on another; a run with every status; well-formed
//! and safe SVG whatever the names hold; the Mermaid subset and what it leaves to the source.
//! A few pictures are written for a reviewer to open, only when `PICTURES_DIR` names a folder
//! (`PICTURES_DIR=target/pictures cargo test --lib picture`): a plain run writes nothing.

use chrono::{DateTime, Duration, Utc};

use super::layout::Rect;
use super::workflow::scene;
use super::{mermaid, run, timeline, workflow};
use crate::core::definition::workflow::plan;
use crate::core::definition::{Kind, Ref};
use crate::core::run::RunError;
use crate::core::workflow::plan::{Action, OnFailure, Output, Plan, Retry, Step};
use crate::core::workflow::view::StepView;
use crate::core::ErrorCode;

/// A workflow document around `steps`, a YAML list written at the indent of the `steps` key.
fn doc(steps: &str) -> String {
    format!("---\ndescription: A test\ninput:\n  schema:\n    type: object\nsteps:\n{steps}\n---\n")
}

fn plan_of(steps: &str) -> Plan {
    plan(&doc(steps)).unwrap_or_else(|p| panic!("{:#?}", p.errors))
}

fn cards(p: &Plan) -> Vec<Rect> {
    scene(p, false).layout.nodes
}

fn card(p: &Plan, id: &str) -> Rect {
    let i = p.steps.iter().position(|s| s.id == id).unwrap();
    cards(p)[i]
}

fn no_overlaps(rects: &[Rect]) {
    for (i, a) in rects.iter().enumerate() {
        for b in &rects[i + 1..] {
            assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
        }
    }
}

/// Checks that `svg` is well-formed XML of the kinds of markup pictures write: elements with
/// double-quoted attributes, text with the five entities, one root; and that it is safe.
fn well_formed(svg: &str) {
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = svg;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('<') {
            let end = after.find('>').expect("a tag is closed");
            let tag = &after[..end];
            rest = &after[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "close of {name}");
                continue;
            }
            let closed = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name_end = tag.find(' ').unwrap_or(tag.len());
            let name = &tag[..name_end];
            assert!(!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()), "element {name}");
            attributes(&tag[name_end..]);
            if stack.is_empty() {
                roots += 1;
            }
            if !closed {
                stack.push(name.to_string());
            }
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            text(&rest[..end]);
            assert!(!stack.is_empty() || rest[..end].trim().is_empty(), "text outside the root");
            rest = &rest[end..];
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1);
    let lower = svg.to_lowercase();
    for banned in ["<script", "foreignobject", "href", "url(", "@import", "javascript:", "<image", "<use"] {
        assert!(!lower.contains(banned), "{banned} in the picture");
    }
    assert_eq!(lower.matches("http").count(), 1, "only the namespace names a web address");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "));
    assert!(svg.contains(" role=\"img\" aria-label=\""));
}

fn attributes(mut s: &str) {
    loop {
        s = s.trim_start();
        if s.is_empty() {
            return;
        }
        let eq = s.find("=\"").expect("an attribute is name=\"value\"");
        let name = &s[..eq];
        assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'), "attribute {name}");
        let value_end = s[eq + 2..].find('"').expect("a value is closed");
        let value = &s[eq + 2..eq + 2 + value_end];
        assert!(!value.contains('<'), "< in {value}");
        text(value);
        s = &s[eq + 2 + value_end + 1..];
    }
}

fn text(s: &str) {
    assert!(!s.contains('>'), "> in text");
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        let after = &rest[i..];
        assert!(["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].iter().any(|e| after.starts_with(e)), "a bare & in {s}");
        rest = &after[1..];
    }
    assert!(s.chars().all(|c| c >= ' ' || matches!(c, '\t' | '\n' | '\r')), "a control character");
}

fn save(name: &str, svg: &str) {
    let Some(dir) = std::env::var_os("PICTURES_DIR").map(std::path::PathBuf::from) else { return };
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.svg")), svg).unwrap();
}

const EXAMPLE_STEPS: &str = "  - id: review_brief
    function: reasoning/review-campaign-brief
    input:
      file: input.file
    retry:
      attempts: 3
      delay_seconds: 60
  - id: ask_for_approval
    function: interaction/approve-campaign-brief
    input:
      title: input.title
      review: steps.review_brief.output";

const BRANCHES: &str = "  - id: fetch_brief
    function: lookup/fetch-brief
  - id: check_brand
    function: reasoning/check-brand
    after: [fetch_brief]
    when: input.brand == 'acme'
  - id: check_legal
    function: reasoning/check-legal
    after: [fetch_brief]
    on_failure: continue
  - id: estimate_cost
    function: computation/estimate-cost
    after: [fetch_brief]
  - id: ask_for_approval
    function: interaction/approve-campaign-brief
    after: [check_brand, check_legal, estimate_cost]
  - id: wait_for_launch
    wait:
      until: input.launch_at
  - id: publish
    function: lookup/publish
    fallback: publish_by_hand
  - id: publish_by_hand
    function: interaction/publish-by-hand
  - id: wait_for_reply
    wait:
      event: reply_received
      timeout_seconds: 86400
    after: [publish]
  - id: cool_down
    wait:
      seconds: 3600";

#[test]
fn the_guides_example_is_two_cards_one_above_the_other() {
    let p = plan_of(EXAMPLE_STEPS);
    let svg = workflow(&p, "review-and-approve");
    well_formed(&svg);
    save("workflow-example", &svg);
    for words in [
        "review brief",
        "ask for approval",
        "reasoning/review-campaign-brief",
        "up to 3 tries",
        "input review: steps.review_brief.output",
    ] {
        assert!(svg.contains(words), "{words}");
    }
    let (a, b) = (card(&p, "review_brief"), card(&p, "ask_for_approval"));
    assert_eq!(a.x, b.x);
    assert!(a.y + a.h < b.y);
    assert_eq!(svg, workflow(&p, "review-and-approve"), "the same plan draws the same picture");
    assert!(svg.contains("data-step=\"ask_for_approval\""), "a page finds each card by its step");
}

#[test]
fn parallel_steps_sit_side_by_side_and_a_join_under_them() {
    let p = plan_of(BRANCHES);
    let svg = workflow(&p, "launch");
    well_formed(&svg);
    save("workflow-branches", &svg);
    let (brand, legal, cost) = (card(&p, "check_brand"), card(&p, "check_legal"), card(&p, "estimate_cost"));
    assert!(brand.center().y == legal.center().y && legal.center().y == cost.center().y);
    assert!(brand.x + brand.w <= legal.x && legal.x + legal.w <= cost.x);
    let join = card(&p, "ask_for_approval");
    assert!(join.y > brand.y + brand.h);
    // The join sits under the middle of the steps it joins.
    assert!((join.center().x - legal.center().x).abs() < 1.0);
    assert!(svg.contains("if input.brand == &#39;acme&#39;"), "the condition labels its branch");
    assert!(svg.contains("goes on if it fails"));
    no_overlaps(&cards(&p));
}

#[test]
fn a_fallback_sits_beside_its_step_with_a_dashed_edge() {
    let p = plan_of(BRANCHES);
    let (step, fallback) = (card(&p, "publish"), card(&p, "publish_by_hand"));
    assert_eq!(step.center().y, fallback.center().y);
    assert!(fallback.x >= step.x + step.w + 90.0, "room for the label between them");
    let svg = workflow(&p, "launch");
    assert!(svg.contains("if it fails"));
    assert!(svg.contains("runs if publish fails"));
    // The steps after the step also follow its fallback, dashed.
    let s = scene(&p, false);
    let fb = p.steps.iter().position(|s| s.id == "publish_by_hand").unwrap();
    assert!(s.links.iter().any(|(from, _, link, _)| *from == fb && *link == super::workflow::Link::AfterFallback));
}

#[test]
fn waits_are_drawn_with_what_they_wait_for() {
    let p = plan_of(BRANCHES);
    let svg = workflow(&p, "launch");
    assert!(svg.contains("waits until input.launch_at"));
    assert!(svg.contains("waits for reply_received (1 day at most)"));
    assert!(svg.contains("waits 1 hour"));
    assert_eq!(svg.matches("class=\"pb-wait pb-card\"").count(), 3, "a wait's card has its own shape");
}

fn step(id: &str, after: &[String]) -> Step {
    Step {
        id: id.to_string(),
        after: after.to_vec(),
        when: None,
        action: Action::Call { function: Ref { kind: Kind::Reasoning, name: "do-it".into() }, input: Vec::new() },
        retry: Retry::default(),
        on_failure: OnFailure::Fail,
        fallback_for: None,
    }
}

fn plan_from(steps: Vec<Step>) -> Plan {
    Plan { steps, output: Output::Steps, triggers: Vec::new() }
}

#[test]
fn fifty_steps_never_overlap() {
    // Each step follows one or two earlier ones, in a pattern that makes wide ranks, joins and
    // edges that span several ranks.
    let mut steps = Vec::new();
    for i in 0..50usize {
        let after: Vec<String> = match i {
            0 => Vec::new(),
            _ if i % 7 == 0 => Vec::new(),
            _ if i % 3 == 0 => vec![format!("s{}", i / 2), format!("s{}", i - 1)],
            _ => vec![format!("s{}", i - 1 - (i % 3).min(i - 1))],
        };
        steps.push(step(&format!("s{i}"), &after));
    }
    let p = plan_from(steps);
    let rects = cards(&p);
    assert_eq!(rects.len(), 50);
    no_overlaps(&rects);
    // A long edge bends through points of its own, none of them on a card.
    for points in &scene(&p, false).layout.edges {
        for q in points.iter().skip(1).take(points.len().saturating_sub(2)) {
            assert!(!rects.iter().any(|r| r.x <= q.x && q.x <= r.x + r.w && r.y <= q.y && q.y <= r.y + r.h), "{q:?}");
        }
    }
    let svg = workflow(&p, "fifty");
    well_formed(&svg);
    save("workflow-fifty", &svg);

    let chain: Vec<Step> =
        (0..50).map(|i| step(&format!("c{i}"), &if i == 0 { vec![] } else { vec![format!("c{}", i - 1)] })).collect();
    no_overlaps(&cards(&plan_from(chain)));
    let one = workflow(&plan_from(vec![step("only", &[])]), "one");
    well_formed(&one);
    assert!(one.contains("The workflow one: 1 step<"));
    let wide: Vec<Step> = (0..50).map(|i| step(&format!("w{i}"), &[])).collect();
    no_overlaps(&cards(&plan_from(wide)));
}

fn t(seconds: i64) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-02T09:00:00Z").unwrap().with_timezone(&Utc) + Duration::seconds(seconds)
}

fn view(id: &str, status: &str, started: Option<i64>, finished: Option<i64>) -> StepView {
    StepView {
        step: id.to_string(),
        title: id.replace('_', " "),
        status: status.to_string(),
        attempt: started.map(|_| 1),
        started_at: started.map(t),
        finished_at: finished.map(t),
        run_id: started.map(|_| format!("wf1-{id}-1")),
        waiting_for: None,
        error: None,
        skipped_because: None,
    }
}

fn every_status() -> Vec<StepView> {
    let mut failed = view("check_legal", "failed", Some(4), Some(9));
    failed.error = Some(RunError::new(ErrorCode::Internal, "the <model> said \"no\" & stopped"));
    let mut retrying = view("estimate_cost", "retrying", Some(4), None);
    retrying.attempt = Some(2);
    retrying.waiting_for = Some("attempt 3 at 2025-06-02T09:02:00Z".into());
    let mut waiting = view("ask_for_approval", "waiting", Some(12), None);
    waiting.waiting_for = Some("a function it called".into());
    let mut skipped = view("check_brand", "skipped", None, Some(4));
    skipped.skipped_because = Some("its condition was false".into());
    vec![
        view("fetch_brief", "succeeded", Some(0), Some(4)),
        skipped,
        failed,
        retrying,
        waiting,
        view("publish", "failed", Some(5), Some(6)),
        view("publish_by_hand", "running", Some(6), None),
        view("wait_for_reply", "cancelled", Some(7), Some(8)),
        view("wait_for_launch", "pending", None, None),
    ]
}

#[test]
fn a_run_colours_each_step_by_how_it_went() {
    let p = plan_of(BRANCHES);
    let steps = every_status();
    let svg = run(&p, &steps, "launch");
    well_formed(&svg);
    save("run-every-status", &svg);
    for class in [
        "pb-s-succeeded",
        "pb-s-failed",
        "pb-s-running",
        "pb-s-waiting",
        "pb-s-skipped",
        "pb-s-cancelled",
        "pb-s-pending",
    ] {
        assert!(svg.contains(&format!("class=\"{class} pb-card\"")), "{class}");
    }
    assert!(svg.contains("class=\"pb-ring\""), "a waiting step is ringed");
    assert!(svg.contains("pb-step pb-faded"), "a skipped step is faded");
    assert!(svg.contains("pb-e-succeeded") && svg.contains("pb-a-succeeded"), "crossed edges are coloured");
    assert!(svg.contains("pb-edge pb-dashed pb-e-failed"), "the fallback the run took is coloured");
    assert!(svg.contains("error: internal: the &lt;model&gt; said &quot;no&quot; &amp; stopped"));
    assert!(svg.contains("attempt: 2") && svg.contains("started: 2025-06-02T09:00:04.000Z"));
    assert!(svg.contains("skipped: its condition was false"));
    assert!(svg.contains(">cancelled</text>") && svg.contains(">pending</text>"), "the legend");
}

#[test]
fn a_rehearsal_is_drawn_on_a_ground_of_its_own() {
    let p = plan_of(BRANCHES);
    let steps = every_status();
    let svg = super::rehearsal(&p, &steps, "launch");
    well_formed(&svg);
    save("rehearsal", &svg);
    assert!(svg.contains("class=\"pb-rehearsal\"") && svg.contains("A rehearsal of the workflow launch"), "{svg}");
    assert!(svg.contains("class=\"pb-s-failed pb-card\""), "its steps keep their colours");
    let real = run(&p, &steps, "launch");
    assert!(!real.contains("class=\"pb-rehearsal\"") && !real.contains("A rehearsal"));
}

#[test]
fn the_timeline_draws_a_bar_per_step_that_started() {
    let steps = every_status();
    let svg = timeline(&steps, t(20));
    well_formed(&svg);
    save("timeline", &svg);
    assert!(svg.contains("Steps over time, from 2025-06-02T09:00:00.000Z"));
    assert!(svg.contains("wf1-fetch_brief-1"), "each step's child run");
    assert!(svg.contains("class=\"pb-now\""), "steps still going reach to now");
    assert!(svg.contains("pending, not started"));
    assert!(svg.contains(">+5 seconds</text>"));
    let none = timeline(&[view("a", "pending", None, None)], t(0));
    well_formed(&none);
    assert!(none.contains("No step has started yet"));
    well_formed(&timeline(&[], t(0)));
}

#[test]
fn hostile_names_are_text() {
    let mut s = step("<script>alert(1)</script>", &[]);
    s.action = Action::Call {
        function: Ref { kind: Kind::Reasoning, name: "\"><svg onload=alert(1)>&amp;\u{1}".into() },
        input: Vec::new(),
    };
    s.when = Some("a < b && c > 'd'".into());
    let mut t2 = step("x]]><!--", &["<script>alert(1)</script>".to_string()]);
    t2.when = Some("\"quoted\"".into());
    let p = plan_from(vec![s, t2]);
    let name = "<script>alert('x')</script>";
    let svg = workflow(&p, name);
    well_formed(&svg);
    assert!(svg.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
    let mut v = view("<script>alert(1)</script>", "failed", Some(0), Some(1));
    v.error = Some(RunError::new(ErrorCode::Internal, "</title><script>x</script>"));
    let svg = run(&p, &[v.clone()], name);
    well_formed(&svg);
    well_formed(&timeline(&[v], t(2)));
}

const GUIDE_DIAGRAM: &str = "flowchart TD
    A[Input: invoice text and order text] --> B[Model reads both texts]
    B --> C[Check supplier, items and quantities, unit prices, total]
    C --> D{All four hold?}
    D -- yes --> E[verdict: match]
    D -- no --> F[verdict: mismatch]
    E --> G[Answer verdict and reasons]
    F --> G
";

#[test]
fn the_guides_diagram_is_drawn() {
    let chart = super::mermaid::parse(GUIDE_DIAGRAM).unwrap();
    assert_eq!(chart.nodes.len(), 7);
    assert_eq!(chart.edges.len(), 7);
    assert_eq!(chart.edges[3].label.as_deref(), Some("yes"));
    let svg = mermaid(GUIDE_DIAGRAM).unwrap();
    well_formed(&svg);
    save("mermaid-guide", &svg);
    for words in ["All four hold?", "verdict: match", "yes", "no"] {
        assert!(svg.contains(&format!(">{words}</text>")), "{words}");
    }
}

#[test]
fn mermaid_links_shapes_and_directions() {
    use super::mermaid::{parse, Shape, Stroke};
    let src = "graph LR
    %% a comment
    a([start]) -->|go on| b[[sub]] & c[(db)]
    b -.-> d((round)); c ==> d
    d --- e{{hex}} -. maybe .-> f>flag]
    f == sure ==> g[/lean/] --> h(\"quoted (text)\")
    classDef x fill:#f00
    h --> h
    h:::done --> i[end]:::done";
    let chart = parse(src).unwrap();
    let shape = |id: &str| chart.nodes.iter().find(|n| n.id == id).unwrap().shape;
    assert_eq!(
        [shape("a"), shape("b"), shape("c"), shape("d"), shape("e"), shape("f"), shape("g"), shape("h")],
        [
            Shape::Stadium,
            Shape::Subroutine,
            Shape::Cylinder,
            Shape::Circle,
            Shape::Hexagon,
            Shape::Flag,
            Shape::Lean,
            Shape::Round
        ]
    );
    assert_eq!(chart.nodes.iter().find(|n| n.id == "h").unwrap().text, "quoted (text)");
    let edge = |a: &str, b: &str| {
        let (i, j) =
            (chart.nodes.iter().position(|n| n.id == a).unwrap(), chart.nodes.iter().position(|n| n.id == b).unwrap());
        chart.edges.iter().find(|e| e.from == i && e.to == j).unwrap().clone()
    };
    assert_eq!(edge("a", "c").label.as_deref(), Some("go on"));
    assert_eq!((edge("b", "d").stroke, edge("b", "d").arrow), (Stroke::Dotted, true));
    assert_eq!((edge("c", "d").stroke, edge("d", "e").arrow), (Stroke::Thick, false));
    assert_eq!((edge("e", "f").stroke, edge("e", "f").label.as_deref()), (Stroke::Dotted, Some("maybe")));
    assert_eq!((edge("f", "g").stroke, edge("f", "g").label.as_deref()), (Stroke::Thick, Some("sure")));
    let svg = mermaid(src).unwrap();
    well_formed(&svg);
    save("mermaid-shapes", &svg);
    for dir in ["RL", "BT", "TB"] {
        well_formed(&mermaid(&src.replacen("LR", dir, 1)).unwrap());
    }
    // A cycle is drawn too, its closing edge turned round.
    well_formed(&mermaid("flowchart TD\nA --> B --> C --> A").unwrap());
}

#[test]
fn mermaid_outside_the_subset_is_left_to_the_source() {
    for src in [
        "",
        "sequenceDiagram\nA->>B: hi",
        "pie\n\"a\": 1",
        "flowchart XY\nA --> B",
        "flowchart TD",
        "flowchart TD\nsubgraph one\nA --> B\nend",
        "flowchart TD\nA --> B\nclick A \"https://example.com\"",
        "flowchart TD\nA --o B",
        "flowchart TD\nA <--> B",
        "flowchart TD\nA[unclosed --> B",
    ] {
        assert!(mermaid(src).is_none(), "{src}");
    }
}

#[test]
fn mermaid_text_is_escaped() {
    let svg = mermaid("flowchart TD\nA[\"<img src=x onerror=alert(1)>\"] -->|\"a&b\"| B{'q'}").unwrap();
    well_formed(&svg);
    assert!(svg.contains("&lt;img src=x onerror=alert(1)&gt;"));
}

#[test]
fn a_diagram_too_large_to_draw_is_left_to_the_source() {
    let many: Vec<String> = (0..40).map(|i| format!("n{i}")).collect();
    let joined = many.join(" & ");
    assert!(mermaid(&format!("flowchart TD\n{joined} --> {joined}")).is_none(), "1,600 edges");
    let chain: String = (0..250).map(|i| format!("c{i} --> c{}\nc{} --> c0\n", i + 1, i + 1)).collect();
    assert!(mermaid(&format!("flowchart TD\n{chain}")).is_none(), "long edges back over many ranks");
}

#[test]
fn conditions_on_branches_side_by_side_do_not_overlap() {
    let long = "input.region == 'north' and input.amount > 1000";
    let steps = format!(
        "  - id: start\n    function: lookup/a\n  - id: north\n    function: lookup/b\n    after: [start]\n    when: \"{long}\"\n  - id: south\n    function: lookup/c\n    after: [start]\n    when: \"not ({long})\"\n  - id: east\n    function: lookup/d\n    after: [start]\n    when: \"{long}\""
    );
    let p = plan_of(&steps);
    let svg = workflow(&p, "regions");
    well_formed(&svg);
    save("workflow-conditions", &svg);
    // Each label's tag: x and width of the rects drawn as `pb-tag`.
    let mut tags: Vec<(f64, f64)> = Vec::new();
    for rect in svg.split("<rect ").skip(1).filter_map(|r| r.split_once("/>")).map(|(r, _)| format!(" {r}")) {
        if !rect.contains("class=\"pb-tag\"") {
            continue;
        }
        let attr = |name: &str| -> f64 {
            let at = rect.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            rect[at..].split('"').next().unwrap().parse().unwrap()
        };
        tags.push((attr("x"), attr("width")));
    }
    assert_eq!(tags.len(), 3);
    for (i, a) in tags.iter().enumerate() {
        for b in &tags[i + 1..] {
            assert!(a.0 + a.1 <= b.0 || b.0 + b.1 <= a.0, "{a:?} and {b:?}");
        }
    }
}
