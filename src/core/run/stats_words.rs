//! The sentence `get_stats` answers first: the window's runs and how they ended against the
//! window before, how long they took, and what stood out, within a summary's length.

use super::stats::{Figures, Stats, Window};
use crate::core::definition::Ref;
use crate::core::text::{append_if_room, count, join_and};

/// A duration as a person reads it, to a tenth of its unit: `340 ms`, `1.2 s`, `2.5 min`, `1.3 h`.
/// Rounded before the unit is chosen, so that 59,999 ms reads `1.0 min`, not `60.0 s`.
pub fn duration(ms: u64) -> String {
    if ms < 1_000 {
        return format!("{ms} ms");
    }
    let tenths = |unit: u64| (ms + unit / 20) / (unit / 10);
    let (n, unit) = match (tenths(1_000), tenths(60_000)) {
        (s, _) if s < 600 => (s, "s"),
        (_, m) if m < 600 => (m, "min"),
        _ => (tenths(3_600_000), "h"),
    };
    format!("{}.{} {unit}", n / 10, n % 10)
}

fn percent(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

fn lead(window: Window) -> String {
    format!("In the last {}", window.words())
}

/// How the window's runs ended: `39 succeeded (93%, was 88%), 3 failed, 1 still running`.
fn ended(now: &Figures, before: &Figures) -> String {
    let mut succeeded = format!("{} succeeded", now.succeeded);
    if let Some(rate) = now.success_rate {
        match before.success_rate {
            Some(was) => succeeded.push_str(&format!(" ({}, was {})", percent(rate), percent(was))),
            None => succeeded.push_str(&format!(" ({})", percent(rate))),
        }
    }
    let mut parts = vec![succeeded];
    for (n, word) in [(now.failed, "failed"), (now.cancelled, "cancelled"), (now.running, "still running")] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    parts.join(", ")
}

/// The summary: `In the last 7 days, 42 runs (was 30): 39 succeeded (93%, was 88%), 3 failed;
/// p50 1.2 s, p95 4.0 s. Most failing: computation/a (3 of 12 failed).` With `one`, the figures
/// are of that definition alone, and no ranking is said. `notices` (what the read left out) come
/// right after the first sentence, before what merely stood out, so that they are never cut.
pub fn says(s: &Stats, one: Option<&Ref>, notices: &[String]) -> String {
    let (now, before) = (&s.current, &s.previous);
    let of = one.map(|d| format!(" of {}", d.key())).unwrap_or_default();
    if now.runs == 0 {
        let was = match before.runs {
            0 => "none in the window before either".to_string(),
            n => format!("{} in the {} before", count(n, "run"), s.window.words()),
        };
        let text = format!("{}, no run{of} started ({was}).", lead(s.window));
        return notices.iter().fold(text, |t, n| append_if_room(t, n));
    }
    let mut text =
        format!("{}, {}{of} (was {}): {}", lead(s.window), count(now.runs, "run"), before.runs, ended(now, before));
    if let (Some(p50), Some(p95)) = (now.duration_ms.p50, now.duration_ms.p95) {
        text.push_str(&format!("; p50 {}, p95 {}", duration(p50), duration(p95)));
    }
    text.push('.');
    for notice in notices {
        text = append_if_room(text, notice);
    }
    if one.is_none() && !s.most_failing.is_empty() {
        let named: Vec<String> = s
            .most_failing
            .iter()
            .map(|f| format!("{} ({} of {} failed)", f.definition.key(), f.failed, f.ended))
            .collect();
        text = append_if_room(text, &format!("Most failing: {}.", join_and(&named)));
    }
    if one.is_none() && s.slowest.len() > 1 {
        let named: Vec<String> =
            s.slowest.iter().map(|f| format!("{} (p95 {})", f.definition.key(), duration(f.p95_ms))).collect();
        text = append_if_room(text, &format!("Slowest: {}.", join_and(&named)));
    }
    if let Some(t) = now.tokens {
        let tokens =
            format!("Models counted {} tokens in and {} out, over {}.", t.input, t.output, count(t.runs, "run"));
        text = append_if_room(text, &tokens);
    }
    text
}
