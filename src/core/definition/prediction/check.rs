//! The checker of a prediction function's document, which builds its spec.

use super::super::check::Findings;
use super::{
    Aggregate, Method, Period, PredictionSpec, AGGREGATES, ALPHA_DEFAULT, CONFIDENCE_DEFAULT, HISTORY_DEFAULT, METHODS,
    PERIODS,
};

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
/// The spec, where the document gave every part of it; each problem goes to the findings.
pub fn check(f: &mut Findings<'_>) -> Option<PredictionSpec> {
    f.only_keys("", KEYS, "a prediction function");
    f.only_keys("/input", &["schema"], "input");
    let input_schema = match f.mapping("/input", false) {
        Some(_) => f.schema("/input/schema", true, true).map(|s| Some(s.clone())),
        None => Some(None),
    };
    let events = events(f);
    let method = one_of(f, "/method", METHODS, true).and_then(Method::parse);
    let every = one_of(f, "/every", PERIODS, true).and_then(Period::parse);
    let aggregate = match one_of(f, "/aggregate", AGGREGATES, false) {
        Some(a) => Aggregate::parse(a),
        None => Some(Aggregate::Sum),
    };
    if f.get("/alpha").is_some() && f.get("/method").and_then(|v| v.as_str()) != Some("exponential_smoothing") {
        f.error("/alpha", "is the smoothing factor of exponential_smoothing, and no other method takes it");
    }
    let alpha = f.number("/alpha", 0.01, 0.99);
    if f.get("/horizon").is_none() {
        f.error("/horizon", "is required: how many periods ahead to forecast, from 1 to 365");
    }
    let horizon = f.integer("/horizon", 1, 365).and_then(|n| usize::try_from(n).ok());
    let history = f.integer("/history", 3, 1000).and_then(|n| usize::try_from(n).ok());
    let confidence = f.number("/confidence", 0.5, 0.99);
    f.empty_body("A prediction function");
    let (event_kind, field, condition) = events?;
    Some(PredictionSpec {
        input_schema: input_schema?,
        event_kind,
        field,
        condition,
        every: every?,
        aggregate: aggregate?,
        method: method?,
        alpha: alpha.unwrap_or(ALPHA_DEFAULT),
        horizon: horizon?,
        history: history.unwrap_or(HISTORY_DEFAULT),
        confidence: confidence.unwrap_or(CONFIDENCE_DEFAULT),
    })
}

/// `events`: (kind, field, where).
fn events(f: &mut Findings<'_>) -> Option<(String, String, Option<String>)> {
    f.mapping("/events", true)?;
    f.only_keys("/events", &["kind", "field", "where"], "events");
    let kind = f.string("/events/kind", true, 64);
    if let Some(kind) = kind {
        if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b))
        {
            f.error("/events/kind", "must be an event kind: lowercase letters, digits, _ . and -, as month_closed");
        }
    }
    let aggregate = f.get("/aggregate").and_then(|v| v.as_str());
    let field = f.string("/events/field", aggregate != Some("count"), 200);
    match field {
        Some(field) if field.is_empty() || field.split('.').any(str::is_empty) => f.error(
            "/events/field",
            "must name a field of the event's data, with dots for nested fields, as totals.net",
        ),
        _ => {}
    }
    let condition = f.string("/events/where", false, 1000);
    if let Some(expr) = condition {
        f.expression("/events/where", expr, &["event".to_string(), "input".to_string()]);
    }
    Some((kind?.to_string(), field.unwrap_or_default().to_string(), condition.map(str::to_string)))
}

/// The value at `pointer`, where it is one of `allowed`.
fn one_of<'d>(f: &mut Findings<'d>, pointer: &str, allowed: &[&str], required: bool) -> Option<&'d str> {
    let v = f.string(pointer, required, 64)?;
    if !allowed.contains(&v) {
        f.error(pointer, format!("must be one of {}", allowed.join(", ")));
        return None;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use crate::core::definition::{check_document, Kind};

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
