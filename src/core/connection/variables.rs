//! The Worker variables a connection of kind `reference` may send: only those whoever runs the
//! runtime lists in `CONNECTION_VARIABLES`, each with the orgs it serves and the hosts it may be
//! sent to, and never one of the runtime's own settings or secrets. A reference names a variable
//! the person adding it never sees, so without this list anyone who may add a connection could
//! have the runtime send `ADMIN_TOKEN` to a server of their own.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::core::access::oauth::url;

/// The setting that lists them.
pub const SETTING: &str = "CONNECTION_VARIABLES";

/// The runtime's own settings and secrets, which no connection may send whatever the list says.
const OWN: &[&str] = &[
    "ADMIN_TOKEN",
    "CONNECTIONS_KEY",
    "OIDC_ISSUER",
    "OIDC_CLIENT_ID",
    "OIDC_CLIENT_SECRET",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "MODEL_GATEWAYS",
    "MODEL_ALIASES",
    "ALLOWED_MODELS",
    "MODEL_TIMEOUT_SECONDS",
    "TOOL_SERVERS",
    "CONNECTION_PROVIDERS",
    SETTING,
    "PUBLIC_URL",
    "LOCAL_MODE",
    "LOCAL_USER",
    "OWNERS",
    "ALLOWED_ORIGINS",
    "MAX_BODY_BYTES",
];

/// Whom one listed variable serves, and where it may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// `None` serves every org (`"*"`).
    pub orgs: Option<Vec<String>>,
    /// Lowercased host names, each with `:port` where one was written.
    pub hosts: Vec<String>,
}

/// The variables the operator lists for connections, read once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectionVariables {
    listed: BTreeMap<String, Listed>,
}

/// The names the runtime reads as its own: the fixed settings, every `<PROVIDER>_CLIENT_ID` and
/// `_CLIENT_SECRET`, and the secrets `MODEL_GATEWAYS` and `TOOL_SERVERS` name, read as `read`
/// gives them.
pub fn runtime_own(read: impl Fn(&str) -> Option<String>) -> BTreeSet<String> {
    let mut own: BTreeSet<String> = OWN.iter().map(|s| s.to_string()).collect();
    let parsed = |name: &str| read(name).and_then(|t| serde_json::from_str::<Value>(&t).ok());
    if let Some(Value::Object(gateways)) = parsed("MODEL_GATEWAYS") {
        own.extend(gateways.values().filter_map(|g| g["key"].as_str()).map(str::to_string));
    }
    if let Some(Value::Object(servers)) = parsed("TOOL_SERVERS") {
        own.extend(servers.values().filter_map(|s| s["credential"]["name"].as_str()).map(str::to_string));
    }
    own
}

fn is_own(name: &str, own: &BTreeSet<String>) -> bool {
    own.contains(name) || name.ends_with("_CLIENT_SECRET") || name.ends_with("_CLIENT_ID")
}

/// A variable's name: capitals, digits and `_`, as Worker settings are named.
pub fn is_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

impl ConnectionVariables {
    /// Reads the setting's JSON, `{"NAME": {"orgs": [..] | "*", "hosts": [..]}}`. What cannot be
    /// taken is left out and said in the log lines it answers beside.
    pub fn read(text: Option<&str>, own: &BTreeSet<String>) -> (ConnectionVariables, Vec<String>) {
        let mut log = Vec::new();
        let mut listed = BTreeMap::new();
        let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
            return (ConnectionVariables { listed }, log);
        };
        let Ok(Value::Object(entries)) = serde_json::from_str::<Value>(text) else {
            log.push(format!("{SETTING} is not a JSON object of variables by name; no connection may send a variable"));
            return (ConnectionVariables { listed }, log);
        };
        for (name, entry) in entries {
            if !is_name(&name) {
                log.push(format!("{SETTING}: {name} is not a variable's name (capitals, digits and _); left out"));
                continue;
            }
            if is_own(&name, own) {
                log.push(format!(
                    "{SETTING}: {name} is one of the runtime's own settings or secrets, which no connection may send; left out"
                ));
                continue;
            }
            match entry_of(&entry) {
                Ok(l) => {
                    listed.insert(name, l);
                }
                Err(why) => log.push(format!("{SETTING}: {name} {why}; left out")),
            }
        }
        (ConnectionVariables { listed }, log)
    }

    /// Whether the operator listed `name` for connections at all.
    pub fn listed(&self, name: &str) -> bool {
        self.listed.contains_key(name)
    }

    /// Whether a connection of `org` whose calls go to `address` may send `name`; otherwise the
    /// words that say why and what the operator sets, to follow "is NAME, ".
    pub fn admits(&self, name: &str, org: &str, address: &str) -> Result<(), String> {
        let Some(l) = self.listed.get(name) else {
            return Err(format!(
                "a variable whoever runs the runtime has not listed for connections: they list it in {SETTING}, with the orgs it serves and the hosts it may be sent to, and never one of the runtime's own secrets"
            ));
        };
        if l.orgs.as_ref().is_some_and(|orgs| !orgs.iter().any(|o| o == org)) {
            return Err(format!(
                "a variable {SETTING} does not list for the org {org}: whoever runs the runtime adds the org to its orgs"
            ));
        }
        let host = host_of(address).ok_or_else(|| "a variable that goes only to an address with a host".to_string())?;
        if !l.hosts.iter().any(|h| *h == host.0 || *h == host.1) {
            return Err(format!(
                "a variable {SETTING} lets go only to {}, not to {}: whoever runs the runtime adds the host to its hosts",
                l.hosts.join(", "),
                host.0
            ));
        }
        Ok(())
    }
}

