//! What the runtime tells clients about itself: protected resource metadata (RFC 9728), the
//! authorization server metadata (RFC 8414), and the `WWW-Authenticate` challenges that point at them.

use serde_json::{json, Value};

use super::resource::Resource;
use crate::core::caller::Scope;

pub const AUTHORIZE_PATH: &str = "/oauth/authorize";
pub const TOKEN_PATH: &str = "/oauth/token";
pub const REGISTER_PATH: &str = "/oauth/register";
pub const REVOKE_PATH: &str = "/oauth/revoke";
pub const RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
pub const SERVER_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";

/// Every client authentication method the token and revocation endpoints take.
const AUTH_METHODS: [&str; 3] = ["none", "client_secret_post", "client_secret_basic"];

fn scope_names() -> Vec<&'static str> {
    Scope::ALL.iter().map(|s| s.as_str()).collect()
}

/// The protected resource metadata of one endpoint; the runtime is its own authorization server,
/// so the issuer is `PUBLIC_URL`.
pub fn protected_resource(public_url: &str, resource: &Resource) -> Value {
    json!({
        "resource": resource.url(public_url),
        "authorization_servers": [public_url],
        "scopes_supported": scope_names(),
        "bearer_methods_supported": ["header"],
        "resource_name": resource.name(),
    })
}

/// The path-form well-known URL of an endpoint's metadata (RFC 9728 §3.1).
pub fn well_known_url(public_url: &str, resource: &Resource) -> String {
    format!("{public_url}{RESOURCE_WELL_KNOWN}{}", resource.path())
}

/// The endpoint a well-known request path asks about. The bare well-known path answers for
/// `/mcp`, which clients probe last when the path form is missing.
pub fn resource_of_well_known(path: &str) -> Option<Resource> {
    match path.strip_prefix(RESOURCE_WELL_KNOWN)? {
        "" | "/" => Some(Resource::Mcp),
        rest => Resource::from_path(rest),
    }
}

pub fn authorization_server(public_url: &str) -> Value {
    json!({
        "issuer": public_url,
        "authorization_endpoint": format!("{public_url}{AUTHORIZE_PATH}"),
        "token_endpoint": format!("{public_url}{TOKEN_PATH}"),
        "registration_endpoint": format!("{public_url}{REGISTER_PATH}"),
        "revocation_endpoint": format!("{public_url}{REVOKE_PATH}"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": AUTH_METHODS,
        "scopes_supported": scope_names(),
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
    })
}

/// The 401 challenge. `refused` carries why a token that was sent is not accepted, which adds
/// `error="invalid_token"`; with no token sent the challenge names no error (RFC 6750 §3.1).
pub fn unauthorized(public_url: &str, resource: &Resource, scopes: &[Scope], refused: Option<&str>) -> String {
    let mut params = Vec::new();
    if refused.is_some() {
        params.push(("error", "invalid_token".to_string()));
    }
    params.push(("resource_metadata", well_known_url(public_url, resource)));
    params.push(("scope", scope_list(scopes)));
    if let Some(why) = refused {
        params.push(("error_description", why.to_string()));
    }
    challenge(&params)
}

/// The 403 challenge when a token lacks a scope: `scope` names every scope the operation needs,
/// so a client can step up once rather than once per missing scope.
pub fn insufficient_scope(public_url: &str, resource: &Resource, needed: &[Scope], description: &str) -> String {
    challenge(&[
        ("error", "insufficient_scope".to_string()),
        ("scope", scope_list(needed)),
        ("resource_metadata", well_known_url(public_url, resource)),
        ("error_description", description.to_string()),
    ])
}

fn scope_list(scopes: &[Scope]) -> String {
    let names: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
    names.join(" ")
}

fn challenge(params: &[(&str, String)]) -> String {
    let parts: Vec<String> = params.iter().map(|(name, value)| format!("{name}={}", quote(value))).collect();
    format!("Bearer {}", parts.join(", "))
}

/// An RFC 9110 quoted-string: `"` and `\` escaped, and control characters (a header cannot hold
/// a line break) made spaces.
fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://runtime.example";

    #[test]
    fn resource_metadata() {
        let acme = Resource::Org { org: "acme".into() };
        let doc = protected_resource(URL, &acme);
        assert_eq!(doc["resource"], "https://runtime.example/orgs/acme/mcp");
        assert_eq!(doc["authorization_servers"], json!([URL]));
        assert_eq!(doc["scopes_supported"], json!(["org:read", "org:write", "playbook:read", "playbook:write"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
        let url = well_known_url(URL, &acme);
        assert_eq!(url, "https://runtime.example/.well-known/oauth-protected-resource/orgs/acme/mcp");
        assert_eq!(resource_of_well_known(&url[URL.len()..]), Some(acme));
        assert_eq!(resource_of_well_known("/.well-known/oauth-protected-resource"), Some(Resource::Mcp));
        assert_eq!(resource_of_well_known("/.well-known/oauth-protected-resource/mcp"), Some(Resource::Mcp));
        assert_eq!(
            resource_of_well_known("/.well-known/oauth-protected-resource/directory"),
            Some(Resource::Directory)
        );
        assert_eq!(resource_of_well_known("/.well-known/oauth-protected-resource/tools"), None);
        assert_eq!(resource_of_well_known("/.well-known/oauth-protected-resourcex/mcp"), None);
        assert_eq!(resource_of_well_known("/mcp"), None);
    }

    #[test]
    fn server_metadata() {
        let doc = authorization_server(URL);
        assert_eq!(doc["issuer"], URL);
        assert_eq!(doc["token_endpoint"], "https://runtime.example/oauth/token");
        assert_eq!(doc["code_challenge_methods_supported"], json!(["S256"]));
        assert_eq!(doc["client_id_metadata_document_supported"], true);
        assert_eq!(doc["authorization_response_iss_parameter_supported"], true);
        assert_eq!(doc["token_endpoint_auth_methods_supported"][2], "client_secret_basic");
    }

    #[test]
    fn challenges() {
        let all = Scope::ALL;
        assert_eq!(
            unauthorized(URL, &Resource::Mcp, &all, None),
            "Bearer resource_metadata=\"https://runtime.example/.well-known/oauth-protected-resource/mcp\", \
             scope=\"org:read org:write playbook:read playbook:write\""
        );
        let refused = unauthorized(URL, &Resource::Mcp, &[Scope::OrgRead], Some("The token \"x\" expired.\r\n"));
        assert!(refused.starts_with("Bearer error=\"invalid_token\", resource_metadata="));
        assert!(refused.ends_with("error_description=\"The token \\\"x\\\" expired.  \""));
        let forbidden =
            insufficient_scope(URL, &Resource::Mcp, &[Scope::OrgRead, Scope::PlaybookWrite], "Needs playbook:write.");
        assert_eq!(
            forbidden,
            "Bearer error=\"insufficient_scope\", scope=\"org:read playbook:write\", \
             resource_metadata=\"https://runtime.example/.well-known/oauth-protected-resource/mcp\", \
             error_description=\"Needs playbook:write.\""
        );
    }
}
