//! What a playbook owes its workflows when a time comes or an event is kept: the runs their
//! triggers start, under ids that name the trigger and the time or event (so a repeat after a
//! restart names the same run), and the events runs that wait receive. Pure: the playbook's object
//! keeps these and acts on them.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::trigger::{next_due, Declared, Fired};
use crate::core::actor::Actor;
use crate::core::definition::record::DefinitionStatus;
use crate::core::definition::store::DefinitionView;
use crate::core::definition::workflow::plan;
use crate::core::definition::{Kind, Ref};
use crate::core::event::NewEvent;
use crate::core::text::{cap, quote, SUMMARY_MAX};

/// A workflow's trigger as the playbook keeps it, with the next time it is due; `None` for an
/// event trigger, or set times all past.
#[derive(Debug, Clone, PartialEq)]
pub struct Armed {
    pub workflow: String,
    /// Its place in the workflow's `triggers`.
    pub idx: i64,
    /// The org the runs it starts belong to.
    pub org: String,
    pub declared: Declared,
    pub next_at: Option<DateTime<Utc>>,
}

/// A run a trigger owes, until it is started or the playbook records why it was not.
#[derive(Debug, Clone, PartialEq)]
pub struct Owed {
    pub workflow: String,
    pub idx: i64,
    pub org: String,
    pub run_id: String,
    /// The run's input, or why the trigger gives none.
    pub input: Result<Value, String>,
}

/// A workflow run that waits for playbook events of a kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiter {
    pub run_id: String,
    pub kind: String,
    pub org: String,
}

/// A playbook event owed to a run that waits for its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub run_id: String,
    pub kind: String,
    pub org: String,
    pub data: Value,
}

/// A workflow's triggers as its latest save and state say: an active workflow's, each next due
/// after `now`, so a resume starts with no backlog; none for a paused or retired one.
pub fn arm(org: &str, view: &DefinitionView, now: DateTime<Utc>) -> Vec<Armed> {
    let definition = &view.definition;
    if definition.kind != Kind::Workflow || definition.status != DefinitionStatus::Active {
        return Vec::new();
    }
    let Ok(plan) = plan(&view.document) else { return Vec::new() };
    let armed = |(i, declared): (usize, Declared)| Armed {
        workflow: definition.name.clone(),
        idx: i as i64,
        org: org.to_string(),
        next_at: next_due(&declared.trigger, now),
        declared,
    };
    plan.triggers.into_iter().enumerate().map(armed).collect()
}

impl Armed {
    /// The alarm rings at `now`: a time trigger due by then owes one run, for the time it was
    /// due, and is next due after `now`, so times that passed while the runtime was down owe no
    /// run each. Answers the run and the next time, or `None` when it is not due.
    pub fn ring(&self, now: DateTime<Utc>) -> Option<(Owed, Option<DateTime<Utc>>)> {
        let due = self.next_at.filter(|at| *at <= now)?;
        let run_id = format!("{}-{}-{}", prefix(&self.workflow), self.idx, due.timestamp());
        let owed = self.owe(run_id, self.declared.input(Fired::Time(due)));
        Some((owed, next_due(&self.declared.trigger, now)))
    }

    /// The run the event kept at `position` owes, if this trigger takes it. An event recorded by
    /// a run the workflow's own trigger started never starts that workflow again, so a workflow
    /// cannot keep itself going.
    pub fn take(&self, position: i64, event: &NewEvent) -> Option<Owed> {
        let own = prefix(&self.workflow);
        if !self.declared.takes(&event.kind, &event.data) || recorded_by(event).unwrap_or_default().starts_with(&own) {
            return None;
        }
        let run_id = format!("{own}-e{position}-{}", self.idx);
        Some(self.owe(run_id, self.declared.input(Fired::Event { kind: &event.kind, data: &event.data })))
    }

    fn owe(&self, run_id: String, input: Result<Value, String>) -> Owed {
        Owed { workflow: self.workflow.clone(), idx: self.idx, org: self.org.clone(), run_id, input }
    }
}

impl Owed {
    pub fn definition(&self) -> Ref {
        Ref { kind: Kind::Workflow, name: self.workflow.clone() }
    }

    /// Who the run names as its starter.
    pub fn by(&self) -> Actor {
        Actor::trigger(&self.workflow, self.idx)
    }

    /// The playbook's record that this run was not started, `why` being a refusal's detail. It
    /// is kept once however often it is recorded: the alarm records it again after a restart.
    pub fn refused(&self, why: &str, at: String) -> NewEvent {
        let sentence = format!(
            "A trigger of the workflow {} did not start a run: {}",
            quote(&self.workflow),
            why.trim_end_matches('.')
        );
        NewEvent {
            kind: "trigger_refused".into(),
            at,
            summary: cap(&sentence, SUMMARY_MAX - 1) + ".",
            run_id: None,
            data: json!({ "workflow": self.workflow, "trigger": self.idx, "run_id": self.run_id, "detail": why }),
            family: None,
            key: Some(format!("{}#refused", self.run_id)),
        }
    }
}

/// Why a trigger whose input expressions failed gives no run, as its refusal says.
pub fn no_input(why: &str) -> String {
    format!("its input has no value: {why}")
}

impl Waiter {
    /// The delivery `event` owes this run: one of the kind it waits for, but not one it recorded
    /// itself, which would answer its own wait.
    pub fn take(&self, event: &NewEvent) -> Option<Delivery> {
        if event.kind != self.kind || recorded_by(event) == Some(self.run_id.as_str()) {
            return None;
        }
        Some(Delivery {
            run_id: self.run_id.clone(),
            kind: self.kind.clone(),
            org: self.org.clone(),
            data: event.data.clone(),
        })
    }
}

