//! Finding a service's authorization server: the `WWW-Authenticate` challenge of an MCP server
//! that wants a token, its protected resource metadata (RFC 9728) at the address the challenge
//! names or at the well-known ones, and the authorization server's metadata (RFC 8414, or OpenID
//! discovery), which must be the issuer's own. Every address the runtime would fetch or send a
//! person to is checked first: deployed, only https on a public host.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::core::access::oauth::metadata::{RESOURCE_WELL_KNOWN, SERVER_WELL_KNOWN};
use crate::core::access::oauth::url;

pub const OPENID_WELL_KNOWN: &str = "/.well-known/openid-configuration";
/// The most of a metadata document or token answer that is read; real ones are a few KiB.
pub const DOCUMENT_MAX: usize = 64 * 1024;

/// Why the runtime will not fetch `address`, or send a person to it. Deployed, it must be https
/// on a public host; run locally, http on a loopback host is taken too, for stand-ins.
pub fn check_address(address: &str, deployed: bool) -> Result<(), String> {
    let parsed = url::parse(address).ok_or("is not a URL without spaces or non-ASCII characters")?;
    let authority = parsed.authority.as_ref().ok_or("names no host")?;
    if authority.userinfo || parsed.fragment.is_some() {
        return Err("must have no user name, password or fragment".into());
    }
    let local_http = !deployed && parsed.scheme == "http" && authority.host.is_loopback();
    if parsed.scheme != "https" && !local_http {
        return Err("must be an https address".into());
    }
    if deployed && !authority.host.is_public() {
        return Err("must be on a public host, not a loopback, private or local one".into());
    }
    Ok(())
}

/// `scheme://host[:port]` and the path of an address `check_address` took, without its query.
fn origin_and_path(address: &str) -> Option<(&str, &str)> {
    let parsed = url::parse(address)?;
    let start = parsed.scheme.len() + 3;
    let after = address.get(start..)?;
    let end = after.find(['/', '?', '#']).unwrap_or(after.len());
    Some((&address[..start + end], parsed.path))
}

/// Scheme, host and port, the defaults filled in: what two addresses must share to be one origin.
fn origin_key(address: &str) -> Option<(String, url::Host, u16)> {
    let parsed = url::parse(address)?;
    let authority = parsed.authority?;
    let port = authority.port.unwrap_or(if parsed.scheme == "https" { 443 } else { 80 });
    Some((parsed.scheme, authority.host, port))
}

/// What a `Bearer` challenge names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// Where its protected resource metadata is (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The scopes the server asks for, space-separated in the challenge.
    pub scope: Vec<String>,
}

/// Reads the `Bearer` challenge of a `WWW-Authenticate` value, which may hold challenges of other
/// schemes too. A value it cannot read names nothing.
pub fn read_challenge(header: &str) -> Challenge {
    let mut challenge = Challenge::default();
    let mut in_bearer = false;
    let mut rest = header;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_ascii_whitespace());
        let end = rest.find(|c: char| c == '=' || c == ',' || c.is_ascii_whitespace()).unwrap_or(rest.len());
        if end == 0 {
            return challenge;
        }
        let (token, after) = rest.split_at(end);
        let after_space = after.trim_start();
        if let Some(value_text) = after_space.strip_prefix('=') {
            let value_text = value_text.trim_start();
            let (value, remaining) = match value_text.strip_prefix('"') {
                Some(quoted) => match unquote(quoted) {
                    Some(read) => read,
                    None => return challenge,
                },
                None => {
                    // A token68 (`abc==`) or a bare token value: up to the next comma.
                    let stop = value_text.find(',').unwrap_or(value_text.len());
                    (value_text[..stop].trim_end_matches('=').trim().to_string(), &value_text[stop..])
                }
            };
            if in_bearer {
                match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => challenge.resource_metadata = Some(value),
                    "scope" => challenge.scope = value.split_ascii_whitespace().map(str::to_string).collect(),
                    _ => {}
                }
            }
            rest = remaining;
        } else {
            in_bearer = token.eq_ignore_ascii_case("bearer");
            rest = after;
        }
    }
}

/// The text of a quoted-string whose opening quote is gone, and what follows its closing one.
fn unquote(text: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((value, &text[i + 1..])),
            '\\' => value.push(chars.next()?.1),
            c => value.push(c),
        }
    }
    None
}

/// The well-known addresses of an MCP server's protected resource metadata, in the order they
/// are tried: the path form (the server's path after the well-known one), then the root.
pub fn resource_metadata_urls(mcp_url: &str) -> Vec<String> {
    let Some((origin, path)) = origin_and_path(mcp_url) else { return Vec::new() };
    let path = path.trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!("{origin}{RESOURCE_WELL_KNOWN}{path}"));
    }
    urls.push(format!("{origin}{RESOURCE_WELL_KNOWN}"));
    urls
}

/// What an MCP server says of itself as a protected resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectedResource {
    /// The resource a token is asked for (RFC 8707 `resource`).
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Vec<String>,
}

/// Reads protected resource metadata fetched for the server at `mcp_url`. Its `resource` must be
/// that server or a path above it on the same origin: metadata of another resource would have
/// tokens asked for it, and sent to the server.
pub fn read_protected_resource(body: &str, mcp_url: &str) -> Result<ProtectedResource, String> {
    let doc = document(body, "protected resource metadata")?;
    let resource = doc
        .get("resource")
        .and_then(Value::as_str)
        .ok_or("its protected resource metadata names no resource")?
        .to_string();
    if !covers(&resource, mcp_url) {
        return Err(format!("its protected resource metadata is for {resource}, which is not the server at {mcp_url}"));
    }
    Ok(ProtectedResource {
        resource,
        authorization_servers: strings(&doc, "authorization_servers", "protected resource metadata")?
            .unwrap_or_default(),
        scopes_supported: strings(&doc, "scopes_supported", "protected resource metadata")?.unwrap_or_default(),
    })
}

