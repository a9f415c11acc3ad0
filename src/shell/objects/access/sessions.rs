//! Sessions of the runtime's own pages, in the Access object: each by the digest of its token,
//! with the person's id so that all of theirs can be ended at once.

use super::{storage, AccessObject};
use crate::core::access::session::{EndSessionsOf, FindSession, OpenSession, Session};
use crate::core::Problem;
use crate::shell::objects::records::{encode, time};

#[derive(serde::Deserialize)]
struct Count {
    n: i64,
}

impl AccessObject {
    pub(super) fn open_session(&self, open: OpenSession) -> Result<(), Problem> {
        let OpenSession { digest, session } = open;
        self.run("DELETE FROM sessions WHERE expires_at < ?", vec![time(session.opened_at).into()])?;
        self.run(
            "INSERT OR REPLACE INTO sessions (digest, person, record, expires_at) VALUES (?, ?, ?, ?)",
            vec![digest.into(), session.person.id().into(), encode(&session)?.into(), time(session.expires_at).into()],
        )
    }

    pub(super) fn find_session(&self, find: FindSession) -> Result<Option<Session>, Problem> {
        let session: Option<Session> = self.record("SELECT record FROM sessions WHERE digest = ?", &[&find.digest])?;
        Ok(session.filter(|s| s.live(find.now)))
    }

    pub(super) fn end_session(&self, digest: &str) -> Result<(), Problem> {
        self.run("DELETE FROM sessions WHERE digest = ?", vec![digest.to_string().into()])
    }

    pub(super) fn end_sessions_of(&self, end: EndSessionsOf) -> Result<u32, Problem> {
        let counted: Vec<Count> = self
            .sql
            .exec("SELECT COUNT(*) AS n FROM sessions WHERE person = ?", vec![end.person.clone().into()])
            .and_then(|c| c.to_array())
            .map_err(storage)?;
        self.run("DELETE FROM sessions WHERE person = ?", vec![end.person.into()])?;
        Ok(counted.first().map_or(0, |c| u32::try_from(c.n).unwrap_or(0)))
    }
}
