//! Pictures, as SVG: a workflow drawn from its plan, a run of it drawn on the same picture with
//! each step coloured by how it went, the timeline of a run's steps, and a function's Mermaid
//! diagram. Pure and deterministic; every text is escaped, and a picture holds no script, no
//! foreignObject, no link and no reference to anything outside it.

pub mod layout;
pub mod mermaid;
pub mod status;
pub mod svg;
pub mod timeline;
pub mod workflow;

#[cfg(test)]
mod tests;

/// The media type every picture is served as.
pub const MEDIA_TYPE: &str = "image/svg+xml";

pub use mermaid::mermaid;
pub use timeline::timeline;
pub use workflow::{rehearsal, run, workflow};
