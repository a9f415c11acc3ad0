//! `give_credential`: `POST /v1/orgs/{org}/connect/{token}/credential`, over HTTP alone: the person
//! gives the key, or a client's secret, on the connect page. It is sealed at once and takes effect
//! when they approve; a key that misses its pattern is kept, and the answer says so.

use serde::Deserialize;
use serde_json::{json, Value};

use super::connection_ops::{of_link, on_link, shown, token_arg};
use super::{typed, Ctx, Door, Hints, Method, Output, Reach, Special, Tool};
use crate::core::caller::Scope;
use crate::core::connection::machine::Command;
use crate::core::connection::{pattern, Connection, Credential};
use crate::core::{FieldError, Problem};
use crate::ops::connections::{aad, Opened};

/// The longest key taken.
pub const VALUE_MAX: usize = 4096;

pub const TOOL: Tool = Tool {
    name: "give_credential",
    title: "Give a connection's credential",
    description: "The connect page's key field: value, the key, or client_secret (and client_id where the connection names none) for client credentials. Kept sealed, never answered; it takes effect when the person approves. A key that misses the connection's pattern is kept, and the answer says so, since the pattern may be wrong as well as the key.",
    hints: Hints::WRITE_IDEMPOTENT,
    scope: Some(Scope::OrgWrite),
    door: Door::Http,
    reach: Reach::Org,
    method: Method::Post,
    path: "/v1/orgs/{org}/connect/{token}/credential",
    input_schema,
    run: |ctx, args| typed(ctx, args, run),
    special: Special::NONE,
};

fn input_schema() -> Value {
    let text = json!({ "type": "string", "minLength": 1, "maxLength": VALUE_MAX });
    json!({
        "type": "object",
        "properties": { "token": token_arg(), "value": text, "client_id": text, "client_secret": text },
        "required": ["token"],
        "additionalProperties": false
    })
}

#[derive(Deserialize)]
struct Args {
    token: String,
    value: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
}

async fn run(ctx: &Ctx<'_>, a: Args) -> Result<Output, Problem> {
    let (digest, c) = of_link(ctx, &a.token).await?;
    let (opened, misses) = opened(&c, a.value, a.client_id, a.client_secret)?;
    let plain = serde_json::to_vec(&opened).map_err(|e| Problem::internal(format!("could not encode a key: {e}")))?;
    let sealed = ctx.connections.sealer()?.seal(&aad(&c.org, &c.id, "credential"), &plain)?;
    let command =
        Command::GiveCredential { digest: digest.clone(), by: ctx.caller.id.clone(), sealed, misses_pattern: misses };
    let c = on_link(ctx, digest, command).await?;
    let mut summary = "The credential is kept, sealed; approve the connection to connect it.".to_string();
    if misses {
        summary.push_str(" It does not match the pattern the connection gives for its keys; it is kept all the same, since the pattern may be wrong as well as the key. If the connection fails, check the key first.");
    }
    Ok(Output::ok(summary, json!({ "connection": shown(ctx, &c), "misses_pattern": misses })))
}

/// What is sealed for the connection's kind, and whether a key misses its pattern.
fn opened(
    c: &Connection,
    value: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
) -> Result<(Opened, bool), Problem> {
    match &c.credential {
        Credential::Secret { help, .. } => {
            let key = value.map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
            let key = key.ok_or_else(|| Problem::invalid("/value", "is required: the key"))?;
            let misses = help.pattern.as_deref().and_then(|p| pattern::read(p).ok()).is_some_and(|p| !p.matches(&key));
            Ok((Opened { key: Some(key), ..Opened::default() }, misses))
        }
        Credential::ClientCredentials { client_id: named, .. } => {
            let mut errors = Vec::new();
            if client_secret.is_none() {
                errors.push(FieldError::new("/client_secret", "is required: the client's secret"));
            }
            if named.is_none() && client_id.is_none() {
                errors.push(FieldError::new("/client_id", "is required: the connection names no client ID"));
            }
            if !errors.is_empty() {
                return Err(Problem::invalid_fields(errors));
            }
            let id = named.clone().or(client_id);
            Ok((Opened { client_id: id, client_secret, ..Opened::default() }, false))
        }
        other => Err(Problem::conflict(format!(
            "The connection {} takes no key: its credential is of the kind {}.",
            c.name,
            other.kind()
        ))),
    }
}
