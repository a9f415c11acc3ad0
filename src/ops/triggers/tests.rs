//! Triggers over memory and a stand-in runtime, with the clock in the test's hand: when times
//! fall due, what a pause or a long outage owes, what events start, and that a failure between
//! any two writes neither loses a run nor starts one twice.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use serde_json::{json, Value};

use super::memory::MemTriggers;
use super::{alarm_at, fire, sync, take_events, wait, TriggerStore};
use crate::core::connection::store::{ChangeConnection, ConnectionPage, GetConnection, ListConnections};
use crate::core::connection::Connection;
use crate::core::definition::record::{Definition, DefinitionStatus};
use crate::core::definition::store::{DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView};
use crate::core::definition::{Kind, Ref};
use crate::core::directory::{Command, ListPage, ListQuery};
use crate::core::event::{EventCommand, NewEvent};
use crate::core::model::ModelSettings;
use crate::core::playbook::Playbook;
use crate::core::run::store::{AnswerRun, RequestPage, RunPage, RunQuery, StartRun};
use crate::core::run::Run;
use crate::core::Problem;
use crate::ops::Backend;

const PLAYBOOK: &str = "pb_1";
const ORG: &str = "org_1";

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// A workflow document with these triggers (YAML lines under `triggers:`) and input schema.
fn workflow(triggers: &str, schema: &str) -> String {
    format!(
        "---\ndescription: Prices an order when it is due\ninput:\n  schema: {schema}\ntriggers:\n{triggers}steps:\n  - id: price\n    function: computation/add-vat\n    input:\n      net: \"100\"\n---\n"
    )
}

const TICKING: &str = "  - cron: \"* * * * *\"\n    time_zone: Europe/Paris\n    input:\n      due: time\n      by: \"'cron'\"\n  - every: 1m\n    input:\n      due: time\n      by: \"'every'\"\n";

/// The playbook's and the runs' objects as the trigger code reaches them: definitions to read,
/// runs started once per id, the playbook's events (kept once per key), and runs that take events.
#[derive(Default)]
struct Runtime {
    definitions: RefCell<BTreeMap<String, DefinitionView>>,
    runs: RefCell<BTreeMap<String, Run>>,
    /// Every start asked for, a repeated one included.
    starts: Cell<usize>,
    events: RefCell<Vec<NewEvent>>,
    /// Events delivered to waiting runs: the run, the kind and the data.
    sent: RefCell<Vec<(String, String, Value)>>,
}

fn elsewhere<'a, T: 'a>() -> LocalBoxFuture<'a, Result<T, Problem>> {
    Box::pin(async { Err(Problem::unavailable("the trigger tests keep nothing of this")) })
}

