//! Whether an outbound fetch follows one redirect, and how. Every `Location` meets the address
//! rules the first URL met (`tool_server::settings::check_address`), so a public server cannot
//! send the runtime to a private one; and what carries a credential stays on the origin it was
//! meant for: a hop to another origin keeps only the plain headers, and a request with a body
//! (a token request's client secret, a tool's arguments) follows no hop to another origin.

use crate::core::access::oauth::url::{self, Host};

/// The most redirects one fetch follows.
pub const MAX_HOPS: usize = 5;

/// One redirect to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// The request becomes a `GET` with no body (301 and 302 from a `POST`, 303 from anything).
    pub as_get: bool,
    /// The next address is on another origin, so only `kept_across` headers go with it.
    pub cross_origin: bool,
}

/// Whether a request of `method` to `from`, answered `status` with `Location` resolved to `to`,
/// is followed; otherwise the words that say why, to follow "it redirected to <to>, which ".
pub fn follow(status: u16, method: &str, from: &str, to: &str, deployed: bool) -> Result<Hop, String> {
    crate::core::tool_server::settings::check_address(to, deployed)?;
    let as_get = match status {
        301 | 302 => method.eq_ignore_ascii_case("POST"),
        303 => !method.eq_ignore_ascii_case("HEAD"),
        307 | 308 => false,
        other => return Err(format!("answered {other}, which is no redirect this runtime follows")),
    };
    let cross_origin = origin(from).is_none_or(|o| Some(o) != origin(to));
    let body_kept = !(as_get || method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD"));
    if cross_origin && body_kept {
        return Err("is on another origin, where the runtime does not send a request's body".into());
    }
    Ok(Hop { as_get, cross_origin })
}

/// The headers a hop to another origin keeps: none that can carry a credential or a session.
pub fn kept_across(name: &str) -> bool {
    ["accept", "accept-language", "content-type", "mcp-protocol-version", "user-agent"]
        .iter()
        .any(|h| name.eq_ignore_ascii_case(h))
}

/// An address's scheme, host and port (the default one where it names none).
fn origin(address: &str) -> Option<(String, Host, u16)> {
    let u = url::parse(address)?;
    let a = u.authority?;
    let port = a.port.unwrap_or(if u.scheme == "https" { 443 } else { 80 });
    Some((u.scheme, a.host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_location_meets_the_rules_of_the_first_address() {
        let from = "https://docs.example.com/openapi.json";
        assert!(follow(302, "GET", from, "https://cdn.example.com/openapi.json", true).is_ok());
        for private in ["http://127.0.0.1:8819/secret", "https://10.0.0.5/", "https://localhost/x", "https://intranet/"]
        {
            assert!(follow(302, "GET", from, private, true).is_err(), "{private}");
        }
        assert!(follow(302, "GET", from, "http://cdn.example.com/", true).is_err(), "https alone, deployed");
        assert!(follow(302, "GET", "http://127.0.0.1:9/a", "http://127.0.0.1:9/b", false).is_ok(), "locally");
        assert!(follow(302, "GET", from, "https://user:pw@cdn.example.com/", true).is_err());
        assert!(follow(304, "GET", from, "https://cdn.example.com/", true).is_err());
    }

    #[test]
    fn a_credential_stays_on_its_origin() {
        let from = "https://api.example.com/v1/x";
        let same = follow(307, "GET", from, "https://api.example.com:443/v2/x", true).unwrap();
        assert_eq!(same, Hop { as_get: false, cross_origin: false });
        let other = follow(302, "GET", from, "https://elsewhere.example/x", true).unwrap();
        assert!(other.cross_origin);
        assert!(follow(302, "GET", from, "https://api.example.com:8443/x", true).unwrap().cross_origin);
        assert!(follow(302, "GET", from, "http://api.example.com/x", false).unwrap().cross_origin);
        // A body (a client secret in a token request) never goes to another origin.
        assert!(follow(307, "POST", from, "https://elsewhere.example/token", true).is_err());
        assert!(follow(308, "POST", from, "https://api.example.com/token2", true).is_ok());
        let turned = follow(303, "POST", from, "https://elsewhere.example/done", true).unwrap();
        assert_eq!(turned, Hop { as_get: true, cross_origin: true });
        assert!(!kept_across("Authorization") && !kept_across("x-api-key") && !kept_across("mcp-session-id"));
        assert!(kept_across("Accept") && kept_across("mcp-protocol-version"));
    }
}
