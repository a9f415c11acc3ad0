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

use super::record::Record;
use super::RunError;
use crate::core::definition::template::environment;
use crate::core::definition::Document;
use crate::core::event::Event;

pub const HISTORY_DEFAULT: usize = 90;
pub const ALPHA_DEFAULT: f64 = 0.5;
pub const CONFIDENCE_DEFAULT: f64 = 0.8;
pub const AGGREGATE_DEFAULT: &str = "sum";
/// The most events a prediction reads, newest first.
pub const EVENTS_MAX: usize = 5_000;
const MOVING_WINDOW: usize = 3;
const MIN_PERIODS: usize = 3;

fn fail(reason: &str, detail: String) -> RunError {
    RunError { reason: reason.into(), detail }
}

/// The start of the period `at` falls in.
fn period_start(at: DateTime<Utc>, every: &str) -> Option<DateTime<Utc>> {
    let day = Utc.with_ymd_and_hms(at.year(), at.month(), at.day(), 0, 0, 0).single()?;
    match every {
        "hour" => Utc.with_ymd_and_hms(at.year(), at.month(), at.day(), at.hour(), 0, 0).single(),
        "day" => Some(day),
        "week" => Some(day - Duration::days(i64::from(at.weekday().num_days_from_monday()))),
        "month" => Utc.with_ymd_and_hms(at.year(), at.month(), 1, 0, 0, 0).single(),
        _ => None,
    }
}

fn next_period(start: DateTime<Utc>, every: &str) -> Option<DateTime<Utc>> {
    match every {
        "hour" => Some(start + Duration::hours(1)),
        "day" => Some(start + Duration::days(1)),
        "week" => Some(start + Duration::weeks(1)),
        "month" => {
            let (y, m) = if start.month() == 12 { (start.year() + 1, 1) } else { (start.year(), start.month() + 1) };
            Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single()
        }
        _ => None,
    }
}

fn field(data: &Value, path: &str) -> Option<f64> {
    path.split('.').try_fold(data, |v, key| v.get(key))?.as_f64()
}

fn aggregate(values: &[f64], how: &str) -> f64 {
    let n = values.len() as f64;
    match how {
        "count" => n,
        "mean" if n > 0.0 => values.iter().sum::<f64>() / n,
        "min" => values.iter().copied().fold(f64::INFINITY, f64::min),
        "max" => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "last" => values.last().copied().unwrap_or(0.0),
        _ => values.iter().sum(),
    }
}

/// Evaluates the prediction over `events` (any order) of its kind.
/// The parameters a forecast runs with: the document's, or their defaults.
struct Params {
    every: String,
    how: String,
    method: String,
    path: String,
    horizon: usize,
    history: usize,
    alpha: f64,
    confidence: f64,
}

impl Params {
    fn read(f: &Value) -> Params {
        let text = |p: &str, d: &'static str| f.pointer(p).and_then(Value::as_str).unwrap_or(d).to_string();
        Params {
            every: text("/every", "day"),
            how: text("/aggregate", AGGREGATE_DEFAULT),
            method: text("/method", "linear_trend"),
            path: text("/events/field", ""),
            horizon: f.pointer("/horizon").and_then(Value::as_u64).unwrap_or(1) as usize,
            history: f.pointer("/history").and_then(Value::as_u64).map_or(HISTORY_DEFAULT, |n| n as usize),
            alpha: f.pointer("/alpha").and_then(Value::as_f64).unwrap_or(ALPHA_DEFAULT),
            confidence: f.pointer("/confidence").and_then(Value::as_f64).unwrap_or(CONFIDENCE_DEFAULT),
        }
    }

    fn said(&self) -> Value {
        let mut v = json!({
            "every": self.every, "aggregate": self.how, "field": self.path, "history": self.history,
            "horizon": self.horizon, "confidence": self.confidence,
        });
        if self.method == "exponential_smoothing" {
            v["alpha"] = json!(self.alpha);
        }
        v
    }
}

/// The forecast, or why there is none, and the record of the series, method and parameters.
pub fn evaluate(source: &str, input: &Value, events: &[Event]) -> (Result<Value, RunError>, Record) {
    let doc = match Document::parse(source) {
        Ok(doc) => doc,
        Err(p) => {
            let record = Record::Prediction {
                series: Vec::new(),
                method: String::new(),
                params: Value::Null,
                events_read: events.len(),
            };
            return (Err(fail("document", p.detail)), record);
        }
    };
    let params = Params::read(&doc.front);
    let said = params.said();
    let method = params.method.clone();
    let result = predict(&doc.front, params, input, events);
    let series = result.as_ref().ok().and_then(|v| v["history"].as_array().cloned()).unwrap_or_default();
    (result, Record::Prediction { series, method, params: said, events_read: events.len() })
}