impl Backend for Runtime {
    fn definition<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        _command: DefinitionCommand,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        elsewhere()
    }

    fn get_version<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        _definition: Ref,
        _version: u32,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        elsewhere()
    }

    fn get_definition<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        definition: Ref,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        Box::pin(async move {
            let name = definition.name;
            self.definitions.borrow().get(&name).cloned().ok_or_else(|| Problem::not_found(format!("no {name}")))
        })
    }

    fn read_events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _kind: &'a str,
        _limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<crate::core::event::Event>, Problem>> {
        elsewhere()
    }

    fn start_run<'a>(&'a self, _org: &'a str, _pb: &'a str, s: StartRun) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            self.starts.set(self.starts.get() + 1);
            // As the run's object does: a start under an id it holds answers that run.
            Ok(self.runs.borrow_mut().entry(s.run.run_id.clone()).or_insert(s.run).clone())
        })
    }

    fn events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        command: EventCommand,
    ) -> LocalBoxFuture<'a, Result<Vec<crate::core::event::Event>, Problem>> {
        Box::pin(async move {
            let EventCommand::Append { events, .. } = command else { return Err(Problem::internal("only appends")) };
            let mut kept = self.events.borrow_mut();
            for e in events {
                if e.key.is_none() || !kept.iter().any(|k| k.key == e.key) {
                    kept.push(e);
                }
            }
            Ok(Vec::new())
        })
    }

    fn send_run_event<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        run_id: &'a str,
        name: &'a str,
        data: Value,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        Box::pin(async move {
            let run = self.runs.borrow().get(run_id).cloned();
            let run = run.ok_or_else(|| Problem::conflict(format!("The run {run_id} waits for nothing.")))?;
            self.sent.borrow_mut().push((run_id.to_string(), name.to_string(), data));
            Ok(run)
        })
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

    fn log(&self, _line: &str) {}

    fn pause(&self, _millis: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn answer_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _answer: AnswerRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        elsewhere()
    }

    fn cancel_run<'a>(&'a self, _org: &'a str, _pb: &'a str, _id: &'a str) -> LocalBoxFuture<'a, Result<Run, Problem>> {
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

    fn read_runs<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _definition: Ref,
        _limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Run>, Problem>> {
        elsewhere()
    }

    fn get_run<'a>(&'a self, _org: &'a str, _pb: &'a str, _id: &'a str) -> LocalBoxFuture<'a, Result<Run, Problem>> {
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

    fn read_flow<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Option<crate::core::run::store::FlowRead>, Problem>> {
        elsewhere()
    }

    fn list_definitions<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _query: DefinitionQuery,
    ) -> LocalBoxFuture<'a, Result<DefinitionPage, Problem>> {
        elsewhere()
    }

    fn offered_tools<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<crate::core::definition::workflow_tool::Offered>, Problem>> {
        elsewhere()
    }

    fn make_key(&self, _record: crate::core::access::key::KeyRecord) -> LocalBoxFuture<'_, Result<(), Problem>> {
        elsewhere()
    }

    fn list_keys<'a>(
        &'a self,
        _org: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<crate::core::access::key::KeyView>, Problem>> {
        elsewhere()
    }

    fn revoke_key(
        &self,
        _revoke: crate::core::access::key::RevokeKey,
    ) -> LocalBoxFuture<'_, Result<crate::core::access::key::KeyView, Problem>> {
        elsewhere()
    }

    fn list_roles<'a>(
        &'a self,
        _org: &'a str,
    ) -> LocalBoxFuture<'a, Result<Vec<crate::core::access::role::RoleAssignment>, Problem>> {
        elsewhere()
    }

    fn set_role(
        &self,
        _set: crate::core::access::store::SetRole,
    ) -> LocalBoxFuture<'_, Result<crate::core::access::role::RoleAssignment, Problem>> {
        elsewhere()
    }

    fn list_events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _query: crate::core::event::EventQuery,
    ) -> LocalBoxFuture<'a, Result<crate::core::event::EventPage, Problem>> {
        elsewhere()
    }

    fn get_event<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _event_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<crate::core::event::Event, Problem>> {
        elsewhere()
    }

    fn put_asset_bytes<'a>(
        &'a self,
        _key: &'a str,
        _media: &'a str,
        _b: Vec<u8>,
    ) -> LocalBoxFuture<'a, Result<(), Problem>> {
        elsewhere()
    }

    fn asset_bytes<'a>(&'a self, _key: &'a str) -> LocalBoxFuture<'a, Result<Option<Vec<u8>>, Problem>> {
        elsewhere()
    }

    fn keep_asset(
        &self,
        _asset: crate::core::asset::Asset,
    ) -> LocalBoxFuture<'_, Result<crate::core::asset::Asset, Problem>> {
        elsewhere()
    }

    fn get_asset<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _id: &'a str,
    ) -> LocalBoxFuture<'a, Result<crate::core::asset::Asset, Problem>> {
        elsewhere()
    }

    fn model_lists(
        &self,
        _providers: Vec<String>,
    ) -> LocalBoxFuture<'_, Result<BTreeMap<String, crate::core::model::catalog::Kept>, Problem>> {
        elsewhere()
    }

    fn comment(
        &self,
        _write: crate::core::comment::WriteComment,
    ) -> LocalBoxFuture<'_, Result<crate::core::comment::Comment, Problem>> {
        elsewhere()
    }

    fn list_comments(
        &self,
        _list: crate::core::comment::ListComments,
    ) -> LocalBoxFuture<'_, Result<crate::core::comment::CommentPage, Problem>> {
        elsewhere()
    }

    fn connection(&self, _change: ChangeConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>> {
        elsewhere()
    }

    fn get_connection(&self, _get: GetConnection) -> LocalBoxFuture<'_, Result<Connection, Problem>> {
        elsewhere()
    }

    fn list_connections(&self, _query: ListConnections) -> LocalBoxFuture<'_, Result<ConnectionPage, Problem>> {
        elsewhere()
    }
}

