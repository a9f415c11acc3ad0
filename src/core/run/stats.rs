//! A playbook's runs over a window against the window before it, for `get_stats`: how many ended
//! how, the share that succeeded, how long they took, the tokens their models counted, and the
//! functions that failed most and ran slowest. Pure: the tool reads the runs, this counts them,
//! and `stats_words` says them.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::record::Record;
use super::{Run, RunStatus};
use crate::core::definition::Ref;

/// The most definitions each ranking names.
pub const RANKED_MAX: usize = 3;

/// The spans `get_stats` counts over, each against the span of the same length before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Window {
    #[serde(rename = "1h")]
    Hour,
    #[serde(rename = "24h")]
    Day,
    #[serde(rename = "7d")]
    Week,
    #[serde(rename = "30d")]
    Month,
}

impl Window {
    pub const NAMES: [&'static str; 4] = ["1h", "24h", "7d", "30d"];
    pub const DEFAULT: Window = Window::Week;

    pub fn parse(name: &str) -> Option<Window> {
        match name {
            "1h" => Some(Window::Hour),
            "24h" => Some(Window::Day),
            "7d" => Some(Window::Week),
            "30d" => Some(Window::Month),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Window::Hour => "1h",
            Window::Day => "24h",
            Window::Week => "7d",
            Window::Month => "30d",
        }
    }

    pub fn length(self) -> Duration {
        match self {
            Window::Hour => Duration::hours(1),
            Window::Day => Duration::hours(24),
            Window::Week => Duration::days(7),
            Window::Month => Duration::days(30),
        }
    }

    /// The span in words: `hour`, `24 hours`, `7 days`, `30 days`.
    pub fn words(self) -> &'static str {
        match self {
            Window::Hour => "hour",
            Window::Day => "24 hours",
            Window::Week => "7 days",
            Window::Month => "30 days",
        }
    }
}

/// How a run stands, as the figures count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

/// The tokens a run's model counted, in and out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
}

/// What one run brings to the figures: a read of many runs keeps this little of each.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub definition: Ref,
    pub state: State,
    pub started_at: DateTime<Utc>,
    /// From its start to its end, for a run that ended.
    pub duration_ms: Option<u64>,
    /// Where its record holds what its model counted: a reasoning run's, when the provider said.
    pub tokens: Option<Tokens>,
}

fn time(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.to_utc())
}

impl Sample {
    /// None for a run whose start does not read as a time, which no window can hold.
    pub fn of(run: &Run) -> Option<Sample> {
        let started_at = time(&run.started_at)?;
        let state = match run.status {
            RunStatus::Started { .. } => State::Running,
            RunStatus::Succeeded { .. } => State::Succeeded,
            RunStatus::Failed { .. } => State::Failed,
            RunStatus::Cancelled { .. } => State::Cancelled,
        };
        // A start and an end stamped by two clocks (the Worker's, the run object's) may disagree
        // by a little: an end before the start is a run that took no time, not one left out.
        let duration_ms = run
            .status
            .finished_at()
            .and_then(time)
            .map(|end| u64::try_from((end - started_at).num_milliseconds()).unwrap_or(0));
        let tokens = match &run.record {
            Some(Record::Reasoning(r)) if r.input_tokens.is_some() || r.output_tokens.is_some() => {
                Some(Tokens { input: r.input_tokens.unwrap_or(0), output: r.output_tokens.unwrap_or(0) })
            }
            _ => None,
        };
        Some(Sample { definition: run.definition.clone(), state, started_at, duration_ms, tokens })
    }
}

/// How long the runs that ended took, by the nearest rank: none where none ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Durations {
    pub p50: Option<u64>,
    pub p95: Option<u64>,
}

/// The tokens of the runs that recorded them, and how many did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counted {
    pub input: u64,
    pub output: u64,
    pub runs: usize,
}

/// The figures of the runs that started within one window.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Figures {
    pub runs: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub cancelled: usize,
    pub running: usize,
    /// Of the runs that ended, the share that succeeded, 0 to 1 to three places; none where none
    /// ended, which is not a rate of 0.
    pub success_rate: Option<f64>,
    pub duration_ms: Durations,
    /// None where no run recorded what its model counted: absent, not zero.
    pub tokens: Option<Counted>,
}

impl Figures {
    pub fn ended(&self) -> usize {
        self.succeeded + self.failed + self.cancelled
    }
}

/// The `p`th percentile of sorted values by the nearest rank: the value at or above `p`% of them.
pub fn percentile(sorted: &[u64], p: u64) -> Option<u64> {
    let n = sorted.len() as u64;
    let rank = (p * n).div_ceil(100).max(1);
    sorted.get(usize::try_from(rank - 1).ok()?).copied()
}

