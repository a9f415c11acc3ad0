//! Hands the playbook what waits in the run's outbox, in order, then the run's state for its
//! index. Events in a row go in one call; each report leaves the outbox only once the playbook
//! (or, for a step's end, the workflow run) has taken it.

use super::Runner;
use crate::core::event::NewEvent;
use crate::core::run::store::{ChildEnded, Report};
use crate::core::run::Run;
use crate::core::Problem;

/// How many waiting reports one round reads.
const OUTBOX_PAGE: usize = 100;

impl Runner<'_> {
    /// One report at a time: a second waits for the first, so nothing is sent twice and a caller
    /// answers only once what it recorded has reached the playbook. It waits for the lock, not
    /// for a while: whatever the report before left, this one sends, so success is never
    /// answered for what was not sent.
    pub(super) async fn report(&self, run: &Run) -> Result<(), Problem> {
        let _turn = self.memory.reporting.lock().await;
        let mut sent = false;
        loop {
            let reports = self.store.waiting(OUTBOX_PAGE)?;
            if reports.is_empty() {
                break;
            }
            sent = true;
            let mut i = 0;
            while i < reports.len() {
                let (n, events, steps) = appended(run, &reports[i..]);
                if n == 0 {
                    self.send_one(run, reports[i].1.clone()).await?;
                } else {
                    // The first events carry the run along when the index must hear: should a
                    // later report fail, the index already holds how the run stands.
                    let current = self.to_index()?;
                    let indexed = current.as_ref().map(|r| r.status.word());
                    self.host.append(run, events, current, steps).await?;
                    if indexed.is_some() {
                        self.memory.indexed.set(indexed);
                    }
                }
                let n = n.max(1);
                self.store.sent(reports[i].0, reports[i + n - 1].0)?;
                i += n;
            }
        }
        if sent {
            if let Some(current) = self.to_index()? {
                let word = current.status.word();
                self.host.index(run, current).await?;
                self.memory.indexed.set(Some(word));
            }
        }
        Ok(())
    }

    /// What a step's run that ended at its start answers its workflow run with, instead of
    /// reporting it (`StartStep`): the events waiting in its outbox, each keyed as this object
    /// would send it. They stay in the outbox, so that whatever this object reports later sends
    /// them again, and the playbook takes each event it holds as kept already. None when nothing
    /// waits, or anything but events: that goes as the run reports it. (The index has not heard
    /// the run from this object either, so a later report indexes it too.)
    pub(super) fn carried(&self, run: &Run) -> Result<Vec<Report>, Problem> {
        let waiting = self.store.waiting(OUTBOX_PAGE)?;
        if waiting.len() == OUTBOX_PAGE {
            return Ok(Vec::new());
        }
        let events: Option<Vec<Report>> = waiting
            .into_iter()
            .map(|(seq, r)| match r {
                Report::Event(e) => Some(Report::Event(keyed(run, seq, e))),
                _ => None,
            })
            .collect();
        Ok(events.unwrap_or_default())
    }

    /// The run as it stands now (it may have moved while reports went) when the playbook's
    /// index has not heard its status from this object yet.
    fn to_index(&self) -> Result<Option<Box<Run>>, Problem> {
        Ok(self.store.run()?.filter(|r| self.memory.indexed.get() != Some(r.status.word())).map(Box::new))
    }

    async fn send_one(&self, run: &Run, report: Report) -> Result<(), Problem> {
        match report {
            Report::Event(event) => self.host.append(run, vec![event], None, Vec::new()).await,
            Report::Index(step) => self.host.append(run, Vec::new(), None, vec![*step]).await,
            Report::Request(command) => self.host.request(run, command).await,
            Report::Wait { kind } => self.host.await_events(run, kind).await,
            Report::Parent { within, child, outcome } => {
                let ended = ChildEnded { run_id: within.run_id.clone(), step: within.step, child, outcome };
                match self.host.tell_parent(run, ended).await {
                    Ok(()) => Ok(()),
                    // A refusal is not answered by asking again; the parent's heartbeat reads
                    // the child's end itself.
                    Err(p) if p.status() < 500 => {
                        self.host
                            .log(&format!("the workflow run {} refused a step's end: {}", within.run_id, p.detail));
                        Ok(())
                    }
                    Err(p) => Err(p),
                }
            }
        }
    }
}

/// An event as the playbook keeps it: keyed by the run and its place in the outbox, unless a
/// step's run keyed it already, for the workflow run that carries it.
fn keyed(run: &Run, seq: i64, event: NewEvent) -> NewEvent {
    let key = event.key.clone().or_else(|| Some(format!("{}#{seq}", run.run_id)));
    NewEvent { key, ..event }
}

/// The reports at the head of `reports` that go in one append: events, and the runs of steps
/// carried with them. Answers how many it took, the events and the runs.
fn appended(run: &Run, reports: &[(i64, Report)]) -> (usize, Vec<NewEvent>, Vec<Run>) {
    let (mut events, mut steps) = (Vec::new(), Vec::new());
    for (seq, report) in reports {
        match report {
            Report::Event(e) => events.push(keyed(run, *seq, e.clone())),
            Report::Index(step) => steps.push((**step).clone()),
            _ => break,
        }
    }
    (events.len() + steps.len(), events, steps)
}
