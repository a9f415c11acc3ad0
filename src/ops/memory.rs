//! The whole runtime in memory, for host tests: the `Backend` port served as the Durable Objects
//! serve it, through the same code. The org's directory changes through `ops::directory`, each
//! playbook's tables go through `ops::playbook::Tables` and `ops::triggers` over stores in
//! memory, each run through `ops::run::Runner` over its own `Mem`, and keys and roles through
//! `ops::access` over `MemAccess`. The clock, the alarms and the models' answers are the test's
//! to drive; stores and the playbook can be told to fail.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use chrono::{DateTime, Utc};
use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::access::{self, memory::MemAccess};
use super::assets::memory::{MemAssets, MemBucket};
use super::comments::{self, memory::MemComments};
use super::connections::{self, memory::MemConnections};
use super::directory::{self, memory::MemOrganization};
use super::faults::Faults;
use super::faults::Later;
use super::memory_tools::ToolServer;
use super::outbound::{Fetched, Unanswered};
use super::playbook::memory::MemPlaybook;
use super::playbook::Tables;
use super::run::{Asked, Mem, Memory, RunHost, Runner};
use super::tool_servers::Registry;
use super::triggers::memory::MemTriggers;
use super::{triggers, Backend};
use crate::core::access::key::{KeyRecord, KeyView, RevokeKey};
use crate::core::access::role::RoleAssignment;
use crate::core::access::store::SetRole;
use crate::core::asset::{unknown_asset, Asset};
use crate::core::comment::{Among, Comment, CommentPage, ListComments, WriteComment};
use crate::core::connection::store::{ChangeConnection, ConnectionPage, GetConnection, ListConnections};
use crate::core::connection::Connection;
use crate::core::definition::store::{DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView};
use crate::core::definition::workflow_tool::Offered;
use crate::core::definition::Ref;
use crate::core::directory::{Command, ListPage, ListQuery};
use crate::core::event::{Event, EventCommand, EventPage, EventQuery, NewEvent};
use crate::core::model::wire::Outbound;
use crate::core::model::ModelSettings;
use crate::core::playbook::Playbook;
use crate::core::run::store::{
    AnswerRun, ChildEnded, FlowRead, IndexCommand, RequestCommand, RequestPage, RunPage, RunQuery, SentEvent, StartRun,
    Stepped,
};
use crate::core::run::Run;
use crate::core::tool_server::ToolServers;
use crate::core::Problem;

/// 2026-12-02T10:00:00Z, where a runtime's clock starts.
pub const T0: i64 = 1_796_205_600_000;

/// One playbook's object: its tables, its triggers and its alarm.
#[derive(Default)]
pub struct Shelf {
    pub tables: MemPlaybook,
    pub assets: MemAssets,
    pub triggers: MemTriggers,
    pub comments: MemComments,
    pub alarm: Cell<Option<i64>>,
}

impl Shelf {
    fn tables(&self) -> Tables<'_> {
        let t = &self.tables;
        Tables { definitions: t, events: t, index: t, requests: t, triggers: &self.triggers }
    }
}

/// One run's object: its store, what it remembers while loaded, and its alarm.
#[derive(Default)]
pub struct Object {
    pub store: Mem,
    pub memory: RefCell<Rc<Memory>>,
    pub alarm: Cell<Option<i64>>,
}

