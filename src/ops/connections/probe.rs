//! Asks an MCP server given by hand, once, before anything is recorded, how it authenticates: one
//! request without a token and, where it refuses it, the protected resource metadata of its
//! address (RFC 9728, at the well-known place the MCP authorization specification names), whose
//! first authorization server the connection takes as its issuer.

use serde_json::Value;

use crate::core::connection::probe::Probe;
use crate::core::tool_server::{mcp, Request};
use crate::ops::tool_client::Transport;

const PROBE_SECONDS: u64 = 10;

/// The addresses of the metadata of `url`: with its path inserted, then at the root.
fn metadata_addresses(url: &str) -> Vec<String> {
    let Some((scheme, rest)) = url.split_once("://") else { return Vec::new() };
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = path.split(['?', '#']).next().unwrap_or("").trim_end_matches('/');
    let root = format!("{scheme}://{host}/.well-known/oauth-protected-resource");
    if path.is_empty() {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// What the server at `url` says of how it authenticates.
pub async fn probe(transport: &dyn Transport, url: &str) -> Probe {
    let post = mcp::initialize(1);
    let asked = Request { method: "POST", url: url.to_string(), headers: post.headers, body: Some(post.body) };
    let answer = match transport.send(asked, PROBE_SECONDS).await {
        Ok(a) => a,
        Err(e) => return Probe::Unreachable(format!("{e:?}")),
    };
    if answer.status != 401 && answer.status != 403 {
        return Probe::NamesNone;
    }
    for at in metadata_addresses(url) {
        let get =
            Request { method: "GET", url: at, headers: vec![("Accept".into(), "application/json".into())], body: None };
        let Ok(found) = transport.send(get, PROBE_SECONDS).await else { continue };
        if found.status != 200 {
            continue;
        }
        let issuer = serde_json::from_str::<Value>(&found.body)
            .ok()
            .and_then(|m| m.get("authorization_servers")?.as_array()?.first()?.as_str().map(str::to_string));
        if let Some(issuer) = issuer {
            return Probe::Names { issuer };
        }
    }
    Probe::NamesNone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_is_looked_for_at_the_path_then_the_root() {
        assert_eq!(
            metadata_addresses("https://x.example.com/v1/mcp"),
            [
                "https://x.example.com/.well-known/oauth-protected-resource/v1/mcp",
                "https://x.example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            metadata_addresses("https://x.example.com"),
            ["https://x.example.com/.well-known/oauth-protected-resource"]
        );
    }
}
