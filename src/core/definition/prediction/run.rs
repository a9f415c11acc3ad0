//! A prediction: the playbook's events of one kind, a numeric field aggregated per period, and a
//! forecast of the periods ahead by a named method, each point with bounds at the confidence
//! level. The methods are the textbook ones, so an agent can explain what it got:
//!
//! - `linear_trend`: least squares over the periods; bounds from Student's t and the standard
//!   error of a new observation, so they widen away from the data.
//! - `exponential_smoothing`: simple smoothing with factor `alpha`; a flat forecast at the last
//!   level, with bounds that widen as `sqrt(1 + (h - 1) * alpha^2)`.
//! - `moving_average`: the mean of the last three periods; flat, with the spread of the history.

use chrono::{DateTime, Datelike, Duration, TimeZone, Timelike, Utc};
use distrs::{Normal, StudentsT};
use serde_json::{json, Map, Value};

use super::{Aggregate, Method, Period, PredictionSpec};
use crate::core::definition::template::environment;
use crate::core::event::Event;
use crate::core::run::record::Record;
use crate::core::run::RunError;
const MOVING_WINDOW: usize = 3;
const MIN_PERIODS: usize = 3;

/// The start of the period `at` falls in.
fn period_start(at: DateTime<Utc>, every: Period) -> Option<DateTime<Utc>> {
    let day = Utc.with_ymd_and_hms(at.year(), at.month(), at.day(), 0, 0, 0).single()?;
    match every {
        Period::Hour => Utc.with_ymd_and_hms(at.year(), at.month(), at.day(), at.hour(), 0, 0).single(),
        Period::Day => Some(day),
        Period::Week => Some(day - Duration::days(i64::from(at.weekday().num_days_from_monday()))),
        Period::Month => Utc.with_ymd_and_hms(at.year(), at.month(), 1, 0, 0, 0).single(),
    }
}

fn next_period(start: DateTime<Utc>, every: Period) -> Option<DateTime<Utc>> {
    match every {
        Period::Hour => Some(start + Duration::hours(1)),
        Period::Day => Some(start + Duration::days(1)),
        Period::Week => Some(start + Duration::weeks(1)),
        Period::Month => {
            let (y, m) = if start.month() == 12 { (start.year() + 1, 1) } else { (start.year(), start.month() + 1) };
            Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single()
        }
    }
}

fn field(data: &Value, path: &str) -> Option<f64> {
    path.split('.').try_fold(data, |v, key| v.get(key))?.as_f64()
}

fn aggregate(values: &[f64], how: Aggregate) -> f64 {
    let n = values.len() as f64;
    match how {
        Aggregate::Count => n,
        Aggregate::Mean if n > 0.0 => values.iter().sum::<f64>() / n,
        Aggregate::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
        Aggregate::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Aggregate::Last => values.last().copied().unwrap_or(0.0),
        Aggregate::Sum | Aggregate::Mean => values.iter().sum(),
    }
}

/// The forecast, or why there is none, and the record of the series, method and parameters;
/// `events` in any order, of the spec's kind.
pub fn evaluate(spec: &PredictionSpec, input: &Value, events: &[Event]) -> (Result<Value, RunError>, Record) {
    let result = predict(spec, input, events);
    let series = result.as_ref().ok().and_then(|v| v["history"].as_array().cloned()).unwrap_or_default();
    let method = spec.method.as_str().to_string();
    (result, Record::Prediction { series, method, params: spec.said(), events_read: events.len() })
}