pub struct Runtime {
    pub clock: Cell<i64>,
    pub models: RefCell<ModelSettings>,
    /// Each org's object: its directory, and the playbooks' records it keeps there.
    pub organizations: RefCell<BTreeMap<String, Rc<MemOrganization>>>,
    pub shelves: RefCell<BTreeMap<String, Rc<Shelf>>>,
    pub objects: RefCell<BTreeMap<String, Rc<Object>>>,
    /// The reports of runs to their playbook, which can be told to fail.
    pub to_playbook: Faults,
    /// What reached the playbooks from runs, one line per call, in order.
    pub reported: RefCell<Vec<String>>,
    pub answers: RefCell<VecDeque<Result<(u16, String), Unanswered>>>,
    /// Whether the model keeps a run waiting past its first look, as one that takes a while does.
    pub slow_model: Cell<bool>,
    /// What each model call was sent.
    pub asked: RefCell<Vec<Outbound>>,
    /// How the gateway answers each generation request, in turn; none left is a timeout.
    pub generated: RefCell<VecDeque<Result<Fetched, Unanswered>>>,
    /// What each generation request was sent.
    pub generations: RefCell<Vec<crate::core::generation::wire::Request>>,
    /// How many starts reached a run's object.
    pub starts: Cell<usize>,
    /// How many reads of an org's connections reached its object.
    pub connection_reads: Cell<usize>,
    /// The tool servers of the settings, each of which the one server in memory answers for.
    pub servers: ToolServers,
    pub tool_server: ToolServer,
    /// Each org's connections, as its object keeps them; each table can be told to fail.
    pub connections: RefCell<BTreeMap<String, Rc<MemConnections>>>,
    /// Each org's own comments, as its object keeps them; each table can be told to fail.
    pub org_comments: RefCell<BTreeMap<String, Rc<MemComments>>>,
    /// The asset bucket, which can be told to fail.
    pub bucket: MemBucket,
    /// The Access object's keys, roles, grants and sessions, which can be told to fail.
    pub access: MemAccess,
    /// The variables connections may send, as `CONNECTION_VARIABLES` lists them.
    pub listed: crate::core::connection::variables::ConnectionVariables,
}

impl Default for Runtime {
    fn default() -> Self {
        Runtime {
            clock: Cell::new(T0),
            models: RefCell::default(),
            organizations: RefCell::default(),
            shelves: RefCell::default(),
            objects: RefCell::default(),
            to_playbook: Faults::named("The playbook"),
            reported: RefCell::default(),
            answers: RefCell::default(),
            slow_model: Cell::new(false),
            asked: RefCell::default(),
            generated: RefCell::default(),
            generations: RefCell::default(),
            starts: Cell::new(0),
            connection_reads: Cell::new(0),
            servers: ToolServers { servers: Vec::new() },
            tool_server: ToolServer::default(),
            connections: RefCell::default(),
            org_comments: RefCell::default(),
            bucket: MemBucket::default(),
            access: MemAccess::default(),
            listed: Default::default(),
        }
    }
}

fn key(org: &str, playbook: &str) -> String {
    format!("{org}/{playbook}")
}