/// One playbook: its trigger tables, the runtime around them, and the events it kept so far.
#[derive(Default)]
struct World {
    store: MemTriggers,
    runtime: Runtime,
    positions: Cell<i64>,
}

impl World {
    fn failing_on(call: &'static str) -> World {
        let w = World::default();
        w.store.faults.fail_on(call);
        w
    }

    /// Saves a workflow, or changes its state, at `now`, as the playbook's object does.
    fn save(&self, name: &str, document: &str, status: DefinitionStatus, now: &str) -> Result<(), Problem> {
        let view = DefinitionView {
            definition: Definition {
                kind: Kind::Workflow,
                name: name.into(),
                version: 1,
                status,
                description: "Prices an order when it is due".into(),
                has_page: false,
                tool: None,
                created_at: now.into(),
                updated_at: now.into(),
                created_by: None,
                updated_by: None,
            },
            document: document.into(),
            overview: String::new(),
            diagram: None,
            used_by: Vec::new(),
            changed: true,
        };
        self.runtime.definitions.borrow_mut().insert(name.into(), view.clone());
        sync(&self.store, ORG, &view, t(now))
    }

    fn active(&self, name: &str, document: &str, now: &str) {
        self.save(name, document, DefinitionStatus::Active, now).unwrap();
    }

    fn paused(&self, name: &str, document: &str, now: &str) {
        let status = DefinitionStatus::Paused { paused_at: now.into(), reason: None, by: None };
        self.save(name, document, status, now).unwrap();
    }

    /// The alarm rings at `now`.
    fn ring(&self, now: &str) -> Result<(), Problem> {
        block_on(fire(&self.store, &self.runtime, &ModelSettings::default(), PLAYBOOK, t(now)))
    }

    /// When the alarm is set for, as the object sets it after a ring at `now`.
    fn alarm(&self, now: &str) -> Option<DateTime<Utc>> {
        alarm_at(&self.store, t(now), 0).unwrap()
    }

    /// Keeps an event, recorded by `run_id` (or published, for `None`), as the playbook's
    /// object does; answers whether it owes anything.
    fn keep(&self, kind: &str, data: Value, run_id: Option<&str>) -> Result<bool, Problem> {
        let position = self.positions.get() + 1;
        self.positions.set(position);
        let event = NewEvent {
            kind: kind.into(),
            at: "2025-06-02T09:00:00.000Z".into(),
            summary: format!("Something of the kind {kind} happened."),
            run_id: run_id.map(Into::into),
            data,
            family: None,
            key: None,
        };
        take_events(&self.store, &[(position, event)])
    }

    /// The runs started so far, by id, with their input and when they started.
    fn runs(&self) -> Vec<(String, Value, String)> {
        let runs = self.runtime.runs.borrow();
        runs.values().map(|r| (r.run_id.clone(), r.input.clone(), r.started_at.clone())).collect()
    }

    fn ids(&self) -> Vec<String> {
        self.runtime.runs.borrow().keys().cloned().collect()
    }

    fn refusals(&self) -> Vec<NewEvent> {
        self.runtime.events.borrow().iter().filter(|e| e.kind == "trigger_refused").cloned().collect()
    }
}

fn ticking_id(idx: i64, due: &str) -> String {
    format!("tf1e27db4-{idx}-{}", t(due).timestamp())
}

