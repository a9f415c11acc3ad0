//! The providers a person may connect by name: a catalogue compiled in (`catalogue.json`, facts
//! from each service's public documentation), over which whoever runs the runtime sets, in the
//! Worker variable `CONNECTION_PROVIDERS`, more providers or fewer:
//!
//! ```json
//! { "stand-in": { "title": "Stand-in", "description": "…", "terms": ["notes"],
//!                 "server": { "type": "mcp", "url": "https://{tenant}.stand-in.example/mcp" },
//!                 "placeholders": [{ "name": "tenant", "description": "…", "pattern": "^[a-z]+$" }],
//!                 "ways": [{ "kind": "secret", "name": "Authorization", "in": "header", "scheme": "Bearer",
//!                            "instructions": "…", "key_page": "https://…" }] },
//!   "stripe": false }
//! ```
//!
//! An object adds a provider or replaces the compiled one of its name; `false` leaves a compiled
//! one out, and `"*": false` every compiled one the variable does not name (`true` keeps one). A way of the kind
//! `authorization` whose `client` is `set` takes the runtime's OAuth client from
//! `<PROVIDER>_CLIENT_ID` and `<PROVIDER>_CLIENT_SECRET` (the name in capitals, `-` as `_`);
//! without them it is offered only under the org's own client. A `dynamic` client is registered
//! with the server as the consent starts; an `own` one is always the org's.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{In, OauthClient};
use crate::core::model::Secret;

const CATALOGUE: &str = include_str!("catalogue.json");

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provider {
    #[serde(skip)]
    pub name: String,
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub terms: Vec<String>,
    pub server: Server,
    #[serde(default)]
    pub handles_money: bool,
    pub ways: Vec<Way>,
    #[serde(default)]
    pub placeholders: Vec<Placeholder>,
    #[serde(default)]
    pub failure_codes: Vec<String>,
    /// A tool's mark, where the provider's server marks it wrongly or not at all
    /// (`marked_by: catalogue`).
    #[serde(default)]
    pub marks: std::collections::BTreeMap<String, crate::core::tool_server::Mark>,
    /// The tool that sends a person a message, and the one that reads the replies, which an
    /// interaction goes through.
    #[serde(default)]
    pub sends: Option<String>,
    #[serde(default)]
    pub reads_replies: Option<String>,
}

crate::core::json::tagged::tagged! {
    /// The server of a provider, its addresses holding `{placeholder}`s.
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case", deny_unknown_fields)]
    pub enum Server as "type" {
        Mcp { url: String },
        Openapi { document: String, base_url: String },
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Placeholder {
    pub name: String,
    pub description: String,
    pub pattern: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Scope {
    pub name: String,
    pub says: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct Group {
    pub name: String,
    #[serde(rename = "for")]
    pub purpose: String,
    pub scopes: Vec<Scope>,
}

/// Whose OAuth client an authorization way runs under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientSource {
    /// Registered with the server as the consent starts.
    Dynamic,
    /// Set by whoever runs the runtime, in `<PROVIDER>_CLIENT_ID` and `_CLIENT_SECRET`.
    Set,
    /// Always the org's own.
    Own,
}

crate::core::json::tagged::tagged! {
    #[derive(Debug, Clone, PartialEq, Serialize)]
    #[serde(rename_all = "snake_case", deny_unknown_fields)]
    pub enum Way as "kind" {
        Authorization {
            issuer: String,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            authorization_endpoint: Option<String>,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            token_endpoint: Option<String>,
            client: ClientSource,
            #[serde(default)]
            scopes: Vec<Scope>,
            #[serde(default)]
            more: Vec<Group>,
        },
        Secret {
            name: String,
            #[serde(rename = "in")]
            place: In,
            #[serde(default)]
            scheme: Option<String>,
            instructions: String,
            key_page: String,
            #[serde(default)]
            example: Option<String>,
            #[serde(default)]
            pattern: Option<String>,
        },
        Reference {
            variable: String,
            name: String,
            #[serde(rename = "in")]
            place: In,
            #[serde(default)]
            scheme: Option<String>,
        },
        ClientCredentials {
            issuer: String,
            #[serde(default)]
            scope: Option<String>,
        },
        None,
    }
}

impl Way {
    pub fn kind(&self) -> &'static str {
        match self {
            Way::Authorization { .. } => "authorization",
            Way::Secret { .. } => "secret",
            Way::Reference { .. } => "reference",
            Way::ClientCredentials { .. } => "client_credentials",
            Way::None => "none",
        }
    }

    /// The scopes a first consent asks.
    pub fn scopes(&self) -> &[Scope] {
        match self {
            Way::Authorization { scopes, .. } => scopes,
            _ => &[],
        }
    }

    pub fn groups(&self) -> &[Group] {
        match self {
            Way::Authorization { more, .. } => more,
            _ => &[],
        }
    }

    /// The sentence a scope says, from the first consent or a group.
    pub fn says(&self, scope: &str) -> Option<&str> {
        self.scopes()
            .iter()
            .chain(self.groups().iter().flat_map(|g| g.scopes.iter()))
            .find(|s| s.name == scope)
            .map(|s| s.says.as_str())
    }
}

/// The runtime's OAuth client at a provider, as whoever runs it set it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeClient {
    pub client_id: String,
    pub client_secret: Secret,
}

/// How a way is offered here: whether it takes the org's own client, and must.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Offered under the runtime's client, or the org's own where asked.
    Optional,
    /// Offered only under the org's own client.
    Required,
}