impl Runtime {
    /// The tool servers as runs and tools reach them: every server of the settings is answered by
    /// the one server in memory.
    pub fn tool_servers(&self) -> Registry<'_> {
        Registry { settings: &self.servers, transport: &self.tool_server, lists: None, ..Registry::none() }
    }

    /// The connection settings of a request here: the compiled providers and a sealer that hides
    /// nothing, so tests read what was kept.
    pub fn connection_settings(&self) -> connections::Settings {
        connections::Settings {
            sealer: Some(Rc::new(connections::memory::Plain)),
            listed: Rc::new(self.listed.clone()),
            ..connections::Settings::default()
        }
    }

    /// The table of an org's connections.
    pub fn connections_of(&self, org: &str) -> Rc<MemConnections> {
        self.connections.borrow_mut().entry(org.to_string()).or_default().clone()
    }

    /// The table of an org's own comments.
    pub fn org_comments_of(&self, org: &str) -> Rc<MemComments> {
        self.org_comments.borrow_mut().entry(org.to_string()).or_default().clone()
    }

    pub fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.clock.get()).unwrap_or_default()
    }

    pub fn shelf(&self, org: &str, playbook: &str) -> Rc<Shelf> {
        self.shelves.borrow_mut().entry(key(org, playbook)).or_default().clone()
    }

    pub fn object(&self, org: &str, playbook: &str, run_id: &str) -> Rc<Object> {
        self.objects.borrow_mut().entry(format!("{org}/{playbook}/{run_id}")).or_default().clone()
    }

    /// An org's object: its directory, and its playbooks' records.
    pub fn organization(&self, org: &str) -> Rc<MemOrganization> {
        self.organizations.borrow_mut().entry(org.to_string()).or_default().clone()
    }

    /// The playbook a call to its tables names, as its object checks it.
    fn kept(&self, org: &str, playbook: &str) -> Result<Playbook, Problem> {
        self.organization(org).playbooks.record(playbook)
    }

    fn with_tables<T>(
        &self,
        org: &str,
        playbook: &str,
        f: impl FnOnce(&Playbook, &Tables<'_>) -> Result<T, Problem>,
    ) -> Result<T, Problem> {
        let kept = self.kept(org, playbook)?;
        let shelf = self.shelf(org, playbook);
        f(&kept, &shelf.tables())
    }

    /// Sets a playbook's alarm to what its triggers owe next, as its object does after a write.
    fn reschedule(&self, org: &str, playbook: &str) {
        let shelf = self.shelf(org, playbook);
        if let Ok(at) = triggers::alarm_at(&shelf.triggers, self.now(), 0) {
            shelf.alarm.set(at.map(|t| t.timestamp_millis()));
        }
    }

    /// The runtime restarts: every run's object forgets what it held in memory, and its store
    /// works again.
    pub fn restart(&self) {
        for object in self.objects.borrow().values() {
            *object.memory.borrow_mut() = Rc::new(Memory::default());
            object.store.faults.restart();
        }
    }

    pub async fn call(&self, org: &str, playbook: &str, run_id: &str, asked: Asked) -> Result<Run, Problem> {
        if matches!(asked, Asked::Start(_)) {
            self.starts.set(self.starts.get() + 1);
        }
        self.in_object(org, playbook, run_id, async |runner| runner.handle(asked).await).await
    }

    /// Rings a run's alarm.
    pub async fn ring(&self, org: &str, playbook: &str, run_id: &str) -> Result<(), Problem> {
        self.object(org, playbook, run_id).alarm.set(None);
        self.in_object(org, playbook, run_id, async |runner| runner.alarm().await).await
    }

    /// Does `work` in a run's object, as the Run object does each call: over its store, with
    /// what it remembers while loaded.
    async fn in_object<T>(
        &self,
        org: &str,
        playbook: &str,
        run_id: &str,
        work: impl AsyncFnOnce(&Runner<'_>) -> T,
    ) -> T {
        let object = self.object(org, playbook, run_id);
        let memory = object.memory.borrow().clone();
        let host = Host { runtime: self, org: org.into(), playbook: playbook.into(), run_id: run_id.into() };
        work(&Runner { store: &object.store, host: &host, memory: &memory }).await
    }

    /// Rings a playbook's alarm: it starts what its triggers owe, then is set to the next due.
    pub async fn ring_playbook(&self, org: &str, playbook: &str) -> Result<(), Problem> {
        let shelf = self.shelf(org, playbook);
        shelf.alarm.set(None);
        let models = self.models.borrow().clone();
        let fired = triggers::fire(&shelf.triggers, self, &models, playbook, self.now()).await;
        self.reschedule(org, playbook);
        fired
    }

    /// Moves the clock on to each alarm due within `millis` and rings it, until none is.
    pub async fn pass(&self, millis: i64) {
        let until = self.clock.get() + millis;
        for _ in 0..10_000 {
            let runs =
                self.objects.borrow().iter().filter_map(|(id, o)| Some((o.alarm.get()?, id.clone(), false))).min();
            let books =
                self.shelves.borrow().iter().filter_map(|(id, s)| Some((s.alarm.get()?, id.clone(), true))).min();
            let Some((at, id, book)) = [runs, books].into_iter().flatten().filter(|(at, ..)| *at <= until).min() else {
                break;
            };
            self.clock.set(self.clock.get().max(at));
            let parts: Vec<&str> = id.splitn(3, '/').collect();
            let _ = match (book, parts.as_slice()) {
                (true, [org, playbook]) => self.ring_playbook(org, playbook).await,
                (false, [org, playbook, run]) => self.ring(org, playbook, run).await,
                _ => Ok(()),
            };
        }
        self.clock.set(until);
    }

    /// Every event a playbook keeps, oldest first, as `kind` or `run_id kind`.
    pub fn history(&self, org: &str, playbook: &str) -> Vec<String> {
        let query = EventQuery { run_id: None, kind: None, limit: 100, after: None };
        let shelf = self.shelf(org, playbook);
        let mut events: Vec<String> = super::playbook::EventStore::page(&shelf.tables, &query, 10_000)
            .unwrap_or_default()
            .into_iter()
            .map(|(_, e)| match e.event.run_id {
                Some(run) => format!("{run} {}", e.event.kind),
                None => e.event.kind,
            })
            .collect();
        events.reverse();
        events
    }

    fn report(&self, line: String) -> Result<(), Problem> {
        self.to_playbook.write("report")?;
        self.reported.borrow_mut().push(line);
        Ok(())
    }
}

/// A run's object's host in the runtime in memory.
struct Host<'r> {
    runtime: &'r Runtime,
    org: String,
    playbook: String,
    run_id: String,
}

