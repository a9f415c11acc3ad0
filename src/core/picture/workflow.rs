//! A workflow drawn from its plan: each step a card with its title and what it runs or waits
//! for, in ranks by the steps it follows, parallel steps side by side, joins where edges meet,
//! a condition on the edge into its step, a fallback beside the step it stands in for, and
//! retries and `on_failure: continue` noted on the card. A run is drawn on the same picture.

use super::layout::{layout, Direction, Graph, Layout, Point, Rect};
use super::status;
use super::svg::{fit, span, width_of, Svg};
use crate::core::workflow::plan::{title, Action, OnFailure, Plan, Step, Wait};
use crate::core::workflow::view::StepView;

/// Cards are all as wide as the widest needs, within these bounds; a longer text is cut and
/// whole in the card's tooltip.
const CARD_MIN: f64 = 220.0;
const CARD_MAX: f64 = 320.0;
const LINE: f64 = 17.0;
/// Room above the steps for the workflow's name.
pub const HEADER: f64 = 52.0;

/// How one edge of the picture joins two steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The second step follows the first.
    Follows,
    /// The second step follows the step the first stands in for, so it waits for the first
    /// when that one failed.
    AfterFallback,
}

/// The steps laid out: the cards, and the edges with what each means.
pub struct Scene {
    pub layout: Layout,
    /// The graph's edges: from step, to step, what the edge means, its label.
    pub links: Vec<(usize, usize, Link, Option<String>)>,
    /// `(fallback, step)`: each fallback beside the step it stands in for.
    pub fallbacks: Vec<(usize, usize)>,
}

/// A workflow run's picture, as SVG: the workflow's steps, each as `steps` says it went. A step
/// the view does not name is drawn pending.
pub fn run(plan: &Plan, steps: &[StepView], name: &str) -> String {
    draw(plan, name, Some(steps), false)
}

/// A rehearsal's picture: a run's, on a ground of its own colour, headed as a rehearsal.
pub fn rehearsal(plan: &Plan, steps: &[StepView], name: &str) -> String {
    draw(plan, name, Some(steps), true)
}

/// A workflow's picture, as SVG: its steps and the order they run in.
pub fn workflow(plan: &Plan, name: &str) -> String {
    draw(plan, name, None, false)
}

/// The lines a step's card holds: its title, what it runs or waits for, and its notes.
pub fn lines(step: &Step) -> (String, String, Option<String>) {
    let does = match &step.action {
        Action::Call { function, .. } => function.key(),
        Action::Wait(Wait::Event { filter, timeout_seconds }) => match timeout_seconds {
            Some(t) => format!("waits for {} ({} at most)", filter.kind, span(*t)),
            None => format!("waits for the event {}", filter.kind),
        },
        Action::Wait(Wait::Seconds(s)) => format!("waits {}", span(*s)),
        Action::Wait(Wait::Until(at)) => format!("waits until {at}"),
    };
    let mut notes = Vec::new();
    if step.retry.attempts > 1 {
        notes.push(format!("up to {} tries", step.retry.attempts));
    }
    if step.on_failure == OnFailure::Continue {
        notes.push("goes on if it fails".to_string());
    }
    if let Some(of) = &step.fallback_for {
        notes.push(format!("runs if {} fails", title(of)));
    }
    (title(&step.id), does, (!notes.is_empty()).then(|| notes.join(" · ")))
}

fn height(lines: usize) -> f64 {
    15.0 + LINE * lines as f64
}

fn card_width(plan: &Plan) -> f64 {
    let needed = plan.steps.iter().map(|s| {
        let (name, does, notes) = lines(s);
        let notes = notes.map(|n| width_of(&n, 11.0)).unwrap_or(0.0);
        width_of(&name, 13.0).max(width_of(&does, 12.0)).max(notes)
    });
    (needed.fold(0.0, f64::max) + 26.0).clamp(CARD_MIN, CARD_MAX)
}

/// The characters of text at `px` that fit on a card `width` wide.
fn room(width: f64, px: f64) -> usize {
    ((width - 24.0) / (px * 0.6)) as usize
}

