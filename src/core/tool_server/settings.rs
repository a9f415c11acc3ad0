//! The tool servers an operator lists in the Worker variable `TOOL_SERVERS`: JSON, each server by
//! the name a function writes before its tools.
//!
//! ```json
//! { "files": { "type": "mcp", "url": "https://files.example.com/mcp",
//!              "allowed": ["read_text_file", "list_directory"],
//!              "playbooks": ["marketing"],
//!              "credential": { "kind": "secret", "name": "FILES_TOKEN" } } }
//! ```
//!
//! `type` is `mcp` with its `url`, or `openapi` with `document` (an address) or `document_text`
//! (the document itself) and `base_url`. `allowed` lists tool names, or is `"*"`; a server with
//! no `allowed` offers no tool, so nothing is reachable that the operator did not name. `orgs` and
//! `playbooks` narrow whom it serves (default: all). `credential` names a Worker secret, never
//! its value, and where it goes (`in: header` by default as `Authorization: Bearer …`, or
//! `in: query` as `name_of_query`). `record_content: false` keeps only the sizes of arguments and
//! answers in history. `handles_money: true` keeps it from `/directory`. `marks` sets a tool's
//! mark over its server's (`marked_by: settings`). `sends` names the tool that sends a person a
//! message and `reads_replies` the one that reads the replies, which interactions go through.
//!
//! One entry that cannot be read makes that server unavailable, with words that say why; the
//! others work.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::{is_server_name, Because, Mark};
use crate::core::access::oauth::url;
use crate::core::model::Secret;
use crate::core::text::quote;

/// The most a `document_text` may hold.
pub const DOCUMENT_TEXT_MAX: usize = 16_384;
/// The most servers one runtime lists.
pub const SERVERS_MAX: usize = 100;

#[derive(Debug, Clone, PartialEq)]
pub struct ToolServers {
    /// Every server the variable names, usable or not, sorted by name.
    pub servers: Vec<Server>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    pub name: String,
    pub state: Result<ServerEntry, Unusable>,
    /// Whom it serves, readable even when the rest of its entry is not, so that a broken server
    /// shows only to those it was meant for.
    pub orgs: Option<Vec<String>>,
    pub playbooks: Option<Vec<String>>,
    /// The provider a connection was added from; none for a server of the settings or one given
    /// by hand.
    pub provider: Option<String>,
    /// The id of the connection it is, where it is one.
    pub connection: Option<String>,
}

/// Why a server of the settings cannot be used, in words that say what mends it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    pub because: Because,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ServerEntry {
    pub kind: ServerKind,
    /// `None` allows every tool the server lists.
    pub allowed: Option<Vec<String>>,
    pub credential: Option<Credential>,
    pub record_content: bool,
    pub handles_money: bool,
    pub marks: BTreeMap<String, Mark>,
    /// Who set `marks`: the operator's settings, or a provider's entry in the catalogue.
    pub marked_by: super::MarkedBy,
    /// The tool that sends a message to a person, if the server has one, and the tool that reads
    /// the replies to one: an interaction's refusals name them.
    pub sends: Option<String>,
    pub reads_replies: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ServerKind {
    Mcp { url: String },
    OpenApi { document: Document, base_url: String },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    /// Fetched from this address.
    At(String),
    /// Given whole in the settings.
    Text(String),
}

/// A credential read from a Worker secret, and where a request carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct Credential {
    pub secret: Secret,
    pub place: Place,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// A header, its value `scheme value` where a scheme is given.
    Header {
        name: String,
        scheme: Option<String>,
    },
    Query {
        name: String,
    },
}

impl Server {
    /// Whether this server serves `org`, and `playbook` where one is named.
    pub fn serves(&self, org: &str, playbook: Option<&str>) -> bool {
        let org_ok = self.orgs.as_ref().is_none_or(|orgs| orgs.iter().any(|o| o == org));
        let playbook_ok = match (playbook, &self.playbooks) {
            (Some(p), Some(list)) => list.iter().any(|l| l == p),
            _ => true,
        };
        org_ok && playbook_ok
    }
}

impl ServerEntry {
    pub fn allows(&self, tool: &str) -> bool {
        self.allowed.as_ref().is_none_or(|names| names.iter().any(|n| n == tool))
    }
}