impl Host<'_> {
    fn to_playbook<T>(
        &self,
        line: String,
        f: impl FnOnce(&Playbook, &Tables<'_>) -> Result<T, Problem>,
    ) -> Result<T, Problem> {
        self.runtime.report(line)?;
        self.runtime.with_tables(&self.org, &self.playbook, f)
    }

    fn object(&self) -> Rc<Object> {
        self.runtime.object(&self.org, &self.playbook, &self.run_id)
    }
}

impl RunHost for Host<'_> {
    fn now(&self) -> DateTime<Utc> {
        self.runtime.now()
    }

    fn wake(&self, at: i64) -> LocalBoxFuture<'_, ()> {
        self.object().alarm.set(Some(at));
        Box::pin(async {})
    }

    fn alarm(&self) -> LocalBoxFuture<'_, Option<i64>> {
        let at = self.object().alarm.get();
        Box::pin(async move { at })
    }

    fn append<'a>(
        &'a self,
        run: &'a Run,
        events: Vec<NewEvent>,
        index: Option<Box<Run>>,
        steps: Vec<Run>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        let indexed = index.as_ref().map(|r| format!(" +index {}", r.status.word())).unwrap_or_default();
        let carried: String = steps.iter().map(|r| format!(" +step {} {}", r.run_id, r.status.word())).collect();
        let line = format!("{} events {}{indexed}{carried}", run.run_id, kinds.join(","));
        let result = self.to_playbook(line, |_, t| t.write_events(EventCommand::Append { events, run: index, steps }));
        if let Ok((_, true)) = result {
            self.runtime.reschedule(&self.org, &self.playbook);
        }
        Box::pin(async move { result.map(|_| ()) })
    }

    fn index<'a>(&'a self, run: &'a Run, current: Box<Run>) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let line = format!("{} index {}", run.run_id, current.status.word());
        let result = self.to_playbook(line, |_, t| t.write_index(IndexCommand::Record(current)));
        Box::pin(async move { result })
    }

    fn request<'a>(&'a self, run: &'a Run, command: RequestCommand) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let what = if matches!(command, RequestCommand::Open(_)) { "open" } else { "close" };
        let result = self.to_playbook(format!("{} request {what}", run.run_id), |_, t| t.write_requests(command));
        Box::pin(async move { result })
    }

    fn await_events<'a>(&'a self, run: &'a Run, kind: String) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let command = EventCommand::Await { org: run.org.clone(), run_id: run.run_id.clone(), kind: kind.clone() };
        let result = self.to_playbook(format!("{} awaits {kind}", run.run_id), |_, t| t.write_events(command));
        Box::pin(async move { result.map(|_| ()) })
    }

    fn tell_parent<'a>(&'a self, run: &'a Run, ended: ChildEnded) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move {
            let parent = ended.run_id.clone();
            self.runtime.call(&run.org, &run.playbook, &parent, Asked::Child(ended)).await.map(|_| ())
        })
    }

    fn models(&self) -> std::rc::Rc<ModelSettings> {
        std::rc::Rc::new(self.runtime.models.borrow().clone())
    }

    fn tool_servers(&self) -> Registry<'_> {
        self.runtime.tool_servers()
    }

    fn connection_settings(&self) -> Option<super::connections::Settings> {
        Some(self.runtime.connection_settings())
    }

    fn ask<'a>(
        &'a self,
        out: &'a Outbound,
        _timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<(u16, String), Unanswered>> {
        self.runtime.asked.borrow_mut().push(out.clone());
        let answer = self.runtime.answers.borrow_mut().pop_front().unwrap_or(Err(Unanswered::Timeout));
        let slow = self.runtime.slow_model.get();
        Box::pin(async move {
            if slow {
                Later(false).await;
            }
            answer
        })
    }

    fn generate<'a>(
        &'a self,
        request: &'a crate::core::generation::wire::Request,
        _timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<Fetched, Unanswered>> {
        self.runtime.generations.borrow_mut().push(request.clone());
        let answer = self.runtime.generated.borrow_mut().pop_front().unwrap_or(Err(Unanswered::Timeout));
        Box::pin(async move { answer })
    }

    fn backend(&self) -> &dyn Backend {
        self.runtime
    }

    fn log(&self, _line: &str) {}
}