#[test]
fn a_one_minute_cron_and_interval_fall_due_on_their_times() {
    let w = World::default();
    w.active("ticking", &workflow(TICKING, "{ type: object }"), "2025-06-02T09:00:20.500Z");
    // The cron is due on the minute, the interval a minute after the save.
    assert_eq!(w.alarm("2025-06-02T09:00:20.500Z"), Some(t("2025-06-02T09:01:00Z")));
    w.ring("2025-06-02T09:00:59.999Z").unwrap();
    assert!(w.ids().is_empty(), "nothing is due before its time");

    w.ring("2025-06-02T09:01:00Z").unwrap();
    let cron = ticking_id(0, "2025-06-02T09:01:00Z");
    assert_eq!(
        w.runs(),
        [(cron.clone(), json!({"due": "2025-06-02T09:01:00Z", "by": "cron"}), "2025-06-02T09:01:00.000Z".into())]
    );
    assert_eq!(w.alarm("2025-06-02T09:01:00Z"), Some(t("2025-06-02T09:01:20.500Z")));

    w.ring("2025-06-02T09:01:20.500Z").unwrap();
    let every = ticking_id(1, "2025-06-02T09:01:20Z");
    assert_eq!(w.ids(), [cron.clone(), every.clone()]);
    let runs = w.runtime.runs.borrow();
    assert_eq!(runs[&every].input, json!({"due": "2025-06-02T09:01:20Z", "by": "every"}));
    let by = runs[&every].started_by.clone().unwrap();
    assert_eq!(
        (by.id.as_str(), by.name.as_str()),
        ("workflow/ticking/triggers/1", "the trigger 1 of the workflow \u{201c}ticking\u{201d}")
    );
    assert_eq!(runs[&cron].definition, Ref { kind: Kind::Workflow, name: "ticking".into() });
    drop(runs);
    // The next minute, and a minute after the last interval.
    assert_eq!(w.alarm("2025-06-02T09:01:20.500Z"), Some(t("2025-06-02T09:02:00Z")));
    w.ring("2025-06-02T09:02:00Z").unwrap();
    w.ring("2025-06-02T09:02:20.500Z").unwrap();
    assert_eq!(w.ids().len(), 4);
    assert!(w.ids().contains(&ticking_id(1, "2025-06-02T09:02:20Z")));
}

#[test]
fn times_missed_while_down_owe_one_run_each_trigger_not_one_per_time() {
    let w = World::default();
    w.active("ticking", &workflow(TICKING, "{ type: object }"), "2025-06-02T09:00:20Z");
    // Down from before the first time until five minutes later.
    w.ring("2025-06-02T09:05:30Z").unwrap();
    assert_eq!(w.ids(), [ticking_id(0, "2025-06-02T09:01:00Z"), ticking_id(1, "2025-06-02T09:01:20Z")]);
    // Each is next due after the ring, not at the times it missed.
    assert_eq!(w.alarm("2025-06-02T09:05:30Z"), Some(t("2025-06-02T09:06:00Z")));
    w.ring("2025-06-02T09:06:00Z").unwrap();
    w.ring("2025-06-02T09:06:30Z").unwrap();
    assert_eq!(w.ids().len(), 4);
    assert!(w.ids().contains(&ticking_id(1, "2025-06-02T09:06:30Z")));
}

#[test]
fn a_paused_or_retired_workflow_starts_nothing_and_a_resume_has_no_backlog() {
    let w = World::default();
    let doc = workflow(TICKING, "{ type: object }");
    w.active("ticking", &doc, "2025-06-02T09:00:20Z");
    w.paused("ticking", &doc, "2025-06-02T09:00:30Z");
    assert!(w.store.armed().unwrap().is_empty(), "a paused workflow's triggers are dropped");
    assert_eq!(w.alarm("2025-06-02T09:00:30Z"), None, "nothing sets the alarm");
    w.ring("2025-06-02T09:03:00Z").unwrap();
    assert!(w.ids().is_empty());

    w.active("ticking", &doc, "2025-06-02T09:03:10Z");
    assert_eq!(w.alarm("2025-06-02T09:03:10Z"), Some(t("2025-06-02T09:04:00Z")));
    w.ring("2025-06-02T09:04:00Z").unwrap();
    assert_eq!(w.ids(), [ticking_id(0, "2025-06-02T09:04:00Z")], "the cron's next minute, and no missed one");
    w.ring("2025-06-02T09:04:10Z").unwrap();
    assert_eq!(w.ids().len(), 2, "the interval counts from the resume");
    assert!(w.ids().contains(&ticking_id(1, "2025-06-02T09:04:10Z")));

    let retired = DefinitionStatus::Retired { retired_at: "2025-06-02T09:04:30Z".into(), by: None };
    w.save("ticking", &doc, retired, "2025-06-02T09:04:30Z").unwrap();
    assert!(w.store.armed().unwrap().is_empty());
    w.ring("2025-06-02T09:10:00Z").unwrap();
    assert_eq!(w.ids().len(), 2);
}

