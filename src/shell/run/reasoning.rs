//! A reasoning run's model call: made while the start waits for it, or, for a workflow's step,
//! by the alarm, so that the workflow goes on while the model answers.

use serde::Deserialize;

use super::super::models::{self, Unanswered};
use super::super::playbook::storage;
use super::RunObject;
use crate::core::definition::reasoning::{self, Prepared};
use crate::core::model::{resolve, wire};
use crate::core::run::record::{Reasoned, Record};
use crate::core::run::{Run, RunError, RunStatus};
use crate::core::text::quote;
use crate::core::Problem;

#[derive(Deserialize)]
struct Deferred {
    call: String,
    asked: i64,
}

impl RunObject {
    /// Keeps a step's call for the alarm to make.
    pub(super) fn defer(&self, prepared: &Prepared) -> Result<(), Problem> {
        let text = serde_json::to_string(prepared).map_err(|e| Problem::internal(format!("could not encode: {e}")))?;
        self.sql
            .exec("INSERT OR REPLACE INTO deferred (id, call, asked) VALUES (1, ?, 0)", vec![text.into()])
            .map_err(storage)?;
        Ok(())
    }

    /// Makes a deferred call once. A run still waiting for its model when its alarm rings again
    /// lost its call with a restart of the runtime: it fails, with words that say so, rather than
    /// hang, and its model is never asked twice.
    pub(super) async fn reasoning_alarm(&self, run: Run) -> Result<(), Problem> {
        if !matches!(run.status, RunStatus::Started { waiting: None }) {
            return self.report(&run).await;
        }
        let rows: Vec<Deferred> = self
            .sql
            .exec("SELECT call, asked FROM deferred WHERE id = 1", None)
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        if let Some(d) = rows.first().filter(|d| d.asked == 0) {
            let prepared: Prepared = serde_json::from_str(&d.call)
                .map_err(|e| Problem::internal(format!("a kept model call could not be read: {e}")))?;
            self.sql.exec("UPDATE deferred SET asked = 1 WHERE id = 1", None).map_err(storage)?;
            let run = self.reason(run, prepared).await?;
            return self.report(&run).await;
        }
        let mut run = run;
        let now = super::super::env::now();
        run.status = RunStatus::Failed {
            error: RunError {
                reason: "interrupted".into(),
                detail: "The runtime stopped while the model was answering, so its answer was lost. Start a new run; this run id is never run again.".into(),
            },
            finished_at: now.clone(),
        };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        self.ended_later(&run)?;
        self.report(&run).await
    }

    /// Asks the model and keeps how the run ended. An alarm past the deadline catches a call
    /// that a restart of the runtime cut off.
    pub(super) async fn reason(&self, mut run: Run, prepared: Prepared) -> Result<Run, Problem> {
        let settings = models::settings(&self.env);
        let mut record = Reasoned::asked(&prepared);
        let outcome = match resolve(&settings, &prepared.model) {
            Err(p) => {
                Err(RunError { reason: p.kind.unwrap_or_else(|| "model_not_configured".into()), detail: p.detail })
            }
            Ok(target) => {
                record.resolved_to = Some(target.resolved.clone());
                let deadline = target.provider.timeout_seconds;
                self.wake(worker::Date::now().as_millis() as i64 + (deadline as i64 + 30) * 1000).await;
                let began = worker::Date::now().as_millis();
                let out = wire::request(&target, &prepared.call);
                let prefix = &target.provider.prefix;
                match models::send(&out, deadline).await {
                    Err(Unanswered::Timeout) => Err(RunError {
                        reason: "provider_timeout".into(),
                        detail: format!("The provider {prefix} gave no answer within {deadline} seconds."),
                    }),
                    Err(Unanswered::Unreachable(why)) => Err(RunError {
                        reason: "provider_unreachable".into(),
                        detail: format!("The provider {prefix} could not be reached: {why}."),
                    }),
                    Ok((status, body)) => match wire::answer(&target.provider, status, &body) {
                        Err(error) => Err(error),
                        Ok(answer) => {
                            let now = super::super::env::now();
                            record.answered(&answer, worker::Date::now().as_millis().saturating_sub(began));
                            let words = format!("The model {} answered.", quote(&prepared.model));
                            self.record(&run, "model_answered", &now, words, record.answered_event())?;
                            reasoning::finish(&answer, &prepared.call)
                        }
                    },
                }
            }
        };
        let now = super::super::env::now();
        // A cancel that came while the model answered stands: the answer is dropped.
        if let Some(current) = self.load()? {
            if !matches!(current.status, RunStatus::Started { .. }) {
                return Ok(current);
            }
        }
        run.record = Some(Record::Reasoning(record));
        run.status = match outcome {
            Ok(output) => RunStatus::Succeeded { output, finished_at: now.clone() },
            Err(error) => RunStatus::Failed { error, finished_at: now.clone() },
        };
        self.save(&run)?;
        self.record_outcome(&run, &now)?;
        self.ended_later(&run)?;
        Ok(run)
    }
}
