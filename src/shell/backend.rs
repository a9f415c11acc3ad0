//! The storage port, served by Durable Objects: one Organization per org, one Playbook per playbook.

use futures::future::LocalBoxFuture;
use worker::{Env, Stub};

use crate::core::access::key::{KeyRecord, KeyView, ListKeys, MakeKey, RevokeKey};
use crate::core::access::role::RoleAssignment;
use crate::core::access::store::{ListRoles, SetRole};
use crate::core::asset::{Asset, GetAsset, KeepAsset};
use crate::core::comment::{Comment, CommentPage, ListComments, WriteComment};
use crate::core::connection::store::{ChangeConnection, ConnectionPage, GetConnection, ListConnections};
use crate::core::connection::Connection;
use crate::core::definition::store::{
    DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView, GetDefinition, ListDefinitions, ListOffered,
    WriteDefinition,
};
use crate::core::definition::workflow_tool::Offered;
use crate::core::definition::Ref;
use crate::core::directory::{unknown_playbook, Change, Command, GetPlaybook, ListPage, ListQuery};
use crate::core::event::{Event, EventCommand, EventPage, EventQuery, GetEvent, ListEvents, ReadEvents, WriteEvents};
use crate::core::ids::is_playbook_id;
use crate::core::model::catalog::ReadLists;
use crate::core::playbook::Playbook;
use crate::core::run::store::{
    AnswerRun, CancelRun, FlowRead, GetRun, ListRequests, ListRuns, ReadFlow, ReadRuns, RequestPage, RunPage, RunQuery,
    SentEvent, StartRun, StartStep, Stepped,
};
use crate::core::run::{check_run_id, Run};
use crate::core::Caller;
use crate::core::Problem;
use crate::ops::{Backend, Ctx};
use crate::shell::do_rpc;
use crate::shell::env::{ACCESS, CATALOG, ORGANIZATIONS, PLAYBOOKS, RUNS};
use serde_json::Value;

pub struct Objects<'e> {
    pub env: &'e Env,
}

/// The object of an org, by its name.
pub fn organization(env: &Env, org: &str) -> Result<Stub, Problem> {
    stub(env, ORGANIZATIONS, org)
}

/// The object of a playbook, named by its org and id so that no two orgs share one.
/// An id not of a playbook's shape names no playbook, and reaches no object.
pub fn playbook(env: &Env, org: &str, id: &str) -> Result<Stub, Problem> {
    if !is_playbook_id(id) {
        return Err(unknown_playbook(id));
    }
    stub(env, PLAYBOOKS, &format!("{org}/{id}"))
}

/// The object of a run, named by its org, playbook and run id.
/// Ids not of their shapes name no run, and reach no object.
pub fn run(env: &Env, org: &str, playbook: &str, run_id: &str) -> Result<Stub, Problem> {
    if !is_playbook_id(playbook) {
        return Err(unknown_playbook(playbook));
    }
    check_run_id(run_id)?;
    stub(env, RUNS, &format!("{org}/{playbook}/{run_id}"))
}

fn stub(env: &Env, binding: &str, name: &str) -> Result<Stub, Problem> {
    env.durable_object(binding).and_then(|ns| ns.get_by_name(name)).map_err(|e| {
        worker::console_error!("binding {binding}: {e}");
        Problem::unavailable("Storage is not reachable just now; try again.")
    })
}

impl Objects<'_> {
    /// What one operation is handed: the caller, this backend, the time, fresh randomness for an
    /// id, and the model settings.
    pub fn context<'a>(&'a self, caller: &'a Caller) -> Result<Ctx<'a>, Problem> {
        Ok(Ctx {
            caller,
            backend: self,
            now: crate::shell::env::now(),
            random: crate::shell::env::random()?,
            secret: crate::shell::env::secret()?,
            models: crate::shell::models::settings(self.env),
            tool_servers: crate::shell::tool_servers::registry(self.env),
            // The address a link names is the request's where PUBLIC_URL is not set; the door sets it.
            connections: crate::shell::connection_settings::settings(self.env, ""),
            directory: false,
        })
    }

    fn run_object(&self, org: &str, playbook: &str, run_id: &str) -> Result<Stub, Problem> {
        run(self.env, org, playbook, run_id)
    }

    fn access(&self) -> Result<Stub, Problem> {
        stub(self.env, ACCESS, crate::shell::singletons::ACCESS_NAME)
    }
}

