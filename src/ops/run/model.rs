//! A reasoning run's model call: made while the start waits for it, or, for a workflow's step,
//! by the alarm, so that the workflow goes on while the model answers.

use super::host::Unanswered;
use super::Runner;
use crate::core::definition::reasoning::{self, Prepared};
use crate::core::model::{resolve, wire};
use crate::core::run::life::Input;
use crate::core::run::record::Reasoned;
use crate::core::run::{Run, RunError, RunStatus};
use crate::core::{ErrorCode, Problem};

/// How long past its provider's deadline a call's alarm waits before it takes the call as lost.
const LOST_AFTER_SECONDS: i64 = 30;

impl Runner<'_> {
    /// Makes a deferred call once. A run still waiting for its model when its alarm rings again
    /// lost its call with a restart of the runtime: it fails, with words that say so, rather
    /// than hang, and its model is never asked twice.
    pub(super) async fn model_alarm(&self, run: Run) -> Result<(), Problem> {
        if !matches!(run.status, RunStatus::Started { waiting: None }) {
            return self.report(&run).await;
        }
        let run = match self.store.deferred()? {
            Some((prepared, false)) => {
                self.store.asked()?;
                self.ask_model(run, prepared).await?
            }
            _ => self.input(&run.run_id, Input::Interrupted)?,
        };
        self.report(&run).await
    }

    /// Asks the model and keeps how the run ended. The alarm, set past the deadline first,
    /// catches a call that a restart of the runtime cut off.
    pub(super) async fn ask_model(&self, run: Run, prepared: Prepared) -> Result<Run, Problem> {
        let mut record = Box::new(Reasoned::asked(&prepared));
        let mut answered = false;
        let outcome = match resolve(&self.host.models(), &prepared.model) {
            Err(p) => Err(RunError { reason: p.kind.unwrap_or(ErrorCode::ModelNotConfigured), detail: p.detail }),
            Ok(target) => {
                record.resolved_to = Some(target.resolved.clone());
                let deadline = target.provider.timeout_seconds;
                let began = self.host.now().timestamp_millis();
                self.host.wake(began + (deadline as i64 + LOST_AFTER_SECONDS) * 1000).await;
                let out = wire::request(&target, &prepared.call);
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
                    Ok((status, body)) => wire::answer(&target.provider, status, &body).and_then(|answer| {
                        let took = self.host.now().timestamp_millis().saturating_sub(began);
                        record.answered(&answer, u64::try_from(took).unwrap_or(0));
                        answered = true;
                        reasoning::finish(&answer, &prepared.call)
                    }),
                }
            }
        };
        self.input(&run.run_id, Input::Model { record, answered, outcome })
    }
}
