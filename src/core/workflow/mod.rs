//! Workflows at run time, kept pure: the plan a workflow document describes, the state of one
//! run of it, the machine that moves that state one input at a time, the step view, and the
//! triggers and event filters that start runs, and what they owe when they fire. The shell keeps
//! state, acts and keeps time.

pub mod eval;
pub mod filter;
pub mod io;
pub mod machine;
pub mod owed;
pub mod plan;
pub mod rerun;
pub mod state;
pub mod step_view;
pub mod trigger;
pub mod view;
pub mod words;

#[cfg(test)]
mod tests;

pub use filter::Filter;
pub use machine::{decide, Action, Command, Decision, Outcome};
pub use plan::Plan;
pub use state::{Flow, FlowStatus, StepStatus};
pub use trigger::{next_due, Declared, Fired, Trigger};
