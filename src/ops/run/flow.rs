//! A workflow run in its object. Each input goes to the machine and its decision is kept (the
//! state, the records, the actions still to take) before any await, so inputs never interleave
//! and a restart finds every action it has not taken. The alarm takes them in order, rings at the
//! times steps wait for, and every 5 seconds while a step's function runs, asks it how it stands.

use serde_json::Value;

use super::Runner;
use crate::core::definition::{Kind, Ref};
use crate::core::run::life::{self, Input};
use crate::core::run::store::event;
use crate::core::run::store::{ChildEnded, FlowRead, Report, Reused, SentEvent, Stepped};
use crate::core::run::{Run, RunError, RunStatus, Within};
use crate::core::text::quote;
use crate::core::workflow::state::event_waits;
use crate::core::workflow::Outcome;
use crate::core::workflow::{decide, view, words, Action, Command, Flow, Plan, StepStatus};
use crate::core::Problem;
use crate::ops::run_start::{self, Asked, Views};

/// How often a running step's function is asked how it stands, in case its report was lost.
const HEARTBEAT_MILLIS: i64 = 5_000;
/// How often a round of actions hands its history to the playbook while steps keep starting.
const REPORT_EVERY_MILLIS: i64 = 250;

impl Runner<'_> {
    fn plan_and_flow(&self) -> Result<(Plan, Flow), Problem> {
        self.store.flow()?.ok_or_else(|| Problem::internal("a workflow run's state is missing"))
    }

    /// Keeps the plan the run started with, so a later version of the workflow never changes it;
    /// a run again from a step starts with its earlier steps as the old run ended them.
    pub(super) fn start_flow(&self, run: &mut Run, plan: Plan, reused: Option<&Reused>) -> Result<(), Problem> {
        let mut flow = Flow::new(&run.run_id, &plan);
        flow.rehearsal = run.rehearsal;
        if let Some(r) = reused {
            crate::core::workflow::rerun::seed(&mut flow, &r.steps, &r.started, &r.runs);
        }
        self.store.keep_plan(&plan, &flow)?;
        self.feed(run, &plan, &flow, Command::Start { input: run.input.clone() })
    }

    /// One input to the machine; what it decided is kept before anything is done about it.
    fn feed(&self, run: &mut Run, plan: &Plan, flow: &Flow, command: Command) -> Result<(), Problem> {
        self.store.batch(&mut || self.feed_kept(run, plan, flow, command.clone()))
    }

    fn feed_kept(&self, run: &mut Run, plan: &Plan, flow: &Flow, command: Command) -> Result<(), Problem> {
        let now = self.host.now();
        let at = crate::core::text::stamp(now);
        let decision = decide(plan, flow, command, now);
        self.store.keep_flow(&decision.flow)?;
        // The playbook delivers the events it records to the steps that wait for them.
        let before = flow.events_waited();
        for kind in decision.flow.events_waited().into_iter().filter(|k| !before.contains(k)) {
            self.store.push(&Report::Wait { kind })?;
        }
        let mut ended = None;
        for action in decision.actions {
            match action {
                Action::Record { kind, summary, data } => self.store.push(&event(run, &kind, &at, summary, data))?,
                Action::StartChild { .. } | Action::CancelChildren { .. } => self.store.push_todo(&action)?,
                // The alarm is set from the state once the input is kept; see `schedule`.
                Action::SetTimer { .. } => {}
                Action::Finish { output } => ended = Some(RunStatus::Succeeded { output, finished_at: at.clone() }),
                Action::Fail { error } => ended = Some(RunStatus::Failed { error, finished_at: at.clone() }),
            }
        }
        if let Some(status) = ended {
            let decision = life::decide(run.clone(), Input::FlowEnded(status), &at)?;
            self.keep(&decision)?;
            *run = decision.run;
        }
        Ok(())
    }

    /// Loads the run and its state, and gives the machine one input.
    fn command(&self, command: Command) -> Result<Run, Problem> {
        let mut run = self.store.run()?.ok_or_else(|| Problem::internal("a workflow run's record is missing"))?;
        if let Some((plan, flow)) = self.store.flow()? {
            self.feed(&mut run, &plan, &flow, command)?;
        }
        Ok(run)
    }

    /// The plan and state of a workflow run, for a run again from one of its steps.
    pub fn read_flow(&self, run_id: &str) -> Result<Option<FlowRead>, Problem> {
        self.existing(run_id)?;
        Ok(self.store.flow()?.map(|(plan, flow)| FlowRead { plan, flow }))
    }

    pub(super) fn cancel_flow(&self, run: &mut Run) -> Result<(), Problem> {
        if let Some((plan, flow)) = self.store.flow()? {
            self.feed(run, &plan, &flow, Command::Cancel)?;
        }
        Ok(())
    }

    pub(super) fn child_ended(&self, c: ChildEnded) -> Result<Run, Problem> {
        let run = self.existing(&c.run_id)?;
        if run.definition.kind != Kind::Workflow {
            return Ok(run);
        }
        self.command(Command::ChildFinished { step: c.step, run_id: c.child, outcome: c.outcome })
    }

    /// Takes an event for a step that waits for it, or will; refuses one nothing waits for.
    pub(super) fn event_sent(&self, e: SentEvent) -> Result<Run, Problem> {
        let run = self.existing(&e.run_id)?;
        if run.definition.kind != Kind::Workflow {
            return Err(Problem::conflict(format!(
                "The run {} is a run of the {} {}; only a workflow's run takes events.",
                run.run_id,
                run.definition.kind.noun(),
                quote(&run.definition.name)
            ))
            .with_field("/run_id", "names a run that is not a workflow's"));
        }
        if !matches!(run.status, RunStatus::Started { .. }) {
            return Err(Problem::conflict(format!(
                "The run {} has ended {}, so no step of it waits for an event any more.",
                run.run_id,
                run.status.word()
            ))
            .with_field("/run_id", "names a run that has ended"));
        }
        let (plan, flow) = self.plan_and_flow()?;
        if !event_waits(&plan, &flow).iter().any(|(_, filter)| filter.kind == e.name) {
            return Err(Problem::conflict(format!(
                "No step of the run {} waits for the event {}. {}",
                run.run_id,
                quote(&e.name),
                words::waits_on(&plan, &flow)
            ))
            .with_field("/name", "names an event no step of this run waits for"));
        }
        self.command(Command::EventArrived { name: e.name, data: e.data })
    }

    /// The run as an agent reads it: with its steps.
    pub(super) fn shown(&self, mut run: Run) -> Run {
        if let Ok(Some((plan, flow))) = self.store.flow() {
            run.steps = Some(view::steps(&plan, &flow));
        }
        run
    }

    /// Sets the alarm to the soonest thing the run waits for: actions still to take, a time a
    /// step waits for, or the heartbeat of a running step. Outside the alarm an earlier alarm
    /// stands, so that calls that come often never push the heartbeat away.
    pub(super) async fn schedule(&self, replace: bool) -> Result<(), Problem> {
        let now = self.host.now().timestamp_millis();
        let mut at: Option<i64> = self.store.next_todo()?.is_some().then_some(now);
        if let Some((_, flow)) = self.store.flow()? {
            if !flow.ended() {
                let due = flow.next_due().map(|d| d.timestamp_millis().max(now));
                let beat = (!flow.running_children().is_empty()).then_some(now + HEARTBEAT_MILLIS);
                at = [at, due, beat].into_iter().flatten().min();
            }
        }
        let Some(at) = at else { return Ok(()) };
        if !replace && self.host.alarm().await.is_some_and(|set| set <= at) {
            return Ok(());
        }
        self.host.wake(at).await;
        Ok(())
    }

    /// The alarm's work for a workflow run; one at a time, and the one under way takes what
    /// comes in meanwhile.
    pub(super) async fn drive(&self) -> Result<(), Problem> {
        if self.memory.driving.replace(true) {
            return Ok(());
        }
        // Should this alarm be cut short, the next one carries on.
        self.host.wake(self.host.now().timestamp_millis() + HEARTBEAT_MILLIS).await;
        let result = self.take_actions().await;
        self.memory.driving.set(false);
        let scheduled = self.schedule(true).await;
        result.and(scheduled)
    }

    async fn take_actions(&self) -> Result<(), Problem> {
        // Each function is read once per round, and the history goes to the playbook every so
        // often rather than after every step, so a long chain of quick steps stays quick.
        let read = Views::default();
        let mut reported = self.host.now().timestamp_millis();
        if let Some((_, flow)) = self.store.flow()? {
            if flow.next_due().is_some_and(|due| due <= self.host.now()) {
                let run = self.command(Command::TimerFired)?;
                self.report(&run).await?;
            }
        }
        while let Some((seq, action)) = self.store.next_todo()? {
            let run = self.store.run()?.ok_or_else(|| Problem::internal("a workflow run's record is missing"))?;
            let mut carried = Vec::new();
            let ended = match action {
                Action::StartChild { step, definition, input, run_id } => {
                    let (outcome, reports) = self.start_child(&read, &run, &step, definition, input, &run_id).await;
                    carried = reports;
                    outcome.map(|o| (step, run_id, o))
                }
                Action::CancelChildren { run_ids } => {
                    for id in run_ids {
                        if let Err(p) = self.host.backend().cancel_run(&run.org, &run.playbook, &id).await {
                            self.host.log(&format!("a step's run {id} could not be cancelled: {}", p.detail));
                        }
                    }
                    None
                }
                _ => None,
            };
            let mut after = run;
            self.store.batch(&mut || {
                self.store.done_todo(seq)?;
                // What the step's run recorded, carried to the playbook with this run's history.
                carried.iter().try_for_each(|report| self.store.push(report))?;
                if let Some((step, run_id, outcome)) = ended.clone() {
                    after = self.command(Command::ChildFinished { step, run_id, outcome })?;
                }
                Ok(())
            })?;
            let run = after;
            if self.host.now().timestamp_millis() - reported >= REPORT_EVERY_MILLIS {
                self.report(&run).await?;
                reported = self.host.now().timestamp_millis();
            }
        }
        self.heartbeat().await
    }

    /// Starts a step's function as a run of its own, under the id the machine gave it: a start
    /// that a restart cut short, taken again, answers the run it started and runs nothing. With
    /// its outcome, what a run that ended at once recorded, for this run to carry.
    async fn start_child(
        &self,
        read: &Views,
        run: &Run,
        step: &str,
        definition: Ref,
        input: Value,
        child: &str,
    ) -> (Option<Outcome>, Vec<Report>) {
        let backend = self.host.backend();
        let asked = Asked {
            org: run.org.clone(),
            playbook: run.playbook.clone(),
            definition,
            input,
            run_id: child.to_string(),
            now: self.stamp(),
            within: Some(Within { run_id: run.run_id.clone(), step: step.to_string() }),
            by: crate::core::actor::Actor::step(&run.run_id, step),
            again: None,
            stand_ins: self.step_stand_ins(run, step),
        };
        // Through the host the start reads the org's connections, should the step's function need
        // them, and the run renews one whose server refuses its credential.
        let renewal = super::host::Renewal { host: self.host, org: &run.org };
        let tools = self.host.tool_servers().renewing(&renewal);
        let models = self.host.models();
        let outside = run_start::Outside {
            models: &models,
            tools: &tools,
            connections: Some(&renewal),
            read: Some(read),
            now: self.host.now().timestamp(),
        };
        let started = run_start::start(backend, &outside, asked).await;
        match started {
            Ok(Stepped { run: child, mut carried }) => {
                // Carried history comes with the run for the index, after its events.
                if !carried.is_empty() {
                    carried.push(Report::Index(Box::new(child.clone())));
                }
                (Outcome::of(&child), carried)
            }
            Err(p) => {
                if p.status() == 409 {
                    if let Ok(existing) = backend.get_run(&run.org, &run.playbook, child).await {
                        return (Outcome::of(&existing), Vec::new());
                    }
                }
                let reason = crate::core::ErrorCode::of(p.reason, p.kind);
                (Some(Outcome::Failed { error: RunError { reason, detail: p.detail } }), Vec::new())
            }
        }
    }

    /// A rehearsal's stand-ins for its step's run, at its place among the runs of its function.
    fn step_stand_ins(&self, run: &Run, step: &str) -> Option<crate::core::run::rehearsal::StandIns> {
        let stand_ins = run.stand_ins.as_deref()?;
        let place = match self.store.flow() {
            Ok(Some((plan, flow))) => plan.runs_before(&flow.started, step),
            _ => 0,
        };
        Some(stand_ins.at(place))
    }

    /// Asks each running step's run how it stands, and takes the end of one that ended.
    async fn heartbeat(&self) -> Result<(), Problem> {
        let Some((_, flow)) = self.store.flow()? else { return Ok(()) };
        let run = self.store.run()?.ok_or_else(|| Problem::internal("a workflow run's record is missing"))?;
        for s in &flow.steps {
            let StepStatus::Running { run_id, .. } = &s.status else { continue };
            let outcome = match self.host.backend().get_run(&run.org, &run.playbook, run_id).await {
                Ok(child) => Outcome::of(&child),
                Err(p) if p.status() == 404 => Some(Outcome::Failed {
                    error: RunError {
                        reason: crate::core::ErrorCode::Lost,
                        detail: format!("The run {run_id} this step started was not found."),
                    },
                }),
                Err(_) => None,
            };
            if let Some(outcome) = outcome {
                self.command(Command::ChildFinished { step: s.id.clone(), run_id: run_id.clone(), outcome })?;
            }
        }
        // The run as it stands now goes to the playbook's index with what it recorded.
        let run = self.store.run()?.unwrap_or(run);
        self.report(&run).await
    }
}
