//! A reasoning run's model call: made while the start waits for it, or, for a workflow's step,
//! by the alarm, so that the workflow goes on while the model answers. Where the function names
//! tools, the model may ask for calls: each call is kept before it is made and its answer before
//! the model reads it, round after round, until the model answers or a limit stops it.

use super::Runner;
use crate::core::definition::reasoning::dialogue::{Dialogue, Next};
use crate::core::definition::reasoning::{self, Prepared};
use crate::core::model::{resolve, wire, Target};
use crate::core::run::life::Input;
use crate::core::run::record::{Reasoned, Record};
use crate::core::run::{Run, RunError, RunStatus};
use crate::core::{ErrorCode, Problem};
use crate::ops::outbound::Unanswered;
use crate::ops::tool_binding;

/// Who answers a reasoning run's requests: its model, or, in a rehearsal, the stand-ins.
enum Asker<'a> {
    Model(&'a Target),
    StandIn {
        stand_ins: crate::core::run::rehearsal::StandIns,
        tools: Vec<crate::core::definition::reasoning::dialogue::Bound>,
        function: String,
    },
}

/// While a run's object works through its model's dialogue or a call, this says so, so that a
/// read or an alarm of the same object finds the work going rather than cut off; dropped, it
/// says so no more.
pub(super) struct Asking<'a>(pub(super) &'a std::cell::Cell<bool>);

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.0.set(false);
    }
}