fn ready<'a, T: 'a>(value: Result<T, Problem>) -> LocalBoxFuture<'a, Result<T, Problem>> {
    Box::pin(async move { value })
}

impl Backend for Runtime {
    fn change<'a>(&'a self, org: &'a str, command: Command) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        let organization = self.organization(org);
        Box::pin(async move { organization.directory().change(command).await })
    }

    fn list<'a>(&'a self, org: &'a str, q: ListQuery) -> LocalBoxFuture<'a, Result<ListPage, Problem>> {
        ready(directory::list(&self.organization(org).rows, q))
    }

    fn get<'a>(&'a self, org: &'a str, playbook: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        ready(self.kept(org, playbook))
    }

    fn definition<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        command: DefinitionCommand,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        let now = self.now();
        let result = self.with_tables(org, playbook, |kept, t| t.write_definition(kept, org, command, now));
        if let Ok((_, true)) = &result {
            self.reschedule(org, playbook);
        }
        ready(result.map(|(view, _)| view))
    }

    fn get_definition<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        definition: Ref,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.get_definition(&definition, None)))
    }

    fn get_version<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        definition: Ref,
        version: u32,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.get_definition(&definition, Some(version))))
    }

    fn list_definitions<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        query: DefinitionQuery,
    ) -> LocalBoxFuture<'a, Result<DefinitionPage, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.list_definitions(query)))
    }

    fn offered_tools<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<Offered>, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.offered_tools()))
    }

    fn log(&self, _line: &str) {}

    fn pause(&self, millis: u64) -> LocalBoxFuture<'_, ()> {
        self.clock.set(self.clock.get() + i64::try_from(millis).unwrap_or(0));
        Box::pin(async {})
    }

    fn events<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        command: EventCommand,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>> {
        let result = self.with_tables(org, playbook, |_, t| t.write_events(command));
        if let Ok((_, true)) = &result {
            self.reschedule(org, playbook);
        }
        ready(result.map(|(events, _)| events))
    }

    fn list_events<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        query: EventQuery,
    ) -> LocalBoxFuture<'a, Result<EventPage, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.list_events(query)))
    }

    fn get_event<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        event_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Event, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.get_event(event_id)))
    }

    fn read_events<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        kind: &'a str,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.read_events(kind, limit)))
    }

    fn start_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let id = start.run.run_id.clone();
            self.call(org, playbook, &id, Asked::Start(Box::new(start))).await
        })
    }

    fn start_step<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Stepped, Problem>> {
        Box::pin(async move {
            let id = start.run.run_id.clone();
            self.starts.set(self.starts.get() + 1);
            self.in_object(org, playbook, &id, async |runner| runner.start_step(start).await).await
        })
    }

    fn answer_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        answer: AnswerRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let id = answer.run_id.clone();
            self.call(org, playbook, &id, Asked::Answer(answer)).await
        })
    }

    fn cancel_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(self.call(org, playbook, run_id, Asked::Cancel { run_id: run_id.to_string() }))
    }

    fn send_run_event<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
        name: &'a str,
        data: Value,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        let sent = SentEvent { run_id: run_id.to_string(), name: name.to_string(), data };
        Box::pin(self.call(org, playbook, run_id, Asked::Event(sent)))
    }

    fn list_requests<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        limit: usize,
        before: Option<i64>,
    ) -> LocalBoxFuture<'a, Result<RequestPage, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.list_requests(limit, before)))
    }

    fn read_runs<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        definition: Ref,
        limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Run>, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.read_runs(&definition, limit)))
    }

    fn get_run<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(self.call(org, playbook, run_id, Asked::Get { run_id: run_id.to_string() }))
    }

    fn read_flow<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<FlowRead>, Problem>> {
        Box::pin(self.in_object(org, playbook, run_id, async |runner| runner.read_flow(run_id)))
    }

    fn list_runs<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        query: RunQuery,
    ) -> LocalBoxFuture<'a, Result<RunPage, Problem>> {
        ready(self.with_tables(org, playbook, |_, t| t.list_runs(query)))
    }

    fn make_key(&self, record: KeyRecord) -> LocalBoxFuture<'_, Result<(), Problem>> {
        ready(access::make_key(&self.access, &record))
    }

    fn list_keys<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Result<Vec<KeyView>, Problem>> {
        ready(access::list_keys(&self.access, org))
    }

    fn revoke_key(&self, revoke: RevokeKey) -> LocalBoxFuture<'_, Result<KeyView, Problem>> {
        ready(access::revoke_key(&self.access, revoke))
    }

    fn list_roles<'a>(&'a self, org: &'a str) -> LocalBoxFuture<'a, Result<Vec<RoleAssignment>, Problem>> {
        ready(access::list_roles(&self.access, org))
    }

    fn set_role(&self, set: SetRole) -> LocalBoxFuture<'_, Result<RoleAssignment, Problem>> {
        ready(access::set_role(&self.access, set))
    }

    fn comment(&self, write: WriteComment) -> LocalBoxFuture<'_, Result<Comment, Problem>> {
        ready(match &write.playbook {
            Some(playbook) => self.kept(&write.org, playbook).and_then(|kept| {
                let among = Among::Playbook { name: kept.name.clone(), retired: kept.is_retired() };
                comments::write(&self.shelf(&write.org, playbook).comments, write.command, &among)
            }),
            None => comments::write(&*self.org_comments_of(&write.org), write.command, &Among::Org),
        })
    }

    fn list_comments(&self, list: ListComments) -> LocalBoxFuture<'_, Result<CommentPage, Problem>> {
        ready(match &list.playbook {
            Some(playbook) => self
                .kept(&list.org, playbook)
                .and_then(|_| comments::list(&self.shelf(&list.org, playbook).comments, list.query)),
            None => comments::list(&*self.org_comments_of(&list.org), list.query),
        })
    }

    fn connection(&self, change: ChangeConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>> {
        let table = self.connections_of(&change.org);
        ready(connections::change(&*table, change))
    }

    fn get_connection(&self, get: GetConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>> {
        let table = self.connections_of(&get.org);
        ready(connections::find(&*table, &get.find))
    }

    fn list_connections(&self, query: ListConnections) -> LocalBoxFuture<'_, Result<ConnectionPage, Problem>> {
        self.connection_reads.set(self.connection_reads.get() + 1);
        let table = self.connections_of(&query.org);
        ready(connections::list(&*table, query))
    }

    fn put_asset_bytes<'a>(
        &'a self,
        key: &'a str,
        media_type: &'a str,
        bytes: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>> {
        ready(self.bucket.put(key, media_type, bytes))
    }

    fn asset_bytes<'a>(&'a self, key: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>, Problem>> {
        ready(Ok(self.bucket.get(key)))
    }

    fn keep_asset(&self, asset: Asset) -> LocalBoxFuture<'_, Result<Asset, Problem>> {
        ready(
            self.kept(&asset.org, &asset.playbook)
                .and_then(|_| super::assets::record(&self.shelf(&asset.org, &asset.playbook).assets, asset)),
        )
    }

    fn get_asset<'a>(
        &'a self,
        org: &'a str,
        playbook: &'a str,
        asset_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Asset, Problem>> {
        ready(self.kept(org, playbook).and_then(|_| {
            use super::assets::AssetStore;
            self.shelf(org, playbook).assets.get(asset_id)?.ok_or_else(|| unknown_asset(asset_id))
        }))
    }

    fn model_lists(
        &self,
        _providers: Vec<String>,
    ) -> LocalBoxFuture<'_, Result<BTreeMap<String, crate::core::model::catalog::Kept>, Problem>> {
        ready(Ok(BTreeMap::new()))
    }
}
