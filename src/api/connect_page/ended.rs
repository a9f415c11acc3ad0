//! The pages of a link that can no longer be used, each in words that say what to do next, and
//! the page a consent at the service finishes on.

use super::frame::{page, Notice};
use crate::api::sign_in_pages::escape;

/// Why a link shows no form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended<'a> {
    /// The connection is connected: the link has done its work.
    Connected { title: &'a str },
    /// The link's 24 hours are over.
    Expired { title: &'a str },
    /// A newer link of the same connection replaced this one.
    Replaced { title: &'a str },
    /// The person cancelled on the page.
    Cancelled { title: &'a str },
    /// The connection was removed.
    Removed { title: &'a str },
    /// Someone other than the person who added the connection opened its link.
    NotYours,
    /// No connection of the org has this link.
    Unknown,
}

impl Ended<'_> {
    /// The status a page of this kind is answered with.
    pub fn status(&self) -> u16 {
        match self {
            Ended::Connected { .. } | Ended::Cancelled { .. } => 200,
            Ended::Expired { .. } | Ended::Replaced { .. } | Ended::Removed { .. } => 410,
            Ended::NotYours => 403,
            Ended::Unknown => 404,
        }
    }
}

/// The page of a link that shows no form.
pub fn ended(state: &Ended) -> String {
    let (heading, words) = match *state {
        Ended::Connected { title } => (
            format!("{title} is connected"),
            "Nothing is left to open: you can close this page and go back to your agent, which can use it now.".to_string(),
        ),
        Ended::Expired { title } => (
            "This link has expired".to_string(),
            format!(
                "A link lasts 24 hours, and nothing was connected through this one. Ask your agent to reconnect the {} connection for a new link.",
                escape(title)
            ),
        ),
        Ended::Replaced { title } => (
            "A newer link replaced this one".to_string(),
            format!(
                "Open the newest link your agent gave you for the {} connection. Asking your agent to reconnect it would replace that one too.",
                escape(title)
            ),
        ),
        Ended::Cancelled { title } => (
            "Cancelled".to_string(),
            format!(
                "You cancelled the {} connection, so nothing is connected. Your agent can add it again if you change your mind.",
                escape(title)
            ),
        ),
        Ended::Removed { title } => (
            "This connection was removed".to_string(),
            format!(
                "The {} connection was removed, so nothing is connected. Your agent can add it again for a new link.",
                escape(title)
            ),
        ),
        Ended::NotYours => (
            "This link is not yours".to_string(),
            "Only the person who added this connection may use its link. If that was you, sign in as that person; otherwise ask your agent to add the connection for you.".to_string(),
        ),
        Ended::Unknown => (
            "This link is not known here".to_string(),
            "No connection has this link. Check that you opened the whole address your agent gave you, or ask your agent for a new link.".to_string(),
        ),
    };
    page(&heading, &format!("<h1>{}</h1><p>{words}</p>", escape(&heading)))
}

/// How a consent at the service ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish<'a> {
    /// The service allowed the connection.
    Allowed { title: &'a str, service: &'a str, connected: bool, page: Option<&'a str> },
    /// The service refused, or the person declined there; `words` are the service's own.
    Refused { title: &'a str, service: &'a str, words: Option<&'a str>, page: Option<&'a str> },
    /// The person allowed it, but the runtime could not finish with the service (its token
    /// endpoint failed, stalled or answered what cannot be read); `words` are the runtime's.
    Failed { title: &'a str, service: &'a str, words: &'a str, page: Option<&'a str> },
}

/// The page a consent finishes on, back from the service.
pub fn finished(finish: &Finish) -> String {
    match *finish {
        Finish::Allowed { title, service, connected: true, .. } => page(
            &format!("{title} is connected"),
            &format!(
                "{}<h1>{} is connected</h1><p>Nothing is left to open: you can close this page and go back to your agent, which can use it now.</p>",
                Notice::done(format!("{service} allowed the connection.")).html(),
                escape(title)
            ),
        ),
        Finish::Allowed { title, service, connected: false, page: back } => {
            let more = match back {
                Some(to) => format!(
                    "<p><a href=\"{}\">Go back to the connection's page</a> to approve it.</p>",
                    escape(to)
                ),
                None => "<p>Open the connection's link again to approve it.</p>".to_string(),
            };
            page(
                &format!("{service} allowed it"),
                &format!(
                    "{}<h1>Approve the {} connection</h1>{more}",
                    Notice::done(format!("{service} allowed the connection.")).html(),
                    escape(title)
                ),
            )
        }
        Finish::Refused { title, service, words, page: back } => {
            let said = words
                .filter(|w| !w.trim().is_empty())
                .map(|w| format!("<p>{} said: <q>{}</q></p>", escape(service), escape(&clip(w))))
                .unwrap_or_default();
            let again = match back {
                Some(to) => format!(
                    "<p>Nothing is connected. <a href=\"{}\">Go back to the connection's page</a> to try again while its link lasts, or cancel it there.</p>",
                    escape(to)
                ),
                None => "<p>Nothing is connected. Open the connection's link again to try once more while it lasts.</p>"
                    .to_string(),
            };
            page(
                "Not connected",
                &format!(
                    "{}<h1>{} is not connected</h1>{said}{again}",
                    Notice::refused(format!("{service} did not allow the connection.")).html(),
                    escape(title)
                ),
            )
        }
        Finish::Failed { title, service, words, page: back } => {
            let again = match back {
                Some(to) => format!(
                    "<p>Nothing is connected yet. <a href=\"{}\">Go back to the connection's page</a> and sign in again in a moment, while its link lasts.</p>",
                    escape(to)
                ),
                None => "<p>Nothing is connected yet. Open the connection's link again in a moment, while it lasts.</p>".to_string(),
            };
            page(
                "Not finished",
                &format!(
                    "{}<h1>{} is not connected yet</h1><p>{}</p>{again}",
                    Notice::caution(format!("The sign-in at {service} did not finish.")).html(),
                    escape(title),
                    escape(&clip(words))
                ),
            )
        }
    }
}

/// A service's words, kept short: its whole error is for its logs, not this page.
fn clip(words: &str) -> String {
    crate::core::text::start_within(words.trim(), 300).to_string()
}
