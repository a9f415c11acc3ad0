//! Sessions of the runtime's own pages, each by the digest of its token, so that one can be
//! found, ended, or ended with every other of its person's.

use super::AccessStore;
use crate::core::access::session::{EndSessionsOf, FindSession, OpenSession, Session};
use crate::core::Problem;

/// Keeps a session, and forgets those past their time.
///
/// # Errors
/// A failed write; a stop keeps neither.
pub fn open_session(store: &dyn AccessStore, open: OpenSession) -> Result<(), Problem> {
    let OpenSession { digest, session } = open;
    store.batch(&mut || {
        store.sweep_sessions(session.opened_at)?;
        store.put_session(&digest, &session)
    })
}

/// The live session under this digest.
///
/// # Errors
/// A failed read.
pub fn find_session(store: &dyn AccessStore, find: FindSession) -> Result<Option<Session>, Problem> {
    Ok(store.session(&find.digest)?.filter(|s| s.live(find.now)))
}

/// # Errors
/// A failed write.
pub fn end_session(store: &dyn AccessStore, digest: &str) -> Result<(), Problem> {
    store.end_session(digest)
}

/// Ends every session of the person; answers how many.
///
/// # Errors
/// A failed read or write.
pub fn end_sessions_of(store: &dyn AccessStore, end: EndSessionsOf) -> Result<u32, Problem> {
    store.end_sessions_of(&end.person)
}