impl Need {
    pub fn as_str(self) -> &'static str {
        match self {
            Need::Optional => "optional",
            Need::Required => "required",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Providers {
    /// Every provider, sorted by name.
    pub list: Vec<Provider>,
    clients: BTreeMap<String, RuntimeClient>,
    /// The variables a `reference` way names that are set.
    set: BTreeSet<String>,
}

/// The prefix of a provider's variables: its name in capitals, `-` as `_`.
pub fn variable_prefix(provider: &str) -> String {
    provider.to_ascii_uppercase().replace('-', "_")
}

fn parse(name: &str, value: Value) -> Result<Provider, String> {
    let mut p: Provider =
        crate::core::json::from_value(value).map_err(|e| format!("the provider {name} does not read: {e}"))?;
    p.name = name.to_string();
    if !crate::core::tool_server::is_server_name(name) {
        return Err(format!("the provider name {name} is not lowercase letters, digits, - and _"));
    }
    if p.ways.is_empty() {
        return Err(format!("the provider {name} names no way to connect it"));
    }
    for placeholder in &p.placeholders {
        super::pattern::read(&placeholder.pattern)
            .map_err(|why| format!("the pattern of the placeholder {} of {name} {why}", placeholder.name))?;
    }
    Ok(p)
}

impl Providers {
    /// The catalogue compiled in, with no client and no variable set.
    pub fn compiled() -> Providers {
        Providers::read(|_| None).0
    }

    /// The catalogue, what `CONNECTION_PROVIDERS` sets over it, and the clients and variables its
    /// ways name, read through `var`; with a line for the log for each entry that cannot be used.
    pub fn read(var: impl Fn(&str) -> Option<String>) -> (Providers, Vec<String>) {
        let mut log = Vec::new();
        let compiled: BTreeMap<String, Value> = serde_json::from_str(CATALOGUE).unwrap_or_default();
        let mut entries: BTreeMap<String, Value> = compiled;
        if let Some(text) = var("CONNECTION_PROVIDERS").filter(|t| !t.trim().is_empty()) {
            match serde_json::from_str::<BTreeMap<String, Value>>(&text) {
                Ok(set) => {
                    if set.get("*") == Some(&Value::Bool(false)) {
                        entries.retain(|name, _| set.contains_key(name));
                    }
                    for (name, value) in set.into_iter().filter(|(n, _)| n != "*") {
                        if value == Value::Bool(false) {
                            entries.remove(&name);
                        } else if value == Value::Bool(true) {
                            // Kept as compiled, beside "*": false.
                        } else {
                            entries.insert(name, value);
                        }
                    }
                }
                Err(e) => log.push(format!(
                    "CONNECTION_PROVIDERS is not a JSON object of providers by name ({e}), so the compiled catalogue is used."
                )),
            }
        }
        let mut list = Vec::new();
        for (name, value) in entries {
            match parse(&name, value) {
                Ok(p) => list.push(p),
                Err(line) => log.push(format!("{line}; it is left out.")),
            }
        }
        let mut clients = BTreeMap::new();
        let mut set = BTreeSet::new();
        for p in &list {
            let prefix = variable_prefix(&p.name);
            let id = var(&format!("{prefix}_CLIENT_ID")).filter(|v| !v.trim().is_empty());
            let secret = var(&format!("{prefix}_CLIENT_SECRET")).filter(|v| !v.trim().is_empty());
            if let (Some(id), Some(secret)) = (id, secret) {
                clients.insert(
                    p.name.clone(),
                    RuntimeClient {
                        client_id: id.trim().to_string(),
                        client_secret: Secret(secret.trim().to_string()),
                    },
                );
            }
            for way in &p.ways {
                if let Way::Reference { variable, .. } = way {
                    if var(variable).is_some_and(|v| !v.is_empty()) {
                        set.insert(variable.clone());
                    }
                }
            }
        }
        (Providers { list, clients, set }, log)
    }

    /// Keeps offering a way of a reference only where `listed` says its variable is one the
    /// operator lists for connections.
    pub fn offer_references(&mut self, listed: impl Fn(&str) -> bool) {
        self.set.retain(|name| listed(name));
    }

    pub fn named(&self, name: &str) -> Option<&Provider> {
        self.list.iter().find(|p| p.name == name)
    }

    /// The runtime's client at `provider`, where whoever runs it set one.
    pub fn client(&self, provider: &str) -> Option<&RuntimeClient> {
        self.clients.get(provider)
    }

    /// Whether a way is offered here, and how it takes the org's own client; `None` where what it
    /// needs is not set.
    pub fn offer(&self, provider: &Provider, way: &Way) -> Option<Need> {
        match way {
            Way::Authorization { client: ClientSource::Dynamic, .. } => Some(Need::Optional),
            Way::Authorization { client: ClientSource::Set, .. } if self.clients.contains_key(&provider.name) => {
                Some(Need::Optional)
            }
            Way::Authorization { .. } => Some(Need::Required),
            Way::Reference { variable, .. } => self.set.contains(variable).then_some(Need::Optional),
            _ => Some(Need::Optional),
        }
    }

    /// The way taken when the credential is left out: the first offered, else the first.
    pub fn default_way<'p>(&self, provider: &'p Provider) -> Option<&'p Way> {
        provider.ways.iter().find(|w| self.offer(provider, w).is_some()).or(provider.ways.first())
    }

