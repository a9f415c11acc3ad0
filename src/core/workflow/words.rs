//! The summaries a workflow run records, in the words the spec's recorded run uses: each input
//! the workflow takes, and each step that moves.

use chrono::{DateTime, SecondsFormat, Utc};

use super::plan::{title, Plan};
use super::state::{event_waits, Awaiting, Flow, StepStatus};
use crate::core::text::{cap, count, join_and, quote, SUMMARY_MAX};

/// `The workflow started, and 1 step moved.`, `…; the workflow ended.`
pub fn applied(cause: &str, moved: usize, ended: bool) -> String {
    let moved = if moved == 0 { "no step moved".to_string() } else { format!("{} moved", count(moved, "step")) };
    let end = if ended { "; the workflow ended" } else { "" };
    cap(&format!("{cause}, and {moved}{end}."), SUMMARY_MAX)
}

pub const STARTED: &str = "The workflow started";
pub const ANSWERED: &str = "A function the workflow called answered";
pub const TIME_CAME: &str = "A time the workflow waited for came";
pub const CANCELLED: &str = "The workflow was cancelled";

pub fn event_came(name: &str) -> String {
    format!("The event {} reached the workflow", quote(name))
}

fn step(id: &str) -> String {
    format!("The step {}", quote(&title(id)))
}

pub fn waits_for_function(id: &str) -> String {
    format!("{} waits for a function it called.", step(id))
}

pub fn waits_for_event(id: &str, name: &str) -> String {
    format!("{} waits for the event {}.", step(id), quote(name))
}

pub fn waits_until(id: &str, at: DateTime<Utc>) -> String {
    format!("{} waits until {}.", step(id), time(at))
}

pub fn finished(id: &str) -> String {
    format!("{} finished.", step(id))
}

pub fn failed(id: &str, detail: &str) -> String {
    cap(&format!("{} failed: {}", step(id), detail.trim_end_matches('.')), SUMMARY_MAX - 1) + "."
}

pub fn retrying(id: &str, next: u32, of: u32, at: DateTime<Utc>) -> String {
    format!("{} failed; attempt {next} of {of} starts at {}.", step(id), time(at))
}

pub fn skipped(id: &str, why: &str) -> String {
    format!("{} was skipped: {why}.", step(id))
}

pub fn reused(id: &str) -> String {
    format!("{} kept what it ended with in the run this one was started again from.", step(id))
}

pub fn cancelled(id: &str) -> String {
    format!("{} was cancelled.", step(id))
}

/// `The step “review brief” failed: …`, the detail a failed workflow carries.
pub fn step_failed_detail(id: &str, detail: &str) -> String {
    format!("{} failed: {}", step(id), detail)
}

pub fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// What a run waits on now, for a refused event: `It waits for the event “approved” (the step
/// “sign off”).`, or what its steps are doing when none waits for an event.
pub fn waits_on(plan: &Plan, flow: &Flow) -> String {
    let titled = |id: &str| quote(&title(id));
    let events: Vec<String> = event_waits(plan, flow)
        .into_iter()
        .map(|(id, filter)| format!("{} (the step {})", quote(&filter.kind), titled(id)))
        .collect();
    if !events.is_empty() {
        return format!("It waits for the event {}.", join_and(&events));
    }
    let steps = |keep: fn(&StepStatus) -> bool| -> Vec<String> {
        flow.steps.iter().filter(|s| keep(&s.status)).map(|s| titled(&s.id)).collect()
    };
    let running = steps(|s| matches!(s, StepStatus::Running { .. } | StepStatus::Retrying { .. }));
    let timed = steps(|s| matches!(s, StepStatus::Waiting { on: Awaiting::Time { .. }, .. }));
    match (running.is_empty(), timed.is_empty()) {
        (false, _) => format!("It waits for no event: the step {} waits for a function it called.", join_and(&running)),
        (true, false) => format!("It waits for no event: the step {} waits for a time.", join_and(&timed)),
        (true, true) => "It waits for no event.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_words() {
        assert_eq!(applied(STARTED, 1, false), "The workflow started, and 1 step moved.");
        assert_eq!(applied(ANSWERED, 2, false), "A function the workflow called answered, and 2 steps moved.");
        assert_eq!(
            applied(ANSWERED, 1, true),
            "A function the workflow called answered, and 1 step moved; the workflow ended."
        );
        assert_eq!(
            waits_for_function("review_brief"),
            "The step \u{201c}review brief\u{201d} waits for a function it called."
        );
        assert_eq!(finished("ask_for_approval"), "The step \u{201c}ask for approval\u{201d} finished.");
    }
}
