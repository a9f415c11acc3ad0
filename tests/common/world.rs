//! Runs in memory, as the Run objects run them: each run has its own `Mem` store and goes through
//! the same `ops::run::Runner` the Durable Object uses, reached through the `Backend` port; the
//! playbook's side is a log of what each run handed it; the clock, alarms and model answers are
//! driven by the test, and the playbook can be told to fail.
#![allow(dead_code)] // each test crate that includes `common` uses part of it

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

use chrono::{DateTime, Utc};
use futures::future::LocalBoxFuture;
use playbook_runtime::core::definition::record::{Definition, DefinitionStatus};
use playbook_runtime::core::definition::store::{DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView};
use playbook_runtime::core::definition::{Kind, Ref};
use playbook_runtime::core::directory::{Command, ListPage, ListQuery};
use playbook_runtime::core::event::{EventCommand, NewEvent};
use playbook_runtime::core::model::wire::Outbound;
use playbook_runtime::core::model::ModelSettings;
use playbook_runtime::core::playbook::Playbook;
use playbook_runtime::core::run::store::{
    AnswerRun, ChildEnded, RequestCommand, RequestPage, RunPage, RunQuery, SentEvent, StartRun,
};
use playbook_runtime::core::run::Run;
use playbook_runtime::core::Problem;
use playbook_runtime::ops::run::{Asked, Mem, Memory, RunHost, Runner, Unanswered};
use playbook_runtime::ops::Backend;

pub const ORG: &str = "local";
pub const PLAYBOOK: &str = "pb_aaaaaaaaaaaaaaaa";
pub const T0: i64 = 1_796_205_600_000; // 2026-12-02T10:00:00Z

/// One run's object: its store, what it remembers while loaded, and its alarm.
#[derive(Default)]
pub struct Object {
    pub store: Mem,
    pub memory: RefCell<Rc<Memory>>,
    pub alarm: Cell<Option<i64>>,
}

#[derive(Default)]
pub struct World {
    pub clock: Cell<i64>,
    pub definitions: RefCell<BTreeMap<Ref, DefinitionView>>,
    pub objects: RefCell<BTreeMap<String, Rc<Object>>>,
    /// What reached the playbook, one line per call, in order.
    pub playbook: RefCell<Vec<String>>,
    /// Every event the playbook kept, in order.
    pub events: RefCell<Vec<NewEvent>>,
    /// How many of the next calls to the playbook fail.
    pub playbook_down: Cell<u32>,
    pub answers: RefCell<VecDeque<Result<(u16, String), Unanswered>>>,
    /// What each model call was sent.
    pub asked: RefCell<Vec<Outbound>>,
}

impl World {
    pub fn new() -> World {
        let world = World::default();
        world.clock.set(T0);
        world
    }

    pub fn define(&self, kind: Kind, name: &str, document: &str) {
        let at = "2026-12-02T09:00:00.000Z".to_string();
        let definition = Definition {
            kind,
            name: name.into(),
            version: 1,
            status: DefinitionStatus::Active,
            description: String::new(),
            has_page: false,
            created_at: at.clone(),
            updated_at: at,
            created_by: None,
            updated_by: None,
        };
        let view = DefinitionView {
            definition,
            document: document.into(),
            overview: String::new(),
            diagram: None,
            used_by: Vec::new(),
            changed: false,
        };
        self.definitions.borrow_mut().insert(Ref { kind, name: name.into() }, view);
    }

    pub fn object(&self, run_id: &str) -> Rc<Object> {
        self.objects.borrow_mut().entry(run_id.to_string()).or_default().clone()
    }

    /// The runtime restarts: every object forgets what it held in memory, and storage works again.
    pub fn restart(&self) {
        for object in self.objects.borrow().values() {
            *object.memory.borrow_mut() = Rc::new(Memory::default());
            object.store.restart();
        }
    }

    pub async fn call(&self, run_id: &str, asked: Asked) -> Result<Run, Problem> {
        let object = self.object(run_id);
        let memory = object.memory.borrow().clone();
        let host = Host { world: self, run_id: run_id.to_string() };
        Runner { store: &object.store, host: &host, memory: &memory }.handle(asked).await
    }

    /// Rings the alarm of one object, if it is set.
    pub async fn ring(&self, run_id: &str) -> Result<(), Problem> {
        let object = self.object(run_id);
        object.alarm.set(None);
        let memory = object.memory.borrow().clone();
        let host = Host { world: self, run_id: run_id.to_string() };
        Runner { store: &object.store, host: &host, memory: &memory }.alarm().await
    }

