//! Which request goes to which endpoint of which object, and what it answers: one `Call` per
//! endpoint, so that caller and callee cannot disagree on a body.

use std::collections::BTreeMap;

use super::do_rpc::Call;
use crate::core::access::key::{KeyRecord, KeyView, ListKeys, MakeKey, RevokeKey, VerifyKey};
use crate::core::access::oauth::client::Client;
use crate::core::access::oauth::error::OAuthError;
use crate::core::access::oauth::exchange::TokenResponse;
use crate::core::access::role::{Role, RoleAssignment};
use crate::core::access::store::{
    BeginSignIn, Consent, GetClient, IssueToken, ListRoles, Pending, PutClient, PutConsent, RevokeToken, RolesOf,
    SaveGrant, SetRole, TakeConsent, TakePending, Verified, VerifyToken,
};
use crate::core::definition::store::{DefinitionPage, DefinitionView, GetDefinition, ListDefinitions, WriteDefinition};
use crate::core::directory::{Change, GetPlaybook, ListPage, ListQuery, Save};
use crate::core::event::{Event, EventPage, GetEvent, ListEvents, ReadEvents, WriteEvents};
use crate::core::model::catalog::{Kept, ReadLists};
use crate::core::playbook::Playbook;
use crate::core::run::store::{
    AnswerRun, CancelRun, ChildEnded, GetRun, ListRequests, ListRuns, ReadRuns, RequestPage, RunPage, SentEvent,
    StartRun, WriteIndex, WriteRequests,
};
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

/// A request to one playbook's tables, which names the playbook it is for: its object answers
/// only when it keeps that playbook.
pub trait ToPlaybook: Call {
    fn playbook(&self) -> &str;
}

macro_rules! to_playbook {
    ($($request:ty),* $(,)?) => {
        $(impl ToPlaybook for $request {
            fn playbook(&self) -> &str {
                &self.playbook
            }
        })*
    };
}

to_playbook!(
    WriteDefinition,
    GetDefinition,
    ListDefinitions,
    WriteEvents,
    ListEvents,
    GetEvent,
    ReadEvents,
    WriteIndex,
    ListRuns,
    ReadRuns,
    WriteRequests,
    ListRequests,
);

impl Call for WriteDefinition {
    const PATH: &'static str = "/definitions";
    type Reply = DefinitionView;
}

impl Call for GetDefinition {
    const PATH: &'static str = "/definition";
    type Reply = DefinitionView;
}

impl Call for ListDefinitions {
    const PATH: &'static str = "/definitions/list";
    type Reply = DefinitionPage;
}

impl Call for WriteEvents {
    const PATH: &'static str = "/events";
    type Reply = Vec<Event>;
}

impl Call for ListEvents {
    const PATH: &'static str = "/events/list";
    type Reply = EventPage;
}

impl Call for GetEvent {
    const PATH: &'static str = "/events/get";
    type Reply = Event;
}

impl Call for ReadEvents {
    const PATH: &'static str = "/events/read";
    type Reply = Vec<Event>;
}

impl Call for WriteIndex {
    const PATH: &'static str = "/runs";
    type Reply = ();
}

impl Call for ListRuns {
    const PATH: &'static str = "/runs/list";
    type Reply = RunPage;
}

impl Call for ReadRuns {
    const PATH: &'static str = "/runs/read";
    type Reply = Vec<Run>;
}

impl Call for WriteRequests {
    const PATH: &'static str = "/requests";
    type Reply = ();
}

impl Call for ListRequests {
    const PATH: &'static str = "/requests/list";
    type Reply = RequestPage;
}

// The Access object: keys, roles, and the authorization server's state.

impl Call for MakeKey {
    const PATH: &'static str = "/keys/make";
    type Reply = ();
}

impl Call for ListKeys {
    const PATH: &'static str = "/keys/list";
    type Reply = Vec<KeyView>;
}

impl Call for RevokeKey {
    const PATH: &'static str = "/keys/revoke";
    type Reply = KeyView;
}

impl Call for VerifyKey {
    const PATH: &'static str = "/keys/verify";
    type Reply = Option<KeyRecord>;
}

impl Call for ListRoles {
    const PATH: &'static str = "/roles/list";
    type Reply = Vec<RoleAssignment>;
}

impl Call for SetRole {
    const PATH: &'static str = "/roles/set";
    type Reply = RoleAssignment;
}

impl Call for PutClient {
    const PATH: &'static str = "/sign-in/put-client";
    type Reply = ();
}

impl Call for GetClient {
    const PATH: &'static str = "/sign-in/get-client";
    type Reply = Option<Client>;
}

impl Call for BeginSignIn {
    const PATH: &'static str = "/sign-in/begin";
    type Reply = ();
}

impl Call for TakePending {
    const PATH: &'static str = "/sign-in/take-pending";
    type Reply = Option<Pending>;
}

impl Call for RolesOf {
    const PATH: &'static str = "/sign-in/roles-of";
    type Reply = Vec<(String, Role)>;
}

impl Call for PutConsent {
    const PATH: &'static str = "/sign-in/put-consent";
    type Reply = ();
}

impl Call for TakeConsent {
    const PATH: &'static str = "/sign-in/take-consent";
    type Reply = Option<Consent>;
}

impl Call for SaveGrant {
    const PATH: &'static str = "/sign-in/save-grant";
    type Reply = ();
}

impl Call for IssueToken {
    const PATH: &'static str = "/sign-in/token";
    type Reply = Result<TokenResponse, OAuthError>;
}

impl Call for RevokeToken {
    const PATH: &'static str = "/sign-in/revoke";
    type Reply = Result<(), OAuthError>;
}

impl Call for VerifyToken {
    const PATH: &'static str = "/sign-in/verify";
    type Reply = Option<Verified>;
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