#[test]
fn set_times_start_a_run_each_and_then_nothing() {
    let w = World::default();
    let doc = workflow("  - at: [\"2025-06-02T11:00:00+02:00\", \"2025-06-02T09:30:00Z\"]\n", "{ type: object }");
    w.active("at-times", &doc, "2025-06-02T08:00:00Z");
    assert_eq!(w.alarm("2025-06-02T08:00:00Z"), Some(t("2025-06-02T09:00:00Z")));
    w.ring("2025-06-02T09:00:00.010Z").unwrap();
    assert_eq!(w.runs(), [("td5cedb87-0-1748854800".into(), json!({}), "2025-06-02T09:00:00.010Z".into())]);
    assert_eq!(w.alarm("2025-06-02T09:00:00.010Z"), Some(t("2025-06-02T09:30:00Z")));
    w.ring("2025-06-02T09:30:00Z").unwrap();
    assert_eq!(w.ids(), ["td5cedb87-0-1748854800", "td5cedb87-0-1748856600"]);
    assert_eq!(w.alarm("2025-06-02T09:30:00Z"), None, "all times past");

    // Both times passed while down: one run, for the first.
    let late = World::default();
    late.active("at-times", &doc, "2025-06-02T08:00:00Z");
    late.ring("2025-06-02T10:00:00Z").unwrap();
    assert_eq!(late.ids(), ["td5cedb87-0-1748854800"]);
}

const ON_ORDER: &str = "  - event: order_placed\n    where: { channel: web }\n";
const ORDER_SCHEMA: &str = "{ type: object, properties: { order: { type: string } }, required: [order] }";

#[test]
fn an_event_that_matches_the_filter_starts_a_run_with_its_data_and_one_that_does_not_starts_none() {
    let w = World::default();
    w.active("on-order", &workflow(ON_ORDER, ORDER_SCHEMA), "2025-06-02T09:00:00Z");
    assert_eq!(w.alarm("2025-06-02T09:00:00Z"), None, "an event trigger has no time");
    assert!(!w.keep("order_placed", json!({"channel": "shop", "order": "A-1"}), None).unwrap());
    assert!(!w.keep("order_shipped", json!({"channel": "web", "order": "A-1"}), None).unwrap());
    assert!(w.keep("order_placed", json!({"channel": "web", "order": "A-2"}), None).unwrap());
    assert_eq!(w.alarm("2025-06-02T09:00:01Z"), Some(t("2025-06-02T09:00:01Z")), "what is owed rings now");
    w.ring("2025-06-02T09:00:01Z").unwrap();
    assert_eq!(
        w.runs(),
        [("t614ff959-e3-0".into(), json!({"channel": "web", "order": "A-2"}), "2025-06-02T09:00:01.000Z".into())]
    );
    assert_eq!(w.alarm("2025-06-02T09:00:01Z"), None, "paid");
}

#[test]
fn a_workflows_own_runs_never_start_it_again_but_start_others() {
    let w = World::default();
    let on = |kind: &str| workflow(&format!("  - event: {kind}\n"), "{ type: object }");
    w.active("on-order", &on("order_placed"), "2025-06-02T09:00:00Z");
    w.active("audit", &on("order_placed"), "2025-06-02T09:00:00Z");
    // A run the on-order trigger started records an order_placed event.
    assert!(w.keep("order_placed", json!({}), Some("t614ff959-e7-0")).unwrap());
    let owed: Vec<String> = w.store.owed().unwrap().into_iter().map(|(_, o)| o.workflow).collect();
    assert_eq!(owed, ["audit"]);
}

#[test]
fn a_waiting_run_receives_others_events_never_its_own_until_it_refuses_one() {
    let w = World::default();
    let started = |id: &str| {
        let start = StartRun {
            run: Run {
                run_id: id.into(),
                org: ORG.into(),
                playbook: PLAYBOOK.into(),
                definition: Ref { kind: Kind::Workflow, name: "approve".into() },
                version: 1,
                input: json!({}),
                status: crate::core::run::RunStatus::Started { waiting: None },
                started_at: "2025-06-02T09:00:00.000Z".into(),
                within: None,
                steps: None,
                started_by: None,
                answered_by: None,
                record: None,
                rerun_of: None,
                rehearsal: false,
                stand_ins: None,
            },
            source: String::new(),
            material: Vec::new(),
            events: Vec::new(),
            tools: Vec::new(),
            reused: None,
        };
        block_on(w.runtime.start_run(ORG, PLAYBOOK, start)).unwrap();
    };
    started("run_a");
    wait(&w.store, ORG, "run_a", "approved").unwrap();
    wait(&w.store, ORG, "run_a", "approved").unwrap();
    wait(&w.store, ORG, "run_gone", "approved").unwrap();
    assert!(w.keep("approved", json!({"by": "self"}), Some("run_a")).unwrap());
    let to: Vec<String> = w.store.deliveries().unwrap().into_iter().map(|(_, d)| d.run_id).collect();
    assert_eq!(to, ["run_gone"], "run_a recorded it, so only the other waiting run receives it");
    assert!(w.keep("approved", json!({"by": "ann"}), None).unwrap());
    w.ring("2025-06-02T09:00:01Z").unwrap();
    let sent = w.runtime.sent.borrow().clone();
    assert_eq!(sent, [("run_a".to_string(), "approved".to_string(), json!({"by": "ann"}))]);
    // run_gone refused its delivery: it waits no more; run_a still does.
    let waiting: Vec<String> = w.store.waiters().unwrap().into_iter().map(|x| x.run_id).collect();
    assert_eq!(waiting, ["run_a"]);
    assert!(w.store.deliveries().unwrap().is_empty());
}

