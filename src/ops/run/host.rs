//! What a run's object reaches beyond its own storage: the clock and its alarm, the playbook it
//! reports to, the workflow run a step reports to, the model providers, and, for a workflow's
//! steps, the other runs through the `Backend` port. The shell implements it over the platform;
//! tests implement it in memory.

use chrono::{DateTime, Utc};
use futures::future::LocalBoxFuture;

use super::super::outbound::{Fetched, Unanswered};
use super::super::tool_servers::Registry;
use super::super::Backend;
use crate::core::event::NewEvent;
use crate::core::model::wire::Outbound;
use crate::core::model::ModelSettings;
use crate::core::run::store::{ChildEnded, RequestCommand};
use crate::core::run::Run;
use crate::core::tool_server::settings::Server;
use crate::core::Problem;

/// The host's reach into the connections of one org: a run's registry renews through it the one
/// whose server refused its credential, and a step's start reads them through it.
pub struct Renewal<'a> {
    pub host: &'a dyn RunHost,
    pub org: &'a str,
}

impl super::super::tool_servers::Renew for Renewal<'_> {
    fn renew<'r>(&'r self, refused: &'r Server) -> LocalBoxFuture<'r, Option<Server>> {
        self.host.renew(self.org, refused)
    }
}

impl crate::ops::run_start::Connections for Renewal<'_> {
    fn servers(&self) -> LocalBoxFuture<'_, Vec<Server>> {
        self.host.connections(self.org)
    }
}

pub trait RunHost {
    fn now(&self) -> DateTime<Utc>;
    /// Sets the object's alarm to `at`, milliseconds since the epoch.
    fn wake(&self, at: i64) -> LocalBoxFuture<'_, ()>;
    /// When the alarm is set to ring, if it is.
    fn alarm(&self) -> LocalBoxFuture<'_, Option<i64>>;

    /// Appends events to the run's playbook, with the run itself when its index must hear, and
    /// the runs of steps whose events a workflow run carries among them.
    fn append<'a>(
        &'a self,
        run: &'a Run,
        events: Vec<NewEvent>,
        index: Option<Box<Run>>,
        steps: Vec<Run>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>>;
    /// Records the run in the playbook's index as it stands, for lists and lookups.
    fn index<'a>(&'a self, run: &'a Run, current: Box<Run>) -> LocalBoxFuture<'a, Result<(), Problem>>;
    /// Opens or closes the request a run waits on, in the playbook's list of requests.
    fn request<'a>(&'a self, run: &'a Run, command: RequestCommand) -> LocalBoxFuture<'a, Result<(), Problem>>;
    /// Asks the playbook to deliver events of `kind` to this workflow run.
    fn await_events<'a>(&'a self, run: &'a Run, kind: String) -> LocalBoxFuture<'a, Result<(), Problem>>;
    /// Tells a workflow run that a step's run ended.
    fn tell_parent<'a>(&'a self, run: &'a Run, ended: ChildEnded) -> LocalBoxFuture<'a, Result<(), Problem>>;

    fn models(&self) -> std::rc::Rc<ModelSettings>;
    /// The tool servers the operator set up, which a reasoning run's model calls through.
    fn tool_servers(&self) -> Registry<'_>;
    /// The connection settings of this host; none where it keeps no connections.
    fn connection_settings(&self) -> Option<crate::ops::connections::Settings> {
        None
    }
    /// The org's connections as tool servers, read now, beside `tool_servers`.
    fn connections<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Vec<Server>> {
        Box::pin(async move {
            let Some(settings) = self.connection_settings() else { return Vec::new() };
            let registry = self.tool_servers();
            let using = using(self, &settings, &registry, org);
            crate::ops::connections::servers(&using).await
        })
    }
    /// Renews the credential of a connection of `org` whose server refused it, as
    /// `tool_servers::Renew` says.
    fn renew<'a>(&'a self, org: &'a str, refused: &'a Server) -> LocalBoxFuture<'a, Option<Server>> {
        Box::pin(async move {
            let settings = self.connection_settings()?;
            let registry = self.tool_servers();
            let using = using(self, &settings, &registry, org);
            crate::ops::tool_servers::Renew::renew(&using, refused).await
        })
    }
    /// Sends one request to a model provider and reads its status and body, within the deadline.
    fn ask<'a>(
        &'a self,
        out: &'a Outbound,
        timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<(u16, String), Unanswered>>;
    /// Sends one generation request to a gateway and reads its answer as bytes, within the
    /// deadline and at most `wire::ANSWER_MAX_BYTES`.
    fn generate<'a>(
        &'a self,
        request: &'a crate::core::generation::wire::Request,
        timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<Fetched, Unanswered>>;
    /// The other runs of the playbook, which a workflow's steps start, read and cancel.
    fn backend(&self) -> &dyn Backend;
    fn log(&self, line: &str);
}

/// What a run's host reaches the connections of `org` with.
fn using<'a, H: RunHost + ?Sized>(
    host: &'a H,
    settings: &'a crate::ops::connections::Settings,
    registry: &'a Registry<'a>,
    org: &'a str,
) -> crate::ops::connections::Using<'a> {
    crate::ops::connections::Using {
        backend: host.backend(),
        settings,
        transport: registry.transport,
        org,
        now: host.now(),
    }
}
