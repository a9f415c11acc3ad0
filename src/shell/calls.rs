//! Which request goes to which endpoint of which object, and what it answers: one `Call` per
//! endpoint, so that caller and callee cannot disagree on a body.

use super::do_rpc::Call;
use crate::core::run::store::{AnswerRun, CancelRun, ChildEnded, GetRun, SentEvent, StartRun};
use crate::core::run::Run;

impl Call for StartRun {
    const PATH: &'static str = "/start";
    type Reply = Run;
}

impl Call for GetRun {
    const PATH: &'static str = "/get";
    type Reply = Run;
}

impl Call for AnswerRun {
    const PATH: &'static str = "/answer";
    type Reply = Run;
}

impl Call for CancelRun {
    const PATH: &'static str = "/cancel";
    type Reply = Run;
}

impl Call for ChildEnded {
    const PATH: &'static str = "/child";
    type Reply = Run;
}

impl Call for SentEvent {
    const PATH: &'static str = "/event";
    type Reply = Run;
}