/// Whether `resource` names the server at `address`: one origin, and its path the server's or a
/// whole-segment prefix of it.
fn covers(resource: &str, address: &str) -> bool {
    let (Some((_, resource_path)), Some((_, path))) = (origin_and_path(resource), origin_and_path(address)) else {
        return false;
    };
    let same_origin = origin_key(resource).is_some_and(|o| Some(o) == origin_key(address));
    let (resource_path, path) = (resource_path.trim_end_matches('/'), path.trim_end_matches('/'));
    let under = path.strip_prefix(resource_path).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    same_origin && under
}

/// The addresses of an issuer's metadata, in the order they are tried: RFC 8414's, the
/// well-known path put before the issuer's own path; OpenID discovery's in the same form; and
/// OpenID discovery's own form, the well-known path after the issuer's.
pub fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let Some((origin, path)) = origin_and_path(issuer) else { return Vec::new() };
    if issuer.contains(['?', '#']) {
        return Vec::new();
    }
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return vec![format!("{origin}{SERVER_WELL_KNOWN}"), format!("{origin}{OPENID_WELL_KNOWN}")];
    }
    vec![
        format!("{origin}{SERVER_WELL_KNOWN}{path}"),
        format!("{origin}{OPENID_WELL_KNOWN}{path}"),
        format!("{origin}{path}{OPENID_WELL_KNOWN}"),
    ]
}

/// What the runtime needs of an authorization server's metadata. Kept by the caller between the
/// start of a consent and its finish (the token endpoint, and whether the redirect carries `iss`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub revocation_endpoint: Option<String>,
    /// Whether it takes PKCE S256: `None` where the metadata says nothing of PKCE.
    pub pkce_s256: Option<bool>,
    /// How a client may authenticate at the token endpoint; RFC 8414's default,
    /// `client_secret_basic`, where it names none.
    pub token_auth_methods: Vec<String>,
    pub scopes_supported: Vec<String>,
    pub grant_types: Vec<String>,
    /// Whether the redirect after a consent carries `iss` (RFC 9207).
    pub iss_in_redirect: bool,
}

impl ServerMetadata {
    pub fn takes_grant(&self, grant: &str) -> bool {
        self.grant_types.iter().any(|g| g == grant)
    }
}

/// Reads the metadata fetched for `issuer`. It speaks for that issuer only if its `issuer` is
/// that one, character for character (RFC 8414 §3.3); each endpoint must be an address the
/// runtime would send a request or a person to.
pub fn read_server_metadata(body: &str, issuer: &str, deployed: bool) -> Result<ServerMetadata, String> {
    const WHAT: &str = "authorization server metadata";
    let doc = document(body, WHAT)?;
    match doc.get("issuer").and_then(Value::as_str) {
        Some(said) if said == issuer => {}
        Some(said) => return Err(format!("its {WHAT} is of the issuer {said}, not of {issuer}")),
        None => return Err(format!("its {WHAT} names no issuer")),
    }
    let endpoint = |name: &str| -> Result<Option<String>, String> {
        match doc.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(address)) => match check_address(address, deployed) {
                Ok(()) => Ok(Some(address.clone())),
                Err(why) => Err(format!("its {name} {address} {why}")),
            },
            Some(_) => Err(format!("its {name} is not an address")),
        }
    };
    let token_endpoint = endpoint("token_endpoint")?.ok_or_else(|| format!("its {WHAT} names no token_endpoint"))?;
    let pkce = strings(&doc, "code_challenge_methods_supported", WHAT)?;
    Ok(ServerMetadata {
        issuer: issuer.to_string(),
        authorization_endpoint: endpoint("authorization_endpoint")?,
        token_endpoint,
        registration_endpoint: endpoint("registration_endpoint")?,
        revocation_endpoint: endpoint("revocation_endpoint")?,
        pkce_s256: pkce.map(|methods| methods.iter().any(|m| m == "S256")),
        token_auth_methods: strings(&doc, "token_endpoint_auth_methods_supported", WHAT)?
            .unwrap_or_else(|| vec!["client_secret_basic".into()]),
        scopes_supported: strings(&doc, "scopes_supported", WHAT)?.unwrap_or_default(),
        grant_types: strings(&doc, "grant_types_supported", WHAT)?
            .unwrap_or_else(|| vec!["authorization_code".into(), "implicit".into()]),
        iss_in_redirect: doc.get("authorization_response_iss_parameter_supported") == Some(&Value::Bool(true)),
    })
}

/// A JSON object within `DOCUMENT_MAX`, or words that say what it is not.
pub(crate) fn document(body: &str, what: &str) -> Result<Map<String, Value>, String> {
    if body.len() > DOCUMENT_MAX {
        return Err(format!("its {what} is larger than {} KiB", DOCUMENT_MAX / 1024));
    }
    match serde_json::from_str(body) {
        Ok(Value::Object(doc)) => Ok(doc),
        _ => Err(format!("its {what} is not a JSON object")),
    }
}

/// A field that is a list of strings, if present.
pub(crate) fn strings(doc: &Map<String, Value>, name: &str, what: &str) -> Result<Option<Vec<String>>, String> {
    match doc.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(Some)
            .ok_or_else(|| format!("the {name} of its {what} is not a list of strings")),
        Some(_) => Err(format!("the {name} of its {what} is not a list of strings")),
    }
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
pub(crate) mod tests;
