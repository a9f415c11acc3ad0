//! The protected resources (RFC 8707): the MCP endpoints a token may be granted for, and which
//! requests a token granted for one of them serves.

use serde::{Deserialize, Serialize};

use crate::core::ids::{is_org_name, is_playbook_id};

/// An MCP endpoint of the runtime. It is kept (and serialized) as its path, such as `/orgs/acme/mcp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Resource {
    /// `/mcp`: the caller's own org.
    Mcp,
    /// `/directory`.
    Directory,
    /// `/orgs/{org}/mcp`.
    Org { org: String },
    /// `/orgs/{org}/playbooks/{playbook}/mcp`.
    Playbook { org: String, playbook: String },
    /// A run-mode endpoint: `/orgs/{org}/tools/mcp`, or one playbook's,
    /// `/orgs/{org}/playbooks/{playbook}/tools/mcp`.
    Run { org: String, playbook: Option<String> },
}

impl Resource {
    /// The endpoint a request path names, if it names one; one trailing `/` is forgiven.
    pub fn from_path(path: &str) -> Option<Resource> {
        let path = if path.len() > 1 { path.strip_suffix('/').unwrap_or(path) } else { path };
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            ["", "mcp"] => Some(Resource::Mcp),
            ["", "directory"] => Some(Resource::Directory),
            ["", "orgs", org, "mcp"] if is_org_name(org) => Some(Resource::Org { org: org.to_string() }),
            ["", "orgs", org, "playbooks", pb, "mcp"] if is_org_name(org) && is_playbook_id(pb) => {
                Some(Resource::Playbook { org: org.to_string(), playbook: pb.to_string() })
            }
            ["", "orgs", org, "tools", "mcp"] if is_org_name(org) => {
                Some(Resource::Run { org: org.to_string(), playbook: None })
            }
            ["", "orgs", org, "playbooks", pb, "tools", "mcp"] if is_org_name(org) && is_playbook_id(pb) => {
                Some(Resource::Run { org: org.to_string(), playbook: Some(pb.to_string()) })
            }
            _ => None,
        }
    }

    /// A `resource` parameter read against `PUBLIC_URL`: exactly `PUBLIC_URL` and an endpoint's
    /// path, with no query or fragment (RFC 8707 §2). Scheme and host may differ in case.
    pub fn parse(public_url: &str, resource: &str) -> Option<Resource> {
        let origin = resource.get(..public_url.len())?;
        if !origin.eq_ignore_ascii_case(public_url) {
            return None;
        }
        let path = resource.get(public_url.len()..)?;
        if !path.starts_with('/') || path.contains(['?', '#']) {
            return None;
        }
        Resource::from_path(path)
    }

    pub fn path(&self) -> String {
        match self {
            Resource::Mcp => "/mcp".into(),
            Resource::Directory => "/directory".into(),
            Resource::Org { org } => format!("/orgs/{org}/mcp"),
            Resource::Playbook { org, playbook } => format!("/orgs/{org}/playbooks/{playbook}/mcp"),
            Resource::Run { org, playbook: None } => format!("/orgs/{org}/tools/mcp"),
            Resource::Run { org, playbook: Some(playbook) } => format!("/orgs/{org}/playbooks/{playbook}/tools/mcp"),
        }
    }

    /// The canonical URL: what metadata names as `resource` and what clients send back.
    pub fn url(&self, public_url: &str) -> String {
        format!("{public_url}{}", self.path())
    }

    /// The org the path names; `/mcp` and `/directory` act in the token's own org.
    pub fn org(&self) -> Option<&str> {
        match self {
            Resource::Org { org } | Resource::Playbook { org, .. } | Resource::Run { org, .. } => Some(org),
            Resource::Mcp | Resource::Directory => None,
        }
    }

    /// Whether a token granted for `self` may be used at `request`.
    ///
    /// - `/mcp` acts in the token's own org, as `/directory` does, so it serves both; it does not
    ///   serve `/orgs/{org}/…`, which a client asks a token for by name.
    /// - `/orgs/{org}/mcp` serves itself and that org's playbook endpoints beneath it (a prefix at
    ///   a path boundary), never another org's.
    /// - `/orgs/{org}/tools/mcp`, which runs every playbook's offered workflows, serves itself
    ///   and each playbook's run-mode endpoint of that org, as `/orgs/{org}/mcp` serves both.
    /// - `/directory`, a playbook endpoint and a playbook's run-mode endpoint serve themselves alone.
    ///
    /// The shell still checks that the org a path names is the token's org.
    pub fn serves(&self, request: &Resource) -> bool {
        match (self, request) {
            (Resource::Mcp, Resource::Mcp | Resource::Directory) => true,
            (
                Resource::Org { org },
                Resource::Org { org: other } | Resource::Playbook { org: other, .. } | Resource::Run { org: other, .. },
            )
            | (Resource::Run { org, playbook: None }, Resource::Run { org: other, .. }) => org == other,
            _ => self == request,
        }
    }

    /// The `resource_name` people see when a client asks for this endpoint.
    pub fn name(&self) -> String {
        match self {
            Resource::Mcp => "Playbook runtime".into(),
            Resource::Directory => "Playbook runtime directory".into(),
            Resource::Org { org } => format!("Playbook runtime: the org {org}"),
            Resource::Playbook { org, playbook } => {
                format!("Playbook runtime: the playbook {playbook} of the org {org}")
            }
            Resource::Run { org, playbook: None } => format!("Playbook runtime: the workflows of the org {org}"),
            Resource::Run { org, playbook: Some(playbook) } => {
                format!("Playbook runtime: the workflows of the playbook {playbook} of the org {org}")
            }
        }
    }
}

