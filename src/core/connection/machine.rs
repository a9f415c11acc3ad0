//! What each command does to a connection: `decide` takes the connection as kept and answers it
//! as it is to be kept, or the refusal. The org's object loads, decides, keeps, then answers.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::input::Plan;
use super::link::{Link, Staged, State};
use super::{BreakKind, Broken, Connection, Credential, OwnClient, Sealed, Status};
use crate::core::actor::Actor;
use crate::core::text::stamp;
use crate::core::Problem;

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Command as "command" {
        /// Adds a connection, pending, with its first link.
        Add {
            connection: Box<Connection>,
        },
        /// A new link in place of the one before, asking `more` where the link says so.
        NewLink {
            link: Link,
            by: String,
        },
        /// The person approves on the page: what they gave takes effect.
        Approve {
            digest: String,
            by: String,
        },
        /// A key, or a client's secret, sealed.
        GiveCredential {
            digest: String,
            by: String,
            sealed: String,
            misses_pattern: bool,
        },
        /// The org's own OAuth client, its secret sealed.
        GiveClient {
            digest: String,
            by: String,
            client: OwnClient,
        },
        /// A consent started at the service, asking these scopes; what its finish needs, sealed.
        ConsentStarted {
            digest: String,
            by: String,
            asked: Vec<String>,
            consent: String,
        },
        /// A consent finished: its tokens sealed, and the scopes it granted.
        ConsentFinished {
            digest: String,
            by: String,
            sealed: String,
            granted: Vec<String>,
        },
        /// The person cancelled on the page.
        Cancel {
            digest: String,
            by: String,
        },
        Broken {
            kind: BreakKind,
            detail: String,
        },
        Mended,
        /// New sealed tokens after a refresh, in place of `from`, the sealed credential the refresh
        /// read: where another request or a new consent replaced that meanwhile, the newer stands.
        Refreshed {
            sealed: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            from: Option<String>,
        },
        SetPlaybooks {
            playbooks: Option<Vec<String>>,
        },
        SetSigningSecret {
            sealed: String,
        },
        RemoveSigningSecret,
        /// Removes it for good, forgetting its sealed material.
        Remove,
    }
}

impl Command {
    /// The digest of the link a command of the page names.
    pub fn digest(&self) -> Option<&str> {
        match self {
            Command::Approve { digest, .. }
            | Command::GiveCredential { digest, .. }
            | Command::GiveClient { digest, .. }
            | Command::ConsentStarted { digest, .. }
            | Command::ConsentFinished { digest, .. }
            | Command::Cancel { digest, .. } => Some(digest),
            _ => None,
        }
    }
}

impl Plan {
    /// The connection this plan adds, pending, with its first link.
    pub fn into_connection(
        self,
        id: String,
        org: &str,
        link: Link,
        by: Actor,
        now: &str,
    ) -> Result<Connection, Problem> {
        let credential = self
            .credential
            .ok_or_else(|| Problem::internal("a connection was added before its server said how it authenticates"))?;
        Ok(Connection {
            id,
            org: org.to_string(),
            name: self.name,
            provider: self.provider,
            placeholders: self.placeholders,
            target: self.target,
            credential,
            rules: self.rules,
            handles_money: self.handles_money,
            status: Status::Pending,
            broken: None,
            asked_scopes: self.asked_scopes,
            granted_scopes: Vec::new(),
            link: Some(link),
            replaced: Vec::new(),
            sealed: Sealed::default(),
            fingerprint: self.fingerprint,
            added_by: by,
            created_at: now.to_string(),
            updated_at: now.to_string(),
        })
    }
}

/// The refusal of a connection the org does not have, or has removed.
pub fn not_found(id: &str) -> Problem {
    Problem::not_found(format!(
        "The org has no connection {id}; list_connections lists those it has, and a removed one is added again with add_connection."
    ))
    .with_field("/connection", "is not a connection of the org")
}

fn only_adder(c: &Connection, by: &str) -> Result<(), Problem> {
    if c.added_by.id == by {
        return Ok(());
    }
    Err(Problem::forbidden(format!(
        "Only {} ({}), who added the connection {}, may do this.",
        c.added_by.name, c.added_by.id, c.name
    )))
}

