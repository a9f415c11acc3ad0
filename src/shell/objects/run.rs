//! The Run Durable Object: one per run, named by its org, playbook and run id. It reads each call
//! into what `ops::run` is asked, and hands that its SQLite store and the platform as its host;
//! every rule of a run's life is decided below, in `ops::run` and `core::run::life`.

use worker::{durable_object, DurableObject, Env, Request, Response, State};

use crate::core::run::store::{AnswerRun, CancelRun, ChildEnded, GetRun, ReadFlow, SentEvent, StartRun, StartStep};
use crate::core::Problem;
use crate::ops::run::{Asked, Memory, Runner};
use crate::shell::backend::Objects;
use crate::shell::do_rpc::{self, Call};

mod host;
mod store;

use host::Shell;
use store::SqlRun;

#[durable_object]
pub struct RunObject {
    state: State,
    env: Env,
    store: SqlRun,
    memory: Memory,
    /// Whether the tables were brought up to date; if not, every call is refused as internal.
    migrated: Result<(), Problem>,
}

impl DurableObject for RunObject {
    fn new(state: State, env: Env) -> Self {
        let sql = state.storage().sql();
        let migrated = super::migrate::ready(&sql, "run", store::STEPS);
        let store = SqlRun::new(sql, migrated.as_ref().is_ok_and(|new| *new));
        RunObject { state, env, store, memory: Memory::default(), migrated: migrated.map(drop) }
    }

    async fn alarm(&self) -> worker::Result<Response> {
        if self.migrated.is_err() {
            return Response::empty();
        }
        let host = self.host();
        if let Err(p) = self.runner(&host).alarm().await {
            worker::console_error!("run alarm: {}", p.detail);
        }
        Response::empty()
    }

    async fn fetch(&self, mut req: Request) -> worker::Result<Response> {
        if let Err(p) = &self.migrated {
            return do_rpc::reply::<()>(Err(p.clone()));
        }
        if req.path() == StartStep::PATH {
            let host = self.host();
            let stepped = match do_rpc::read::<StartStep>(&mut req).await {
                Ok(step) => self.runner(&host).start_step(step.start).await,
                Err(p) => Err(p),
            };
            return do_rpc::reply(stepped);
        }
        if req.path() == ReadFlow::PATH {
            let host = self.host();
            let read = match do_rpc::read::<ReadFlow>(&mut req).await {
                Ok(r) => self.runner(&host).read_flow(&r.run_id),
                Err(p) => Err(p),
            };
            return do_rpc::reply(read);
        }
        let asked = match req.path().as_str() {
            StartRun::PATH => do_rpc::read::<StartRun>(&mut req).await.map(|s| Asked::Start(Box::new(s))),
            GetRun::PATH => do_rpc::read::<GetRun>(&mut req).await.map(|g| Asked::Get { run_id: g.run_id }),
            AnswerRun::PATH => do_rpc::read::<AnswerRun>(&mut req).await.map(Asked::Answer),
            CancelRun::PATH => do_rpc::read::<CancelRun>(&mut req).await.map(|c| Asked::Cancel { run_id: c.run_id }),
            ChildEnded::PATH => do_rpc::read::<ChildEnded>(&mut req).await.map(Asked::Child),
            SentEvent::PATH => do_rpc::read::<SentEvent>(&mut req).await.map(Asked::Event),
            other => Err(Problem::internal(format!("no endpoint {other}"))),
        };
        let host = self.host();
        let result = match asked {
            Ok(asked) => self.runner(&host).handle(asked).await,
            Err(p) => Err(p),
        };
        do_rpc::reply(result)
    }
}

impl RunObject {
    fn host(&self) -> Shell<'_> {
        Shell { state: &self.state, env: &self.env, objects: Objects { env: &self.env } }
    }

    fn runner<'a>(&'a self, host: &'a Shell<'a>) -> Runner<'a> {
        Runner { store: &self.store, host, memory: &self.memory }
    }
}
