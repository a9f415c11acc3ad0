//! Which request goes to which endpoint of which object, and what it answers: one `Call` per
//! endpoint, so that caller and callee cannot disagree on a body.

use std::collections::BTreeMap;

use crate::core::access::key::{KeyRecord, KeyView, ListKeys, MakeKey, RevokeKey, VerifyKey};
use crate::core::access::oauth::client::Client;
use crate::core::access::oauth::error::OAuthError;
use crate::core::access::oauth::exchange::TokenResponse;
use crate::core::access::role::{Role, RoleAssignment};
use crate::core::access::session::{
    BeginPageSignIn, EndSession, EndSessionsOf, FindSession, OpenSession, PageSignIn, Session, TakePageSignIn,
};
use crate::core::access::store::{
    BeginSignIn, Consent, FindClient, GetClient, IssueToken, KeptClient, ListRoles, Pending, PutClient, PutConsent,
    RevokeToken, RolesOf, SaveGrant, SetRole, TakeConsent, TakePending, Verified, VerifyToken,
};
use crate::core::asset::{Asset, GetAsset, KeepAsset};
use crate::core::comment::{Comment, CommentPage, ListComments, WriteComment};
use crate::core::connection::store::{ChangeConnection, ConnectionPage, GetConnection, ListConnections};
use crate::core::connection::Connection;
use crate::core::definition::store::{
    DefinitionPage, DefinitionView, GetDefinition, ListDefinitions, ListOffered, WriteDefinition,
};
use crate::core::definition::workflow_tool::Offered;
use crate::core::directory::{Change, GetPlaybook, ListPage, ListQuery, Save};
use crate::core::event::{Event, EventPage, GetEvent, ListEvents, ReadEvents, WriteEvents};
use crate::core::model::catalog::{Kept, ReadLists};
use crate::core::playbook::Playbook;
use crate::core::run::store::{
    AnswerRun, CancelRun, ChildEnded, FlowRead, GetRun, ListRequests, ListRuns, ReadFlow, ReadRuns, RequestPage,
    RunPage, SentEvent, StartRun, StartStep, Stepped, WriteIndex, WriteRequests,
};
use crate::core::run::Run;
use crate::shell::do_rpc::Call;

/// `Request => "/path", Reply;`: each request type names its endpoint and what it answers.
macro_rules! calls {
    ($($request:ty => $path:literal, $reply:ty;)*) => {
        $(impl Call for $request {
            const PATH: &'static str = $path;
            type Reply = $reply;
        })*
    };
}

// The Organization object: the org's directory.

calls! {
    Change => "/change", Playbook;
    ListQuery => "/list", ListPage;
    ChangeConnection => "/connections/change", Connection;
    GetConnection => "/connections/get", Connection;
    ListConnections => "/connections/list", ConnectionPage;
}

// Both the Organization object (the org's own) and the Playbook object (a playbook's): comments.

calls! {
    WriteComment => "/comments/write", Comment;
    ListComments => "/comments/list", CommentPage;
}

// The Playbook object: one playbook, its definitions, runs index, events and open requests.

calls! {
    GetPlaybook => "/get", Playbook;
    Save => "/save", Playbook;
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
    ListOffered,
    WriteEvents,
    ListEvents,
    GetEvent,
    ReadEvents,
    WriteIndex,
    ListRuns,
    ReadRuns,
    WriteRequests,
    ListRequests,
    KeepAsset,
    GetAsset,
);

calls! {
    WriteDefinition => "/definitions", DefinitionView;
    GetDefinition => "/definition", DefinitionView;
    ListDefinitions => "/definitions/list", DefinitionPage;
    ListOffered => "/definitions/offered", Vec<Offered>;
    WriteEvents => "/events", Vec<Event>;
    ListEvents => "/events/list", EventPage;
    GetEvent => "/events/get", Event;
    ReadEvents => "/events/read", Vec<Event>;
    WriteIndex => "/runs", ();
    ListRuns => "/runs/list", RunPage;
    ReadRuns => "/runs/read", Vec<Run>;
    WriteRequests => "/requests", ();
    ListRequests => "/requests/list", RequestPage;
    KeepAsset => "/assets/keep", Asset;
    GetAsset => "/assets/get", Asset;
}

// The Access object: keys, roles, grants and the pages' sessions.

calls! {
    MakeKey => "/keys/make", ();
    ListKeys => "/keys/list", Vec<KeyView>;
    RevokeKey => "/keys/revoke", KeyView;
    VerifyKey => "/keys/verify", Option<KeyRecord>;
    ListRoles => "/roles/list", Vec<RoleAssignment>;
    SetRole => "/roles/set", RoleAssignment;
    GetClient => "/sign-in/get-client", Option<Client>;
    RolesOf => "/sign-in/roles-of", Vec<(String, Role)>;
    SaveGrant => "/sign-in/save-grant", ();
    IssueToken => "/sign-in/token", Result<TokenResponse, OAuthError>;
    RevokeToken => "/sign-in/revoke", Result<(), OAuthError>;
    VerifyToken => "/sign-in/verify", Option<Verified>;
    OpenSession => "/sessions/open", ();
    FindSession => "/sessions/find", Option<Session>;
    EndSession => "/sessions/end", ();
    EndSessionsOf => "/sessions/end-all", u32;
}

// The Sign-in object: what sign-in keeps before anyone holds a credential.

calls! {
    PutClient => "/clients/put", ();
    FindClient => "/clients/find", Option<KeptClient>;
    BeginSignIn => "/begin", ();
    TakePending => "/take-pending", Option<Pending>;
    PutConsent => "/consents/put", ();
    TakeConsent => "/consents/take", Option<Consent>;
    BeginPageSignIn => "/pages/begin", ();
    TakePageSignIn => "/pages/take", Option<PageSignIn>;
}

// The Catalog object: the providers' lists of models.

calls! {
    ReadLists => "/lists", BTreeMap<String, Kept>;
}

// The Run object: one run.

calls! {
    StartRun => "/start", Run;
    StartStep => "/start-step", Stepped;
    GetRun => "/get", Run;
    ReadFlow => "/flow", Option<FlowRead>;
    AnswerRun => "/answer", Run;
    CancelRun => "/cancel", Run;
    ChildEnded => "/child", Run;
    SentEvent => "/event", Run;
}