fn predict(spec: &PredictionSpec, input: &Value, events: &[Event]) -> Result<Value, RunError> {
    let PredictionSpec { every, aggregate: how, method, horizon, history, alpha, confidence, .. } = *spec;
    let path = &spec.field;
    let env = environment();
    let condition = match &spec.condition {
        Some(t) => Some(
            env.compile_expression(t).map_err(|e| RunError::new(crate::core::ErrorCode::Expression, e.to_string()))?,
        ),
        None => None,
    };

    let mut buckets: Vec<(DateTime<Utc>, Vec<f64>)> = Vec::new();
    for e in events {
        let Ok(at) = DateTime::parse_from_rfc3339(&e.event.at) else { continue };
        if let Some(c) = &condition {
            let mut scope = Map::new();
            scope.insert("input".into(), input.clone());
            scope.insert("event".into(), json!({ "kind": e.event.kind, "at": e.event.at, "data": e.event.data }));
            if !c.eval(&scope).map(|v| v.is_true()).unwrap_or(false) {
                continue;
            }
        }
        let value = if how == Aggregate::Count { Some(1.0) } else { field(&e.event.data, path) };
        let (Some(value), Some(start)) = (value, period_start(at.with_timezone(&Utc), every)) else { continue };
        match buckets.iter_mut().find(|(s, _)| *s == start) {
            Some((_, vs)) => vs.push(value),
            None => buckets.push((start, vec![value])),
        }
    }
    buckets.sort_by_key(|(s, _)| *s);
    // Periods with no event count as zero for sums and counts, and repeat the last value otherwise.
    let mut series: Vec<(DateTime<Utc>, f64)> = Vec::new();
    for (start, values) in &buckets {
        while let Some(&(last, prev)) = series.last() {
            match next_period(last, every) {
                Some(next) if next < *start => {
                    let fill = if matches!(how, Aggregate::Sum | Aggregate::Count) { 0.0 } else { prev };
                    series.push((next, fill));
                }
                _ => break,
            }
        }
        series.push((*start, aggregate(values, how)));
    }
    if series.len() > history {
        series.drain(..series.len() - history);
    }
    if series.len() < MIN_PERIODS {
        return Err(RunError::new(
            crate::core::ErrorCode::NotEnoughHistory,
            format!(
                "a forecast needs events in at least {MIN_PERIODS} periods of a {}, and it found {}",
                every.as_str(),
                series.len()
            ),
        ));
    }
    let ys: Vec<f64> = series.iter().map(|(_, y)| *y).collect();
    let points = forecast(&ys, method, horizon, alpha, confidence);
    let mut start = series.last().map(|(s, _)| *s).unwrap_or_default();
    let mut out = Vec::with_capacity(points.len());
    for (value, lower, upper) in points {
        start = next_period(start, every).unwrap_or(start);
        out.push(json!({ "period": start.to_rfc3339_opts(chrono::SecondsFormat::Secs, true), "value": value, "lower": lower, "upper": upper }));
    }
    let history_out: Vec<Value> = series
        .iter()
        .map(|(s, y)| json!({ "period": s.to_rfc3339_opts(chrono::SecondsFormat::Secs, true), "value": y }))
        .collect();
    Ok(
        json!({ "method": method.as_str(), "every": every.as_str(), "confidence": confidence, "forecast": out, "history": history_out }),
    )
}

