//! A playbook's triggers and waits at work: keeping each workflow's triggers armed, owing runs
//! to those due and to the events they take, owing events to the runs that wait for them, and
//! paying what is owed when the playbook's alarm rings. Storage is a `TriggerStore` and the time
//! is given, so the host tests run it all over memory with a failure wherever they choose.
//!
//! Each debt is kept before what caused it is marked done, so a restart between any two writes
//! finds it still owed, never lost. Paying it again starts nothing twice: a run is started under
//! an id made from its trigger and its time or event, and the run's object answers a start
//! under an id it holds with that run.

use chrono::{DateTime, TimeDelta, Utc};

use super::run_start::{start, Asked, Outside};
use super::tool_servers::Registry;
use super::Backend;
use crate::core::definition::store::DefinitionView;
use crate::core::event::{EventCommand, NewEvent};
use crate::core::model::ModelSettings;
use crate::core::workflow::owed::{arm, no_input, Armed, Delivery, Owed, Waiter};
use crate::core::Problem;

/// The most debts of each kind one ring of the alarm pays; the rest wait for the next.
pub const PAID_PER_RING: usize = 50;

/// The playbook's four trigger tables: its armed triggers, the runs that wait for events, the
/// events owed to them, and the runs owed. Queued debts are numbered in the order they were owed.
pub trait TriggerStore {
    /// Every armed trigger of the playbook, by workflow and place.
    fn armed(&self) -> Result<Vec<Armed>, Problem>;
    /// Drops every trigger of a workflow.
    fn disarm(&self, workflow: &str) -> Result<(), Problem>;
    fn arm(&self, armed: &Armed) -> Result<(), Problem>;
    /// Sets when a trigger is next due.
    fn move_on(&self, workflow: &str, idx: i64, next_at: Option<DateTime<Utc>>) -> Result<(), Problem>;

    fn owe(&self, owed: &Owed) -> Result<(), Problem>;
    /// The oldest runs owed, at most `PAID_PER_RING`.
    fn owed(&self) -> Result<Vec<(i64, Owed)>, Problem>;
    fn paid(&self, seq: i64) -> Result<(), Problem>;

    /// Keeps a wait; keeping one kept already changes nothing.
    fn wait(&self, waiter: &Waiter) -> Result<(), Problem>;
    fn waiters(&self) -> Result<Vec<Waiter>, Problem>;
    fn unwait(&self, run_id: &str, kind: &str) -> Result<(), Problem>;

    fn deliver(&self, delivery: &Delivery) -> Result<(), Problem>;
    /// The oldest deliveries owed, at most `PAID_PER_RING`.
    fn deliveries(&self) -> Result<Vec<(i64, Delivery)>, Problem>;
    fn delivered(&self, seq: i64) -> Result<(), Problem>;
}

/// Keeps a workflow's triggers as its latest save and state say (see `arm`).
pub fn sync(
    store: &(impl TriggerStore + ?Sized),
    org: &str,
    view: &DefinitionView,
    now: DateTime<Utc>,
) -> Result<(), Problem> {
    store.disarm(&view.definition.name)?;
    arm(org, view, now).iter().try_for_each(|armed| store.arm(armed))
}

/// Owes a run to each time trigger due by `now`, then moves it on to its next time.
pub fn take_due(store: &(impl TriggerStore + ?Sized), now: DateTime<Utc>) -> Result<(), Problem> {
    for armed in store.armed()? {
        let Some((owed, next_at)) = armed.ring(now) else { continue };
        store.owe(&owed)?;
        store.move_on(&armed.workflow, armed.idx, next_at)?;
    }
    Ok(())
}

/// Owes runs to the event triggers that take the events just kept (each with its position), and
/// deliveries to the runs that wait for them; answers whether anything is owed, for the alarm.
pub fn take_events(store: &(impl TriggerStore + ?Sized), events: &[(i64, NewEvent)]) -> Result<bool, Problem> {
    let mut owed = false;
    for armed in store.armed()? {
        for (position, event) in events {
            if let Some(run) = armed.take(*position, event) {
                store.owe(&run)?;
                owed = true;
            }
        }
    }
    for waiter in store.waiters()? {
        for (_, event) in events {
            if let Some(delivery) = waiter.take(event) {
                store.deliver(&delivery)?;
                owed = true;
            }
        }
    }
    Ok(owed)
}