impl Backend for Objects<'_> {
    fn log(&self, line: &str) {
        worker::console_error!("internal: {line}");
    }

    fn make_key(&self, record: KeyRecord) -> LocalBoxFuture<'_, Result<(), Problem>> {
        Box::pin(async move { do_rpc::send(&self.access()?, &MakeKey { record }).await })
    }

    fn list_keys<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Result<Vec<KeyView>, Problem>> {
        Box::pin(async move { do_rpc::send(&self.access()?, &ListKeys { org: org.to_string() }).await })
    }

    fn revoke_key(&self, revoke: RevokeKey) -> LocalBoxFuture<'_, Result<KeyView, Problem>> {
        Box::pin(async move {
            let view = do_rpc::send(&self.access()?, &revoke).await?;
            crate::shell::seen_keys::forget(&revoke.id);
            Ok(view)
        })
    }

    fn list_roles<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Result<Vec<RoleAssignment>, Problem>> {
        Box::pin(async move { do_rpc::send(&self.access()?, &ListRoles { org: org.to_string() }).await })
    }

    fn set_role(&self, set: SetRole) -> LocalBoxFuture<'_, Result<RoleAssignment, Problem>> {
        Box::pin(async move { do_rpc::send(&self.access()?, &set).await })
    }

    fn connection(&self, change: ChangeConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>> {
        Box::pin(async move { do_rpc::send(&organization(self.env, &change.org)?, &change).await })
    }

    fn get_connection(&self, get: GetConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>> {
        Box::pin(async move { do_rpc::send(&organization(self.env, &get.org)?, &get).await })
    }

    fn list_connections(&self, query: ListConnections) -> LocalBoxFuture<'_, Result<ConnectionPage, Problem>> {
        Box::pin(async move { do_rpc::send(&organization(self.env, &query.org)?, &query).await })
    }

    fn comment(&self, write: WriteComment) -> LocalBoxFuture<'_, Result<Comment, Problem>> {
        Box::pin(async move {
            let stub = match &write.playbook {
                Some(pb) => playbook(self.env, &write.org, pb)?,
                None => organization(self.env, &write.org)?,
            };
            do_rpc::send(&stub, &write).await
        })
    }

    fn list_comments(&self, list: ListComments) -> LocalBoxFuture<'_, Result<CommentPage, Problem>> {
        Box::pin(async move {
            let stub = match &list.playbook {
                Some(pb) => playbook(self.env, &list.org, pb)?,
                None => organization(self.env, &list.org)?,
            };
            do_rpc::send(&stub, &list).await
        })
    }

    fn pause(&self, millis: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(worker::Delay::from(std::time::Duration::from_millis(millis)))
    }

    fn events<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        command: EventCommand,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>> {
        Box::pin(async move {
            do_rpc::send(&playbook(self.env, org, pb)?, &WriteEvents { playbook: pb.to_string(), command }).await
        })
    }

    fn list_events<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        query: EventQuery,
    ) -> LocalBoxFuture<'a, Result<EventPage, Problem>> {
        Box::pin(async move {
            do_rpc::send(&playbook(self.env, org, pb)?, &ListEvents { playbook: pb.to_string(), query }).await
        })
    }

    fn get_event<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        event_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Event, Problem>> {
        Box::pin(async move {
            let get = GetEvent { playbook: pb.to_string(), event_id: event_id.to_string() };
            do_rpc::send(&playbook(self.env, org, pb)?, &get).await
        })
    }

    fn read_events<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        kind: &'a str,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>> {
        Box::pin(async move {
            let read = ReadEvents { playbook: pb.to_string(), kind: kind.to_string(), limit };
            do_rpc::send(&playbook(self.env, org, pb)?, &read).await
        })
    }

    fn start_run<'a>(&'a self, org: &'a str, pb: &'a str, start: StartRun) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            // The run's object lists the run in the index itself, with what it reports, before it
            // answers; a start cut off before the object kept the run leaves nothing listed.
            let object = self.run_object(org, pb, &start.run.run_id)?;
            do_rpc::send(&object, &start).await
        })
    }

    fn start_step<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Stepped, Problem>> {
        Box::pin(async move {
            let object = self.run_object(org, pb, &start.run.run_id)?;
            do_rpc::send(&object, &StartStep { start }).await
        })
    }

    fn answer_run<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        answer: AnswerRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let object = self.run_object(org, pb, &answer.run_id)?;
            do_rpc::send(&object, &answer).await
        })
    }

    fn cancel_run<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let object = self.run_object(org, pb, run_id)?;
            do_rpc::send(&object, &CancelRun { run_id: run_id.to_string() }).await
        })
    }

    fn send_run_event<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        run_id: &'a str,
        name: &'a str,
        data: Value,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let object = self.run_object(org, pb, run_id)?;
            let sent = SentEvent { run_id: run_id.to_string(), name: name.to_string(), data };
            do_rpc::send(&object, &sent).await
        })
    }

    fn list_requests<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        limit: usize,
        before: Option<i64>,
    ) -> LocalBoxFuture<'a, Result<RequestPage, Problem>> {
        Box::pin(async move {
            let list = ListRequests { playbook: pb.to_string(), limit, before };
            do_rpc::send(&playbook(self.env, org, pb)?, &list).await
        })
    }

    fn read_runs<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        definition: Ref,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Run>, Problem>> {
        Box::pin(async move {
            let read = ReadRuns { playbook: pb.to_string(), definition, limit };
            do_rpc::send(&playbook(self.env, org, pb)?, &read).await
        })
    }

    fn put_asset_bytes<'a>(
        &'a self,
        key: &'a str,
        media_type: &'a str,
        bytes: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(super::bucket::put(self.env, key, media_type, bytes))
    }

    fn asset_bytes<'a>(&'a self, key: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>, Problem>> {
        Box::pin(super::bucket::get(self.env, key))
    }

    fn keep_asset(&self, asset: Asset) -> LocalBoxFuture<'_, Result<Asset, Problem>> {
        Box::pin(async move {
            let object = playbook(self.env, &asset.org, &asset.playbook)?;
            do_rpc::send(&object, &KeepAsset { playbook: asset.playbook.clone(), asset }).await
        })
    }

    fn get_asset<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        asset_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Asset, Problem>> {
        Box::pin(async move {
            let get = GetAsset { playbook: pb.to_string(), asset_id: asset_id.to_string() };
            do_rpc::send(&playbook(self.env, org, pb)?, &get).await
        })
    }

    fn model_lists(
        &self,
        providers: Vec<String>,
    ) -> LocalBoxFuture<'_, Result<std::collections::BTreeMap<String, crate::core::model::catalog::Kept>, Problem>>
    {
        Box::pin(async move {
            if providers.is_empty() {
                return Ok(Default::default());
            }
            let catalog = stub(self.env, CATALOG, "catalog")?;
            do_rpc::send(&catalog, &ReadLists { providers }).await
        })
    }

    fn get_run<'a>(&'a self, org: &'a str, pb: &'a str, run_id: &'a str) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let object = self.run_object(org, pb, run_id)?;
            do_rpc::send(&object, &GetRun { run_id: run_id.to_string() }).await
        })
    }

    fn read_flow<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<FlowRead>, Problem>> {
        Box::pin(async move {
            let object = self.run_object(org, pb, run_id)?;
            do_rpc::send(&object, &ReadFlow { run_id: run_id.to_string() }).await
        })
    }

    fn list_runs<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        query: RunQuery,
    ) -> LocalBoxFuture<'a, Result<RunPage, Problem>> {
        Box::pin(async move {
            do_rpc::send(&playbook(self.env, org, pb)?, &ListRuns { playbook: pb.to_string(), query }).await
        })
    }

    fn definition<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        command: DefinitionCommand,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        Box::pin(async move {
            let write = WriteDefinition { playbook: pb.to_string(), org: org.to_string(), command };
            do_rpc::send(&playbook(self.env, org, pb)?, &write).await
        })
    }

    fn get_definition<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        definition: Ref,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        Box::pin(async move {
            let get = GetDefinition { playbook: pb.to_string(), definition, version: None };
            do_rpc::send(&playbook(self.env, org, pb)?, &get).await
        })
    }

    fn get_version<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        definition: Ref,
        version: u32,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        Box::pin(async move {
            let get = GetDefinition { playbook: pb.to_string(), definition, version: Some(version) };
            do_rpc::send(&playbook(self.env, org, pb)?, &get).await
        })
    }

    fn list_definitions<'a>(
        &'a self,
        org: &'a str,
        pb: &'a str,
        query: DefinitionQuery,
    ) -> LocalBoxFuture<'a, Result<DefinitionPage, Problem>> {
        Box::pin(async move {
            do_rpc::send(&playbook(self.env, org, pb)?, &ListDefinitions { playbook: pb.to_string(), query }).await
        })
    }

    fn offered_tools<'a>(&'a self, org: &'a str, pb: &'a str) -> LocalBoxFuture<'a, Result<Vec<Offered>, Problem>> {
        Box::pin(
            async move { do_rpc::send(&playbook(self.env, org, pb)?, &ListOffered { playbook: pb.to_string() }).await },
        )
    }

    fn change<'a>(&'a self, org: &'a str, command: Command) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        Box::pin(async move {
            if !is_playbook_id(command.id()) {
                return Err(unknown_playbook(command.id()));
            }
            do_rpc::send(&organization(self.env, org)?, &Change { org: org.to_string(), command }).await
        })
    }

    fn list<'a>(&'a self, org: &'a str, query: ListQuery) -> LocalBoxFuture<'a, Result<ListPage, Problem>> {
        Box::pin(async move { do_rpc::send(&organization(self.env, org)?, &query).await })
    }

    fn get<'a>(&'a self, org: &'a str, id: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        Box::pin(async move { do_rpc::send(&playbook(self.env, org, id)?, &GetPlaybook { id: id.to_string() }).await })
    }
}
