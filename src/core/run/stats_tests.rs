use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::*;
use crate::core::definition::Kind;
use crate::core::run::error::RunError;
use crate::core::run::record::Reasoned;
use crate::core::run::stats_words::{duration, says};
use crate::core::text::stamp;
use crate::core::ErrorCode;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-12-09T12:00:00.000Z").unwrap().to_utc()
}

/// A run of `name` started `ago` before now that ran `took` ms, or is still going without it.
fn run(kind: Kind, name: &str, ago: Duration, took: Option<i64>, ok: bool) -> Run {
    let start = now() - ago;
    let definition = Ref { kind, name: name.into() };
    let mut run = Run::started("r", ("local", "pb_x"), definition, 1, json!({}), stamp(start));
    if let Some(ms) = took {
        let finished_at = stamp(start + Duration::milliseconds(ms));
        run.status = if ok {
            RunStatus::Succeeded { output: json!({}), finished_at }
        } else {
            RunStatus::Failed { error: RunError { reason: ErrorCode::Expression, detail: "x".into() }, finished_at }
        };
    }
    run
}

fn samples(runs: &[Run]) -> Vec<Sample> {
    runs.iter().filter_map(Sample::of).collect()
}

#[test]
fn percentiles_go_by_the_nearest_rank() {
    assert_eq!(percentile(&[], 50), None);
    assert_eq!(percentile(&[7], 50), Some(7));
    assert_eq!(percentile(&[7], 95), Some(7));
    let twenty: Vec<u64> = (1..=20).collect();
    assert_eq!((percentile(&twenty, 50), percentile(&twenty, 95)), (Some(10), Some(19)));
    let hundred: Vec<u64> = (1..=100).collect();
    assert_eq!((percentile(&hundred, 50), percentile(&hundred, 95)), (Some(50), Some(95)));
    assert_eq!(percentile(&[1, 2, 3], 95), Some(3));
}

#[test]
fn no_run_is_no_rate_not_a_rate_of_zero() {
    let s = stats(&[], now(), Window::Week);
    assert_eq!(s.current, Figures::default());
    assert_eq!((s.current.success_rate, s.current.duration_ms.p50, s.current.tokens), (None, None, None));
    assert_eq!(says(&s, None, &[]), "In the last 7 days, no run started (none in the window before either).");
    // Runs still going have ended none: there is no rate yet.
    let going = samples(&[run(Kind::Computation, "a", Duration::minutes(5), None, true)]);
    let s = stats(&going, now(), Window::Hour);
    assert_eq!((s.current.runs, s.current.running, s.current.success_rate), (1, 1, None));
    assert_eq!(says(&s, None, &[]), "In the last hour, 1 run (was 0): 0 succeeded, 1 still running.");
}

#[test]
fn the_window_is_held_against_the_one_before() {
    let day = Duration::days(1);
    let mut runs = Vec::new();
    // This week: 9 of 10 succeeded, in 1 to 10 seconds.
    for i in 0..10 {
        let took = i64::from(i + 1) * 1000;
        runs.push(run(Kind::Computation, "add-vat", day * i / 2 + Duration::minutes(1), Some(took), i != 3));
    }
    // The week before: 3 of 4 succeeded; and one older still, counted in neither.
    for i in 0..4 {
        runs.push(run(Kind::Computation, "add-vat", day * 8 + day * i, Some(500), i != 0));
    }
    runs.push(run(Kind::Computation, "add-vat", day * 20, Some(500), false));
    let s = stats(&samples(&runs), now(), Window::Week);
    assert_eq!((s.from.as_str(), s.to.as_str()), ("2026-12-02T12:00:00.000Z", "2026-12-09T12:00:00.000Z"));
    assert_eq!(s.previous_from, "2026-11-25T12:00:00.000Z");
    assert_eq!((s.current.runs, s.current.succeeded, s.current.failed), (10, 9, 1));
    assert_eq!(s.current.success_rate, Some(0.9));
    assert_eq!(s.current.duration_ms, Durations { p50: Some(5000), p95: Some(10000) });
    assert_eq!((s.previous.runs, s.previous.success_rate), (4, Some(0.75)));
    assert_eq!(
        says(&s, None, &[]),
        "In the last 7 days, 10 runs (was 4): 9 succeeded (90%, was 75%), 1 failed; p50 5.0 s, p95 10.0 s. Most failing: computation/add-vat (1 of 10 failed)."
    );
    let one = Ref { kind: Kind::Computation, name: "add-vat".into() };
    assert!(says(&s, Some(&one), &[]).starts_with("In the last 7 days, 10 runs of computation/add-vat (was 4):"));
    // A run started on the window's first moment is in it; one a moment earlier, in the one before.
    let edge = [run(Kind::Lookup, "l", Duration::days(7), None, true)];
    assert_eq!(stats(&samples(&edge), now(), Window::Week).current.runs, 1);
    let before = [run(Kind::Lookup, "l", Duration::days(7) + Duration::milliseconds(1), None, true)];
    let s = stats(&samples(&before), now(), Window::Week);
    assert_eq!((s.current.runs, s.previous.runs), (0, 1));
    assert_eq!(says(&s, None, &[]), "In the last 7 days, no run started (1 run in the 7 days before).");
}