/// The words of a link that is no longer open.
pub fn closed_link(state: State) -> &'static str {
    match state {
        State::Open => "This link is open.",
        State::Expired => "This link expired: a link lasts 24 hours. Ask the agent to reconnect the connection with reconnect_connection, which gives a new link.",
        State::Replaced => "A newer link replaced this one: open the newest link the agent gave. Reconnecting the connection would replace that one too.",
        State::Used => "This link was used already: the connection was approved or cancelled on it.",
    }
}

/// The open link of `digest`, or the refusal that says where it stands.
fn open_link<'c>(c: &'c mut Connection, digest: &str, by: &str, now: DateTime<Utc>) -> Result<&'c mut Link, Problem> {
    if c.status == Status::Removed {
        return Err(Problem::conflict(
            "This connection was removed; nothing is connected. The agent adds it again with add_connection.",
        ));
    }
    match c.token_state(digest, now) {
        None => return Err(Problem::not_found("No connection has this link.")),
        Some(State::Open) => {}
        Some(state) => return Err(Problem::conflict(closed_link(state))),
    }
    only_adder(c, by)?;
    c.link.as_mut().ok_or_else(|| Problem::not_found("No connection has this link."))
}

/// What `command` makes of `current` at `now`.
pub fn decide(command: Command, current: Option<Connection>, now: DateTime<Utc>) -> Result<Connection, Problem> {
    let mut c = match (command, current) {
        (Command::Add { connection }, None) => return Ok(*connection),
        (Command::Add { connection }, Some(_)) => {
            return Err(Problem::conflict(format!("The connection {} is kept already.", connection.id)))
        }
        (_, None) => return Err(Problem::not_found("The org has no such connection.")),
        (command, Some(c)) => {
            let mut c = c;
            apply(command, &mut c, now)?;
            c
        }
    };
    c.updated_at = stamp(now);
    Ok(c)
}