fn rate(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| (part as f64 / whole as f64 * 1000.0).round() / 1000.0)
}

/// The figures of these runs, whatever window they came from.
pub fn figures<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Figures {
    let mut f = Figures::default();
    let mut durations = Vec::new();
    let mut tokens: Option<Counted> = None;
    for s in samples {
        f.runs += 1;
        match s.state {
            State::Running => f.running += 1,
            State::Succeeded => f.succeeded += 1,
            State::Failed => f.failed += 1,
            State::Cancelled => f.cancelled += 1,
        }
        durations.extend(s.duration_ms);
        if let Some(t) = s.tokens {
            let c = tokens.get_or_insert_with(Counted::default);
            c.input += t.input;
            c.output += t.output;
            c.runs += 1;
        }
    }
    durations.sort_unstable();
    f.success_rate = rate(f.succeeded, f.ended());
    f.duration_ms = Durations { p50: percentile(&durations, 50), p95: percentile(&durations, 95) };
    f.tokens = tokens;
    f
}

/// A definition that failed in the window: how often, of how many that ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failing {
    pub definition: Ref,
    pub failed: usize,
    pub ended: usize,
}

/// A definition whose runs in the window took long, with how many of them ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slow {
    pub definition: Ref,
    pub p50_ms: u64,
    pub p95_ms: u64,
    pub ended: usize,
}

/// The window, the window before it, and the definitions that stood out in the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub window: Window,
    /// The window's start; it runs to `to`, the time of the read.
    pub from: String,
    pub to: String,
    /// The start of the window before, which runs to `from`.
    pub previous_from: String,
    pub current: Figures,
    pub previous: Figures,
    /// The definitions with the most failed runs in the window, most first.
    pub most_failing: Vec<Failing>,
    /// The definitions whose ended runs took longest in the window (by p95, then p50), slowest first.
    pub slowest: Vec<Slow>,
}

/// The runs that started within the window ending `now`, against those of the window before:
/// a run started at `from` is in the window, one started at `previous_from` in the one before.
/// A run started after `now` (a clock ahead of this one) is counted in the window.
pub fn stats(samples: &[Sample], now: DateTime<Utc>, window: Window) -> Stats {
    let from = now - window.length();
    let previous_from = from - window.length();
    let current: Vec<&Sample> = samples.iter().filter(|s| s.started_at >= from).collect();
    let previous = samples.iter().filter(|s| s.started_at >= previous_from && s.started_at < from);
    let stamp = crate::core::text::stamp;
    Stats {
        window,
        from: stamp(from),
        to: stamp(now),
        previous_from: stamp(previous_from),
        most_failing: most_failing(&current),
        slowest: slowest(&current),
        current: figures(current.iter().copied()),
        previous: figures(previous),
    }
}

/// The window's runs by definition, in the definitions' order.
fn by_definition<'a>(samples: &[&'a Sample]) -> std::collections::BTreeMap<&'a Ref, Vec<&'a Sample>> {
    let mut by: std::collections::BTreeMap<&Ref, Vec<&Sample>> = std::collections::BTreeMap::new();
    for s in samples {
        by.entry(&s.definition).or_default().push(s);
    }
    by
}

fn most_failing(samples: &[&Sample]) -> Vec<Failing> {
    let mut found: Vec<Failing> = by_definition(samples)
        .into_iter()
        .map(|(d, runs)| {
            let f = figures(runs);
            Failing { definition: d.clone(), failed: f.failed, ended: f.ended() }
        })
        .filter(|f| f.failed > 0)
        .collect();
    // Most failed first; of as many, the larger share of those that ended; then by name, so
    // that the order never depends on the order of the reads.
    found.sort_by(|a, b| {
        let share = |f: &Failing| f.failed as f64 / f.ended.max(1) as f64;
        b.failed.cmp(&a.failed).then(share(b).total_cmp(&share(a))).then(a.definition.cmp(&b.definition))
    });
    found.truncate(RANKED_MAX);
    found
}

fn slowest(samples: &[&Sample]) -> Vec<Slow> {
    let mut found: Vec<Slow> = by_definition(samples)
        .into_iter()
        .filter_map(|(d, runs)| {
            let f = figures(runs);
            let Durations { p50: Some(p50_ms), p95: Some(p95_ms) } = f.duration_ms else { return None };
            Some(Slow { definition: d.clone(), p50_ms, p95_ms, ended: f.ended() })
        })
        .collect();
    found.sort_by(|a, b| b.p95_ms.cmp(&a.p95_ms).then(b.p50_ms.cmp(&a.p50_ms)).then(a.definition.cmp(&b.definition)));
    found.truncate(RANKED_MAX);
    found
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