impl ToolServers {
    /// Reads `TOOL_SERVERS` and the secrets its entries name through `var`. `deployed` refuses
    /// addresses on loopback, private or local hosts, and plain http. Answers the servers and a
    /// line for the log for each entry that cannot be used.
    pub fn read(var: impl Fn(&str) -> Option<String>, deployed: bool) -> (ToolServers, Vec<String>) {
        let Some(text) = var("TOOL_SERVERS").filter(|t| !t.trim().is_empty()) else {
            return (ToolServers { servers: Vec::new() }, Vec::new());
        };
        let entries: BTreeMap<String, Value> = match serde_json::from_str(&text) {
            Ok(entries) => entries,
            Err(e) => {
                let line =
                    format!("TOOL_SERVERS is not a JSON object of servers by name ({e}), so no tool server is set up.");
                return (ToolServers { servers: Vec::new() }, vec![line]);
            }
        };
        let mut log = Vec::new();
        if entries.len() > SERVERS_MAX {
            log.push(format!(
                "TOOL_SERVERS lists {} servers; the first {SERVERS_MAX} by name are used.",
                entries.len()
            ));
        }
        let servers = entries
            .into_iter()
            .take(SERVERS_MAX)
            .map(|(name, value)| {
                let server = server(&name, &value, &var, deployed);
                if let Err(u) = &server.state {
                    log.push(format!("The tool server {} cannot be used: {}", quote(&name), u.detail));
                }
                server
            })
            .collect();
        (ToolServers { servers }, log)
    }

