//! The order of a workflow's steps: no cycle, no step that can never start, and expressions that
//! name only steps that have ended before them.

use std::collections::{BTreeSet, HashMap};

use super::check::{escape, Findings};
use crate::core::workflow::plan::{Action, OnFailure, Step, Wait};

/// What a step waits on before it can start: the steps it follows, and for a fallback the step
/// it stands in for.
fn waits_on(step: &Step) -> Vec<&str> {
    step.after.iter().map(String::as_str).chain(step.fallback_for.as_deref()).collect()
}

/// Refuses cycles and the steps behind them, then checks each step's expressions against the
/// steps that run before it. `None` when the order is broken.
pub fn check_graph(f: &mut Findings<'_>, steps: &[Step]) -> Option<()> {
    let index: HashMap<&str, usize> = steps.iter().enumerate().map(|(i, s)| (s.id.as_str(), i)).collect();
    let before: Vec<Option<BTreeSet<String>>> = (0..steps.len()).map(|i| ancestors(steps, &index, i)).collect();
    let mut broken = false;
    for (i, step) in steps.iter().enumerate() {
        if before[i].is_some() {
            continue;
        }
        broken = true;
        let place = if step.fallback_for.is_some() { "fallback" } else { "after" };
        let pointer = format!("/steps/{i}/{place}");
        let in_cycle = reaches(steps, &index, i, i);
        if in_cycle {
            f.error(
                pointer,
                format!("makes {} wait on itself: steps form no cycle; to run a step again, give it retry", step.id),
            );
        } else {
            let blocked: Vec<&str> =
                waits_on(step).into_iter().filter(|d| index.get(d).is_some_and(|&j| before[j].is_none())).collect();
            f.error(
                pointer,
                format!(
                    "leaves {} unreachable: it waits on {}, which never ends since it waits on itself",
                    step.id,
                    blocked.join(", ")
                ),
            );
        }
    }
    if broken {
        return None;
    }
    let all: Vec<String> = steps.iter().map(|s| s.id.clone()).collect();
    for (i, step) in steps.iter().enumerate() {
        let known: Vec<String> = before[i].iter().flatten().cloned().collect();
        let mut exprs: Vec<(String, &str)> = Vec::new();
        if let Action::Call { input, .. } = &step.action {
            exprs.extend(input.iter().map(|(k, e)| (format!("/steps/{i}/input/{}", escape(k)), e.as_str())));
        }
        if let Action::Wait(Wait::Until(e)) = &step.action {
            exprs.push((format!("/steps/{i}/wait/until"), e));
        }
        if let Some(e) = &step.when {
            exprs.push((format!("/steps/{i}/when"), e));
        }
        for (pointer, expr) in exprs {
            check_expression(f, &pointer, expr, Some(&known), &all);
        }
    }
    Some(())
}

/// The steps that have ended whenever step `i` starts, or `None` when it waits on a cycle.
fn ancestors(steps: &[Step], index: &HashMap<&str, usize>, i: usize) -> Option<BTreeSet<String>> {
    let mut found = BTreeSet::new();
    let mut stack: Vec<usize> = vec![i];
    let mut visited = BTreeSet::new();
    while let Some(at) = stack.pop() {
        for dep in waits_on(&steps[at]) {
            let &j = index.get(dep)?;
            if j == i {
                return None;
            }
            found.insert(dep.to_string());
            if visited.insert(j) {
                stack.push(j);
            }
        }
    }
    // A fallback of a step this one follows has ended too: it ran, or was skipped.
    let mut grew = true;
    while grew {
        grew = false;
        for dep in found.clone() {
            let fallback = index.get(dep.as_str()).and_then(|&j| match &steps[j].on_failure {
                OnFailure::Fallback(f) if index.get(f.as_str()) != Some(&i) => Some(f.clone()),
                _ => None,
            });
            if let Some(f) = fallback {
                grew |= found.insert(f);
            }
        }
    }
    // A step that waits on a broken step is broken too.
    found.iter().all(|d| index.get(d.as_str()).is_some_and(|&j| !reaches(steps, index, j, j))).then_some(found)
}

/// Whether `to` is among what `from` waits on, directly or through others.
fn reaches(steps: &[Step], index: &HashMap<&str, usize>, from: usize, to: usize) -> bool {
    let mut stack = vec![from];
    let mut visited = BTreeSet::new();
    while let Some(at) = stack.pop() {
        for dep in waits_on(&steps[at]) {
            let Some(&j) = index.get(dep) else { continue };
            if j == to {
                return true;
            }
            if visited.insert(j) {
                stack.push(j);
            }
        }
    }
    false
}

/// Compiles an expression over `input` and `steps`, and checks that each `steps.<id>` it names is
/// a step of the workflow that has ended before it (`before`; `None` skips that check).
pub fn check_expression(f: &mut Findings<'_>, pointer: &str, expr: &str, before: Option<&[String]>, all: &[String]) {
    f.expression(pointer, expr, &["input".to_string(), "steps".to_string()]);
    let Some(before) = before else { return };
    for name in step_names(expr) {
        if !all.contains(&name) {
            f.error(pointer, format!("names steps.{name}, but no step has the id {name}"));
        } else if !before.contains(&name) {
            let may = if before.is_empty() { "none, since it follows no step".to_string() } else { before.join(", ") };
            f.error(
                pointer,
                format!(
                    "names steps.{name}, which has not ended when this runs; it may name the steps it follows: {may}"
                ),
            );
        }
    }
}

/// The ids an expression names as `steps.<id>` or `steps["<id>"]`.
pub fn step_names(expr: &str) -> Vec<String> {
    let bytes = expr.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut names = Vec::new();
    let mut from = 0;
    while let Some(rel) = expr.get(from..).and_then(|s| s.find("steps")) {
        let at = from + rel;
        from = at + 5;
        let before = at.checked_sub(1).map(|j| bytes[j]);
        if before.is_some_and(|b| word(b) || b == b'.') {
            continue;
        }
        let rest = &expr[from..];
        let name = if let Some(r) = rest.strip_prefix('.') {
            r.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next()
        } else if let Some(r) = rest.strip_prefix("[\"").or_else(|| rest.strip_prefix("['")) {
            r.split(['"', '\'']).next()
        } else {
            None
        };
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_steps_an_expression_names() {
        assert_eq!(
            step_names("steps.review_brief.output.verdict == 'ok' and steps['ask'].status"),
            ["review_brief", "ask"]
        );
        assert!(step_names("input.steps.x or mysteps.y").is_empty());
    }
}