fn apply(command: Command, c: &mut Connection, now: DateTime<Utc>) -> Result<(), Problem> {
    let removed = c.status == Status::Removed;
    match command {
        Command::Add { .. } => unreachable_add(),
        Command::Remove => {
            c.status = Status::Removed;
            c.sealed = Sealed::default();
            c.broken = None;
            if let Some(link) = c.link.as_mut() {
                link.staged = Staged::default();
            }
            Ok(())
        }
        _ if removed => Err(not_found(&c.id)),
        Command::NewLink { link, by } => {
            only_adder(c, &by)?;
            if matches!(c.credential, Credential::Reference { .. }) {
                return Err(Problem::conflict(
                    "A connection of a reference takes no link: the runtime reads its variable when it starts.",
                ));
            }
            c.replace_link(link);
            Ok(())
        }
        Command::GiveCredential { digest, by, sealed, misses_pattern } => {
            if !matches!(c.credential, Credential::Secret { .. } | Credential::ClientCredentials { .. }) {
                return Err(Problem::conflict(format!(
                    "The connection {} takes no key: its credential is of the kind {}.",
                    c.name,
                    c.credential.kind()
                )));
            }
            let link = open_link(c, &digest, &by, now)?;
            link.staged.credential = Some(sealed);
            link.staged.misses_pattern = misses_pattern;
            Ok(())
        }
        Command::GiveClient { digest, by, client } => {
            if !c.credential.own_client() {
                return Err(Problem::conflict(format!(
                    "The connection {} runs under the runtime's OAuth client, so it takes no client of the org's own.",
                    c.name
                )));
            }
            open_link(c, &digest, &by, now)?.staged.client = Some(client);
            Ok(())
        }
        Command::ConsentStarted { digest, by, asked, consent } => {
            if !matches!(c.credential, Credential::Authorization { .. }) {
                return Err(Problem::conflict(format!("The connection {} takes no consent.", c.name)));
            }
            let has_client = c.sealed.client.is_some() || !c.credential.own_client();
            let link = open_link(c, &digest, &by, now)?;
            if c_needs_client(link, has_client) {
                return Err(Problem::conflict(
                    "Give the client ID and client secret of the org's own OAuth client first.",
                ));
            }
            link.staged.consent = Some(consent);
            for scope in asked {
                if !c.asked_scopes.contains(&scope) {
                    c.asked_scopes.push(scope);
                }
            }
            Ok(())
        }
        Command::ConsentFinished { digest, by, sealed, granted } => {
            let link = open_link(c, &digest, &by, now)?;
            if link.staged.consent.take().is_none() {
                return Err(Problem::conflict(
                    "No sign-in at the service was started on this link, or it finished already: start it again from the page.",
                ));
            }
            link.staged.credential = Some(sealed);
            link.staged.granted = Some(granted);
            Ok(())
        }
        Command::Approve { digest, by } => approve(c, &digest, &by, now),
        Command::Cancel { digest, by } => {
            let pending = c.status == Status::Pending;
            let link = open_link(c, &digest, &by, now)?;
            link.used = true;
            link.staged = Staged::default();
            // A connection never approved is gone; one that works stays as it was.
            if pending {
                c.status = Status::Removed;
                c.sealed = Sealed::default();
            }
            Ok(())
        }
        Command::Broken { kind, detail } => {
            if c.status == Status::Connected && c.broken.is_none() {
                c.broken = Some(Broken { kind, detail, at: stamp(now) });
            }
            Ok(())
        }
        Command::Mended => {
            c.broken = None;
            if c.status == Status::Pending && matches!(c.credential, Credential::Reference { .. }) {
                c.status = Status::Connected;
            }
            Ok(())
        }
        Command::Refreshed { sealed, from } => {
            if c.status != Status::Connected || c.broken.is_some() {
                return Err(Problem::conflict(format!(
                    "The connection {} is not connected as it was when its token was renewed, so the new token is not kept.",
                    c.name
                )));
            }
            if from.is_some() && from != c.sealed.credential {
                return Err(Problem::conflict(format!(
                    "The credential of the connection {} changed while its token was renewed; the newer one stands.",
                    c.name
                )));
            }
            c.sealed.credential = Some(sealed);
            Ok(())
        }
        Command::SetPlaybooks { playbooks } => {
            c.rules.playbooks = playbooks;
            Ok(())
        }
        Command::SetSigningSecret { sealed } => {
            c.sealed.signing_secret = Some(sealed);
            Ok(())
        }
        Command::RemoveSigningSecret => {
            c.sealed.signing_secret = None;
            Ok(())
        }
    }
}

fn unreachable_add() -> Result<(), Problem> {
    Err(Problem::internal("an add reached a kept connection"))
}

fn c_needs_client(link: &Link, kept: bool) -> bool {
    link.staged.client.is_none() && !kept
}

fn approve(c: &mut Connection, digest: &str, by: &str, now: DateTime<Utc>) -> Result<(), Problem> {
    let status = c.status;
    let broken = c.broken.is_some();
    let takes_value = c.credential.takes_a_value();
    let own = c.credential.own_client();
    let kept_client = c.sealed.client.is_some();
    let kind = c.credential.kind();
    let link = open_link(c, digest, by, now)?;
    let staged = link.staged.clone();
    if own && staged.client.is_none() && !kept_client {
        return Err(Problem::conflict(
            "Give the client ID and client secret of the org's own OAuth client, then sign in, before approving.",
        ));
    }
    if takes_value && staged.credential.is_none() && (status == Status::Pending || broken) {
        let what = match kind {
            "authorization" => "Sign in at the service first, then approve.",
            "client_credentials" => "Give the client secret first, then approve.",
            _ => "Give the key first, then approve.",
        };
        return Err(Problem::conflict(what));
    }
    link.used = true;
    link.staged = Staged::default();
    if let Some(sealed) = staged.credential {
        c.sealed.credential = Some(sealed);
    }
    if let Some(client) = staged.client {
        c.sealed.client = Some(client);
    }
    if let Some(granted) = staged.granted {
        c.granted_scopes = granted;
    }
    c.status = Status::Connected;
    c.broken = None;
    Ok(())
}