    /// The way of `kind`, which a provider offers one of.
    pub fn way<'p>(&self, provider: &'p Provider, kind: &str) -> Option<&'p Way> {
        provider.ways.iter().find(|w| w.kind() == kind)
    }

    /// Whether a person may connect it here: some way of it is offered.
    pub fn offered(&self, provider: &Provider) -> bool {
        provider.ways.iter().any(|w| self.offer(provider, w).is_some())
    }

    /// Whether a group of `way` can be asked here: under the runtime's client or the org's own.
    pub fn group_askable(&self, provider: &Provider, way: &Way, own: OauthClient) -> bool {
        match self.offer(provider, way) {
            Some(Need::Optional) => true,
            Some(Need::Required) => own == OauthClient::Own,
            None => false,
        }
    }

    /// A provider as `list_providers` answers it.
    pub fn view(&self, p: &Provider) -> Value {
        let ways: Vec<Value> = p
            .ways
            .iter()
            .map(|w| {
                let offer = self.offer(p, w);
                let mut v = json!({ "kind": w.kind(), "offered": offer.is_some() });
                match w {
                    Way::Authorization { scopes, more, .. } => {
                        v["oauth_client"] = json!(offer.unwrap_or(Need::Required).as_str());
                        v["scopes"] = json!(scopes);
                        v["more"] = json!(more);
                    }
                    Way::Secret { instructions, key_page, example, pattern, .. } => {
                        v["instructions"] = json!(instructions);
                        v["key_page"] = json!(key_page);
                        v["example"] = json!(example);
                        v["pattern"] = json!(pattern);
                    }
                    _ => {}
                }
                v
            })
            .collect();
        json!({
            "name": p.name,
            "title": p.title,
            "description": p.description,
            "type": match p.server { Server::Mcp { .. } => "mcp", Server::Openapi { .. } => "openapi" },
            "handles_money": p.handles_money,
            "offered": self.offered(p),
            "ways": ways,
            "placeholders": p.placeholders,
        })
    }

    /// A provider as `search` lists it: its name, title, description and the groups it offers.
    pub fn found(&self, p: &Provider) -> Value {
        let more: Vec<Value> = self
            .default_way(p)
            .map(|w| w.groups().iter().map(|g| json!({ "name": g.name, "for": g.purpose })).collect())
            .unwrap_or_default();
        let mut v = json!({ "name": p.name, "title": p.title, "description": p.description });
        if !more.is_empty() {
            v["more"] = json!(more);
        }
        v
    }

    /// Whether every word is found in the provider's name, title, description or terms.
    pub fn matches(p: &Provider, words: &[String]) -> bool {
        let text = format!("{} {} {} {}", p.name, p.title, p.description, p.terms.join(" ")).to_lowercase();
        words.iter().all(|w| text.contains(w.as_str()))
    }
}