    pub fn named(&self, name: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// An entry as written, before its checks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Written {
    #[serde(rename = "type")]
    kind: String,
    url: Option<String>,
    document: Option<String>,
    document_text: Option<String>,
    base_url: Option<String>,
    #[serde(default)]
    allowed: Option<Allowed>,
    orgs: Option<Vec<String>>,
    playbooks: Option<Vec<String>>,
    credential: Option<WrittenCredential>,
    #[serde(default = "yes")]
    record_content: bool,
    #[serde(default)]
    handles_money: bool,
    #[serde(default)]
    marks: BTreeMap<String, Mark>,
    sends: Option<String>,
    reads_replies: Option<String>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Allowed {
    All(String),
    Names(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WrittenCredential {
    kind: String,
    name: String,
    #[serde(rename = "in", default)]
    place: Option<String>,
    name_of_header: Option<String>,
    name_of_query: Option<String>,
    scheme: Option<String>,
}

/// Whom an entry serves, read on its own so that it holds even when the rest cannot be read.
#[derive(Deserialize, Default)]
struct Audience {
    orgs: Option<Vec<String>>,
    playbooks: Option<Vec<String>>,
}

fn server(name: &str, value: &Value, var: &impl Fn(&str) -> Option<String>, deployed: bool) -> Server {
    let audience: Audience = crate::core::json::from_value(value.clone()).unwrap_or_default();
    let state = entry(name, value, var, deployed);
    Server {
        name: name.to_string(),
        state,
        orgs: audience.orgs,
        playbooks: audience.playbooks,
        provider: None,
        connection: None,
    }
}

fn entry(
    name: &str,
    value: &Value,
    var: &impl Fn(&str) -> Option<String>,
    deployed: bool,
) -> Result<ServerEntry, Unusable> {
    let invalid = |detail: String| Unusable {
        because: Because::SettingsInvalid,
        detail: format!("{detail}. Whoever runs the runtime mends its entry in TOOL_SERVERS and restarts it."),
    };
    if !is_server_name(name) {
        return Err(invalid(
            "its name must be lowercase letters, digits, - and _, starting with a letter, at most 64 characters".into(),
        ));
    }
    let w: Written =
        crate::core::json::from_value(value.clone()).map_err(|e| invalid(format!("its entry does not read: {e}")))?;
    for (field, list) in [("orgs", &w.orgs), ("playbooks", &w.playbooks)] {
        if list.as_ref().is_some_and(Vec::is_empty) {
            return Err(invalid(format!("its {field} is an empty list; leave it out to serve all")));
        }
    }
    let address = |field: &str, text: Option<String>| -> Result<String, Unusable> {
        let text = text.ok_or_else(|| invalid(format!("it needs {field}")))?;
        check_address(&text, deployed).map_err(|why| invalid(format!("its {field} {why}")))?;
        Ok(text)
    };
    let kind = match w.kind.as_str() {
        "mcp" => ServerKind::Mcp { url: address("url", w.url)? },
        "openapi" => {
            let document = match (w.document, w.document_text) {
                (Some(at), None) => Document::At(address("document", Some(at))?),
                (None, Some(text)) if text.len() <= DOCUMENT_TEXT_MAX => Document::Text(text),
                (None, Some(text)) => {
                    return Err(invalid(format!(
                        "its document_text holds {} bytes, over the {DOCUMENT_TEXT_MAX} it may; give the document's address as document instead",
                        text.len()
                    )))
                }
                _ => return Err(invalid("it needs one of document (an address) and document_text (the document)".into())),
            };
            ServerKind::OpenApi { document, base_url: address("base_url", w.base_url)? }
        }
        other => return Err(invalid(format!("its type is {}, where mcp and openapi are served", quote(other)))),
    };
    let allowed = match w.allowed {
        None => Some(Vec::new()),
        Some(Allowed::All(star)) if star == "*" => None,
        Some(Allowed::All(one)) => Some(vec![one]),
        Some(Allowed::Names(names)) => Some(names),
    };
    let credential = w.credential.map(|c| credential(c, var)).transpose()?;
    if w.reads_replies.is_some() && w.sends.is_none() {
        return Err(invalid(
            "its reads_replies names the tool that reads replies, but no sends names the tool that sends".into(),
        ));
    }
    Ok(ServerEntry {
        kind,
        allowed,
        credential,
        record_content: w.record_content,
        handles_money: w.handles_money,
        marks: w.marks,
        marked_by: super::MarkedBy::Settings,
        sends: w.sends,
        reads_replies: w.reads_replies,
    })
}

fn credential(c: WrittenCredential, var: &impl Fn(&str) -> Option<String>) -> Result<Credential, Unusable> {
    let invalid = |detail: String| Unusable {
        because: Because::SettingsInvalid,
        detail: format!(
            "its credential {detail}. Whoever runs the runtime mends its entry in TOOL_SERVERS and restarts it."
        ),
    };
    if c.kind != "secret" {
        return Err(invalid(format!("is of kind {}, where secret is served", quote(&c.kind))));
    }
    let place = match c.place.as_deref().unwrap_or("header") {
        "header" => {
            let name = c.name_of_header.unwrap_or_else(|| "Authorization".into());
            let scheme = c.scheme.or_else(|| name.eq_ignore_ascii_case("authorization").then(|| "Bearer".into()));
            Place::Header { name, scheme }
        }
        "query" => Place::Query {
            name: c.name_of_query.ok_or_else(|| invalid("goes in the query but names no name_of_query".into()))?,
        },
        other => return Err(invalid(format!("goes in {}, where header and query are served", quote(other)))),
    };
    let secret = var(&c.name).filter(|v| !v.is_empty()).ok_or_else(|| Unusable {
        because: Because::SecretNotSet,
        detail: format!(
            "its credential names the secret {}, which is not set. Whoever runs the runtime sets it (wrangler secret put {}; for wrangler dev, a line {}=value in .dev.vars) and restarts it.",
            c.name, c.name, c.name
        ),
    })?;
    Ok(Credential { secret: Secret(secret), place })
}

/// An address the runtime may fetch. Deployed, only https on a public host; in `wrangler dev`,
/// http and local hosts too, so that tests reach servers on loopback.
pub(crate) fn check_address(text: &str, deployed: bool) -> Result<(), String> {
    let parsed = url::parse(text).ok_or("is not an address without spaces or non-ASCII characters")?;
    let authority = parsed.authority.as_ref().ok_or("names no host")?;
    if authority.userinfo || parsed.fragment.is_some() {
        return Err("must have no user name, password or fragment; give a credential instead".into());
    }
    match (parsed.scheme.as_str(), deployed) {
        ("https", _) | ("http", false) => {}
        _ => return Err("must be an https address".into()),
    }
    if deployed && !authority.host.is_public() {
        return Err("names a loopback, private or local host, which a deployed runtime does not reach".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(servers: &str, deployed: bool) -> (ToolServers, Vec<String>) {
        let vars = [("TOOL_SERVERS", servers), ("FILES_TOKEN", "s3cret")];
        ToolServers::read(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()), deployed)
    }

    #[test]
    fn an_entry_reads_whole() {
        let (s, log) = read(
            r#"{"files": {"type": "mcp", "url": "http://127.0.0.1:8000/mcp", "allowed": ["read_text_file"],
                "playbooks": ["marketing"], "credential": {"kind": "secret", "name": "FILES_TOKEN"},
                "marks": {"read_text_file": "reads"}}}"#,
            false,
        );
        assert!(log.is_empty(), "{log:?}");
        let files = s.named("files").unwrap();
        let entry = files.state.as_ref().unwrap();
        assert_eq!(entry.kind, ServerKind::Mcp { url: "http://127.0.0.1:8000/mcp".into() });
        assert!(entry.allows("read_text_file") && !entry.allows("write_file"));
        let c = entry.credential.as_ref().unwrap();
        assert_eq!(c.secret.0, "s3cret");
        assert_eq!(c.place, Place::Header { name: "Authorization".into(), scheme: Some("Bearer".into()) });
        assert!(entry.record_content && !entry.handles_money);
        assert!(files.serves("acme", Some("marketing")) && !files.serves("acme", Some("sales")));
        assert!(files.serves("acme", None));
    }

    #[test]
    fn one_bad_entry_leaves_the_rest() {
        let (s, log) = read(
            r#"{"good": {"type": "mcp", "url": "http://localhost:1/mcp", "allowed": "*"},
                "typo": {"type": "mcp", "uri": "http://localhost:1/mcp"},
                "nokey": {"type": "mcp", "url": "http://localhost:1/mcp", "credential": {"kind": "secret", "name": "GONE"}}}"#,
            false,
        );
        assert_eq!(log.len(), 2, "{log:?}");
        assert!(s.named("good").unwrap().state.as_ref().unwrap().allows("anything"));
        let typo = s.named("typo").unwrap().state.clone().unwrap_err();
        assert_eq!(typo.because, Because::SettingsInvalid);
        assert!(typo.detail.contains("uri"), "{}", typo.detail);
        let nokey = s.named("nokey").unwrap().state.clone().unwrap_err();
        assert_eq!(nokey.because, Because::SecretNotSet);
        assert!(nokey.detail.contains("wrangler secret put GONE") && !nokey.detail.contains("s3cret"));
    }

    #[test]
    fn a_deployed_runtime_reaches_only_public_https() {
        for url in
            ["http://files.example.com/mcp", "https://127.0.0.1/mcp", "https://10.0.0.8/mcp", "https://intranet/mcp"]
        {
            let (s, _) = read(&format!(r#"{{"files": {{"type": "mcp", "url": "{url}"}}}}"#), true);
            assert!(s.named("files").unwrap().state.is_err(), "{url}");
        }
        let (s, _) = read(r#"{"files": {"type": "mcp", "url": "https://files.example.com/mcp"}}"#, true);
        assert!(s.named("files").unwrap().state.is_ok());
    }

    #[test]
    fn an_openapi_server_needs_one_document_and_a_base() {
        let (s, _) = read(
            r#"{"crm": {"type": "openapi", "document_text": "openapi: 3.1.0", "base_url": "http://127.0.0.1:9/api"},
                "both": {"type": "openapi", "document": "http://127.0.0.1:9/d", "document_text": "x", "base_url": "http://127.0.0.1:9"},
                "big": {"type": "openapi", "document_text": "BIG", "base_url": "http://127.0.0.1:9"}}"#
                .replace("BIG", &"x".repeat(DOCUMENT_TEXT_MAX + 1))
                .as_str(),
            false,
        );
        assert!(matches!(s.named("crm").unwrap().state, Ok(ServerEntry { kind: ServerKind::OpenApi { .. }, .. })));
        assert!(s.named("both").unwrap().state.is_err());
        let big = s.named("big").unwrap().state.clone().unwrap_err();
        assert!(big.detail.contains("16384"), "{}", big.detail);
        let (s, _) = read(r#"{"none": {"type": "mcp", "url": "http://localhost:1/mcp", "orgs": []}}"#, false);
        assert!(s.named("none").unwrap().state.is_err());
    }

    #[test]
    fn a_variable_that_is_not_json_sets_up_nothing_and_says_so() {
        let (s, log) = read("{files", false);
        assert!(s.servers.is_empty());
        assert!(log[0].contains("TOOL_SERVERS"));
        let (s, log) = read("", false);
        assert!(s.servers.is_empty() && log.is_empty());
    }
}