impl Runner<'_> {
    /// Makes a deferred call once. A run still waiting for its model or a tool when its alarm
    /// rings, with no dialogue going in this object, lost its call with a restart of the
    /// runtime: it fails, with words that say so, rather than hang, and nothing is asked twice.
    pub(super) async fn model_alarm(&self, run: Run) -> Result<(), Problem> {
        if !matches!(run.status, RunStatus::Started { waiting: None }) {
            return self.report(&run).await;
        }
        let run = match self.store.deferred()? {
            Some((prepared, false)) => {
                let _asking = self.asking();
                self.store.asked()?;
                self.ask_model(run, prepared).await?
            }
            _ => self.input(&run.run_id, Input::Interrupted)?,
        };
        self.report(&run).await
    }

    /// Asks the model, and makes the calls it asks for, until the run ends; keeps how it ended.
    /// The alarm, set past each deadline first, catches what a restart of the runtime cut off.
    /// The caller holds `asking` while it runs.
    pub(super) async fn ask_model(&self, run: Run, prepared: Prepared) -> Result<Run, Problem> {
        let mut record = Box::new(Reasoned::asked(&prepared));
        if run.rehearsal {
            return self.rehearse_model(run, prepared, record).await;
        }
        let target = match resolve(&self.host.models(), &prepared.model) {
            Ok(target) => target,
            Err(p) => {
                let error = RunError { reason: p.kind.unwrap_or(ErrorCode::ModelNotConfigured), detail: p.detail };
                return self.input(&run.run_id, Input::Model { record, answered: false, outcome: Err(error) });
            }
        };
        record.resolved_to = Some(target.resolved.clone());
        let connections = self.connections_for(&run, prepared.tools.iter().map(String::as_str)).await;
        let org = run.org.clone();
        let renewal = super::host::Renewal { host: self.host, org: &org };
        let registry = self.host.tool_servers().with(&connections).renewing(&renewal);
        let now = self.host.now();
        let tools = match tool_binding::bind(&registry, &run.org, &run.playbook, &prepared.tools, now.timestamp()).await
        {
            Ok(tools) => tools,
            Err(p) => {
                let error = RunError { reason: ErrorCode::ToolUnavailable, detail: p.detail };
                return self.input(&run.run_id, Input::Model { record, answered: false, outcome: Err(error) });
            }
        };
        let dialogue = Dialogue::new(tools, now.timestamp_millis());
        self.converse(run, &prepared, record, dialogue, &registry, &Asker::Model(&target)).await
    }

    /// A rehearsal's dialogue: the model's answers are its stand-ins', in order, and its tools
    /// are bound to their stand-ins; nothing outside the runtime is asked.
    async fn rehearse_model(&self, run: Run, prepared: Prepared, mut record: Box<Reasoned>) -> Result<Run, Problem> {
        record.resolved_to = Some("the rehearsal's stand-in".into());
        let stand_ins = run.stand_ins.as_deref().cloned().unwrap_or_default();
        let tools = crate::core::run::rehearsal::bound(&prepared.tools);
        let registry = self.host.tool_servers();
        let dialogue = Dialogue::new(tools.clone(), self.host.now().timestamp_millis());
        let asker = Asker::StandIn { stand_ins, tools, function: run.definition.name.clone() };
        self.converse(run, &prepared, record, dialogue, &registry, &asker).await
    }

    /// The dialogue with the model, asked round after round, and the calls it asks for.
    async fn converse(
        &self,
        run: Run,
        prepared: &Prepared,
        mut record: Box<Reasoned>,
        mut dialogue: Dialogue,
        registry: &crate::ops::tool_servers::Registry<'_>,
        asker: &Asker<'_>,
    ) -> Result<Run, Problem> {
        let mut run = run;
        loop {
            dialogue.before_asking(self.host.now().timestamp_millis());
            let asked = match asker {
                Asker::Model(target) => self.ask_once(target, prepared, &dialogue).await,
                Asker::StandIn { stand_ins, tools, function } => {
                    stand_ins.model(function, record.turns as usize, tools).map(|answer| (answer, 0))
                }
            };
            let answer = match asked {
                Ok((answer, took)) => {
                    record.answered(&answer, took);
                    answer
                }
                Err(error) => {
                    return self.input(&run.run_id, Input::Model { record, answered: false, outcome: Err(error) })
                }
            };
            let planned = match dialogue.take(&answer) {
                Next::Finish => {
                    let outcome = reasoning::finish(&answer, &prepared.call);
                    return self.input(&run.run_id, Input::Model { record, answered: true, outcome });
                }
                Next::Fail(error) => {
                    return self.input(&run.run_id, Input::Model { record, answered: true, outcome: Err(error) })
                }
                Next::Call { planned, refused } => {
                    run = self.input(
                        &run.run_id,
                        Input::Tools { record: record.clone(), planned: planned.clone(), refused },
                    )?;
                    planned
                }
            };
            // What the run recorded goes to the playbook while slow calls are made, so its
            // history shows a slow call (`meanwhile`).
            let recorded = run.clone();
            let calls = async {
                for p in planned {
                    if !matches!(run.status, RunStatus::Started { .. }) {
                        break;
                    }
                    let called = self.call(&run, registry, &p).await;
                    dialogue.answered(&p, &called.0);
                    run = self.input(
                        &run.run_id,
                        Input::Called { planned: Box::new(p), called: called.0, duration_ms: called.1 },
                    )?;
                }
                Ok::<_, Problem>(run)
            };
            run = self.meanwhile(&recorded, calls).await?;
            if !matches!(run.status, RunStatus::Started { .. }) {
                return Ok(run);
            }
            if let Some(Record::Reasoning(kept)) = &run.record {
                record = Box::new(kept.clone());
            }
        }
    }

    /// One request to the model, within its provider's deadline: its answer and how long it took.
    async fn ask_once(
        &self,
        target: &Target,
        prepared: &Prepared,
        dialogue: &Dialogue,
    ) -> Result<(wire::Answer, u64), RunError> {
        let deadline = target.provider.timeout_seconds;
        let began = self.watch(deadline).await;
        let out = wire::request(target, &prepared.call, &dialogue.talk);
        let prefix = &target.provider.prefix;
        match self.host.ask(&out, deadline).await {
            Err(Unanswered::Timeout) => Err(RunError {
                reason: ErrorCode::ProviderTimeout,
                detail: format!("The provider {prefix} gave no answer within {deadline} seconds."),
            }),
            Err(Unanswered::Unreachable(why)) => Err(RunError {
                reason: ErrorCode::ProviderUnreachable,
                detail: format!("The provider {prefix} could not be reached: {why}."),
            }),
            Err(Unanswered::TooLarge(max)) => Err(RunError {
                reason: ErrorCode::ProviderError,
                detail: format!("The provider {prefix} answered more than {max} bytes, the most the runtime reads."),
            }),
            Ok((status, body)) => {
                wire::answer(&target.provider, status, &body).map(|answer| (answer, self.took(began)))
            }
        }
    }
}
