//! What a scalar's text means under YAML 1.2's core schema, as JSON: a plain scalar may be null,
//! a boolean or a number; quoted and block scalars are strings. Only `true` and `false` are
//! booleans (YAML 1.1 also read `n`, `no` and `off` as false, turning `required: [n]` or an enum's
//! value `no` into `false`).

use serde_json::{Number, Value};

/// A core-schema type a tag may ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    Null,
    Bool,
    Int,
    Float,
}

/// The plain scalar's value, by the core schema's order: null, boolean, integer, float, string.
pub fn plain(text: &str) -> Value {
    null(text)
        .or_else(|| boolean(text))
        .or_else(|| integer(text))
        .or_else(|| float(text))
        .unwrap_or_else(|| Value::String(text.to_string()))
}

/// The scalar as the type its tag asks for, or `None` when its text is not one.
pub fn tagged(text: &str, asked: Asked) -> Option<Value> {
    match asked {
        Asked::Null => null(text),
        Asked::Bool => boolean(text),
        Asked::Int => integer(text),
        Asked::Float => integer(text)
            .or_else(|| float(text))
            .map(|v| v.as_f64().and_then(Number::from_f64).map_or(v, Value::Number)),
    }
}

fn null(text: &str) -> Option<Value> {
    matches!(text, "" | "~" | "null" | "Null" | "NULL").then_some(Value::Null)
}

fn boolean(text: &str) -> Option<Value> {
    match text {
        "true" | "True" | "TRUE" => Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// `[-+]?[0-9]+`, `0o[0-7]+` or `0x[0-9a-fA-F]+`; one too large for 64 bits is read as a float.
fn integer(text: &str) -> Option<Value> {
    let radix = |digits: &str, radix: u32| u64::from_str_radix(digits, radix).ok().map(Value::from);
    if let Some(octal) =
        text.strip_prefix("0o").filter(|d| !d.is_empty() && d.bytes().all(|b| (b'0'..=b'7').contains(&b)))
    {
        return radix(octal, 8);
    }
    if let Some(hex) = text.strip_prefix("0x").filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit())) {
        return radix(hex, 16);
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let decimal = text.strip_prefix('+').unwrap_or(text);
    decimal
        .parse::<i64>()
        .map(Value::from)
        .or_else(|_| decimal.parse::<u64>().map(Value::from))
        .ok()
        .or_else(|| decimal.parse::<f64>().ok().and_then(Number::from_f64).map(Value::Number))
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, or an infinity or NaN, which JSON has
/// no number for: they read as null, as serde_json reads them.
fn float(text: &str) -> Option<Value> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        return Some(Value::Null);
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(whole) && digits(fraction) && (!whole.is_empty() || !fraction.is_empty());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    // `1.` is a float, `.` alone is not; a fraction with no whole needs its digits.
    if !mantissa_ok || !exponent_ok || (whole.is_empty() && !mantissa.starts_with('.')) {
        return None;
    }
    text.parse::<f64>().ok().map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_the_core_schema() {
        for (text, value) in [
            ("", json!(null)),
            ("~", json!(null)),
            ("NULL", json!(null)),
            ("true", json!(true)),
            ("False", json!(false)),
            ("no", json!("no")),
            ("off", json!("off")),
            ("y", json!("y")),
            ("42", json!(42)),
            ("-7", json!(-7)),
            ("+7", json!(7)),
            ("007", json!(7)),
            ("0x1F", json!(31)),
            ("0o17", json!(15)),
            ("18446744073709551615", json!(18_446_744_073_709_551_615u64)),
            ("1.5", json!(1.5)),
            ("-.5", json!(-0.5)),
            ("1.", json!(1.0)),
            ("6.02e23", json!(6.02e23)),
            ("1e3", json!(1000.0)),
            (".inf", json!(null)),
            ("-.Inf", json!(null)),
            (".nan", json!(null)),
            (".", json!(".")),
            ("1_000", json!("1_000")),
            ("1.2.3", json!("1.2.3")),
            ("0x", json!("0x")),
            ("e3", json!("e3")),
            ("1e", json!("1e")),
            ("2026-12-05", json!("2026-12-05")),
            ("v1", json!("v1")),
        ] {
            assert_eq!(plain(text), value, "{text:?}");
        }
    }

    #[test]
    fn a_tag_asks_for_its_type() {
        assert_eq!(tagged("3", Asked::Float), Some(json!(3.0)));
        assert_eq!(tagged("yes", Asked::Bool), None);
        assert_eq!(tagged("~", Asked::Null), Some(json!(null)));
        assert_eq!(tagged("1.5", Asked::Int), None);
    }
}
