//! An in-memory backend that applies the directory's own `decide`, so host tests drive the tools
//! and the MCP dispatch exactly as the Durable Objects would, without workerd.

#![allow(dead_code)] // each test crate that includes `common` uses part of it

pub mod world;

use std::cell::RefCell;
use std::collections::BTreeMap;

use futures::future::LocalBoxFuture;
use playbook_runtime::core::access::key::{KeyRecord, KeyView, RevokeKey};
use playbook_runtime::core::access::role::RoleAssignment;
use playbook_runtime::core::access::store::SetRole;
use playbook_runtime::core::definition::store::{DefinitionCommand, DefinitionPage, DefinitionQuery, DefinitionView};
use playbook_runtime::core::definition::Ref;
use playbook_runtime::core::directory::{decide, unknown_playbook, Command, Cursor, Decision, ListPage, ListQuery};
use playbook_runtime::core::event::{Event, EventCommand, EventPage, EventQuery};
use playbook_runtime::core::playbook::{name_key, Playbook};
use playbook_runtime::core::run::store::{AnswerRun, RequestPage, RunPage, RunQuery, StartRun};
use playbook_runtime::core::run::Run;
use playbook_runtime::core::{Caller, Problem};
use playbook_runtime::ops::{Backend, Ctx};

/// What the host tests do not keep: the Durable Objects do, and the end-to-end tests cover them.
fn kept_elsewhere<'a, T: 'a>(what: &'static str) -> LocalBoxFuture<'a, Result<T, Problem>> {
    Box::pin(async move { Err(Problem::unavailable(format!("the host tests keep no {what}"))) })
}

#[derive(Default)]
pub struct Memory {
    playbooks: RefCell<BTreeMap<String, Playbook>>,
}

impl Backend for Memory {
    // Definitions and runs are kept by Durable Objects; their rules are host-tested in the crate
    // (`decide_save`, `Lifecycle::next`) and their storage end to end.
    fn definition<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        _command: DefinitionCommand,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        kept_elsewhere("definitions")
    }

    fn get_definition<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        _definition: Ref,
    ) -> LocalBoxFuture<'a, Result<DefinitionView, Problem>> {
        kept_elsewhere("definitions")
    }

    fn pause(&self, _millis: u64) -> LocalBoxFuture<'_, ()> {
        Box::pin(async {})
    }

    fn events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _command: EventCommand,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>> {
        kept_elsewhere("events")
    }

    fn list_events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _query: EventQuery,
    ) -> LocalBoxFuture<'a, Result<EventPage, Problem>> {
        kept_elsewhere("events")
    }

    fn get_event<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _event_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Event, Problem>> {
        kept_elsewhere("events")
    }

    fn read_events<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _kind: &'a str,
        _limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Event>, Problem>> {
        kept_elsewhere("events")
    }

    fn start_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _start: StartRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        kept_elsewhere("runs")
    }

    fn answer_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _answer: AnswerRun,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        kept_elsewhere("runs")
    }

    fn cancel_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        kept_elsewhere("runs")
    }

    fn send_run_event<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _run_id: &'a str,
        _name: &'a str,
        _data: serde_json::Value,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        kept_elsewhere("runs")
    }

    fn list_requests<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _limit: usize,
        _before: Option<i64>,
    ) -> LocalBoxFuture<'a, Result<RequestPage, Problem>> {
        kept_elsewhere("runs")
    }

    fn read_runs<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _definition: Ref,
        _limit: usize,
    ) -> LocalBoxFuture<'a, Result<Vec<Run>, Problem>> {
        kept_elsewhere("runs")
    }

    fn log(&self, _line: &str) {}

    fn make_key(&self, _record: KeyRecord) -> LocalBoxFuture<'_, Result<(), Problem>> {
        kept_elsewhere("keys")
    }

    fn list_keys<'a>(&'a self, _org: &'a str) -> LocalBoxFuture<'a, Result<Vec<KeyView>, Problem>> {
        kept_elsewhere("keys")
    }

    fn revoke_key(&self, _revoke: RevokeKey) -> LocalBoxFuture<'_, Result<KeyView, Problem>> {
        kept_elsewhere("keys")
    }

    fn list_roles<'a>(&'a self, _org: &'a str) -> LocalBoxFuture<'a, Result<Vec<RoleAssignment>, Problem>> {
        kept_elsewhere("roles")
    }

    fn set_role(&self, _set: SetRole) -> LocalBoxFuture<'_, Result<RoleAssignment, Problem>> {
        kept_elsewhere("roles")
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

    fn get_run<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _run_id: &'a str,
    ) -> LocalBoxFuture<'a, Result<Run, Problem>> {
        kept_elsewhere("runs")
    }

    fn list_runs<'a>(
        &'a self,
        _org: &'a str,
        _pb: &'a str,
        _query: RunQuery,
    ) -> LocalBoxFuture<'a, Result<RunPage, Problem>> {
        kept_elsewhere("runs")
    }

    fn list_definitions<'a>(
        &'a self,
        _org: &'a str,
        _playbook: &'a str,
        _query: DefinitionQuery,
    ) -> LocalBoxFuture<'a, Result<DefinitionPage, Problem>> {
        kept_elsewhere("definitions")
    }

    fn change<'a>(&'a self, _org: &'a str, command: Command) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        Box::pin(async move {
            let mut map = self.playbooks.borrow_mut();
            let current = map.get(command.id()).cloned().map(|mut p| {
                p.page = String::new();
                p
            });
            let holder = command.claimed_name(current.as_ref()).and_then(|name| {
                map.values().find(|p| !p.is_retired() && name_key(&p.name) == name_key(name)).map(|p| p.id.clone())
            });
            match decide(&command, current.as_ref(), holder.as_deref())? {
                Decision::Unchanged => Ok(map[command.id()].clone()),
                Decision::Save(save) => {
                    let mut record = save.record;
                    if save.keep_page {
                        record.page = map.get(&record.id).map(|p| p.page.clone()).unwrap_or_default();
                    }
                    let record = Playbook::settle(map.get(&record.id).cloned(), record);
                    map.insert(record.id.clone(), record.clone());
                    Ok(record)
                }
            }
        })
    }

    fn list<'a>(&'a self, _org: &'a str, q: ListQuery) -> LocalBoxFuture<'a, Result<ListPage, Problem>> {
        Box::pin(async move {
            let map = self.playbooks.borrow();
            let mut all: Vec<&Playbook> = map
                .values()
                .filter(|p| q.include_retired || !p.is_retired())
                .filter(|p| q.only.as_ref().is_none_or(|only| only.contains(&p.id)))
                .collect();
            all.sort_by(|a, b| (&b.created_at, &b.id).cmp(&(&a.created_at, &a.id)));
            let after: Vec<&Playbook> = match &q.after {
                Some(c) => all.into_iter().filter(|p| (&p.created_at, &p.id) < (&c.created_at, &c.id)).collect(),
                None => all,
            };
            let more = after.len() > q.limit;
            let page: Vec<&Playbook> = after.into_iter().take(q.limit).collect();
            let next_cursor = if more {
                page.last().map(|p| Cursor { created_at: p.created_at.clone(), id: p.id.clone() }.encode())
            } else {
                None
            };
            Ok(ListPage {
                playbooks: page.iter().map(|p| p.listed()).collect(),
                next_cursor,
                org_has_playbooks: !map.is_empty(),
            })
        })
    }

    fn get<'a>(&'a self, _org: &'a str, id: &'a str) -> LocalBoxFuture<'a, Result<Playbook, Problem>> {
        Box::pin(async move { self.playbooks.borrow().get(id).cloned().ok_or_else(|| unknown_playbook(id)) })
    }
}

/// A context for one request at a given second, with randomness drawn from `seed`.
pub fn ctx<'a>(caller: &'a Caller, backend: &'a Memory, second: u32, seed: u8) -> Ctx<'a> {
    let mut random = [0u8; 16];
    for (i, b) in random.iter_mut().enumerate() {
        *b = seed.wrapping_mul(31).wrapping_add(i as u8 * 7);
    }
    Ctx {
        caller,
        backend,
        now: format!("2026-12-02T10:00:{second:02}.000Z"),
        random,
        secret: [second as u8; 32],
        models: Default::default(),
    }
}
