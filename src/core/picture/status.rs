//! How a workflow run is drawn on its workflow's picture (`workflow::run` draws it): each step in the colour of how it went
//! (succeeded green, failed red, running or retrying blue, waiting ringed, skipped dashed and
//! faded, cancelled grey, pending plain), the edges the run crossed coloured, a legend, and each
//! card's tooltip with its status, attempt, times, child run and error.

use super::svg::{span, Svg};
use crate::core::text::stamp;
use crate::core::workflow::view::StepView;

pub const LEGEND_HEIGHT: f64 = 44.0;
/// Wide enough for every entry of the legend on one line.
pub const LEGEND_WIDTH: f64 = 760.0;

/// The colour class a step's status takes: one of the statuses of the step view.
pub fn status_of(view: Option<&StepView>) -> &'static str {
    match view.map(|v| v.status.as_str()) {
        Some("succeeded") => "succeeded",
        Some("failed") => "failed",
        Some("running") | Some("retrying") => "running",
        Some("waiting") => "waiting",
        Some("skipped") => "skipped",
        Some("cancelled") => "cancelled",
        _ => "pending",
    }
}

/// Whether the step has started, or ended having started.
pub fn started(view: Option<&StepView>) -> bool {
    !matches!(status_of(view), "pending" | "skipped")
}

/// The colour of an edge the run crossed, from a step that ended to one that started: the
/// colour of the step it reached. None for an edge the run has not crossed.
pub fn crossed(from: Option<&StepView>, to: Option<&StepView>) -> Option<&'static str> {
    let ended = matches!(status_of(from), "succeeded" | "failed");
    (ended && started(to))
        .then(|| match status_of(to) {
            "cancelled" => "pending",
            s => s,
        })
        .filter(|s| *s != "pending")
}

pub fn group_class(view: Option<&StepView>) -> String {
    match status_of(view) {
        "skipped" => "pb-step pb-faded".to_string(),
        s => format!("pb-step pb-step-{s}"),
    }
}

/// The status line of a card: `succeeded · attempt 2 · 4 seconds`.
pub fn status_line(view: Option<&StepView>) -> String {
    let Some(v) = view else { return "pending".to_string() };
    let mut parts = vec![v.status.clone()];
    if let Some(a) = v.attempt.filter(|a| *a > 1) {
        parts.push(format!("attempt {a}"));
    }
    if let (Some(s), Some(f)) = (v.started_at, v.finished_at) {
        parts.push(span((f - s).num_seconds()));
    }
    parts.join(" · ")
}

/// The lines a card's tooltip adds for a run: status, attempt, times, child run, what it waits
/// for, why it was skipped, and its error.
pub fn tip(view: Option<&StepView>) -> Vec<String> {
    let Some(v) = view else { return vec!["status: pending".to_string()] };
    let mut lines = vec![format!("status: {}", v.status)];
    if let Some(a) = v.attempt {
        lines.push(format!("attempt: {a}"));
    }
    if let Some(t) = v.started_at {
        lines.push(format!("started: {}", stamp(t)));
    }
    if let Some(t) = v.finished_at {
        lines.push(format!("ended: {}", stamp(t)));
    }
    if let Some(id) = &v.run_id {
        lines.push(format!("run: {id}"));
    }
    if let Some(w) = &v.waiting_for {
        lines.push(format!("waiting for: {w}"));
    }
    if let Some(why) = &v.skipped_because {
        lines.push(format!("skipped: {why}"));
    }
    if let Some(e) = &v.error {
        let reason =
            serde_json::to_value(e.reason).ok().and_then(|r| r.as_str().map(str::to_string)).unwrap_or_default();
        lines.push(format!("error: {reason}: {}", e.detail));
    }
    lines
}

/// The legend: a swatch and a word for each colour, on one line from `(x, y)`.
pub fn legend(svg: &mut Svg, x: f64, y: f64) {
    let entries = [
        ("succeeded", "succeeded"),
        ("failed", "failed"),
        ("running", "running"),
        ("waiting", "waiting"),
        ("skipped", "skipped"),
        ("cancelled", "cancelled"),
        ("pending", "pending"),
    ];
    let mut at = x;
    for (class, word) in entries {
        let faded = if class == "skipped" { " pb-faded" } else { "" };
        svg.push(&format!("<g class=\"pb-legend{faded}\">"));
        svg.rect(at, y, 22.0, 14.0, 3.0, &format!("pb-s-{class} pb-card"));
        if class == "waiting" {
            svg.rect(at - 3.0, y - 3.0, 28.0, 20.0, 5.0, "pb-ring");
        }
        svg.text(at + 30.0, y + 11.0, "pb-note", word, false);
        svg.close();
        at += 100.0;
    }
}
