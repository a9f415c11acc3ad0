//! The run's host over the platform: the clock and the object's alarm, the playbook's object and
//! a workflow run's object reached by their stubs, model providers by outbound fetch.

use chrono::{DateTime, Utc};
use futures::future::LocalBoxFuture;
use worker::{Env, State};

use crate::core::event::{EventCommand, NewEvent, WriteEvents};
use crate::core::model::wire::Outbound;
use crate::core::model::ModelSettings;
use crate::core::run::store::{ChildEnded, IndexCommand, RequestCommand, WriteIndex, WriteRequests};
use crate::core::run::Run;
use crate::core::Problem;
use crate::ops::outbound::{Fetched, Unanswered};
use crate::ops::run::RunHost;
use crate::ops::tool_servers::Registry;
use crate::ops::Backend;
use crate::shell::backend::{playbook as playbook_object, run as run_object, Objects};
use crate::shell::do_rpc::{self, Call};
use crate::shell::{env, models};

pub struct Shell<'a> {
    pub state: &'a State,
    pub env: &'a Env,
    pub objects: Objects<'a>,
}

impl Shell<'_> {
    async fn to_playbook<C: Call>(&self, run: &Run, request: C) -> Result<C::Reply, Problem> {
        do_rpc::send(&playbook_object(self.env, &run.org, &run.playbook)?, &request).await
    }
}

impl RunHost for Shell<'_> {
    fn now(&self) -> DateTime<Utc> {
        env::instant()
    }

    /// (An `i64` handed to `set_alarm` is read as an offset from now, so the time goes as a date.)
    fn wake(&self, at: i64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async move {
            let at = DateTime::from_timestamp_millis(at).unwrap_or_default();
            if let Err(e) = self.state.storage().set_alarm(at).await {
                worker::console_error!("run alarm could not be set: {e}");
            }
        })
    }

    fn alarm(&self) -> LocalBoxFuture<'_, Option<i64>> {
        Box::pin(async move { self.state.storage().get_alarm().await.ok().flatten() })
    }

    fn append<'a>(
        &'a self,
        run: &'a Run,
        events: Vec<NewEvent>,
        index: Option<Box<Run>>,
        steps: Vec<Run>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move {
            let command = EventCommand::Append { events, run: index, steps };
            self.to_playbook(run, WriteEvents { playbook: run.playbook.clone(), command }).await.map(|_| ())
        })
    }

    fn index<'a>(&'a self, run: &'a Run, current: Box<Run>) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move {
            let command = IndexCommand::Record(current);
            self.to_playbook(run, WriteIndex { playbook: run.playbook.clone(), command }).await
        })
    }

    fn request<'a>(&'a self, run: &'a Run, command: RequestCommand) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move { self.to_playbook(run, WriteRequests { playbook: run.playbook.clone(), command }).await })
    }

    fn await_events<'a>(&'a self, run: &'a Run, kind: String) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move {
            let command = EventCommand::Await { org: run.org.clone(), run_id: run.run_id.clone(), kind };
            self.to_playbook(run, WriteEvents { playbook: run.playbook.clone(), command }).await.map(|_| ())
        })
    }

    fn tell_parent<'a>(&'a self, run: &'a Run, ended: ChildEnded) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move {
            let parent = run_object(self.env, &run.org, &run.playbook, &ended.run_id)?;
            do_rpc::send(&parent, &ended).await.map(|_| ())
        })
    }

    fn models(&self) -> std::rc::Rc<ModelSettings> {
        models::settings(self.env)
    }

    fn tool_servers(&self) -> Registry<'_> {
        crate::shell::tool_servers::registry(self.env)
    }

    fn connection_settings(&self) -> Option<crate::ops::connections::Settings> {
        Some(crate::shell::connection_settings::settings(self.env, ""))
    }

    fn ask<'a>(
        &'a self,
        out: &'a Outbound,
        timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<(u16, String), Unanswered>> {
        Box::pin(models::send(out, timeout_seconds))
    }

    fn generate<'a>(
        &'a self,
        request: &'a crate::core::generation::wire::Request,
        timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<Fetched, Unanswered>> {
        Box::pin(models::generate(request, timeout_seconds))
    }

    fn backend(&self) -> &dyn Backend {
        &self.objects
    }

    fn log(&self, line: &str) {
        worker::console_error!("{line}");
    }
}