/// Lays the plan's steps out, each card as tall as its lines (and a status line, for a run).
pub fn scene(plan: &Plan, with_status: bool) -> Scene {
    let index = |id: &str| plan.steps.iter().position(|s| s.id == id);
    let width = card_width(plan);
    let sizes = plan
        .steps
        .iter()
        .map(|s| {
            let (_, _, notes) = lines(s);
            (width, height(2 + usize::from(notes.is_some()) + usize::from(with_status)))
        })
        .collect();
    let mut links = Vec::new();
    for (to, step) in plan.steps.iter().enumerate() {
        let mut first = true;
        for from in step.after.iter().filter_map(|a| index(a)) {
            let label = if first { step.when.as_ref().map(|w| format!("if {w}")) } else { None };
            first = false;
            links.push((from, to, Link::Follows, label));
        }
    }
    let mut fallbacks = Vec::new();
    for (f, step) in plan.steps.iter().enumerate() {
        let Some(primary) = step.fallback_for.as_deref().and_then(index) else { continue };
        fallbacks.push((f, primary));
        let id = &plan.steps[primary].id;
        for (to, next) in plan.steps.iter().enumerate() {
            if next.after.iter().any(|a| a == id) {
                links.push((f, to, Link::AfterFallback, None));
            }
        }
    }
    let graph = Graph {
        sizes,
        edges: links.iter().map(|(a, b, _, _)| (*a, *b)).collect(),
        beside: fallbacks.clone(),
        direction: Direction::Down,
        rank_gap: 56.0,
        node_gap: 36.0,
        beside_gap: 96.0,
    };
    Scene { layout: layout(&graph), links, fallbacks }
}

/// The picture of the plan, with each step as `steps` says it went when given.
pub fn draw(plan: &Plan, name: &str, steps: Option<&[StepView]>, rehearsal: bool) -> String {
    let scene = scene(plan, steps.is_some());
    let view_of = |i: usize| -> Option<&StepView> {
        let id = &plan.steps.get(i)?.id;
        steps?.iter().find(|v| &v.step == id)
    };
    let head = match steps {
        Some(_) if rehearsal => format!("A rehearsal of the workflow {name}: nothing reached outside"),
        Some(_) => format!("A run of the workflow {name}"),
        None => {
            format!("The workflow {name}: {} step{}", plan.steps.len(), if plan.steps.len() == 1 { "" } else { "s" })
        }
    };
    let legend = steps.map(|_| status::LEGEND_HEIGHT).unwrap_or(0.0);
    let width = scene.layout.width.max(width_of(&head, 15.0) + 40.0).max(if steps.is_some() {
        status::LEGEND_WIDTH
    } else {
        0.0
    });
    let height = scene.layout.height + HEADER + legend;
    let mut svg = Svg::new(width, height, &head);
    if rehearsal {
        svg.rect(2.0, 2.0, width - 4.0, height - 4.0, 10.0, "pb-rehearsal");
    }
    svg.text(20.0, 32.0, "pb-head", &fit(&head, 120), false);
    // The steps sit under the header, centred when the header or legend is the wider.
    let dx = (width - scene.layout.width) / 2.0;
    let shift = |p: Point| Point { x: p.x + dx, y: p.y + HEADER };
    let rect = |i: usize| -> Rect {
        let r = scene.layout.nodes[i];
        Rect { x: r.x + dx, y: r.y + HEADER, ..r }
    };

    for (k, (from, to, link, label)) in scene.links.iter().enumerate() {
        let points: Vec<Point> = scene.layout.edges[k].iter().map(|p| shift(*p)).collect();
        let color = steps.and_then(|_| status::crossed(view_of(*from), view_of(*to)));
        let mut class = String::from("pb-edge");
        if *link == Link::AfterFallback {
            class.push_str(" pb-dashed");
        }
        if let Some(c) = color {
            class.push_str(&format!(" pb-e-{c}"));
        }
        let arrow = color.map(|c| format!("pb-a-{c}")).unwrap_or_else(|| "pb-arrow".to_string());
        svg.edge(&points, Direction::Down, &class, Some(&arrow));
        // A condition sits on the edge just above its step, where branches are a card apart.
        if let (Some(label), Some(end)) = (label, points.last()) {
            svg.tag(Point { x: end.x, y: end.y - 24.0 }, &fit(label, 34));
        }
    }
    for &(f, primary) in &scene.fallbacks {
        let (a, b) = (rect(primary), rect(f));
        let (from, to) = if a.x < b.x {
            (Point { x: a.x + a.w, y: a.y + a.h / 2.0 }, Point { x: b.x, y: b.y + b.h / 2.0 })
        } else {
            (Point { x: a.x, y: a.y + a.h / 2.0 }, Point { x: b.x + b.w, y: b.y + b.h / 2.0 })
        };
        let taken = steps.is_some() && status::started(view_of(f));
        let class = if taken { "pb-edge pb-dashed pb-e-failed" } else { "pb-edge pb-dashed" };
        svg.line(from, to, class, Some(if taken { "pb-a-failed" } else { "pb-arrow" }));
        svg.tag(Point { x: (from.x + to.x) / 2.0, y: from.y - 14.0 }, "if it fails");
    }
    for (i, step) in plan.steps.iter().enumerate() {
        card(&mut svg, step, rect(i), steps.map(|_| view_of(i)));
        // A condition on a step that follows none is shown above its card.
        if step.after.is_empty() && step.fallback_for.is_none() {
            if let Some(w) = &step.when {
                let r = rect(i);
                svg.tag(Point { x: r.x + r.w / 2.0, y: r.y - 14.0 }, &fit(&format!("if {w}"), 34));
            }
        }
    }
    if steps.is_some() {
        status::legend(&mut svg, 20.0, height - legend + 8.0);
    }
    svg.finish()
}

