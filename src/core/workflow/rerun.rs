//! A workflow run again from one of its steps: the steps before it, in the plan's order, keep what
//! they ended with in the old run, and the step and everything after it run again. Decided here,
//! from the old run's plan and state and the plan the new run starts with.

use std::collections::BTreeMap;

use super::plan::{Action, Plan};
use super::state::{child_run_id, Flow, StepState, StepStatus};
use crate::core::text::{join_and, quote};
use crate::core::{FieldError, Problem};

fn refused(detail: String) -> Problem {
    Problem::conflict(detail.clone()).with_field("/from_step", detail)
}

/// The states the new run's steps before `from_step` start in, taken from the old run; refused
/// where the step is not in the old run or the new plan, where the new plan changed a step before
/// it (each named), or where a step before it did not end as succeeded or skipped.
pub fn reused(old_plan: &Plan, old_flow: &Flow, new_plan: &Plan, from_step: &str) -> Result<Vec<StepState>, Problem> {
    let ids = |plan: &Plan| plan.steps.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
    let Some(old_at) = old_plan.steps.iter().position(|s| s.id == from_step) else {
        return Err(Problem::invalid_fields(vec![FieldError::new(
            "/from_step",
            format!("names no step of the old run; its steps are {}", join_and(&ids(old_plan))),
        )]));
    };
    let Some(new_at) = new_plan.steps.iter().position(|s| s.id == from_step) else {
        return Err(refused(format!(
            "The workflow's current version has no step {}, so the run cannot go on from it; its steps are {}.",
            quote(from_step),
            join_and(&ids(new_plan))
        )));
    };
    let (old_before, new_before) = (&old_plan.steps[..old_at], &new_plan.steps[..new_at]);
    let mut changed: Vec<String> = Vec::new();
    for step in new_before {
        match old_before.iter().find(|s| s.id == step.id) {
            Some(old) if old == step => {}
            Some(_) => changed.push(format!("{} changed", quote(&step.id))),
            None => changed.push(format!("{} is new", quote(&step.id))),
        }
    }
    for step in old_before.iter().filter(|s| !new_before.iter().any(|n| n.id == s.id)) {
        changed.push(format!("{} is gone", quote(&step.id)));
    }
    if !changed.is_empty() {
        return Err(refused(format!(
            "The workflow's current version changed the steps before {}: {}. Their outputs in the old run would not be what this version computes, so run it again whole, or from the first step that changed.",
            quote(from_step),
            join_and(&changed)
        )));
    }
    let mut states = Vec::with_capacity(new_before.len());
    for step in new_before {
        let state = old_flow.steps.iter().find(|s| s.id == step.id);
        match state.map(|s| &s.status) {
            Some(status @ (StepStatus::Succeeded { .. } | StepStatus::Skipped { .. })) => {
                states.push(StepState { id: step.id.clone(), status: status.clone() })
            }
            other => {
                let word = other.map_or("not started", StepStatus::word);
                return Err(refused(format!(
                    "The step {} before {} is {word} in the old run, so it has no output to take; run again from {} instead.",
                    quote(&step.id),
                    quote(from_step),
                    quote(&step.id)
                )));
            }
        }
    }
    Ok(states)
}

/// The run each reused step's function ran as: where the old run took it from an older one, that
/// one; else the old run's own child of the step's last attempt.
pub fn kept_runs(old_plan: &Plan, old_flow: &Flow, reused: &[StepState]) -> BTreeMap<String, String> {
    reused
        .iter()
        .filter_map(|s| {
            if let Some(kept) = old_flow.kept_runs.get(&s.id) {
                return Some((s.id.clone(), kept.clone()));
            }
            let calls = old_plan.step(&s.id).is_some_and(|p| matches!(p.action, Action::Call { .. }));
            match (&s.status, calls) {
                (StepStatus::Succeeded { attempt, .. }, true) => {
                    Some((s.id.clone(), child_run_id(&old_flow.run_id, &s.id, *attempt)))
                }
                _ => None,
            }
        })
        .collect()
}

