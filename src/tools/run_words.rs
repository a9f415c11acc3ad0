//! Words the run tools share: how a run's state reads in a summary.

use crate::core::run::words::output_words;
use crate::core::run::{Run, RunStatus};
use crate::core::text::{cap, quote, SUMMARY_MAX};

/// `the computation function “add-vat”`
pub fn of(run: &Run) -> String {
    format!(
        "the {} {}",
        run.definition.kind.noun(),
        quote(&run.definition.name)
    )
}

/// What a run came to, in one or two sentences.
pub fn outcome(run: &Run) -> String {
    let text = match &run.status {
        RunStatus::Started => format!(
            "The run {} of {} is still running. It carries on by itself, and get_run shows how it ends.",
            run.run_id,
            of(run)
        ),
        RunStatus::Succeeded { output, .. } => match output_words(output) {
            Some(words) => format!("The run {} of {} finished. Its result: {words}.", run.run_id, of(run)),
            None => format!(
                "The run {} of {} finished. Its result is in structuredContent, as output.",
                run.run_id,
                of(run)
            ),
        },
        RunStatus::Failed { error, .. } => format!(
            "The run {} of {} failed ({}): {} A new run needs a new run id, or none.",
            run.run_id,
            of(run),
            error.reason,
            error.detail.trim_end_matches('.').to_string() + "."
        ),
        RunStatus::Cancelled { .. } => format!("The run {} of {} was cancelled.", run.run_id, of(run)),
    };
    cap(&text, SUMMARY_MAX)
}