/// The run whose history holds the event: the workflow run for its steps' runs' events.
fn recorded_by(event: &NewEvent) -> Option<&str> {
    event.family.as_deref().or(event.run_id.as_deref())
}

/// The start of the ids of the runs a workflow's triggers start: `t` and the 32-bit FNV-1a hash of
/// its name in 8 hex digits, short and the same on every machine.
fn prefix(workflow: &str) -> String {
    let hash = workflow.bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    format!("t{hash:08x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::workflow::{Filter, Trigger};

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn armed(workflow: &str, trigger: Trigger, next_at: Option<DateTime<Utc>>) -> Armed {
        let declared = Declared { trigger, input: None };
        Armed { workflow: workflow.into(), idx: 1, org: "o".into(), declared, next_at }
    }

    fn event(kind: &str, data: Value, run_id: Option<&str>, family: Option<&str>) -> NewEvent {
        NewEvent {
            kind: kind.into(),
            at: "2025-06-02T09:00:00.000Z".into(),
            summary: "s".into(),
            run_id: run_id.map(Into::into),
            data,
            family: family.map(Into::into),
            key: None,
        }
    }

    #[test]
    fn run_ids_name_the_workflow_the_trigger_and_the_time_or_event() {
        assert_eq!(prefix("ticking"), "tf1e27db4");
        assert_eq!(prefix("on-order"), "t614ff959");
        assert_eq!(prefix(""), "t811c9dc5");
        let every = armed("ticking", Trigger::Every { seconds: 60 }, Some(t("2025-06-02T09:01:00.250Z")));
        let (owed, next) = every.ring(t("2025-06-02T09:01:00.500Z")).unwrap();
        assert_eq!(owed.run_id, "tf1e27db4-1-1748854860");
        assert_eq!(next, Some(t("2025-06-02T09:02:00.500Z")));
        let on = armed("on-order", Trigger::Event { filter: Filter::kind("order_placed") }, None);
        let owed = on.take(42, &event("order_placed", json!({"a": 1}), None, None)).unwrap();
        assert_eq!(owed.run_id, "t614ff959-e42-1");
        assert_eq!(owed.input, Ok(json!({"a": 1})));
    }

    #[test]
    fn a_trigger_rings_once_when_due_and_takes_no_event_of_its_own_workflow() {
        let every = armed("ticking", Trigger::Every { seconds: 60 }, Some(t("2025-06-02T09:01:00Z")));
        assert_eq!(every.ring(t("2025-06-02T09:00:59.999Z")), None);
        assert_eq!(armed("x", Trigger::At { times: vec![] }, None).ring(t("2030-01-01T00:00:00Z")), None);
        let on = armed("on-order", Trigger::Event { filter: Filter::kind("order_placed") }, None);
        let data = json!({});
        assert!(on.take(1, &event("order_shipped", data.clone(), None, None)).is_none());
        assert!(on.take(1, &event("order_placed", data.clone(), Some("t614ff959-e1-1"), None)).is_none());
        assert!(on.take(1, &event("order_placed", data.clone(), Some("s1"), Some("t614ff959-0-9"))).is_none());
        assert!(on.take(1, &event("order_placed", data.clone(), Some("tf1e27db4-0-9"), None)).is_some());
        assert!(on.take(1, &event("order_placed", data, Some("run_abc"), None)).is_some());
    }

    #[test]
    fn a_waiting_run_never_receives_its_own_events() {
        let w = Waiter { run_id: "run_a".into(), kind: "approved".into(), org: "o".into() };
        assert!(w.take(&event("approved", json!(1), Some("run_a"), None)).is_none());
        assert!(w.take(&event("approved", json!(1), Some("run_a-step-1"), Some("run_a"))).is_none());
        assert!(w.take(&event("rejected", json!(1), None, None)).is_none());
        let d = w.take(&event("approved", json!({"by": "ann"}), Some("run_b"), None)).unwrap();
        assert_eq!(
            d,
            Delivery { run_id: "run_a".into(), kind: "approved".into(), org: "o".into(), data: json!({"by": "ann"}) }
        );
    }

    #[test]
    fn a_refusal_says_which_trigger_and_why_in_one_capped_sentence() {
        let owed = Owed {
            workflow: "on-order".into(),
            idx: 0,
            org: "o".into(),
            run_id: "t614ff959-e3-0".into(),
            input: Ok(json!({})),
        };
        let e = owed.refused("The input is missing order.", "2025-06-02T09:00:00.000Z".into());
        assert_eq!(e.kind, "trigger_refused");
        assert_eq!(
            e.summary,
            "A trigger of the workflow \u{201c}on-order\u{201d} did not start a run: The input is missing order."
        );
        assert_eq!(
            e.data.to_string(),
            r#"{"workflow":"on-order","trigger":0,"run_id":"t614ff959-e3-0","detail":"The input is missing order."}"#
        );
        assert_eq!(e.key.as_deref(), Some("t614ff959-e3-0#refused"));
        let long = owed.refused(&no_input(&"x".repeat(500)), String::new());
        assert_eq!(long.summary.chars().count(), SUMMARY_MAX);
        assert!(long.summary.ends_with("\u{2026}."), "{}", long.summary);
        assert!(long.summary.contains(": its input has no value: xxx"));
    }
}
