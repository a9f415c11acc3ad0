//! What an operation may reach: the caller, the clock's reading, fresh randomness, and storage
//! through the `Backend` port, which the shell implements with Durable Objects.

use futures::future::LocalBoxFuture;

use crate::core::access::key::{KeyRecord, KeyView, RevokeKey};
use crate::core::access::role::RoleAssignment;
use crate::core::access::store::SetRole;
use crate::core::asset::Asset;
use crate::core::comment::{Comment, CommentPage, ListComments, WriteComment};
use crate::core::connection::store::{ChangeConnection, ConnectionPage, GetConnection, ListConnections};
use crate::core::connection::Connection;
use crate::core::definition::store::{DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView};
use crate::core::definition::workflow_tool::Offered;
use crate::core::definition::Ref;
use crate::core::directory::{Command, ListPage};
use crate::core::event::{Event, EventCommand, EventPage, EventQuery};
use crate::core::ids::RANDOM_CHARS;
use crate::core::playbook::Playbook;
use crate::core::run::store::{AnswerRun, FlowRead, RequestPage, RunPage, RunQuery, StartRun, Stepped};
use crate::core::run::Run;
use crate::core::{Caller, Problem};
use serde_json::Value;

/// Storage as operations see it. Every playbook change goes through the org's directory, which
/// keeps names unique and the list in one place; a read of one playbook goes to the playbook.
pub trait Backend {
    fn change<'a>(&'a self, org: &'a str, command: Command) -> LocalBoxFuture<'a, Result<Playbook, Problem>>;
    fn list<'a>(
        &'a self,
        org: &'a str,
        query: crate::core::directory::ListQuery,
    ) -> LocalBoxFuture<'a, Result<ListPage, Problem>>;
    fn get<'a>(&'a self, org: &'a str, playbook: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>>;
    /// A save or a change of state of one definition, in the playbook's object; answers the
    /// definition as it stands after.
    fn definition<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        command: DefinitionCommand,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>>;
    fn get_definition<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        definition: Ref,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>>;
    /// A definition as it stood at a version it was saved at: that version's document and number,
    /// with the definition's status now.
    fn get_version<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        definition: Ref,
        version: u32,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>>;
    /// Writes a line to the operator's log, such as what an internal failure was.
    fn log(&self, line: &str);
    /// Waits a while, for a bounded wait on a run; the only clock an operation may use.
    fn pause(&self, millis: u64) -> LocalBoxFuture<'_, ()>;
    /// Appends to the playbook's events, or keeps a run's wait for them; answers the events
    /// kept, in order, and none for a wait.
    fn events<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        command: EventCommand,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>>;
    fn list_events<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        query: EventQuery,
    ) -> LocalBoxFuture<'a, Result<EventPage, Problem>>;
    fn get_event<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        event_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Event, Problem>>;
    /// The newest events of a kind whole, newest first, for a prediction to read.
    fn read_events<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        kind: &'a str,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>>;
    /// Starts a run in its own object, indexed in the playbook; answers it as it stands.
    fn start_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>>;
    /// Starts a workflow's step in its own object: a run that ends at once answers what it
    /// recorded, for the workflow run to carry to the playbook (`StartStep`). A backend that does
    /// not carry starts it as `start_run` does, and the run reports itself.
    fn start_step<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Stepped, Problem>> {
        Box::pin(async move { Ok(Stepped { run: self.start_run(org, playbook, start).await?, carried: Vec::new() }) })
    }
    /// Gives a waiting run its answer, or cancels a run that is still going.
    fn answer_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        answer: AnswerRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>>;
    fn cancel_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>>;
    /// Delivers an event to a workflow run; answers the run as it stands after.
    fn send_run_event<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
        name: &'a str,
        data: Value,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>>;
    fn list_requests<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        limit: usize,
        before: Option<i64>,
    ) -> LocalBoxFuture<'a, Result<RequestPage, Problem>>;
    /// The newest runs of a definition whole, for a lookup to read.
    fn read_runs<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        definition: Ref,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Run>, Problem>>;
    fn get_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>>;
    fn list_runs<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        query: RunQuery,
    ) -> LocalBoxFuture<'a, Result<RunPage, Problem>>;
    /// A workflow run's plan and state, from its own object; none for a function's run.
    fn read_flow<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<FlowRead>, Problem>>;
    fn list_definitions<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        query: DefinitionQuery,
    ) -> LocalBoxFuture<'a, Result<DefinitionPage, Problem>>;
    /// The active workflows of a playbook offered as tools, by name.
    fn offered_tools<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<Offered>, Problem>>;
    /// Keeps a new API key of an org in the runtime's key store.
    fn make_key(&self, record: KeyRecord) -> LocalBoxFuture<'_, Result<(), Problem>>;
    /// The org's live keys, newest first.
    fn list_keys<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Result<Vec<KeyView>, Problem>>;
    /// Revokes a key at once for every later request; answers it as revoked.
    fn revoke_key(&self, revoke: RevokeKey) -> LocalBoxFuture<'_, Result<KeyView, Problem>>;
    /// Who holds which role in an org, by person.
    fn list_roles<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Result<Vec<RoleAssignment>, Problem>>;
    /// Gives a person a role in an org, or takes it away; answers the assignment made or taken away.
    fn set_role(&self, set: SetRole) -> LocalBoxFuture<'_, Result<RoleAssignment, Problem>>;
    /// One command to one connection of an org, in the org's object; answers the connection as
    /// kept after (for an add made before by the same call, the one kept then).
    fn connection(&self, change: ChangeConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>>;
    /// One connection of an org, removed ones among them.
    fn get_connection(&self, get: GetConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>>;
    /// A page of an org's connections, newest first.
    fn list_connections(&self, query: ListConnections) -> LocalBoxFuture<'_, Result<ConnectionPage, Problem>>;
    /// Makes, resolves or reopens a comment, in the playbook's object with `playbook`, else in
    /// the organization's; answers the comment as it stands after.
    fn comment(&self, write: WriteComment) -> LocalBoxFuture<'_, Result<Comment, Problem>>;
    /// A page of a playbook's comments, or of the organization's own, newest first.
    fn list_comments(&self, list: ListComments) -> LocalBoxFuture<'_, Result<CommentPage, Problem>>;
    /// Puts an asset's bytes in the asset bucket under `key`, replacing what was there.
    fn put_asset_bytes<'a>(
        &'a self,
        key: &'a str,
        media_type: &'a str,
        bytes: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>>;
    /// The bytes the asset bucket holds under `key`, none where it holds nothing.
    fn asset_bytes<'a>(&'a self, key: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>, Problem>>;
    /// Keeps an asset's record in its playbook's object (`ops::assets::record`); answers the
    /// record kept.
    fn keep_asset(&self, asset: Asset) -> LocalBoxFuture<'_, Result<Asset, Problem>>;
    /// One asset's record, from its playbook's object.
    fn get_asset<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        asset_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Asset, Problem>>;
    /// The kept lists of the model providers named, each read again where it is due.
    fn model_lists(
        &self,
        providers: Vec<String>,
    ) -> LocalBoxFuture<'_, Result<std::collections::BTreeMap<String, crate::core::model::catalog::Kept>, Problem>>;
}

impl Ctx<'_> {
    /// The caller, as the records it makes name it.
    pub fn by(&self) -> crate::core::actor::Actor {
        crate::core::actor::Actor::of(self.caller)
    }

    /// The caller, as a change of roles names it: the operator and the local developer are
    /// above roles, a person acts by the role they hold.
    pub fn assigner(&self) -> crate::core::access::store::Assigner {
        use crate::core::caller::Principal;
        let above_roles = matches!(self.caller.principal, Principal::Operator | Principal::LocalDeveloper { .. });
        crate::core::access::store::Assigner {
            id: self.caller.id.clone(),
            above_roles,
            scopes: self.caller.scopes.clone(),
        }
    }

    /// The time of the request, for pure code that computes with it.
    pub fn instant(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339(&self.now).map(|t| t.to_utc()).unwrap_or_default()
    }
}

pub struct Ctx<'a> {
    pub caller: &'a Caller,
    pub backend: &'a dyn Backend,
    /// The time of the request, RFC 3339 with milliseconds.
    pub now: String,
    /// Fresh random bytes for the one id a request may mint.
    pub random: [u8; RANDOM_CHARS],
    /// Fresh random bytes for the one secret a request may mint, such as a new key.
    pub secret: [u8; 32],
    /// The model providers the operator set up, which a reasoning run and list_models reach.
    pub models: std::rc::Rc<crate::core::model::ModelSettings>,
    /// The tool servers the operator set up, which search and the calls by hand reach.
    pub tool_servers: super::tool_servers::Registry<'a>,
    /// The providers, where links point, who may add connections, and the sealer.
    pub connections: super::connections::Settings,
    /// Whether the request came through `/directory`, which serves no generation function.
    pub directory: bool,
}