/// Keeps that a workflow run waits for events of `kind`, until a delivery to it is refused.
pub fn wait(store: &(impl TriggerStore + ?Sized), org: &str, run_id: &str, kind: &str) -> Result<(), Problem> {
    store.wait(&Waiter { run_id: run_id.to_string(), kind: kind.to_string(), org: org.to_string() })
}

/// When the alarm should ring next, and no sooner than `delay_millis` from `now`: now while
/// anything is owed, else when the soonest trigger is due; `None` when nothing ever is.
pub fn alarm_at(
    store: &(impl TriggerStore + ?Sized),
    now: DateTime<Utc>,
    delay_millis: i64,
) -> Result<Option<DateTime<Utc>>, Problem> {
    let soonest = if !store.owed()?.is_empty() || !store.deliveries()?.is_empty() {
        Some(now)
    } else {
        store.armed()?.iter().filter_map(|a| a.next_at).min()
    };
    let earliest = now + TimeDelta::try_milliseconds(delay_millis).unwrap_or_default();
    Ok(soonest.map(|at| at.max(earliest)))
}

/// What a ring of the playbook's alarm at `now` does: owes the runs of the time triggers due,
/// starts the runs owed, and delivers the events owed. A failure leaves the rest owed, for the
/// next ring.
pub async fn fire(
    store: &(impl TriggerStore + ?Sized),
    backend: &dyn Backend,
    models: &ModelSettings,
    playbook: &str,
    now: DateTime<Utc>,
) -> Result<(), Problem> {
    take_due(store, now)?;
    for (seq, owed) in store.owed()? {
        pay(backend, models, playbook, &owed, now).await?;
        store.paid(seq)?;
    }
    for (seq, d) in store.deliveries()? {
        match backend.send_run_event(&d.org, playbook, &d.run_id, &d.kind, d.data.clone()).await {
            Ok(_) => store.delivered(seq)?,
            // Refused: the run no longer waits (it ended, say), so nothing more goes to it.
            Err(p) if p.status() < 500 => {
                store.delivered(seq)?;
                store.unwait(&d.run_id, &d.kind)?;
            }
            Err(p) => return Err(p),
        }
    }
    Ok(())
}

/// Starts a run a trigger owes, as `run_definition` would; a refusal (an input the workflow's
/// schema refuses, a workflow paused meanwhile) is recorded in the playbook's history instead.
async fn pay(
    backend: &dyn Backend,
    models: &ModelSettings,
    playbook: &str,
    owed: &Owed,
    now: DateTime<Utc>,
) -> Result<(), Problem> {
    // Runs and events write their times in RFC 3339 with milliseconds.
    let now = crate::core::text::stamp(now);
    let why = match &owed.input {
        Err(why) => no_input(why),
        Ok(input) => {
            let asked = Asked {
                org: owed.org.clone(),
                playbook: playbook.to_string(),
                definition: owed.definition(),
                input: input.clone(),
                run_id: owed.run_id.clone(),
                now: now.clone(),
                within: None,
                by: owed.by(),
                again: None,
                stand_ins: None,
            };
            // A trigger starts a workflow, which reaches no tool at its start; its steps check theirs.
            let outside = Outside { models, tools: &Registry::none(), connections: None, read: None, now: 0 };
            match start(backend, &outside, asked).await {
                Ok(_) => return Ok(()),
                Err(p) if p.status() >= 500 => return Err(p),
                Err(p) => p.detail,
            }
        }
    };
    let events = vec![owed.refused(&why, now)];
    backend.events(&owed.org, playbook, EventCommand::append(events)).await.map(|_| ())
}

#[cfg(not(target_arch = "wasm32"))]
pub mod memory;
#[cfg(test)]
mod tests;