#[test]
fn the_rankings_name_the_most_failing_and_the_slowest() {
    let h = Duration::hours(1);
    let runs = [
        run(Kind::Computation, "a", h, Some(100), false),
        run(Kind::Computation, "a", h, Some(100), true),
        run(Kind::Lookup, "b", h, Some(9000), false),
        run(Kind::Lookup, "b", h, Some(9000), false),
        run(Kind::Workflow, "c", h, Some(60_000), true),
        run(Kind::Reasoning, "d", h, Some(200), false),
    ];
    let s = stats(&samples(&runs), now(), Window::Day);
    let failing: Vec<(String, usize, usize)> =
        s.most_failing.iter().map(|f| (f.definition.key(), f.failed, f.ended)).collect();
    // b failed most; a and d once each, d of fewer runs, so first.
    assert_eq!(failing, [("lookup/b".into(), 2, 2), ("reasoning/d".into(), 1, 1), ("computation/a".into(), 1, 2)]);
    let slow: Vec<String> = s.slowest.iter().map(|f| f.definition.key()).collect();
    assert_eq!(slow, ["workflow/c", "lookup/b", "reasoning/d"]);
    let said = says(&s, None, &[]);
    assert!(
        said.contains(
            "Most failing: lookup/b (2 of 2 failed), reasoning/d (1 of 1 failed) and computation/a (1 of 2 failed)."
        ),
        "{said}"
    );
    assert!(
        said.contains("Slowest: workflow/c (p95 1.0 min), lookup/b (p95 9.0 s) and reasoning/d (p95 200 ms)."),
        "{said}"
    );
    assert!(said.chars().count() <= crate::core::text::SUMMARY_MAX);
    // What the read left out comes before what stood out.
    let said = says(&s, None, &["Only the newest 200 runs of lookup/b are read.".into()]);
    assert!(said.contains("p95 1.0 min. Only the newest 200 runs of lookup/b are read. Most failing:"), "{said}");
}

#[test]
fn tokens_are_counted_where_a_run_recorded_them_and_absent_elsewhere() {
    let mut reasoned = run(Kind::Reasoning, "r", Duration::minutes(3), Some(1200), true);
    reasoned.record = Some(Record::Reasoning(Reasoned {
        system: None,
        user: "u".into(),
        model: "openai/gpt-4.1".into(),
        resolved_to: None,
        answer: None,
        stop: None,
        input_tokens: Some(900),
        output_tokens: Some(40),
        duration_ms: Some(1100),
        last_turn: None,
        turns: 1,
        tool_calls: Vec::new(),
    }));
    let plain = run(Kind::Computation, "c", Duration::minutes(2), Some(3), true);
    let s = stats(&samples(&[reasoned.clone(), plain.clone()]), now(), Window::Hour);
    assert_eq!(s.current.tokens, Some(Counted { input: 900, output: 40, runs: 1 }));
    assert!(
        says(&s, None, &[]).ends_with("Models counted 900 tokens in and 40 out, over 1 run."),
        "{}",
        says(&s, None, &[])
    );
    assert_eq!(stats(&samples(&[plain]), now(), Window::Hour).current.tokens, None);
    // The answer says absent as null, never as zero.
    let value = serde_json::to_value(stats(&[], now(), Window::Hour)).unwrap();
    assert_eq!(
        (&value["window"], &value["current"]["tokens"], &value["current"]["success_rate"]),
        (&json!("1h"), &json!(null), &json!(null))
    );
}

#[test]
fn a_run_whose_start_is_no_time_is_left_out() {
    let mut odd = run(Kind::Computation, "a", Duration::minutes(1), Some(5), true);
    odd.started_at = "t".into();
    assert_eq!(Sample::of(&odd), None);
    // An end stamped a little before its start took no time.
    let skewed = run(Kind::Computation, "a", Duration::minutes(1), Some(-40), true);
    assert_eq!(Sample::of(&skewed).and_then(|s| s.duration_ms), Some(0));
}

#[test]
fn windows_and_durations_read_as_written() {
    for name in Window::NAMES {
        assert_eq!(Window::parse(name).map(Window::name), Some(name));
    }
    assert_eq!(Window::parse("2d"), None);
    let said: Vec<String> = [0, 999, 1000, 1250, 59_999, 60_000, 150_000, 3_600_000, 4_680_000].map(duration).to_vec();
    assert_eq!(said, ["0 ms", "999 ms", "1.0 s", "1.3 s", "1.0 min", "1.0 min", "2.5 min", "1.0 h", "1.3 h"]);
}
