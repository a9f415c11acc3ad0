//! Writing SVG safely: every text escaped for XML, characters XML cannot hold dropped, numbers
//! written whole, and one fixed palette, light and dark, in an inline style. Nothing here
//! writes a script, a foreignObject, a link or a reference to anything outside the picture.

use super::layout::{Direction, Point};

pub use crate::core::markup::escape_xml as escape;

/// A coordinate, to the whole pixel, so the same picture is always the same text.
pub fn num(v: f64) -> String {
    let r = v.round();
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{}", r as i64)
    }
}

/// The width text takes at `px` pixels, near enough to size cards by.
pub fn width_of(text: &str, px: f64) -> f64 {
    text.chars().count() as f64 * px * 0.6
}

/// Text cut to `max` characters, with an ellipsis where it was cut.
pub fn fit(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The colours and fonts of every picture, with the same classes in the dark. Every rule names
/// a class of the pictures' own (`pb-`), the root's carrying the font and the text's colour, so
/// a page that shows the SVG inline keeps its own styles.
const STYLE: &str = "\
.pb-picture{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;fill:#0f172a}\
.pb-bg{fill:#ffffff}\
.pb-rehearsal{fill:#f5f3ff;stroke:#7c3aed;stroke-width:2;stroke-dasharray:8 5}\
.pb-head{font-size:15px;font-weight:600}\
.pb-title{font-size:13px;font-weight:600}\
.pb-sub{font-size:12px;fill:#475569}\
.pb-mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\
.pb-note{font-size:11px;fill:#64748b}\
.pb-node{fill:#ffffff;stroke:#64748b}\
.pb-card{stroke-width:1.5}\
.pb-wait{fill:#f1f5f9;stroke:#64748b}\
.pb-edge{fill:none;stroke:#94a3b8;stroke-width:1.5}\
.pb-dashed{stroke-dasharray:6 4}\
.pb-dotted{stroke-dasharray:2 4}\
.pb-thick{stroke-width:3}\
.pb-arrow{fill:#94a3b8}\
.pb-tag{fill:#f8fafc;stroke:#cbd5e1}\
.pb-grid{stroke:#e2e8f0;stroke-width:1}\
.pb-now{stroke:#7c3aed;stroke-width:1.5;stroke-dasharray:4 3}\
.pb-ring{fill:none;stroke:#d97706;stroke-width:2.5}\
.pb-s-succeeded{fill:#dcfce7;stroke:#16a34a}\
.pb-s-failed{fill:#fee2e2;stroke:#dc2626}\
.pb-s-running{fill:#dbeafe;stroke:#2563eb}\
.pb-s-waiting{fill:#fef3c7;stroke:#d97706}\
.pb-s-skipped{fill:#ffffff;stroke:#94a3b8;stroke-dasharray:6 4}\
.pb-faded{opacity:.5}\
.pb-s-cancelled{fill:#e5e7eb;stroke:#6b7280}\
.pb-s-pending{fill:#ffffff;stroke:#94a3b8}\
.pb-e-succeeded{stroke:#16a34a;stroke-width:2.5}\
.pb-e-failed{stroke:#dc2626;stroke-width:2.5}\
.pb-e-running{stroke:#2563eb;stroke-width:2.5}\
.pb-e-waiting{stroke:#d97706;stroke-width:2.5}\
.pb-a-succeeded{fill:#16a34a}\
.pb-a-failed{fill:#dc2626}\
.pb-a-running{fill:#2563eb}\
.pb-a-waiting{fill:#d97706}\
@media (prefers-color-scheme:dark){\
.pb-picture{fill:#e2e8f0}\
.pb-bg{fill:#0f172a}\
.pb-rehearsal{fill:#1e1b4b;stroke:#a78bfa}\
.pb-sub{fill:#94a3b8}\
.pb-note{fill:#94a3b8}\
.pb-node{fill:#1e293b;stroke:#94a3b8}\
.pb-wait{fill:#273449;stroke:#94a3b8}\
.pb-edge{stroke:#64748b}\
.pb-arrow{fill:#64748b}\
.pb-tag{fill:#1e293b;stroke:#475569}\
.pb-grid{stroke:#334155}\
.pb-now{stroke:#a78bfa}\
.pb-ring{stroke:#fbbf24}\
.pb-s-succeeded{fill:#14532d;stroke:#4ade80}\
.pb-s-failed{fill:#7f1d1d;stroke:#f87171}\
.pb-s-running{fill:#1e3a8a;stroke:#60a5fa}\
.pb-s-waiting{fill:#78350f;stroke:#fbbf24}\
.pb-s-skipped{fill:#1e293b;stroke:#64748b}\
.pb-s-cancelled{fill:#374151;stroke:#9ca3af}\
.pb-s-pending{fill:#1e293b;stroke:#64748b}\
.pb-e-succeeded{stroke:#4ade80}\
.pb-e-failed{stroke:#f87171}\
.pb-e-running{stroke:#60a5fa}\
.pb-e-waiting{stroke:#fbbf24}\
.pb-a-succeeded{fill:#4ade80}\
.pb-a-failed{fill:#f87171}\
.pb-a-running{fill:#60a5fa}\
.pb-a-waiting{fill:#fbbf24}\
}";

/// A picture being written: opened with its size, title and style, closed by `finish`.
pub struct Svg {
    out: String,
}

impl Svg {
    /// A picture `width` by `height`, described to a screen reader by `label`.
    pub fn new(width: f64, height: f64, label: &str) -> Svg {
        let (w, h) = (num(width.max(1.0)), num(height.max(1.0)));
        let label = escape(label);
        let mut out = String::with_capacity(8192);
        out.push_str(&format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" class=\"pb-picture\" role=\"img\" aria-label=\"{label}\">"
        ));
        out.push_str(&format!("<title>{label}</title><style>{STYLE}</style>"));
        out.push_str(&format!("<rect class=\"pb-bg\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\"/>"));
        Svg { out }
    }

    /// Markup this module's callers built from escaped text and numbers.
    pub fn push(&mut self, markup: &str) {
        self.out.push_str(markup);
    }

    /// A line of text, escaped, its left end (or middle, with `middle`) at `x`.
    pub fn text(&mut self, x: f64, y: f64, class: &str, text: &str, middle: bool) {
        let anchor = if middle { " text-anchor=\"middle\"" } else { "" };
        self.out.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" class=\"{class}\"{anchor}>{}</text>",
            num(x),
            num(y),
            escape(text)
        ));
    }

    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, radius: f64, class: &str) {
        self.out.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" class=\"{class}\"/>",
            num(x),
            num(y),
            num(w),
            num(h),
            num(radius)
        ));
    }

    /// A group whose tooltip is `tip`, escaped; close it with `close`.
    pub fn group(&mut self, class: &str, tip: &str) {
        self.out.push_str(&format!("<g class=\"{class}\"><title>{}</title>", escape(tip)));
    }

    /// A step's group: as `group`, naming the step in `data-step` so that a page showing the
    /// picture inline can find its card, as to pin a comment on it.
    pub fn step_group(&mut self, class: &str, step: &str, tip: &str) {
        self.out.push_str(&format!(
            "<g class=\"{class}\" data-step=\"{}\"><title>{}</title>",
            escape(step),
            escape(tip)
        ));
    }

    pub fn close(&mut self) {
        self.out.push_str("</g>");
    }

    /// An edge through `points`, curved so that it leaves and reaches each point along the
    /// ranks, with its arrowhead (where `arrow`) drawn as a shape of its own.
    pub fn edge(&mut self, points: &[Point], direction: Direction, class: &str, arrow: Option<&str>) {
        let (Some(first), Some(last)) = (points.first(), points.last()) else { return };
        let mut d = format!("M{} {}", num(first.x), num(first.y));
        for pair in points.windows(2) {
            let (p, q) = (pair[0], pair[1]);
            if direction.vertical() {
                let m = (p.y + q.y) / 2.0;
                d.push_str(&format!(" C{} {} {} {} {} {}", num(p.x), num(m), num(q.x), num(m), num(q.x), num(q.y)));
            } else {
                let m = (p.x + q.x) / 2.0;
                d.push_str(&format!(" C{} {} {} {} {} {}", num(m), num(p.y), num(m), num(q.y), num(q.x), num(q.y)));
            }
        }
        self.out.push_str(&format!("<path d=\"{d}\" class=\"{class}\"/>"));
        if let (Some(arrow), Some(before)) = (arrow, points.len().checked_sub(2).and_then(|i| points.get(i))) {
            let along = if direction.vertical() {
                Point { x: 0.0, y: (last.y - before.y).signum() }
            } else {
                Point { x: (last.x - before.x).signum(), y: 0.0 }
            };
            self.arrowhead(*last, along, arrow);
        }
    }

    /// A straight edge from `a` to `b`, as between a step and the fallback beside it.
    pub fn line(&mut self, a: Point, b: Point, class: &str, arrow: Option<&str>) {
        self.out.push_str(&format!(
            "<path d=\"M{} {} L{} {}\" class=\"{class}\"/>",
            num(a.x),
            num(a.y),
            num(b.x),
            num(b.y)
        ));
        if let Some(arrow) = arrow {
            let len = ((b.x - a.x).powi(2) + (b.y - a.y).powi(2)).sqrt().max(1.0);
            self.arrowhead(b, Point { x: (b.x - a.x) / len, y: (b.y - a.y) / len }, arrow);
        }
    }

    /// An arrowhead with its tip at `tip`, pointing along the unit vector `along`.
    fn arrowhead(&mut self, tip: Point, along: Point, class: &str) {
        let (len, half) = (9.0, 4.5);
        let base = Point { x: tip.x - along.x * len, y: tip.y - along.y * len };
        let side = Point { x: -along.y * half, y: along.x * half };
        self.out.push_str(&format!(
            "<path d=\"M{} {} L{} {} L{} {} Z\" class=\"{class}\"/>",
            num(tip.x),
            num(tip.y),
            num(base.x + side.x),
            num(base.y + side.y),
            num(base.x - side.x),
            num(base.y - side.y)
        ));
    }

    /// A label on a small tag, centred at `at`, as on an edge.
    pub fn tag(&mut self, at: Point, text: &str) {
        let w = width_of(text, 11.0) + 10.0;
        self.rect(at.x - w / 2.0, at.y - 9.0, w, 18.0, 4.0, "pb-tag");
        self.text(at.x, at.y + 4.0, "pb-note", text, true);
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

/// The point halfway along an edge's points, where its label goes.
pub fn middle(points: &[Point]) -> Option<Point> {
    let n = points.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => points.get(n / 2).copied(),
        _ => {
            let (a, b) = (points.get(n / 2 - 1)?, points.get(n / 2)?);
            Some(Point { x: (a.x + b.x) / 2.0, y: (a.y + b.y) / 2.0 })
        }
    }
}

/// A length of time in words: `30 seconds`, `5 minutes`, `2 hours`, `1 day`.
pub fn span(seconds: i64) -> String {
    let s = seconds.max(0);
    let (n, unit) = if s >= 86_400 && s % 86_400 == 0 {
        (s / 86_400, "day")
    } else if s >= 3_600 && s % 3_600 == 0 {
        (s / 3_600, "hour")
    } else if s >= 60 && s % 60 == 0 {
        (s / 60, "minute")
    } else {
        (s, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}
