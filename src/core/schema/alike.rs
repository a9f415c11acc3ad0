//! Whether values are the same as JSON Schema compares them (`1` and `1.0` alike, an object's
//! keys in any order), for `enum`, `const` and `uniqueItems`, spending a check's budget a step for
//! each node met: a value is as large as a request, and a `$ref` that fans out compares it again
//! and again, so the work must count as it goes. `None` once the budget is spent.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use super::budget::Budget;
use super::keywords;

/// Whether `a` and `b` are equal, as `keywords::equal` says, or `None` once the budget is spent.
pub(super) fn equal(a: &Value, b: &Value, budget: &Budget) -> Option<bool> {
    if !budget.spend(1) {
        return None;
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (p, q) in x.iter().zip(y) {
                if !equal(p, q, budget)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (key, v) in x {
                let Some(w) = y.get(key) else { return Some(false) };
                if !equal(v, w, budget)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        _ => Some(keywords::equal(a, b)),
    }
}

/// Whether no two items are equal: only items of one digest are compared, so a long list costs
/// its size, not its length squared (10,000 rows took 13 s in a debug build).
pub(super) fn unique(items: &[Value], budget: &Budget) -> Option<bool> {
    let mut seen: HashMap<u64, Vec<&Value>> = HashMap::new();
    for item in items {
        let alike = seen.entry(digest(item, budget)?).or_default();
        for x in alike.iter() {
            if equal(x, item, budget)? {
                return Some(false);
            }
        }
        alike.push(item);
    }
    Some(true)
}

/// A digest that equal values share: a number by its value as a float (1 and 1.0 are equal), an
/// object whatever the order of its keys.
fn digest(value: &Value, budget: &Budget) -> Option<u64> {
    if !budget.spend(1) {
        return None;
    }
    let mut h = DefaultHasher::new();
    match value {
        Value::Null => 0u8.hash(&mut h),
        Value::Bool(b) => b.hash(&mut h),
        // `+ 0.0` makes -0.0 the same as 0.0, which it equals.
        Value::Number(n) => (n.as_f64().unwrap_or(0.0) + 0.0).to_bits().hash(&mut h),
        Value::String(s) => s.hash(&mut h),
        Value::Array(items) => {
            for item in items {
                digest(item, budget)?.hash(&mut h);
            }
        }
        Value::Object(fields) => {
            let mut sum = 0u64;
            for (key, field) in fields {
                let mut pair = DefaultHasher::new();
                (key, digest(field, budget)?).hash(&mut pair);
                sum = sum.wrapping_add(pair.finish());
            }
            (fields.len(), sum).hash(&mut h);
        }
    }
    Some(h.finish())
}
