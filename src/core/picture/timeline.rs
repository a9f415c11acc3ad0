//! A run's steps over time, as a Gantt chart: one row per step with its title and child run, a
//! bar from when it started to when it ended (or to now, for a step still going) in the colour
//! of its status, a mark where a step was skipped, and an axis in time since the first start.

use chrono::{DateTime, Utc};

use super::status::status_of;
use super::svg::{fit, num, span, width_of, Svg};
use crate::core::text::stamp;
use crate::core::workflow::view::StepView;

const CHART: f64 = 560.0;
const ROW: f64 = 36.0;
const TOP: f64 = 64.0;
const LEFT_MIN: f64 = 140.0;
const LEFT_MAX: f64 = 300.0;
/// Steps of a tick of the axis, in seconds: the first that gives at most eight ticks is used.
const TICKS: &[i64] = &[
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1_800, 3_600, 7_200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
    2_592_000, 31_536_000,
];

/// The timeline of a run's steps, as SVG, drawn as it stands at `now`.
pub fn timeline(steps: &[StepView], now: DateTime<Utc>) -> String {
    let first = steps.iter().filter_map(|s| s.started_at.or(s.finished_at)).min();
    let last = steps
        .iter()
        .filter_map(|s| match (s.started_at, s.finished_at) {
            (_, Some(f)) => Some(f),
            (Some(_), None) => Some(now),
            (None, None) => None,
        })
        .max();
    let label_width = steps
        .iter()
        .map(|s| width_of(&s.title, 13.0).max(width_of(s.run_id.as_deref().unwrap_or(""), 11.0)))
        .fold(LEFT_MIN, f64::max)
        .min(LEFT_MAX)
        + 20.0;
    let width = label_width + CHART + 80.0;
    let height = TOP + ROW * steps.len().max(1) as f64 + 16.0;
    let label =
        format!("The steps of the run over time: {} step{}", steps.len(), if steps.len() == 1 { "" } else { "s" });
    let mut svg = Svg::new(width, height, &label);
    let (Some(t0), Some(t1)) = (first, last) else {
        svg.text(20.0, 30.0, "pb-head", "No step has started yet", false);
        rows(&mut svg, steps, label_width, None, now);
        return svg.finish();
    };
    let total = (t1 - t0).num_milliseconds().max(1_000) as f64 / 1_000.0;
    let x_of = |t: DateTime<Utc>| label_width + CHART * ((t - t0).num_milliseconds() as f64 / 1_000.0) / total;
    svg.text(20.0, 26.0, "pb-head", &format!("Steps over time, from {}", stamp(t0)), false);

    // The axis: a line and a label at each tick, in time since the first start.
    let tick = TICKS.iter().copied().find(|t| total / *t as f64 <= 8.0).unwrap_or(31_536_000);
    let mut at = 0i64;
    while at as f64 <= total + 0.001 {
        let x = label_width + CHART * at as f64 / total;
        svg.push(&format!(
            "<path d=\"M{} {} L{} {}\" class=\"pb-grid\"/>",
            num(x),
            num(TOP - 12.0),
            num(x),
            num(height - 12.0)
        ));
        let word = if at == 0 { "0".to_string() } else { format!("+{}", span(at)) };
        svg.text(x, TOP - 18.0, "pb-note", &word, true);
        at += tick;
    }
    let going = steps.iter().any(|s| s.started_at.is_some() && s.finished_at.is_none());
    if going && now >= t0 {
        let x = x_of(now);
        svg.push(&format!(
            "<path d=\"M{} {} L{} {}\" class=\"pb-now\"/>",
            num(x),
            num(TOP - 12.0),
            num(x),
            num(height - 12.0)
        ));
        svg.text(x + 4.0, height - 2.0, "pb-note", "now", false);
    }
    rows(&mut svg, steps, label_width, Some(&x_of), now);
    svg.finish()
}

/// Each step's row: its title and child run on the left, its bar or mark on the right.
fn rows(
    svg: &mut Svg,
    steps: &[StepView],
    label_width: f64,
    x_of: Option<&dyn Fn(DateTime<Utc>) -> f64>,
    now: DateTime<Utc>,
) {
    let chars = ((label_width - 24.0) / 7.0).max(8.0) as usize;
    for (k, s) in steps.iter().enumerate() {
        let y = TOP + ROW * k as f64;
        let status = status_of(Some(s));
        let mut tip = vec![s.title.clone()];
        tip.extend(super::status::tip(Some(s)));
        svg.step_group(&super::status::group_class(Some(s)), &s.step, &tip.join("\n"));
        svg.text(20.0, y + 15.0, "pb-title", &fit(&s.title, chars), false);
        if let Some(id) = &s.run_id {
            svg.text(20.0, y + 29.0, "pb-note pb-mono", &fit(id, chars + 6), false);
        }
        match (x_of, s.started_at, s.finished_at) {
            (Some(x_of), Some(start), end) => {
                let x0 = x_of(start);
                // A step still going reaches to now.
                let x1 = x_of(end.unwrap_or(now));
                let w = (x1 - x0).max(3.0);
                svg.rect(x0, y + 6.0, w, 20.0, 4.0, &format!("pb-s-{status} pb-card"));
                let said = match (end, &s.waiting_for) {
                    (Some(end), _) => span((end - start).num_seconds()),
                    (None, Some(w)) => format!("{}: {w}", s.status),
                    (None, None) => s.status.clone(),
                };
                let said = fit(&said, 48);
                // After the bar where there is room, else before it, else inside its end.
                let room = width_of(&said, 11.0) + 8.0;
                if x0 + w + room <= label_width + CHART + 80.0 {
                    svg.text(x0 + w + 6.0, y + 20.0, "pb-note", &said, false);
                } else if x0 - room >= label_width {
                    svg.text(x0 - room + 2.0, y + 20.0, "pb-note", &said, false);
                } else {
                    svg.text(x0 + 6.0, y + 20.0, "pb-note", &said, false);
                }
            }
            (Some(x_of), None, Some(at)) => {
                let x = x_of(at);
                svg.push(&format!(
                    "<path d=\"M{} {} L{} {}\" class=\"pb-edge pb-dashed\"/>",
                    num(x),
                    num(y + 4.0),
                    num(x),
                    num(y + 28.0)
                ));
                svg.text(x + 6.0, y + 20.0, "pb-note", &s.status, false);
            }
            _ => svg.text(label_width, y + 20.0, "pb-note", &format!("{}, not started", s.status), false),
        }
        svg.close();
    }
}