/// Puts the reused states in a new run's state, in the order the old run started them, with the
/// runs their functions ran as.
pub fn seed(flow: &mut Flow, reused: &[StepState], old_started: &[String], kept_runs: &BTreeMap<String, String>) {
    flow.kept_runs = kept_runs.clone();
    for state in reused {
        if let Some(step) = flow.steps.iter_mut().find(|s| s.id == state.id) {
            step.status = state.status.clone();
        }
    }
    for id in old_started.iter().filter(|id| reused.iter().any(|r| &r.id == *id)) {
        if !flow.started.contains(id) {
            flow.started.push(id.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::definition::workflow::plan;

    const FLOW: &str = "---\ndescription: Adds VAT three times\ninput:\n  schema: { type: object, properties: { net: { type: number } }, required: [net] }\nsteps:\n  - id: s1\n    function: computation/add-vat\n    input:\n      net: input.net\n  - id: s2\n    function: computation/add-vat\n    input:\n      net: steps.s1.output.gross\n  - id: s3\n    function: computation/add-vat\n    input:\n      net: steps.s2.output.gross\n---\n";

    fn ended(plan: &Plan, failing: &str) -> Flow {
        let mut flow = Flow::new("wf1", plan);
        let at = chrono::DateTime::parse_from_rfc3339("2026-12-07T10:00:00Z").unwrap().with_timezone(&chrono::Utc);
        for s in flow.steps.iter_mut() {
            s.status = if s.id == failing {
                StepStatus::Failed {
                    error: crate::core::run::RunError { reason: crate::core::ErrorCode::Input, detail: "no".into() },
                    attempt: 1,
                    started_at: at,
                    finished_at: at,
                }
            } else {
                StepStatus::Succeeded {
                    output: serde_json::json!({ "gross": 1 }),
                    attempt: 1,
                    started_at: at,
                    finished_at: at,
                }
            };
        }
        flow.started = vec!["s1".into(), "s2".into(), "s3".into()];
        flow
    }

    #[test]
    fn the_steps_before_are_taken_as_they_ended() {
        let p = plan(FLOW).unwrap();
        let old = ended(&p, "s3");
        let states = reused(&p, &old, &p, "s3").unwrap();
        assert_eq!(states.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["s1", "s2"]);
        let mut fresh = Flow::new("wf2", &p);
        let runs = kept_runs(&p, &old, &states);
        seed(&mut fresh, &states, &old.started, &runs);
        assert_eq!(fresh.started, ["s1", "s2"]);
        let view = crate::core::workflow::view::steps(&p, &fresh);
        assert_eq!(view[0].run_id.as_deref(), Some("wf1-s1-1"), "the step links to the run it came from");
        // Run again from that run, the first step still links to the run that ran it.
        let mut third = Flow::new("wf3", &p);
        let states = reused(&p, &fresh, &p, "s2").unwrap();
        seed(&mut third, &states, &fresh.started, &kept_runs(&p, &fresh, &states));
        assert_eq!(third.kept_runs.get("s1").map(String::as_str), Some("wf1-s1-1"));
        assert!(matches!(fresh.steps[2].status, StepStatus::Pending));
        assert!(reused(&p, &old, &p, "s1").unwrap().is_empty(), "from the first step, nothing is taken");
    }

    #[test]
    fn a_step_not_there_a_changed_step_and_a_step_without_output_are_refused_in_words() {
        let p = plan(FLOW).unwrap();
        let old = ended(&p, "s2");
        let missing = reused(&p, &old, &p, "s9").unwrap_err();
        assert_eq!(missing.errors[0].pointer, "/from_step");
        assert!(missing.errors[0].detail.contains("s1, s2 and s3"), "{missing:?}");
        let failed = reused(&p, &old, &p, "s3").unwrap_err();
        assert!(failed.detail.contains("“s2” before “s3” is failed"), "{}", failed.detail);
        let changed = plan(&FLOW.replace("net: steps.s1.output.gross", "net: input.net")).unwrap();
        let refused = reused(&p, &ended(&p, "s3"), &changed, "s3").unwrap_err();
        assert!(refused.detail.contains("“s2” changed"), "{}", refused.detail);
        let shorter = plan(&FLOW.replace(
            "  - id: s3\n    function: computation/add-vat\n    input:\n      net: steps.s2.output.gross\n",
            "",
        ))
        .unwrap();
        let gone = reused(&p, &ended(&p, "s3"), &shorter, "s3").unwrap_err();
        assert!(gone.detail.contains("has no step “s3”"), "{}", gone.detail);
    }
}