fn entry_of(entry: &Value) -> Result<Listed, String> {
    let orgs = match &entry["orgs"] {
        Value::String(star) if star == "*" => None,
        Value::Array(list) if !list.is_empty() && list.iter().all(|o| o.as_str().is_some_and(|s| !s.is_empty())) => {
            Some(list.iter().filter_map(Value::as_str).map(str::to_string).collect())
        }
        _ => return Err("must name its orgs, as a list of org ids or \"*\" for every org".into()),
    };
    let Some(list) = entry["hosts"].as_array().filter(|l| !l.is_empty()) else {
        return Err("must name the hosts it may be sent to, as a list such as [\"api.example.com\"]".into());
    };
    let mut hosts = Vec::new();
    for h in list {
        let text = h.as_str().unwrap_or_default().trim();
        let bare = !text.is_empty() && !text.contains(['/', '?', '#', '@', '*']);
        match host_of(&format!("https://{text}/")).filter(|_| bare) {
            Some((_, with_port)) => hosts.push(with_port),
            None => return Err(format!("names {h} among its hosts, which is not a host name with an optional :port")),
        }
    }
    if entry.as_object().is_some_and(|o| o.keys().any(|k| k != "orgs" && k != "hosts")) {
        return Err("takes orgs and hosts alone".into());
    }
    Ok(Listed { orgs, hosts })
}

/// The lowercased host of an address, and the same with its `:port` where it has one.
fn host_of(address: &str) -> Option<(String, String)> {
    let parsed = url::parse(address)?;
    let authority = parsed.authority?;
    let name = match &authority.host {
        url::Host::Name(n) => n.clone(),
        url::Host::V4(ip) => ip.to_string(),
        url::Host::V6(ip) => format!("[{ip}]"),
    };
    let with_port = authority.port.map_or_else(|| name.clone(), |p| format!("{name}:{p}"));
    Some((name, with_port))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own() -> BTreeSet<String> {
        let vars = [
            ("MODEL_GATEWAYS", r#"{"gw": {"base_url": "https://gw.example/v1", "key": "GW_KEY"}}"#),
            (
                "TOOL_SERVERS",
                r#"{"files": {"type": "mcp", "url": "https://f.example/mcp", "credential": {"kind": "secret", "name": "FILES_TOKEN"}}}"#,
            ),
        ];
        runtime_own(|n| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| v.to_string()))
    }

    fn read(text: &str) -> (ConnectionVariables, Vec<String>) {
        ConnectionVariables::read(Some(text), &own())
    }

    #[test]
    fn the_runtime_own_secrets_are_never_listed() {
        let names = [
            "ADMIN_TOKEN",
            "CONNECTIONS_KEY",
            "OIDC_CLIENT_SECRET",
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "GW_KEY",
            "FILES_TOKEN",
            "GITHUB_CLIENT_SECRET",
            "SLACK_CLIENT_ID",
        ];
        for name in names {
            let (v, log) = read(&format!(r#"{{"{name}": {{"orgs": "*", "hosts": ["evil.example"]}}}}"#));
            assert!(!v.listed(name), "{name}");
            assert!(log[0].contains("the runtime's own"), "{log:?}");
            assert!(v.admits(name, "acme", "https://evil.example/mcp").is_err());
        }
    }

    #[test]
    fn a_listed_variable_serves_its_orgs_and_goes_to_its_hosts_alone() {
        let (v, log) = read(
            r#"{"LINEAR_KEY": {"orgs": ["acme"], "hosts": ["mcp.linear.app", "127.0.0.1:8818"]},
                "SHARED": {"orgs": "*", "hosts": ["api.example.com"]}}"#,
        );
        assert!(log.is_empty(), "{log:?}");
        assert!(v.admits("LINEAR_KEY", "acme", "https://mcp.linear.app/sse").is_ok());
        assert!(v.admits("LINEAR_KEY", "acme", "https://MCP.linear.app./x").is_ok(), "hosts compare as names do");
        assert!(v.admits("LINEAR_KEY", "acme", "http://127.0.0.1:8818/openapi").is_ok());
        assert!(v.admits("LINEAR_KEY", "acme", "http://127.0.0.1:8819/").unwrap_err().contains("not to 127.0.0.1"));
        assert!(v.admits("LINEAR_KEY", "globex", "https://mcp.linear.app/").unwrap_err().contains("org globex"));
        assert!(v.admits("LINEAR_KEY", "acme", "https://mcp.linear.app.evil.example/").is_err());
        assert!(v.admits("SHARED", "anyone", "https://api.example.com/v1").is_ok());
        let unlisted = v.admits("OTHER", "acme", "https://api.example.com/").unwrap_err();
        assert!(unlisted.contains("CONNECTION_VARIABLES"), "{unlisted}");
    }

    #[test]
    fn what_cannot_be_read_is_left_out_and_said() {
        let (v, log) = read(
            r#"{"lower": {"orgs": "*", "hosts": ["a.example"]}, "NO_HOSTS": {"orgs": "*"},
                "NO_ORGS": {"hosts": ["a.example"]}, "BAD_HOST": {"orgs": "*", "hosts": ["a.example/path"]},
                "EXTRA": {"orgs": "*", "hosts": ["a.example"], "scheme": "x"}}"#,
        );
        assert_eq!(log.len(), 5, "{log:?}");
        assert!(["lower", "NO_HOSTS", "NO_ORGS", "BAD_HOST", "EXTRA"].iter().all(|n| !v.listed(n)));
        let (v, log) = read("[1, 2]");
        assert!(!v.listed("X") && log.len() == 1);
        assert_eq!(ConnectionVariables::read(None, &own()).0, ConnectionVariables::default());
    }
}