#[test]
fn a_refused_input_is_recorded_as_trigger_refused() {
    let w = World::default();
    w.active("on-order", &workflow(ON_ORDER, ORDER_SCHEMA), "2025-06-02T09:00:00Z");
    // The filter takes it, and the workflow's schema refuses it: no order.
    assert!(w.keep("order_placed", json!({"channel": "web"}), None).unwrap());
    w.ring("2025-06-02T09:00:01Z").unwrap();
    assert!(w.ids().is_empty());
    let [refused] = w.refusals().try_into().unwrap();
    assert_eq!(refused.at, "2025-06-02T09:00:01.000Z");
    assert!(
        refused.summary.starts_with("A trigger of the workflow \u{201c}on-order\u{201d} did not start a run: "),
        "{}",
        refused.summary
    );
    assert_eq!(refused.data["workflow"], "on-order");
    assert_eq!(refused.data["trigger"], 0);
    assert_eq!(refused.data["run_id"], "t614ff959-e1-0");

    // An input expression with no value, and a workflow paused after the event was kept.
    let doc = workflow("  - event: order_placed\n    input:\n      order: event.data.order.id\n", ORDER_SCHEMA);
    w.active("shaped", &doc, "2025-06-02T09:00:02Z");
    assert!(w.keep("order_placed", json!({}), None).unwrap());
    w.ring("2025-06-02T09:00:03Z").unwrap();
    let last = w.refusals().pop().unwrap();
    assert!(last.summary.contains("did not start a run: its input has no value: "), "{}", last.summary);
    assert!(w.keep("order_placed", json!({"order": {"id": "A-3"}}), None).unwrap());
    w.paused("shaped", &doc, "2025-06-02T09:00:04Z");
    w.ring("2025-06-02T09:00:05Z").unwrap();
    let last = w.refusals().pop().unwrap();
    assert!(
        last.summary.ends_with("is paused, and nothing starts a run of it until resume_definition."),
        "{}",
        last.summary
    );
    assert!(w.ids().is_empty());
}

#[test]
fn a_failure_between_owing_and_moving_on_or_starting_and_paying_neither_loses_nor_repeats_a_run() {
    for call in ["owe", "move_on", "owed", "paid", "armed"] {
        let w = World::failing_on(call);
        w.active("ticking", &workflow(TICKING, "{ type: object }"), "2025-06-02T09:00:20Z");
        assert!(w.ring("2025-06-02T09:01:00Z").is_err(), "{call} failed");
        // The object retries after a while; the run owed is started, once.
        w.ring("2025-06-02T09:01:10Z").unwrap();
        assert_eq!(w.ids(), [ticking_id(0, "2025-06-02T09:01:00Z")], "after {call} failed");
        assert_eq!(w.alarm("2025-06-02T09:01:10Z"), Some(t("2025-06-02T09:01:20Z")), "after {call} failed");
    }
}

