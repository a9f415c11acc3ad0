//! A run's one call of a tool, without a model: a lookup's read, a notification, a request sent
//! through a tool; then, for a request, its replies read on the alarm every so often until one
//! answers it or it expires. The call is kept as started before it is made: a restart that cuts
//! it off ends the run `interrupted`, and it is never made again.

use base64::Engine;
use serde_json::Value;

use super::Runner;
use crate::core::actor::Actor;
use crate::core::asset::{seeded, MadeBy, NewAsset};
use crate::core::definition::interaction;
use crate::core::definition::reasoning::dialogue::{Called, Planned, CALL_SECONDS};
use crate::core::definition::tool_call::ToolCallSpec;
use crate::core::run::life::Input;
use crate::core::run::{Request, Run, RunStatus};
use crate::core::tool_server::mcp::{named, Image};
use crate::core::tool_server::settings::Server;
use crate::core::Problem;
use crate::ops::assets;
use crate::ops::tool_binding;
use crate::ops::tool_servers::Registry;

impl Runner<'_> {
    /// Makes the call the start kept, and keeps how it ended. The caller holds `asking`.
    pub(super) async fn make_call(&self, run: Run, planned: Planned) -> Result<Run, Problem> {
        let connections = self.connections_for(&run, [planned.tool.server.as_str()]).await;
        let renewal = super::host::Renewal { host: self.host, org: &run.org };
        let registry = self.host.tool_servers().with(&connections).renewing(&renewal);
        let (called, took) = self.call(&run, &registry, &planned).await;
        let input = Input::Called { planned: Box::new(planned), called, duration_ms: took };
        let run = self.input(&run.run_id, input)?;
        self.schedule_request(&run).await;
        Ok(run)
    }

    /// The org's connections as servers, read only when one of `names` (`server/tool`, or a
    /// server's name) is not of a server the settings serve to the run's playbook: the settings'
    /// come first wherever a name is looked up, so for those the read, a call to the org's object,
    /// would change nothing.
    pub(super) async fn connections_for<'n>(&self, run: &Run, names: impl IntoIterator<Item = &'n str>) -> Vec<Server> {
        if run.rehearsal || self.host.tool_servers().settings_serve(&run.org, &run.playbook, names) {
            return Vec::new();
        }
        self.host.connections(&run.org).await
    }

    /// Makes one call kept as started, within its deadline, with the alarm set past it: how it
    /// ended and how long it took. The images it answered are kept as assets first.
    pub(super) async fn call(&self, run: &Run, registry: &Registry<'_>, p: &Planned) -> (Called, u64) {
        if let Some(stand_ins) = run.stand_ins.as_deref().filter(|_| run.rehearsal) {
            return (stand_ins.tool(&p.tool.named(), call_place(run, stand_ins, p)), 0);
        }
        let began = self.watch(CALL_SECONDS).await;
        let mut called = tool_binding::call(registry, &p.tool, &p.arguments, CALL_SECONDS).await;
        if let Called::Answered { text, images, assets, .. } = &mut called {
            if !images.is_empty() && p.tool.record_content {
                let (named, kept) = self.keep_images(run, p, text, std::mem::take(images)).await;
                *text = named;
                *assets = kept;
            }
        }
        (called, self.took(began))
    }

    /// Keeps each image a tool answered as an asset of the run's playbook: answers the answer's
    /// text with each kept image named by its asset (media type, size and id) in place of its
    /// bytes, and the kept assets' summaries, which the call's event names. The model reads the
    /// text. An image that cannot be kept (not base64, not what its media type says, storage
    /// down) stays described in words, with why, and the call's answer stands.
    ///
    /// An image's id is drawn from the run, the call and its place, so a call kept again keeps
    /// the same asset. (A server whose entry keeps no content has no image kept, as it has no
    /// answer kept.)
    async fn keep_images(&self, run: &Run, p: &Planned, text: &str, images: Vec<Image>) -> (String, Vec<Value>) {
        let mut names = Vec::with_capacity(images.len());
        let mut kept = Vec::new();
        let tool = p.tool.named();
        for (place, image) in images.iter().enumerate() {
            let name = match base64::engine::general_purpose::STANDARD.decode(image.data.trim()) {
                Err(_) => format!("{} (not kept: its data is not base64)", image.shown),
                Ok(bytes) => {
                    let new = NewAsset {
                        media_type: image.media_type.clone(),
                        bytes,
                        made_by: MadeBy::Tool { run_id: run.run_id.clone(), tool: tool.clone() },
                    };
                    let seed = format!("{}/{}/{}/{}/{place}", run.org, run.playbook, run.run_id, p.number);
                    let backend = self.host.backend();
                    match assets::keep(backend, &run.org, &run.playbook, new, self.host.now(), seeded(&seed)).await {
                        Ok(asset) => {
                            kept.push(asset.summary(""));
                            format!(
                                "[image {}, {} bytes, kept as the asset {}]",
                                asset.media_type, asset.size, asset.id
                            )
                        }
                        Err(problem) => {
                            self.host.log(&format!(
                                "run {}: an image of {tool} was not kept: {}",
                                run.run_id, problem.detail
                            ));
                            // An internal failure's words are for the log, not for the model.
                            let why = match (problem.reason, problem.errors.first()) {
                                (crate::core::Reason::Internal, _) => "the runtime could not keep it just now",
                                (_, Some(field)) => field.detail.as_str(),
                                (_, None) => problem.detail.as_str(),
                            };
                            format!("{} (not kept: {why})", image.shown)
                        }
                    }
                }
            };
            names.push(name);
        }
        (named(text, &images, &names), kept)
    }

    /// The alarm of a run without a model: a call a restart cut off ends the run; a request that
    /// expired ends it; a request sent through a tool has its replies read.
    pub(super) async fn call_alarm(&self, run: Run) -> Result<(), Problem> {
        let run = match &run.status {
            _ if self.cut_off(&run)? => self.input(&run.run_id, Input::Interrupted)?,
            RunStatus::Started { waiting: Some(request) } if self.expired(request) => {
                self.input(&run.run_id, Input::Expired)?
            }
            RunStatus::Started { waiting: Some(request) } => self.read_replies(&run, request).await?,
            _ => run,
        };
        self.schedule_request(&run).await;
        self.report(&run).await
    }

    fn expired(&self, request: &Request) -> bool {
        let now = crate::core::text::stamp(self.host.now());
        request.expires_at.as_ref().is_some_and(|at| *at <= now)
    }

    /// Reads the replies of a request sent through a tool once; one that fits the answer's schema
    /// answers it. A reading that fails is tried again at the next turn.
    async fn read_replies(&self, run: &Run, request: &Request) -> Result<Run, Problem> {
        let Some(through) = &request.through else { return Ok(run.clone()) };
        let (Some(sent), Some(reader)) = (&through.sent, &through.reader) else { return Ok(run.clone()) };
        let spec = ToolCallSpec {
            name: through.replies.clone(),
            arguments: through.replies_arguments.clone(),
            must_read: true,
        };
        let mut scope = serde_json::Map::new();
        scope.insert("input".into(), run.input.clone());
        scope.insert("question".into(), serde_json::json!(request.question));
        scope.insert("sent".into(), sent.clone());
        let arguments = match spec.render(&scope) {
            Ok(arguments) => arguments,
            Err(e) => {
                self.host.log(&format!("run {}: the replies could not be read: {}", run.run_id, e.detail));
                return Ok(run.clone());
            }
        };
        let connections = self.connections_for(run, [reader.server.as_str()]).await;
        let renewal = super::host::Renewal { host: self.host, org: &run.org };
        let registry = self.host.tool_servers().with(&connections).renewing(&renewal);
        match tool_binding::call(&registry, reader, &arguments, CALL_SECONDS).await {
            Called::Answered { text, structured, is_error: false, .. } => {
                match interaction::reply(request, structured.as_ref(), &text) {
                    Some(answer) => {
                        let by = Actor::tool(&through.replies);
                        self.input(&run.run_id, Input::Answer { answer, by })
                    }
                    None => Ok(run.clone()),
                }
            }
            Called::Answered { text, .. } => {
                let said = crate::core::text::cap(&text, 200);
                self.host.log(&format!("run {}: {} answered an error: {said}", run.run_id, through.replies));
                Ok(run.clone())
            }
            Called::Failed { because, detail } => {
                self.host.log(&format!("run {}: {} failed ({because}): {detail}", run.run_id, through.replies));
                Ok(run.clone())
            }
        }
    }

    /// Sets the alarm of a run that waits on a request: when its replies are read next, or when
    /// it expires, whichever comes first. An alarm due sooner is left as it is.
    pub(super) async fn schedule_request(&self, run: &Run) {
        let RunStatus::Started { waiting: Some(request) } = &run.status else { return };
        let now = self.host.now().timestamp_millis();
        let expires = request
            .expires_at
            .as_deref()
            .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
            .map(|at| at.timestamp_millis());
        let poll = request
            .through
            .as_ref()
            .filter(|t| t.sent.is_some())
            .map(|t| now + i64::try_from(t.every_seconds).unwrap_or(60) * 1000);
        let Some(at) = [expires, poll].into_iter().flatten().min() else { return };
        if self.host.alarm().await.is_some_and(|set| set <= at) {
            return;
        }
        self.host.wake(at).await;
    }
}

/// Which of its tool's stand-in answers a rehearsal's call takes: a reasoning run's calls take
/// them in order; the one call of another run takes its place among its workflow's runs.
fn call_place(run: &Run, stand_ins: &crate::core::run::rehearsal::StandIns, p: &Planned) -> usize {
    match &run.record {
        Some(crate::core::run::record::Record::Reasoning(r)) => {
            let named = p.tool.named();
            r.tool_calls.iter().filter(|c| c.number < p.number && c.tool == named).count()
        }
        _ => stand_ins.place,
    }
}
