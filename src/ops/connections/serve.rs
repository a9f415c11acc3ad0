//! A connection as a tool server of its org: a `Server` whose entry is its target, its rules and
//! its credential, opened now, for this request alone, where the kind says it goes. One that
//! cannot be used is the same server, unusable, with the words that say what mends it.

use super::{aad, NotSent, Opened, Settings};
use crate::core::connection::{view, Connection, Credential, Document as Doc, In, Status, Target};
use crate::core::model::Secret;
use crate::core::tool_server::settings::{
    Credential as Carried, Document, Place, Server, ServerEntry, ServerKind, Unusable,
};
use crate::core::tool_server::{Because, MarkedBy};

fn unusable(because: Because, what: String) -> Unusable {
    Unusable { because, detail: format!("{what}; {}.", because.mends()) }
}

/// The server a live connection is; a removed one is none.
pub fn server(c: &Connection, settings: &Settings) -> Option<Server> {
    if c.status == Status::Removed {
        return None;
    }
    let state = match view::because(c).or_else(|| not_allowed(c, settings)) {
        Some(Because::ConnectionNotAllowed) => Err(unusable(
            Because::ConnectionNotAllowed,
            format!("a rule of whoever runs the runtime no longer takes the connection {}", c.name),
        )),
        Some(Because::ConnectionPending) => {
            Err(unusable(Because::ConnectionPending, format!("nobody has approved the connection {} yet", c.name)))
        }
        Some(b) => {
            let why = c
                .broken
                .as_ref()
                .map_or_else(String::new, |x| format!("{} (at {})", x.detail.trim_end_matches('.'), x.at));
            Err(unusable(b, format!("the connection {} is broken: {why}", c.name)))
        }
        None => entry(c, settings),
    };
    Some(Server {
        name: c.name.clone(),
        state,
        orgs: Some(vec![c.org.clone()]),
        playbooks: c.rules.playbooks.clone(),
        provider: c.provider.clone(),
        connection: Some(c.id.clone()),
    })
}

/// Whether a rule of the operator no longer takes the connection: its provider left out of the
/// catalogue, or its address one a deployed runtime does not reach.
fn not_allowed(c: &Connection, settings: &Settings) -> Option<Because> {
    let gone = c.provider.as_deref().is_some_and(|p| settings.providers.named(p).is_none());
    let refused = crate::core::tool_server::settings::check_address(c.target.address(), settings.deployed).is_err();
    (gone || refused).then_some(Because::ConnectionNotAllowed)
}

fn place(name: &str, place: In, scheme: &Option<String>) -> Place {
    match place {
        In::Header => Place::Header { name: name.to_string(), scheme: scheme.clone() },
        In::Query => Place::Query { name: name.to_string() },
    }
}

/// What the sealed credential holds, opened.
pub(super) fn opened(c: &Connection, settings: &Settings) -> Result<Opened, Unusable> {
    let sealed = c.sealed.credential.as_deref().ok_or_else(|| {
        unusable(
            Because::ConnectionBroken,
            format!("the credential of the connection {} is gone from the secret store", c.name),
        )
    })?;
    let sealer =
        settings.sealer().map_err(|p| Unusable { because: Because::ConnectionUnavailable, detail: p.detail })?;
    let plain = sealer.open(&aad(&c.org, &c.id, "credential"), sealed).map_err(|p| {
        unusable(
            Because::ConnectionUnavailable,
            format!(
                "the credential of the connection {} cannot be read just now ({})",
                c.name,
                p.detail.trim_end_matches('.')
            ),
        )
    })?;
    crate::core::json::from_slice(&plain).map_err(|_| {
        unusable(
            Because::ConnectionBroken,
            format!("the credential of the connection {} is not one the runtime can send", c.name),
        )
    })
}

fn carried(c: &Connection, settings: &Settings) -> Result<Option<Carried>, Unusable> {
    let secret = |s: Option<String>, what: &str| {
        s.filter(|s| !s.is_empty()).map(Secret).ok_or_else(|| {
            unusable(Because::ConnectionBroken, format!("the credential of the connection {} holds no {what}", c.name))
        })
    };
    Ok(match &c.credential {
        Credential::None => None,
        Credential::Secret { name, place: p, scheme, .. } => {
            Some(Carried { secret: secret(opened(c, settings)?.key, "key")?, place: place(name, *p, scheme) })
        }
        Credential::Reference { variable, name, place: p, scheme } => {
            let value = settings.reference(&c.org, variable, c.target.address()).map_err(|why| match why {
                NotSent::NotListed(why) => unusable(
                    Because::ConnectionNotAllowed,
                    format!("the connection {} sends the variable {variable}, which is {why}", c.name),
                ),
                NotSent::NotSet => unusable(
                    Because::ConnectionBroken,
                    format!("the variable {variable} the connection {} reads is not set", c.name),
                ),
            })?;
            Some(Carried { secret: value, place: place(name, *p, scheme) })
        }
        Credential::Authorization { .. } => Some(Carried {
            secret: secret(opened(c, settings)?.access_token, "access token of a consent")?,
            place: Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) },
        }),
        // Asked for with the client's secret (`renew`) before the connection is used.
        Credential::ClientCredentials { .. } => {
            let opened = opened(c, settings)?;
            Some(Carried {
                secret: secret(opened.access_token, "access token")?,
                place: Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) },
            })
        }
    })
}

fn entry(c: &Connection, settings: &Settings) -> Result<ServerEntry, Unusable> {
    let provider = c.provider.as_deref().and_then(|name| settings.providers.named(name));
    let kind = match &c.target {
        Target::Mcp { url } => ServerKind::Mcp { url: url.clone() },
        Target::Openapi { document, base_url } => ServerKind::OpenApi {
            document: match document {
                Doc::At(at) => Document::At(at.clone()),
                Doc::Text { text, .. } => Document::Text(text.clone()),
            },
            base_url: base_url.clone(),
        },
    };
    Ok(ServerEntry {
        kind,
        allowed: c.rules.allowed.clone(),
        credential: carried(c, settings)?,
        record_content: c.rules.record_content,
        handles_money: c.handles_money,
        marks: provider.map(|p| p.marks.clone()).unwrap_or_default(),
        marked_by: MarkedBy::Catalogue,
        sends: provider.and_then(|p| p.sends.clone()),
        reads_replies: provider.and_then(|p| p.reads_replies.clone()),
    })
}

/// Whether a failure of a connection's server says its credential was refused: a 401, or a code
/// its provider's `failure_codes` names, found in the failure's words.
pub fn breaks(
    c: &Connection,
    settings: &Settings,
    because: Because,
    detail: &str,
) -> Option<(crate::core::connection::BreakKind, String)> {
    use crate::core::connection::BreakKind;
    if because == Because::KeyRefused {
        return Some((BreakKind::Unauthorized, "its server refused the credential with HTTP 401".into()));
    }
    let provider = settings.providers.named(c.provider.as_deref()?)?;
    let code = provider.failure_codes.iter().find(|code| detail.contains(code.as_str()))?;
    Some((
        BreakKind::FailureCode,
        format!("its server answered {code}, which {} says of a refused credential", provider.title),
    ))
}
