//! A prediction function: forecasts a numeric field of the playbook's events over time, with a
//! named method, and answers the forecast with its uncertainty. No model.

mod check;
mod run;

pub(super) use check::check;
pub use run::{evaluate, forecast};

use serde_json::{json, Value};

pub const METHODS: &[&str] = &["linear_trend", "exponential_smoothing", "moving_average"];
pub const PERIODS: &[&str] = &["hour", "day", "week", "month"];
pub const AGGREGATES: &[&str] = &["sum", "mean", "count", "min", "max", "last"];
pub const HISTORY_DEFAULT: usize = 90;
pub const ALPHA_DEFAULT: f64 = 0.5;
pub const CONFIDENCE_DEFAULT: f64 = 0.8;
/// The most events a prediction reads, newest first.
pub const EVENTS_MAX: usize = 5_000;

/// A prediction function as its runs follow it; only its checker makes one.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionSpec {
    input_schema: Option<Value>,
    /// The kind of event read, and the field of its data forecast (empty for a count).
    event_kind: String,
    field: String,
    condition: Option<String>,
    every: Period,
    aggregate: Aggregate,
    method: Method,
    alpha: f64,
    /// 1 to 365 periods ahead.
    horizon: usize,
    /// 3 to 1000 periods back.
    history: usize,
    confidence: f64,
}

impl PredictionSpec {
    pub fn input_schema(&self) -> Option<&Value> {
        self.input_schema.as_ref()
    }

    pub fn event_kind(&self) -> &str {
        &self.event_kind
    }

    /// Every parameter the forecast runs with, as its record says them.
    fn said(&self) -> Value {
        let mut v = json!({
            "every": self.every.as_str(), "aggregate": self.aggregate.as_str(), "field": self.field,
            "history": self.history, "horizon": self.horizon, "confidence": self.confidence,
        });
        if self.method == Method::ExponentialSmoothing {
            v["alpha"] = json!(self.alpha);
        }
        v
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    LinearTrend,
    ExponentialSmoothing,
    MovingAverage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Hour,
    Day,
    Week,
    Month,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    Sum,
    Mean,
    Count,
    Min,
    Max,
    Last,
}

impl Method {
    const ALL: [Method; 3] = [Method::LinearTrend, Method::ExponentialSmoothing, Method::MovingAverage];

    pub fn as_str(self) -> &'static str {
        METHODS[self as usize]
    }

    fn parse(s: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.as_str() == s)
    }
}

impl Period {
    const ALL: [Period; 4] = [Period::Hour, Period::Day, Period::Week, Period::Month];

    pub fn as_str(self) -> &'static str {
        PERIODS[self as usize]
    }

    fn parse(s: &str) -> Option<Period> {
        Period::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

impl Aggregate {
    const ALL: [Aggregate; 6] =
        [Aggregate::Sum, Aggregate::Mean, Aggregate::Count, Aggregate::Min, Aggregate::Max, Aggregate::Last];

    pub fn as_str(self) -> &'static str {
        AGGREGATES[self as usize]
    }

    fn parse(s: &str) -> Option<Aggregate> {
        Aggregate::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_reads_back_as_itself() {
        assert!(METHODS.iter().all(|m| Method::parse(m).map(Method::as_str) == Some(m)));
        assert!(PERIODS.iter().all(|p| Period::parse(p).map(Period::as_str) == Some(p)));
        assert!(AGGREGATES.iter().all(|a| Aggregate::parse(a).map(Aggregate::as_str) == Some(a)));
    }
}
