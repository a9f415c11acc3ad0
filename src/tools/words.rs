//! Words the tools share: how a playbook is named in a summary, a summary kept within its
//! bound, and the sentence a page with more after it ends with.

use crate::core::playbook::Playbook;
use crate::core::text::{cap, quote, SUMMARY_MAX};

/// `“Monthly close” (pb_…)`
pub fn named(p: &Playbook) -> String {
    format!("{} ({})", quote(&p.name), p.id)
}

pub fn fits(summary: String) -> String {
    cap(&summary, SUMMARY_MAX)
}

/// What a summary adds when its page has a next one.
pub fn more(more: bool) -> &'static str {
    if more {
        " More follow: pass next_cursor to read on."
    } else {
        ""
    }
}