/// One step's card: its shape (a wait's corners cut), its lines, and its tooltip.
fn card(svg: &mut Svg, step: &Step, r: Rect, view: Option<Option<&StepView>>) {
    let (name, does, notes) = lines(step);
    let waits = matches!(step.action, Action::Wait(_));
    let mut tip = vec![name.clone(), format!("{}{does}", if waits { "" } else { "runs " })];
    match &step.action {
        Action::Call { input, .. } => {
            tip.extend(input.iter().map(|(field, expression)| format!("input {field}: {expression}")))
        }
        Action::Wait(Wait::Event { filter, .. }) => {
            tip.extend(filter.fields.iter().map(|(field, value)| format!("where {field} is {value}")))
        }
        Action::Wait(_) => {}
    }
    if let Some(w) = &step.when {
        tip.push(format!("only if {w}"));
    }
    if step.retry.attempts > 1 {
        tip.push(format!(
            "tried up to {} times, {} apart at first, times {} after each failure",
            step.retry.attempts,
            span(step.retry.delay_seconds),
            step.retry.backoff
        ));
    }
    if let Some(n) = &notes {
        tip.push(n.clone());
    }
    let (group, shape) = match view {
        Some(v) => {
            tip.extend(status::tip(v));
            (status::group_class(v), format!("pb-s-{}", status::status_of(v)))
        }
        None => (String::from("pb-step"), String::from(if waits { "pb-wait" } else { "pb-node" })),
    };
    svg.step_group(&group, &step.id, &tip.join("\n"));
    if view.is_some_and(|v| status::status_of(v) == "waiting") {
        svg.rect(r.x - 5.0, r.y - 5.0, r.w + 10.0, r.h + 10.0, 12.0, "pb-ring");
    }
    if waits {
        let c = 12.0;
        let (x0, y0, x1, y1) = (r.x, r.y, r.x + r.w, r.y + r.h);
        svg.push(&format!(
            "<path d=\"M{} {} L{} {} L{} {} L{} {} L{} {} L{} {} L{} {} L{} {} Z\" class=\"{shape} pb-card\"/>",
            n(x0 + c),
            n(y0),
            n(x1 - c),
            n(y0),
            n(x1),
            n(y0 + c),
            n(x1),
            n(y1 - c),
            n(x1 - c),
            n(y1),
            n(x0 + c),
            n(y1),
            n(x0),
            n(y1 - c),
            n(x0),
            n(y0 + c)
        ));
    } else {
        svg.rect(r.x, r.y, r.w, r.h, 8.0, &format!("{shape} pb-card"));
    }
    let x = r.x + 12.0;
    let mut y = r.y + 21.0;
    svg.text(x, y, "pb-title", &fit(&name, room(r.w, 13.0)), false);
    y += LINE;
    svg.text(x, y, if waits { "pb-sub" } else { "pb-sub pb-mono" }, &fit(&does, room(r.w, 12.0)), false);
    if let Some(notes) = &notes {
        y += LINE;
        svg.text(x, y, "pb-note", &fit(notes, room(r.w, 11.0)), false);
    }
    if let Some(v) = view {
        y += LINE;
        svg.text(x, y, "pb-note", &fit(&status::status_line(v), room(r.w, 11.0)), false);
    }
    svg.close();
}

fn n(v: f64) -> String {
    super::svg::num(v)
}