    /// Moves the clock on to each alarm due within `millis` and rings it, until none is.
    pub async fn pass(&self, millis: i64) {
        let until = self.clock.get() + millis;
        for _ in 0..1000 {
            let due = self
                .objects
                .borrow()
                .iter()
                .filter_map(|(id, o)| o.alarm.get().filter(|at| *at <= until).map(|at| (at, id.clone())))
                .min();
            let Some((at, id)) = due else { break };
            self.clock.set(self.clock.get().max(at));
            let _ = self.ring(&id).await;
        }
        self.clock.set(until);
    }

    pub fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.clock.get()).unwrap_or_default()
    }

    pub fn kinds(&self) -> Vec<String> {
        self.events.borrow().iter().map(|e| format!("{} {}", e.run_id.clone().unwrap_or_default(), e.kind)).collect()
    }

    fn to_playbook(&self, line: String) -> Result<(), Problem> {
        if self.playbook_down.get() > 0 {
            self.playbook_down.set(self.playbook_down.get() - 1);
            return Err(Problem::unavailable("the playbook is down"));
        }
        self.playbook.borrow_mut().push(line);
        Ok(())
    }
}

pub struct Host<'w> {
    world: &'w World,
    run_id: String,
}

impl RunHost for Host<'_> {
    fn now(&self) -> DateTime<Utc> {
        self.world.now()
    }

    fn wake(&self, at: i64) -> LocalBoxFuture<'_, ()> {
        self.world.object(&self.run_id).alarm.set(Some(at));
        Box::pin(async {})
    }

    fn alarm(&self) -> LocalBoxFuture<'_, Option<i64>> {
        let at = self.world.object(&self.run_id).alarm.get();
        Box::pin(async move { at })
    }

    fn append<'a>(
        &'a self,
        run: &'a Run,
        events: Vec<NewEvent>,
        index: Option<Box<Run>>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
        let indexed = index.map(|r| format!(" +index {}", r.status.word())).unwrap_or_default();
        let result = self.world.to_playbook(format!("{} events {}{indexed}", run.run_id, kinds.join(",")));
        if result.is_ok() {
            for e in events {
                // The playbook keeps an event once by its key, as its table does.
                let mut kept = self.world.events.borrow_mut();
                if e.key.is_none() || !kept.iter().any(|k| k.key == e.key) {
                    kept.push(e);
                }
            }
        }
        Box::pin(async move { result })
    }

    fn index<'a>(&'a self, run: &'a Run, current: Box<Run>) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let result = self.world.to_playbook(format!("{} index {}", run.run_id, current.status.word()));
        Box::pin(async move { result })
    }

    fn request<'a>(&'a self, run: &'a Run, command: RequestCommand) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let what = match command {
            RequestCommand::Open(_) => "open",
            RequestCommand::Close { .. } => "close",
        };
        let result = self.world.to_playbook(format!("{} request {what}", run.run_id));
        Box::pin(async move { result })
    }

    fn await_events<'a>(&'a self, run: &'a Run, kind: String) -> LocalBoxFuture<'a, Result<(), Problem>> {
        let result = self.world.to_playbook(format!("{} awaits {kind}", run.run_id));
        Box::pin(async move { result })
    }

    fn tell_parent<'a>(&'a self, _run: &'a Run, ended: ChildEnded) -> LocalBoxFuture<'a, Result<(), Problem>> {
        Box::pin(async move {
            let parent = ended.run_id.clone();
            self.world.call(&parent, Asked::Child(ended)).await.map(|_| ())
        })
    }

    fn models(&self) -> ModelSettings {
        ModelSettings::read(|name| match name {
            "OPENAI_API_KEY" => Some("sk-test".into()),
            "OPENAI_BASE_URL" => Some("http://127.0.0.1:9/v1".into()),
            _ => None,
        })
    }

    fn ask<'a>(
        &'a self,
        out: &'a Outbound,
        _timeout_seconds: u64,
    ) -> LocalBoxFuture<'a, Result<(u16, String), Unanswered>> {
        self.world.asked.borrow_mut().push(out.clone());
        let answer = self.world.answers.borrow_mut().pop_front().unwrap_or(Err(Unanswered::Timeout));
        Box::pin(async move { answer })
    }

    fn backend(&self) -> &dyn Backend {
        self.world
    }

    fn log(&self, _line: &str) {}
}

fn elsewhere<'a, T: 'a>() -> LocalBoxFuture<'a, Result<T, Problem>> {
    Box::pin(async { Err(Problem::unavailable("the run world keeps no playbooks")) })
}

