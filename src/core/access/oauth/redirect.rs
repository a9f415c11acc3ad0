//! Redirect URIs: which a client may register (OAuth 2.1 §2.3, RFC 8252 for native apps), and
//! whether the one an authorization request names is one of them.

use super::url::{self, Url};

pub const MAX_URIS: usize = 10;
pub const MAX_URI_CHARS: usize = 2000;

/// Schemes that run code, read files or leave the browser for something other than an app:
/// never a place to send a code.
const REFUSED_SCHEMES: [&str; 12] =
    ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "ftp", "ws", "wss", "mailto", "tel"];

/// Why a redirect URI cannot be registered, in words for the client's developer.
pub fn check(uri: &str) -> Result<(), String> {
    if uri.len() > MAX_URI_CHARS {
        return Err(format!("must be at most {MAX_URI_CHARS} characters"));
    }
    let url = url::parse(uri).ok_or("must be an absolute URI without spaces or non-ASCII characters")?;
    if url.fragment.is_some() {
        return Err("must not have a fragment".into());
    }
    if REFUSED_SCHEMES.contains(&url.scheme.as_str()) {
        return Err(format!("must not use the {} scheme", url.scheme));
    }
    let host = match &url.authority {
        Some(a) if a.userinfo => return Err("must not carry a user name or password".into()),
        Some(a) => Some(&a.host),
        None => None,
    };
    let named = host.is_some_and(|h| *h != url::Host::Name(String::new()));
    match url.scheme.as_str() {
        "https" if named => Ok(()),
        "https" => Err("must name a host".into()),
        "http" if host.is_some_and(url::Host::is_loopback) => Ok(()),
        "http" => Err("may use http only on the loopback hosts 127.0.0.1, [::1] and localhost; use https".into()),
        // A private-use scheme of a native app, such as `cursor://…` or `com.example.app:/cb`.
        _ if named || url.path.len() > 1 => Ok(()),
        _ => Err("must have a host or a path after the scheme".into()),
    }
}

/// Whether `presented` names the registered URI: exactly, except that a loopback URI may come
/// back on another port, since a native app listens on whichever port is free (RFC 8252 §7.3).
pub fn matches(registered: &str, presented: &str) -> bool {
    if registered == presented {
        return true;
    }
    match (loopback(registered), loopback(presented)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A loopback URI with its port taken away, for comparison.
fn loopback(uri: &str) -> Option<Url<'_>> {
    let mut url = url::parse(uri)?;
    let authority = url.authority.as_mut()?;
    if url.scheme != "http" || !authority.host.is_loopback() || authority.userinfo {
        return None;
    }
    authority.port = None;
    Some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registrable() {
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "https://app.example/cb?tenant=1",
            "http://127.0.0.1:33418/callback",
            "http://localhost:6274/oauth/callback",
            "http://[::1]/cb",
            "cursor://anysphere.cursor-retrieval/oauth/user-callback",
            "com.example.app:/oauth2redirect",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok}");
        }
        for refused in [
            "http://app.example/cb",
            "http://127.0.0.2/cb",
            "https://app.example/cb#x",
            "javascript:alert(1)",
            "JavaScript://x/%0aalert(1)",
            "data:text/html,hi",
            "https://user:pw@app.example/cb",
            "https:///cb",
            "https:/cb",
            "/cb",
            "https://app.example/c b",
            "com.example.app:",
            "myapp://",
            "myapp:/",
        ] {
            assert!(check(refused).is_err(), "{refused}");
        }
        assert!(check(&format!("https://app.example/{}", "a".repeat(MAX_URI_CHARS))).is_err());
    }

    #[test]
    fn matching() {
        assert!(matches("https://app.example/cb", "https://app.example/cb"));
        assert!(!matches("https://app.example/cb", "https://app.example/cb/"));
        assert!(!matches("https://app.example:443/cb", "https://app.example:8443/cb"));
        assert!(matches("http://127.0.0.1:1234/cb", "http://127.0.0.1:5678/cb"));
        assert!(matches("http://127.0.0.1/cb", "http://127.0.0.1:5678/cb"));
        assert!(!matches("http://127.0.0.1:1234/cb", "http://127.0.0.1:5678/other"));
        assert!(!matches("http://127.0.0.1:1234/cb", "http://localhost:1234/cb"));
        assert!(!matches("cursor://a/cb", "cursor://a/cb2"));
    }
}
