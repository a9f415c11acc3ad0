//! A generation run's one request to its gateway, made while the start waits for it (a
//! workflow's step too), and the assets it makes, kept before the run ends: what a run answers
//! as made is in the asset bucket and the playbook's table already.
//!
//! The run is kept as started before the gateway is asked: a restart that cuts the request off
//! ends the run `interrupted` at its alarm, and the model is never asked twice. An asset is kept
//! under an id seeded by the run's id, so a keep that is tried again names the same asset.

use super::Runner;
use crate::core::asset::{seeded, MadeBy, NewAsset};
use crate::core::definition::generation::{self, MadeAsset, Prepared};
use crate::core::generation::catalog::find;
use crate::core::generation::wire::{self, Ask, Given};
use crate::core::model::settings::Provider;
use crate::core::run::life::Input;
use crate::core::run::record::Generated;
use crate::core::run::{Run, RunError};
use crate::core::text::quote;
use crate::core::{ErrorCode, Problem};
use crate::ops::assets;
use crate::ops::outbound::Unanswered;

impl Runner<'_> {
    /// Asks the gateway, keeps what it made, and keeps how the run ended. The caller holds
    /// `asking`.
    pub(super) async fn generate(&self, run: Run, prepared: Prepared) -> Result<Run, Problem> {
        let mut record = Box::new(Generated::asked(&prepared));
        let ended = |record: Box<Generated>, answered: bool, outcome: Result<serde_json::Value, RunError>| {
            self.input(&run.run_id, Input::Generated { record, answered, outcome })
        };
        // A rehearsal's generation is its stand-in's output: no gateway is asked, no asset kept.
        if let Some(stand_ins) = run.stand_ins.as_deref().filter(|_| run.rehearsal) {
            let made = stand_ins.made(&run.definition.name);
            return ended(record, made.is_ok(), made);
        }
        let provider = match self.gateway(&prepared) {
            Ok(provider) => provider,
            Err(error) => return ended(record, false, Err(error)),
        };
        let references = match self.references(&run, &prepared).await {
            Ok(given) => given,
            Err(error) => return ended(record, false, Err(error)),
        };
        let Some(model) = find(&prepared.model) else {
            let error =
                RunError::new(ErrorCode::Document, format!("{} is not in this runtime's catalogue", prepared.model));
            return ended(record, false, Err(error));
        };
        let parameters: Vec<(&'static str, String)> = ["size", "quality", "voice", "format"]
            .into_iter()
            .filter_map(|name| prepared.parameters.iter().find(|(n, _)| n == name).map(|(_, v)| (name, v.clone())))
            .collect();
        let ask = Ask { model, prompt: &prepared.prompt, parameters: &parameters, references: &references };
        let made = match self.ask_gateway(&provider, &ask).await {
            Ok((made, took)) => {
                record.duration_ms = Some(took);
                made
            }
            Err(error) => return ended(record, false, Err(error)),
        };
        let mut kept = Vec::new();
        for (i, m) in made.into_iter().enumerate() {
            let new = NewAsset {
                media_type: m.media_type.to_string(),
                bytes: m.bytes,
                made_by: MadeBy::Generation { run_id: run.run_id.clone() },
            };
            let random = seeded(&format!("{}/{}/{}/{i}", run.org, run.playbook, run.run_id));
            match assets::keep(self.host.backend(), &run.org, &run.playbook, new, self.host.now(), random).await {
                Ok(asset) => kept.push(MadeAsset {
                    asset_id: asset.id,
                    media_type: asset.media_type,
                    size: asset.size,
                    sha256: asset.sha256,
                }),
                Err(p) => {
                    // A file the asset check refuses is the gateway's fault; storage that did not
                    // answer is the runtime's, and says so.
                    let reason = match p.reason {
                        crate::core::Reason::InvalidInput => ErrorCode::ProviderError,
                        other => ErrorCode::of(other, p.kind),
                    };
                    let error = RunError::new(
                        reason,
                        format!("The model made {}, which was not kept: {}", what(&prepared), p.detail),
                    );
                    record.assets = kept;
                    return ended(record, true, Err(error));
                }
            }
        }
        record.assets = kept;
        let output = generation::run::output(&record.assets);
        ended(record, true, Ok(output))
    }

    /// The gateway the function names, as `MODEL_GATEWAYS` sets it up.
    fn gateway(&self, prepared: &Prepared) -> Result<Provider, RunError> {
        self.host.models().providers.get(&prepared.gateway).filter(|p| p.gateway).cloned().ok_or_else(|| {
            RunError::new(
                ErrorCode::ModelNotConfigured,
                format!(
                    "The model {} names the gateway {}, which MODEL_GATEWAYS does not set up, so no gateway was asked. list_generation_models names the gateways this runtime has.",
                    quote(&prepared.named()),
                    quote(&prepared.gateway)
                ),
            )
        })
    }

    /// The bytes of each asset the input gives as a reference, each checked against what its
    /// reference takes.
    async fn references(&self, run: &Run, prepared: &Prepared) -> Result<Vec<Given>, RunError> {
        let mut given = Vec::new();
        for r in &prepared.references {
            let refused = |why: String| {
                RunError::new(
                    ErrorCode::InputSchema,
                    format!("The input's {} names the asset {}, {why}.", r.field, r.asset_id),
                )
            };
            let (asset, bytes) = assets::content(self.host.backend(), &run.org, &run.playbook, &r.asset_id)
                .await
                .map_err(|p| refused(format!("which could not be read: {}", p.detail)))?;
            if !r.media_types.contains(&asset.media_type) {
                return Err(refused(format!(
                    "which is {}; its reference takes {}",
                    asset.media_type,
                    r.media_types.join(", ")
                )));
            }
            if asset.size > r.bytes {
                return Err(refused(format!("of {} bytes; its reference takes at most {}", asset.size, r.bytes)));
            }
            given.push(Given { media_type: asset.media_type, bytes });
        }
        Ok(given)
    }

    /// One request to the gateway, within its deadline: what the model made and how long it took.
    async fn ask_gateway(&self, provider: &Provider, ask: &Ask<'_>) -> Result<(Vec<wire::Made>, u64), RunError> {
        let deadline = provider.timeout_seconds;
        let began = self.watch(deadline).await;
        let request = wire::request(provider, ask);
        let prefix = &provider.prefix;
        match self.host.generate(&request, deadline).await {
            Err(Unanswered::Timeout) => Err(RunError::new(
                ErrorCode::ProviderTimeout,
                format!("The gateway {prefix} gave no answer within {deadline} seconds."),
            )),
            Err(Unanswered::Unreachable(why)) => Err(RunError::new(
                ErrorCode::ProviderUnreachable,
                format!("The gateway {prefix} could not be reached: {why}."),
            )),
            Err(Unanswered::TooLarge(max)) => Err(RunError::new(
                ErrorCode::ProviderError,
                format!("The gateway {prefix} answered more than {max} bytes, the most the runtime reads, so nothing was kept."),
            )),
            Ok(answer) => wire::answer(provider, ask, answer.status, answer.content_type.as_deref(), &answer.body)
                .map(|made| (made, self.took(began))),
        }
    }
}

/// `an image`, `audio`: what a run of the function makes.
fn what(prepared: &Prepared) -> &'static str {
    match find(&prepared.model).map(|m| m.kind) {
        Some(crate::core::generation::Kind::Audio) => "audio",
        Some(crate::core::generation::Kind::Video) => "a video",
        _ => "an image",
    }
}