/// The port as a workflow's steps reach it: definitions read from the world, runs started,
/// read, answered and cancelled in their own objects.
impl Backend for World {
    fn definition<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        command: DefinitionCommand,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        let _ = command;
        elsewhere()
    }

    fn get_definition<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        definition: Ref,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        let found = self.definitions.borrow().get(&definition).cloned();
        Box::pin(async move { found.ok_or_else(|| Problem::not_found("no such definition")) })
    }

    fn read_events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _kind: &'a str,
        _limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<playbook_runtime::core::event::Event>, Problem>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn start_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let id = start.run.run_id.clone();
            self.call(&id, Asked::Start(Box::new(start))).await
        })
    }

    fn get_run<'a>(&'a self, _org: &'a str, _pb: &'a str, run_id: &'a str) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(self.call(run_id, Asked::Get { run_id: run_id.to_string() }))
    }

    fn answer_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        answer: AnswerRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let id = answer.run_id.clone();
            self.call(&id, Asked::Answer(answer)).await
        })
    }

    fn cancel_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(self.call(run_id, Asked::Cancel { run_id: run_id.to_string() }))
    }

    fn send_run_event<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        run_id: &'a str,
        name: &'a str,
        data: serde_json::Value,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        let sent = SentEvent { run_id: run_id.to_string(), name: name.to_string(), data };
        Box::pin(self.call(run_id, Asked::Event(sent)))
    }

    fn events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        command: EventCommand,
    ) -> LocalBoxFuture<'a, Result<Vec<playbook_runtime::core::event::Event>, Problem>> {
        let _ = command;
        elsewhere()
    }

    fn read_runs<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _definition: Ref,
        _limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Run>, Problem>> {
        Box::pin(async { Ok(Vec::new()) })
    }

    fn log(&self, _line: &str) {}

    fn pause(&self, _millis: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn change<'a>(&'a self, _org: &'a str, _command: Command) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        elsewhere()
    }

    fn list<'a>(&'a self, _org: &'a str, _query: ListQuery) -> LocalBoxFuture<'a, Result<ListPage, Problem>> {
        elsewhere()
    }

    fn get<'a>(&'a self, _org: &'a str, _playbook: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        elsewhere()
    }

    fn list_requests<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _limit: usize,
        _before: Option<i64>,
    ) -> LocalBoxFuture<'a, Result<RequestPage, Problem>> {
        elsewhere()
    }

    fn list_runs<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _query: RunQuery,
    ) -> LocalBoxFuture<'a, Result<RunPage, Problem>> {
        elsewhere()
    }

    fn list_definitions<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        _query: DefinitionQuery,
    ) -> LocalBoxFuture<'a, Result<DefinitionPage, Problem>> {
        elsewhere()
    }

    fn make_key(
        &self,
        _record: playbook_runtime::core::access::key::KeyRecord,
    ) -> LocalBoxFuture<'_, Result<(), Problem>> {
        elsewhere()
    }

    fn list_keys<'a>(
        &'a self,
        _org: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<playbook_runtime::core::access::key::KeyView>, Problem>> {
        elsewhere()
    }

    fn revoke_key(
        &self,
        _revoke: playbook_runtime::core::access::key::RevokeKey,
    ) -> LocalBoxFuture<'_, Result<playbook_runtime::core::access::key::KeyView, Problem>> {
        elsewhere()
    }

    fn list_roles<'a>(
        &'a self,
        _org: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<playbook_runtime::core::access::role::RoleAssignment>, Problem>> {
        elsewhere()
    }

    fn set_role(
        &self,
        _set: playbook_runtime::core::access::store::SetRole,
    ) -> LocalBoxFuture<'_, Result<playbook_runtime::core::access::role::RoleAssignment, Problem>> {
        elsewhere()
    }

    fn list_events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _query: playbook_runtime::core::event::EventQuery,
    ) -> LocalBoxFuture<'a, Result<playbook_runtime::core::event::EventPage, Problem>> {
        elsewhere()
    }

    fn get_event<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _event_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<playbook_runtime::core::event::Event, Problem>> {
        elsewhere()
    }

    fn model_lists(
        &self,
        _providers: Vec<String>,
    ) -> LocalBoxFuture<
        '_,
        Result<std::collections::BTreeMap<String, playbook_runtime::core::model::catalog::Kept>, Problem>,
    > {
        Box::pin(async { Ok(Default::default()) })
    }
}