/// Whether a token granted for `token` serves a request to `request_path`; an unknown path is
/// served by none.
pub fn token_serves(token: &Resource, request_path: &str) -> bool {
    Resource::from_path(request_path).is_some_and(|request| token.serves(&request))
}

impl TryFrom<String> for Resource {
    type Error = String;

    fn try_from(path: String) -> Result<Self, Self::Error> {
        Resource::from_path(&path).ok_or_else(|| format!("{path} is not an endpoint of the runtime"))
    }
}

impl From<Resource> for String {
    fn from(resource: Resource) -> String {
        resource.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://runtime.example";
    const PB: &str = "pb_abcdefghijklmnop";

    fn org(o: &str) -> Resource {
        Resource::Org { org: o.into() }
    }

    #[test]
    fn parses_resource_parameters() {
        assert_eq!(Resource::parse(URL, "https://runtime.example/mcp"), Some(Resource::Mcp));
        assert_eq!(Resource::parse(URL, "HTTPS://Runtime.Example/orgs/acme/mcp/"), Some(org("acme")));
        let pb = Resource::parse(URL, &format!("{URL}/orgs/acme/playbooks/{PB}/mcp")).unwrap();
        assert_eq!(pb.url(URL), format!("{URL}/orgs/acme/playbooks/{PB}/mcp"));
        assert_eq!(Resource::parse(URL, "https://runtime.example/directory"), Some(Resource::Directory));
        for refused in [
            "https://runtime.example",
            "https://runtime.example/",
            "https://runtime.example/mcp?x=1",
            "https://runtime.example/mcp#x",
            "https://runtime.example.evil/mcp",
            "http://runtime.example/mcp",
            "https://runtime.example/orgs/Acme/mcp",
            "https://runtime.example/orgs/acme/playbooks/x/mcp",
            "https://runtime.example/mcp//",
            "https://runtime.example/tools",
            "/mcp",
        ] {
            assert_eq!(Resource::parse(URL, refused), None, "{refused}");
        }
    }

    #[test]
    fn a_token_serves_its_own_resource() {
        let acme = org("acme");
        assert!(token_serves(&acme, "/orgs/acme/mcp"));
        assert!(token_serves(&acme, &format!("/orgs/acme/playbooks/{PB}/mcp")));
        assert!(!token_serves(&acme, "/orgs/globex/mcp"));
        assert!(!token_serves(&acme, &format!("/orgs/acme-other/playbooks/{PB}/mcp")));
        assert!(!token_serves(&acme, "/mcp") && !token_serves(&acme, "/directory"));
        assert!(token_serves(&Resource::Mcp, "/mcp") && token_serves(&Resource::Mcp, "/directory"));
        assert!(!token_serves(&Resource::Mcp, "/orgs/acme/mcp"));
        assert!(!token_serves(&Resource::Directory, "/mcp"));
        let pb = Resource::Playbook { org: "acme".into(), playbook: PB.into() };
        assert!(token_serves(&pb, &pb.path()) && !token_serves(&pb, "/orgs/acme/mcp"));
        assert!(!token_serves(&pb, "/orgs/acme/playbooks/pb_bbbbbbbbbbbbbbbb/mcp"));
        assert!(!token_serves(&Resource::Mcp, "/nowhere"));
    }

    #[test]
    fn a_run_mode_token_serves_run_mode_alone() {
        let pb_run = format!("/orgs/acme/playbooks/{PB}/tools/mcp");
        let org_run = Resource::from_path("/orgs/acme/tools/mcp").unwrap();
        assert_eq!(org_run, Resource::Run { org: "acme".into(), playbook: None });
        let one = Resource::from_path(&pb_run).unwrap();
        assert_eq!(one.path(), pb_run);
        assert!(token_serves(&org("acme"), &pb_run) && token_serves(&org("acme"), "/orgs/acme/tools/mcp"));
        assert!(token_serves(&org_run, &pb_run) && !token_serves(&org_run, "/orgs/acme/mcp"));
        assert!(!token_serves(&org_run, &format!("/orgs/acme/playbooks/{PB}/mcp")));
        assert!(!token_serves(&org_run, "/orgs/globex/tools/mcp"));
        assert!(
            !token_serves(&one, "/orgs/acme/tools/mcp")
                && !token_serves(&one, &format!("/orgs/acme/playbooks/{PB}/mcp"))
        );
        let pb = Resource::Playbook { org: "acme".into(), playbook: PB.into() };
        assert!(!token_serves(&pb, &pb_run), "a build token for one playbook is bound to that endpoint");
        assert!(!token_serves(&Resource::Mcp, "/orgs/acme/tools/mcp"));
    }

    #[test]
    fn kept_as_its_path() {
        let json = serde_json::to_string(&org("acme")).unwrap();
        assert_eq!(json, "\"/orgs/acme/mcp\"");
        assert_eq!(serde_json::from_str::<Resource>(&json).unwrap(), org("acme"));
        assert!(serde_json::from_str::<Resource>("\"/orgs/x y/mcp\"").is_err());
        assert_eq!(Resource::Mcp.org(), None);
        assert_eq!(org("acme").org(), Some("acme"));
    }
}
