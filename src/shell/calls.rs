//! Which request goes to which endpoint of which object, and what it answers: one `Call` per
//! endpoint, so that caller and callee cannot disagree on a body.

use std::collections::BTreeMap;

use super::do_rpc::Call;
use crate::core::directory::{Change, GetPlaybook, ListPage, ListQuery, Save};
use crate::core::model::catalog::{Kept, ReadLists};
use crate::core::playbook::Playbook;
use crate::core::run::store::{AnswerRun, CancelRun, ChildEnded, GetRun, SentEvent, StartRun};
use crate::core::run::Run;

// The Organization object: the org's directory.

impl Call for Change {
    const PATH: &'static str = "/change";
    type Reply = Playbook;
}

impl Call for ListQuery {
    const PATH: &'static str = "/list";
    type Reply = ListPage;
}

// The Playbook object: one playbook, its definitions, runs index, events and open requests.

impl Call for GetPlaybook {
    const PATH: &'static str = "/get";
    type Reply = Playbook;
}

impl Call for Save {
    const PATH: &'static str = "/save";
    type Reply = Playbook;
}

// The Catalog object: the providers' lists of models.

impl Call for ReadLists {
    const PATH: &'static str = "/lists";
    type Reply = BTreeMap<String, Kept>;
}

// The Run object: one run.

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