/// What happens to a playbook in a test of restarts.
enum Step {
    Save(&'static str, String, DefinitionStatus, &'static str),
    Keep(&'static str, Value, Option<&'static str>),
    Wait(&'static str, &'static str),
    Ring(&'static str),
}

/// A morning of a playbook: saves, events, a wait, a pause and a resume, and the alarm's rings.
fn a_morning() -> Vec<Step> {
    let ticking = workflow(TICKING, "{ type: object }");
    let paused = DefinitionStatus::Paused { paused_at: "2025-06-02T09:01:30Z".into(), reason: None, by: None };
    vec![
        Step::Save("ticking", ticking.clone(), DefinitionStatus::Active, "2025-06-02T09:00:20Z"),
        Step::Save("on-order", workflow(ON_ORDER, ORDER_SCHEMA), DefinitionStatus::Active, "2025-06-02T09:00:20Z"),
        Step::Keep("order_placed", json!({"channel": "web", "order": "A-1"}), None),
        Step::Keep("order_placed", json!({"channel": "web"}), None),
        Step::Ring("2025-06-02T09:00:21Z"),
        Step::Wait("t614ff959-e1-0", "order_paid"),
        Step::Keep("order_paid", json!({"order": "A-1"}), None),
        Step::Ring("2025-06-02T09:00:22Z"),
        Step::Ring("2025-06-02T09:01:00Z"),
        Step::Ring("2025-06-02T09:01:20Z"),
        Step::Save("ticking", ticking.clone(), paused, "2025-06-02T09:01:30Z"),
        Step::Ring("2025-06-02T09:05:00Z"),
        Step::Save("ticking", ticking, DefinitionStatus::Active, "2025-06-02T09:05:10Z"),
        Step::Ring("2025-06-02T09:06:00Z"),
        Step::Ring("2025-06-02T09:06:10Z"),
    ]
}

impl World {
    fn take(&self, step: &Step) -> Result<(), Problem> {
        match step {
            Step::Save(name, doc, status, at) => self.save(name, doc, status.clone(), at),
            Step::Keep(kind, data, run_id) => self.keep(kind, data.clone(), *run_id).map(|_| ()),
            Step::Wait(run_id, kind) => wait(&self.store, ORG, run_id, kind),
            Step::Ring(at) => self.ring(at),
        }
    }
}

#[test]
fn a_restart_between_any_two_writes_of_the_alarm_loses_no_run_and_starts_none_twice() {
    let steps = a_morning();
    let whole = World::default();
    let mut writes = Vec::new();
    for step in &steps {
        let before = whole.store.faults.writes();
        whole.take(step).unwrap();
        writes.push(whole.store.faults.writes() - before);
    }
    let expected = whole.runs();
    assert_eq!(expected.len(), 5, "{expected:#?}");
    assert_eq!(whole.runtime.sent.borrow().len(), 1);
    // Saves and kept events are written in one turn of the object, which its storage commits
    // whole; the alarm awaits other objects between its writes, so a restart may fall there.
    let rings = steps.iter().enumerate().filter(|(_, s)| matches!(s, Step::Ring(_)));
    for (at, _) in rings {
        for n in 0..writes[at] {
            let w = World::default();
            for (i, step) in steps.iter().enumerate() {
                if i == at {
                    w.store.faults.fail_after(n);
                    assert!(w.take(step).is_err(), "the write after {n} of step {at} did not fail");
                }
                // The alarm rings again after a failure.
                w.take(step).unwrap();
            }
            let said = format!("with a restart after {n} writes of step {at}");
            assert_eq!(w.runs(), expected, "{said}");
            assert!(w.runtime.starts.get() <= whole.runtime.starts.get() + 1, "{said}");
            assert_eq!(w.refusals(), whole.refusals(), "a refusal is kept once, {said}");
            // An event is delivered at least once: a restart after the run took it and before the
            // delivery was marked made sends it again, and the run's object decides what a repeat does.
            let (sent, once) = (w.runtime.sent.borrow(), whole.runtime.sent.borrow());
            assert!(sent.len() <= once.len() + 1 && once.iter().all(|d| sent.contains(d)), "{said}");
        }
    }
}

#[test]
fn a_save_that_fails_part_way_arms_the_workflow_whole_when_tried_again() {
    let w = World::default();
    let doc = workflow(TICKING, "{ type: object }");
    w.active("ticking", &doc, "2025-06-02T09:00:20Z");
    w.store.faults.fail_on("arm");
    assert!(w.save("ticking", &doc, DefinitionStatus::Active, "2025-06-02T09:00:30Z").is_err());
    w.active("ticking", &doc, "2025-06-02T09:00:30Z");
    let armed: Vec<(i64, Option<DateTime<Utc>>)> =
        w.store.armed().unwrap().iter().map(|a| (a.idx, a.next_at)).collect();
    assert_eq!(armed, [(0, Some(t("2025-06-02T09:01:00Z"))), (1, Some(t("2025-06-02T09:01:30Z")))]);
}