/// (value, lower, upper) for each of the `horizon` periods ahead.
pub fn forecast(ys: &[f64], method: Method, horizon: usize, alpha: f64, confidence: f64) -> Vec<(f64, f64, f64)> {
    let n = ys.len() as f64;
    let tail = 0.5 + confidence / 2.0;
    match method {
        Method::ExponentialSmoothing => {
            let mut level = ys[0];
            let mut errors = Vec::new();
            for &y in &ys[1..] {
                errors.push(y - level);
                level = alpha * y + (1.0 - alpha) * level;
            }
            let s = rms(&errors);
            let z = Normal::ppf(tail, 0.0, 1.0);
            (1..=horizon)
                .map(|h| {
                    let width = z * s * (1.0 + (h as f64 - 1.0) * alpha * alpha).sqrt();
                    (level, level - width, level + width)
                })
                .collect()
        }
        Method::MovingAverage => {
            let k = MOVING_WINDOW.min(ys.len());
            let mean = ys[ys.len() - k..].iter().sum::<f64>() / k as f64;
            let all_mean = ys.iter().sum::<f64>() / n;
            let s = (ys.iter().map(|y| (y - all_mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let z = Normal::ppf(tail, 0.0, 1.0);
            let width = z * s * (1.0 + 1.0 / k as f64).sqrt();
            (0..horizon).map(|_| (mean, mean - width, mean + width)).collect()
        }
        Method::LinearTrend => {
            let t_mean = (n - 1.0) / 2.0;
            let y_mean = ys.iter().sum::<f64>() / n;
            let sxx: f64 = (0..ys.len()).map(|t| (t as f64 - t_mean).powi(2)).sum();
            let sxy: f64 = ys.iter().enumerate().map(|(t, y)| (t as f64 - t_mean) * (y - y_mean)).sum();
            let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
            let intercept = y_mean - slope * t_mean;
            let residuals: Vec<f64> = ys.iter().enumerate().map(|(t, y)| y - (intercept + slope * t as f64)).collect();
            let s = (residuals.iter().map(|r| r * r).sum::<f64>() / (n - 2.0)).sqrt();
            let t = StudentsT::ppf(tail, n - 2.0);
            (0..horizon)
                .map(|h| {
                    let x = n + h as f64;
                    let value = intercept + slope * x;
                    let width = t * s * (1.0 + 1.0 / n + (x - t_mean).powi(2) / sxx).sqrt();
                    (value, value - width, value + width)
                })
                .collect()
        }
    }
}

fn rms(errors: &[f64]) -> f64 {
    if errors.is_empty() {
        return 0.0;
    }
    (errors.iter().map(|e| e * e).sum::<f64>() / errors.len() as f64).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::{spec, Kind, Spec};
    use crate::core::event::NewEvent;

    fn run(source: &str, events: &[Event]) -> (Result<Value, RunError>, Record) {
        match spec(Kind::Prediction, source) {
            Ok(Spec::Prediction(s)) => evaluate(&s, &json!({}), events),
            other => panic!("a prediction's spec: {other:?}"),
        }
    }

    fn event(at: &str, revenue: f64) -> Event {
        Event {
            event_id: "ev_1".into(),
            event: NewEvent {
                kind: "month_closed".into(),
                at: at.into(),
                summary: String::new(),
                run_id: None,
                family: None,
                key: None,
                data: json!({"totals": {"revenue": revenue}}),
            },
        }
    }

    #[test]
    fn a_straight_line_is_continued_with_bounds_around_it() {
        let points = forecast(&[10.0, 12.0, 14.0, 16.1, 17.9], Method::LinearTrend, 2, 0.5, 0.8);
        assert!((points[0].0 - 20.0).abs() < 0.3, "{points:?}");
        assert!(points[0].1 < points[0].0 && points[0].0 < points[0].2);
        assert!(points[1].2 - points[1].1 > points[0].2 - points[0].1, "bounds widen ahead");
        let flat = forecast(&[5.0, 5.0, 5.0], Method::ExponentialSmoothing, 1, 0.5, 0.8);
        assert_eq!(flat[0], (5.0, 5.0, 5.0));
    }

    #[test]
    fn events_become_monthly_periods_and_a_forecast() {
        let doc = "---\ndescription: Revenue\nevents: { kind: month_closed, field: totals.revenue }\nevery: month\nmethod: linear_trend\nhorizon: 2\n---\n";
        let events = [
            event("2026-01-31T10:00:00Z", 100.0),
            event("2026-02-28T10:00:00Z", 110.0),
            event("2026-04-30T10:00:00Z", 130.0),
        ];
        let (out, record) = run(doc, &events);
        let out = out.unwrap();
        let Record::Prediction { series, method, params, events_read } = record else { panic!("a forecast's record") };
        assert_eq!((series.len(), method.as_str(), events_read), (4, "linear_trend", 3));
        assert_eq!((params["every"].as_str(), params["horizon"].as_u64()), (Some("month"), Some(2)));
        assert_eq!(out["history"].as_array().map(Vec::len), Some(4), "March counts as zero: {out}");
        assert_eq!(out["forecast"][0]["period"], "2026-05-01T00:00:00Z");
        assert!(out["forecast"][1]["upper"].as_f64() > out["forecast"][1]["lower"].as_f64());
        let few = run(doc, &events[..1]).0.unwrap_err();
        assert_eq!(few.reason, crate::core::ErrorCode::NotEnoughHistory);
    }
}