fn predict(f: &Value, params: Params, input: &Value, events: &[Event]) -> Result<Value, RunError> {
    let Params { every, how, method, path, horizon, history, alpha, confidence } = params;
    let env = environment();
    let condition = match f.pointer("/events/where").and_then(Value::as_str) {
        Some(t) => Some(env.compile_expression(t).map_err(|e| fail("expression", e.to_string()))?),
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
        let value = if how == "count" { Some(1.0) } else { field(&e.event.data, &path) };
        let (Some(value), Some(start)) = (value, period_start(at.with_timezone(&Utc), &every)) else { continue };
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
            match next_period(last, &every) {
                Some(next) if next < *start => {
                    let fill = if how == "sum" || how == "count" { 0.0 } else { prev };
                    series.push((next, fill));
                }
                _ => break,
            }
        }
        series.push((*start, aggregate(values, &how)));
    }
    if series.len() > history {
        series.drain(..series.len() - history);
    }
    if series.len() < MIN_PERIODS {
        return Err(fail(
            "not_enough_history",
            format!(
                "a forecast needs events in at least {MIN_PERIODS} periods of a {every}, and it found {}",
                series.len()
            ),
        ));
    }
    let ys: Vec<f64> = series.iter().map(|(_, y)| *y).collect();
    let points = forecast(&ys, &method, horizon, alpha, confidence);
    let mut start = series.last().map(|(s, _)| *s).unwrap_or_default();
    let mut out = Vec::with_capacity(points.len());
    for (value, lower, upper) in points {
        start = next_period(start, &every).unwrap_or(start);
        out.push(json!({ "period": start.to_rfc3339_opts(chrono::SecondsFormat::Secs, true), "value": value, "lower": lower, "upper": upper }));
    }
    let history_out: Vec<Value> = series
        .iter()
        .map(|(s, y)| json!({ "period": s.to_rfc3339_opts(chrono::SecondsFormat::Secs, true), "value": y }))
        .collect();
    Ok(json!({ "method": method, "every": every, "confidence": confidence, "forecast": out, "history": history_out }))
}

/// (value, lower, upper) for each of the `horizon` periods ahead.
pub fn forecast(ys: &[f64], method: &str, horizon: usize, alpha: f64, confidence: f64) -> Vec<(f64, f64, f64)> {
    let n = ys.len() as f64;
    let tail = 0.5 + confidence / 2.0;
    match method {
        "exponential_smoothing" => {
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
        "moving_average" => {
            let k = MOVING_WINDOW.min(ys.len());
            let mean = ys[ys.len() - k..].iter().sum::<f64>() / k as f64;
            let all_mean = ys.iter().sum::<f64>() / n;
            let s = (ys.iter().map(|y| (y - all_mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            let z = Normal::ppf(tail, 0.0, 1.0);
            let width = z * s * (1.0 + 1.0 / k as f64).sqrt();
            (0..horizon).map(|_| (mean, mean - width, mean + width)).collect()
        }
        _ => {
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
    use crate::core::event::NewEvent;

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
        let points = forecast(&[10.0, 12.0, 14.0, 16.1, 17.9], "linear_trend", 2, 0.5, 0.8);
        assert!((points[0].0 - 20.0).abs() < 0.3, "{points:?}");
        assert!(points[0].1 < points[0].0 && points[0].0 < points[0].2);
        assert!(points[1].2 - points[1].1 > points[0].2 - points[0].1, "bounds widen ahead");
        let flat = forecast(&[5.0, 5.0, 5.0], "exponential_smoothing", 1, 0.5, 0.8);
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
        let (out, record) = evaluate(doc, &json!({}), &events);
        let out = out.unwrap();
        let Record::Prediction { series, method, params, events_read } = record else { panic!("a forecast's record") };
        assert_eq!((series.len(), method.as_str(), events_read), (4, "linear_trend", 3));
        assert_eq!((params["every"].as_str(), params["horizon"].as_u64()), (Some("month"), Some(2)));
        assert_eq!(out["history"].as_array().map(Vec::len), Some(4), "March counts as zero: {out}");
        assert_eq!(out["forecast"][0]["period"], "2026-05-01T00:00:00Z");
        assert!(out["forecast"][1]["upper"].as_f64() > out["forecast"][1]["lower"].as_f64());
        let few = evaluate(doc, &json!({}), &events[..1]).0.unwrap_err();
        assert_eq!(few.reason, "not_enough_history");
    }
}
