//! A prediction function: forecasts a numeric field of the playbook's events over time, with a
//! named method, and answers the forecast with its uncertainty. No model.

use super::check::Findings;
use super::Ref;

const KEYS: &[&str] = &[
    "description",
    "page",
    "input",
    "events",
    "every",
    "aggregate",
    "method",
    "alpha",
    "horizon",
    "history",
    "confidence",
];
pub const METHODS: &[&str] = &["linear_trend", "exponential_smoothing", "moving_average"];
pub const PERIODS: &[&str] = &["hour", "day", "week", "month"];
pub const AGGREGATES: &[&str] = &["sum", "mean", "count", "min", "max", "last"];

pub fn check(f: &mut Findings<'_>) -> Vec<Ref> {
    f.only_keys("", KEYS, "a prediction function");
    f.only_keys("/input", &["schema"], "input");
    if f.mapping("/input", false).is_some() {
        f.schema("/input/schema", true, true);
    }
    if f.mapping("/events", true).is_some() {
        f.only_keys("/events", &["kind", "field", "where"], "events");
        if let Some(kind) = f.string("/events/kind", true, 64) {
            if kind.is_empty()
                || !kind.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b))
            {
                f.error("/events/kind", "must be an event kind: lowercase letters, digits, _ . and -, as month_closed");
            }
        }
        let aggregate = f.get("/aggregate").and_then(|v| v.as_str());
        match f.string("/events/field", aggregate != Some("count"), 200) {
            Some(field) if field.is_empty() || field.split('.').any(str::is_empty) => f.error(
                "/events/field",
                "must name a field of the event's data, with dots for nested fields, as totals.net",
            ),
            _ => {}
        }
        if let Some(expr) = f.string("/events/where", false, 1000) {
            f.expression("/events/where", expr, &["event".to_string(), "input".to_string()]);
        }
    }
    one_of(f, "/method", METHODS, true);
    one_of(f, "/every", PERIODS, true);
    one_of(f, "/aggregate", AGGREGATES, false);
    if f.get("/alpha").is_some() && f.get("/method").and_then(|v| v.as_str()) != Some("exponential_smoothing") {
        f.error("/alpha", "is the smoothing factor of exponential_smoothing, and no other method takes it");
    }
    f.number("/alpha", 0.01, 0.99);
    if f.get("/horizon").is_none() {
        f.error("/horizon", "is required: how many periods ahead to forecast, from 1 to 365");
    }
    f.integer("/horizon", 1, 365);
    f.integer("/history", 3, 1000);
    f.number("/confidence", 0.5, 0.99);
    f.empty_body("A prediction function");
    Vec::new()
}

fn one_of(f: &mut Findings<'_>, pointer: &str, allowed: &[&str], required: bool) {
    if let Some(v) = f.string(pointer, required, 64) {
        if !allowed.contains(&v) {
            f.error(pointer, format!("must be one of {}", allowed.join(", ")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_document, Kind};

    const DOC: &str = "---\ndescription: Forecasts next quarter's monthly revenue\nevents: { kind: month_closed, field: totals.revenue }\nevery: month\naggregate: sum\nmethod: exponential_smoothing\nalpha: 0.4\nhorizon: 3\n---\n";

    #[test]
    fn forecasts_an_event_field() {
        assert!(check_document(Kind::Prediction, DOC).is_ok());
        let p = check_document(
            Kind::Prediction,
            &DOC.replace("exponential_smoothing", "linear_trend").replace("horizon: 3", "horizon: 0"),
        )
        .unwrap_err();
        let at: Vec<&str> = p.errors.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(at, vec!["/alpha", "/horizon"]);
    }
}
